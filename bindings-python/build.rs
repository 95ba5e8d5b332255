// Gives `cargo test` binaries a RUNPATH to the interpreter's libpython, so
// they load the same libpython they were linked against. A no-op under
// maturin, whose extension module links no libpython at all.
fn main() {
    pyo3_build_config::add_libpython_rpath_link_args();
}
