//! The C ABI of snodo (filled in by the libsnodo work).
