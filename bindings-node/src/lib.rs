//! Node bindings of snodo (npm `snodo-mrtr`): each export converts its arguments, makes one core
//! call and converts the result; each is `#[napi(catch_unwind)]` (a panic throws, never aborts).
//! Files are named as the core's concepts; `once.js`, `tasks.js`, `mcp.js` are the async JS parts.

// No index or slice that could panic outside tests (as in the core).
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

#[macro_use]
extern crate napi_derive;

/// The addon's own allocations (never V8's) go to mimalloc: a round's many small blocks were 1.5
/// times slower on the system allocator (a round: 27 against 18 µs).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod call;
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
pub mod question;
pub mod response;
pub mod tasks;
pub mod token;

/// The version of this addon (the Cargo workspace version, which `package.json` must equal: the
/// test suite checks it).
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
            ("http_origin.rs", include_str!("http_origin.rs")),
            ("inspect.rs", include_str!("inspect.rs")),
            ("json.rs", include_str!("json.rs")),
            ("legacy.rs", include_str!("legacy.rs")),
            ("once.rs", include_str!("once.rs")),
            ("question.rs", include_str!("question.rs")),
            ("response.rs", include_str!("response.rs")),
            ("tasks.rs", include_str!("tasks.rs")),
            ("token.rs", include_str!("token.rs")),
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
