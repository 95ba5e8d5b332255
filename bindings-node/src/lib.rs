//! Node bindings of snodo: npm package `snodo-mrtr`.
//!
//! Table of contents (mirrors the core's modules):
//!
//! * `engine`: the `Engine` class, its config, low-level `seal`/`open`.
//! * `call`: `Call` (what a handler reads), `Response`, the outcome helpers.
//! * `builders`: input-request builders, capability helpers, canonical form.
//! * `json`: how JSON crosses (text exactly, values via `JSON.stringify`).
//! * `error`: `err.code` on every thrown error (`SnodoErrorCode`).
//!
//! Every export is `#[napi(catch_unwind)]`: a panic becomes a thrown JS
//! error instead of aborting Node.

#[macro_use]
extern crate napi_derive;

pub mod builders;
pub mod call;
pub mod engine;
pub mod error;
pub mod json;
pub mod types;

/// The version of this addon (the Cargo workspace version, which
/// `package.json` must equal: the test suite checks it).
#[napi(catch_unwind)]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    /// Every exported function and method must be wrapped in
    /// `std::panic::catch_unwind` (napi-derive does it for
    /// `#[napi(catch_unwind)]`), so a panic throws instead of aborting Node.
    #[test]
    fn every_export_catches_unwind() {
        let sources = [
            ("lib.rs", include_str!("lib.rs")),
            ("builders.rs", include_str!("builders.rs")),
            ("call.rs", include_str!("call.rs")),
            ("engine.rs", include_str!("engine.rs")),
            ("error.rs", include_str!("error.rs")),
        ];
        let mut exports = 0;
        for (file, src) in sources {
            for (at, _) in src.match_indices("#[napi") {
                let attr_end = at + src[at..].find(']').unwrap();
                let attr = &src[at..=attr_end];
                if attr.starts_with("#[napi_") {
                    continue;
                }
                // Skip doc comments and other attributes to reach the item.
                let mut rest = src[attr_end + 1..].trim_start();
                while rest.starts_with("///") || rest.starts_with("#[") {
                    let cut = if rest.starts_with("///") { rest.find('\n') } else { rest.find(']') };
                    rest = rest[cut.unwrap() + 1..].trim_start();
                }
                if rest.starts_with("pub fn") || rest.starts_with("fn") {
                    exports += 1;
                    assert!(
                        attr.contains("catch_unwind"),
                        "{file}: export without catch_unwind: {attr} {}",
                        &rest[..40]
                    );
                }
            }
        }
        assert!(exports > 30, "found only {exports} exports");
    }
}
