//! The optional token audience: a service name bound into
//! every token, so a token sealed by one service never opens at another that
//! shares a key by mistake.
//!
//! It is folded into the request binding rather than added to the token
//! payload: with no audience the binding, and so every v1 token byte, is
//! unchanged (the published vectors stay byte-identical); with one, the
//! binding becomes `SHA-256("snodo/v1/audience\0" || audience || "\0" ||
//! binding)`. A token presented at the wrong audience fails the binding
//! check, reason `request` (the token format has no separate field for it).
//! Low-level `seal`/`open` callers apply [`audience_binding`] themselves.

use sha2::{Digest, Sha256};

/// Longest audience accepted, in bytes.
pub const MAX_AUDIENCE_BYTES: usize = 256;

/// The binding for `audience`: `binding` itself when `None`.
pub fn audience_binding(binding: &[u8; 32], audience: Option<&str>) -> [u8; 32] {
    let Some(audience) = audience else { return *binding };
    let mut h = Sha256::new();
    h.update(b"snodo/v1/audience\0");
    h.update(audience.as_bytes());
    h.update(b"\0");
    h.update(binding);
    h.finalize().into()
}

/// Whether `audience` is acceptable in a config: non-empty, at most
/// [`MAX_AUDIENCE_BYTES`], no control characters (so the `\0` separator is
/// unambiguous).
pub fn valid_audience(audience: &str) -> bool {
    !audience.is_empty() && audience.len() <= MAX_AUDIENCE_BYTES && !audience.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_audience_keeps_the_binding() {
        let b = [9u8; 32];
        assert_eq!(audience_binding(&b, None), b);
        assert_ne!(audience_binding(&b, Some("svc-a")), b);
        assert_ne!(audience_binding(&b, Some("svc-a")), audience_binding(&b, Some("svc-b")));
    }

    #[test]
    fn validity() {
        assert!(valid_audience("https://mcp.example.com"));
        assert!(!valid_audience(""));
        assert!(!valid_audience("a\0b"));
        assert!(!valid_audience(&"a".repeat(257)));
    }
}
