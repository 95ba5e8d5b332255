//! Node bindings of snodo: npm package `snodo-mrtr`.
//!
//! Every export is argument conversion plus one core call; the rules live
//! in the core. Files are named as the core's concepts (and as in `ffi/` and
//! `bindings-python/`):
//!
//! * `engine`: the `Engine` class (`begin`, `decide`, `seal`, `open`).
//! * `config`: `new Engine(config)` read through the core's `LIMITS` table.
//! * `call`: `Call` (what a handler reads) and its answers.
//! * `response`: the outcome helpers and `Response` (`src/response.js`).
//! * `elicitation`: input-request builders; `capabilities`: what a client
//!   can receive; `tasks`: the Tasks extension helper.
//! * `legacy`: 2025-era sessions (`Session`, `PendingFlow`, the engine's
//!   `beginLegacy`, `decideLegacy`, `feed`, `timeout`).
//! * `http_headers`: the Streamable HTTP header check.
//! * `once`: at most once (issue 17): `MemoryStore`, the Redis key spelling
//!   and scripts (`runOnce` and `RedisStore` are JS: `once.js`).
//! * `token`: low-level seal/open and the request binding.
//! * `json`: how JSON crosses (text exactly, values via `JSON.stringify`),
//!   `canonicalize`; `state`: application state as canonical text, without
//!   a `Value` (issue 16).
//! * `error`: `err.code` on every thrown error (`SnodoErrorCode`,
//!   `ERROR_CODES`, `TOKEN_REASONS`).
//!
//! Every export is `#[napi(catch_unwind)]`: a panic becomes a thrown JS
//! error instead of aborting Node.

#[macro_use]
extern crate napi_derive;

/// Every Rust allocation of the addon (never V8's or Node's) goes to
/// mimalloc (see `Cargo.toml` and docs/benchmarks.md, issue 16).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod call;
pub mod capabilities;
pub mod config;
pub mod elicitation;
pub mod engine;
pub mod error;
pub mod http_headers;
pub mod inspect;
pub mod json;
pub mod legacy;
pub mod once;
pub mod questions;
pub mod response;
pub mod state;
pub mod tasks;
pub mod token;

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
            ("call.rs", include_str!("call.rs")),
            ("capabilities.rs", include_str!("capabilities.rs")),
            ("config.rs", include_str!("config.rs")),
            ("elicitation.rs", include_str!("elicitation.rs")),
            ("engine.rs", include_str!("engine.rs")),
            ("error.rs", include_str!("error.rs")),
            ("http_headers.rs", include_str!("http_headers.rs")),
            ("json.rs", include_str!("json.rs")),
            ("legacy.rs", include_str!("legacy.rs")),
            ("once.rs", include_str!("once.rs")),
            ("response.rs", include_str!("response.rs")),
            ("tasks.rs", include_str!("tasks.rs")),
            ("token.rs", include_str!("token.rs")),
        ];
        let mut exports = 0;
        for (file, src) in sources {
            for (at, _) in src.match_indices("#[napi") {
                let attr_end = at + src[at..].find(']').unwrap();
                let attr = &src[at..=attr_end];
                // `module_exports`: the load hook (src/response.rs), not a
                // function JS can call; napi-derive has no catch_unwind for
                // it, so it must have no panicking path (it has none).
                if attr.starts_with("#[napi_") || attr == "#[napi(module_exports)]" {
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
