//! Node bindings of snodo: npm package `snodo-mrtr`.
//!
//! Every export is argument conversion plus one core call; the rules live
//! in the core. Files are named as the core's concepts (and as in `ffi/` and
//! `bindings-python/`):
//!
//! * `engine`: the `Engine` class (`begin`, `decide`, `seal`, `open`).
//! * `config`: `new Engine(config)` read through the core's `LIMITS` table.
//! * `call`: `Call` (what a handler reads) and its answers;
//!   `call_handle`: the native half of the JS `Call` that `begin` makes;
//!   `raw_entry`: the entries of every round as plain N-API callbacks.
//! * `response`: the outcome helpers and `Response` (`src/response.js`).
//! * `elicitation`: input-request builders; `capabilities`: what a client
//!   can receive; `tasks`: the Tasks extension helper.
//! * `legacy`: 2025-era sessions (`Session`, `PendingFlow`, the engine's
//!   `beginLegacy`, `decideLegacy`, `feed`, `timeout`).
//! * `http_headers`: the Streamable HTTP header check; `http_origin`: the
//!   `Origin`/`Host` check against web pages (`OriginPolicy`,
//!   `checkHttpOrigin`).
//! * `once`: at most once per flow: the core's once machine (`OnceRun`),
//!   `MemoryStore` and the Lua scripts (`runOnce`, `checkOnce` and
//!   `RedisStore` are JS: `once.js`).
//! * `token`: low-level seal/open and the request binding.
//! * `json`: how JSON crosses (text exactly, values via `JSON.stringify`),
//!   `canonicalize`; `state`: application state as canonical text, without
//!   a `Value` (issue 16).
//! * `error`: `err.code` on every thrown error (`SnodoErrorCode`,
//!   `ERROR_CODES`, `TOKEN_REASONS`).
//!
//! Every export is `#[napi(catch_unwind)]`: a panic becomes a thrown JS
//! error instead of aborting Node.

// No index or slice that could panic outside tests (as in the core); a
// site that must index says why it is in bounds beside a local allow.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

#[macro_use]
extern crate napi_derive;

/// Every Rust allocation of the addon (never V8's or Node's) goes to
/// mimalloc (see `Cargo.toml` and docs/benchmarks.md, issue 16).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

unsafe extern "C" {
    // mimalloc's own C API, from the library the `mimalloc` crate links in
    // (`mimalloc.h`); the crate declares these only with its `extended`
    // feature, which would add a dependency edge for two functions.
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    fn mi_option_get(option: std::ffi::c_int) -> std::ffi::c_long;
}

/// `mi_option_purge_delay`'s place in the bundled mimalloc's
/// `mi_option_e` (v3, libmimalloc-sys 0.1.49, pinned in Cargo.lock).
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

/// How long mimalloc keeps freed memory before giving it back, ms.
pub const PURGE_DELAY_MS: std::ffi::c_long = 1000;

/// Sets mimalloc's purge delay explicitly (issue 16, sixth pass), unless
/// the environment sets it (`MIMALLOC_PURGE_DELAY`).
///
/// Why: left unset, this build gave freed pages back to the OS within
/// milliseconds (as an explicit `MIMALLOC_PURGE_DELAY=10` does), although
/// the option reads 1000, and the next request faulted them back in, each
/// a zeroed transparent huge page: `clear_page_erms` was about a third of
/// a Node `begin` with 32 KiB of arguments (perf), where a Call's trees
/// and texts are freed and made again on every request. With 1000 ms set
/// explicitly (as `MIMALLOC_PURGE_DELAY=1000` does) the kernel's share
/// fell to about 5 % and the row took about 25 % less time; rounds with
/// small requests did not move, and 100 000 flows (`benches/memory.mjs`)
/// stayed flat.
pub(crate) fn tune_allocator() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: a plain C call on mimalloc's option table (an integer
        // store, thread-safe in mimalloc), with a valid option index.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    }
}

/// mimalloc's purge delay as it stands (for the test below).
pub fn purge_delay() -> std::ffi::c_long {
    // SAFETY: a plain C call that reads mimalloc's option table.
    unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }
}

pub mod call;
pub mod call_handle;
pub mod capabilities;
pub mod config;
pub mod elicitation;
pub mod engine;
pub mod error;
pub mod http_headers;
pub mod http_origin;
pub mod inspect;
pub mod json;
pub mod legacy;
pub mod once;
pub mod questions;
pub mod raw_entry;
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
    /// The option index is mimalloc's purge delay: setting it through
    /// `tune_allocator` reads back (a wrong index would set another option
    /// and read back that option's value, or nothing).
    #[test]
    fn the_purge_delay_is_set_at_load() {
        let before = super::purge_delay();
        super::tune_allocator();
        let want = match std::env::var("MIMALLOC_PURGE_DELAY") {
            Ok(v) => v.parse().unwrap(),
            Err(_) => super::PURGE_DELAY_MS,
        };
        assert_eq!(super::purge_delay(), want, "was {before}");
    }

    /// Every exported function and method must be wrapped in
    /// `std::panic::catch_unwind` (napi-derive does it for
    /// `#[napi(catch_unwind)]`), so a panic throws instead of aborting Node.
    #[test]
    fn every_export_catches_unwind() {
        let sources = [
            ("lib.rs", include_str!("lib.rs")),
            ("call.rs", include_str!("call.rs")),
            ("call_handle.rs", include_str!("call_handle.rs")),
            ("capabilities.rs", include_str!("capabilities.rs")),
            ("config.rs", include_str!("config.rs")),
            ("elicitation.rs", include_str!("elicitation.rs")),
            ("engine.rs", include_str!("engine.rs")),
            ("error.rs", include_str!("error.rs")),
            ("http_headers.rs", include_str!("http_headers.rs")),
            ("http_origin.rs", include_str!("http_origin.rs")),
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
