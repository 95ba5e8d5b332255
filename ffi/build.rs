//! Exports only `snodo_*` from libsnodo.so (linker version script), names it
//! `libsnodo.so.MAJOR` (SONAME) and, with the `header` feature, regenerates
//! the committed `include/snodo.h`.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=snodo.map");
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={dir}/snodo.map");
        // A program linked with -lsnodo records this name, not libsnodo.so,
        // so it keeps loading the same major after a minor upgrade and never
        // loads a different major (scripts/install.sh makes the symlinks).
        let major = std::env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_else(|_| "0".into());
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libsnodo.so.{major}");
    }
    #[cfg(feature = "header")]
    header(&dir);
}

#[cfg(feature = "header")]
fn header(dir: &str) {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    // Watching the output too means a hand edit of the header is undone on
    // the next build (cbindgen only rewrites the file when it changed).
    println!("cargo:rerun-if-changed=../include/snodo.h");
    let config = match cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")) {
        Ok(c) => c,
        Err(e) => {
            println!("cargo:warning=cbindgen.toml: {e}");
            std::process::exit(1);
        }
    };
    match cbindgen::generate_with_config(dir, config) {
        Ok(bindings) => {
            bindings.write_to_file(format!("{dir}/../include/snodo.h"));
        }
        Err(e) => {
            println!("cargo:warning=cbindgen: {e}");
            std::process::exit(1);
        }
    }
}
