//! Store keys: which ids are accepted and how keys are spelled. The same
//! spelling is used by the memory store (as map keys) and by every Redis
//! client (Rust, Python, Node), so a fleet of mixed processes shares keys.

use crate::error::{Error, ErrorCode, Result};

/// The default key prefix of the Redis store (configurable per fleet, e.g.
/// `"snodo:once:billing:"`; every process of one fleet must use the same).
pub const DEFAULT_ONCE_PREFIX: &str = "snodo:once:";

/// The longest token id, flow id or answers digest a store accepts, in
/// bytes. Real ones are 22–43 characters of base64url; the bound keeps a
/// bad caller from growing keys without limit.
pub const MAX_ONCE_ID_BYTES: usize = 128;

/// The longest key prefix, in bytes.
pub const MAX_ONCE_PREFIX_BYTES: usize = 128;

/// The part of a consume-once key after the prefix: `<prefix>token:<token_id>`.
pub const ONCE_TOKEN_KEY_PART: &str = "token:";

/// The part of a remembered-result key after the prefix:
/// `<prefix>result:<flow_id>:<digest>`.
pub const ONCE_RESULT_KEY_PART: &str = "result:";

/// Checks one id (token id, flow id, answers digest): non-empty, at most
/// [`MAX_ONCE_ID_BYTES`], printable ASCII without spaces or `:`. The colon
/// is refused because it separates key parts: with it, flow `a:b` + digest
/// `c` and flow `a` + digest `b:c` would share a key.
pub fn check_once_id(what: &str, id: &str) -> Result<()> {
    if id.is_empty() {
        return Err(Error::new(ErrorCode::Argument, format!("once store: {what} is empty")));
    }
    if id.len() > MAX_ONCE_ID_BYTES {
        return Err(Error::new(
            ErrorCode::Argument,
            format!("once store: {what} is {} bytes, more than {MAX_ONCE_ID_BYTES}", id.len()),
        ));
    }
    if !id.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
        return Err(Error::new(
            ErrorCode::Argument,
            format!("once store: {what} must be printable ASCII without spaces or ':'"),
        ));
    }
    Ok(())
}

/// Checks a key prefix: at most [`MAX_ONCE_PREFIX_BYTES`] of printable ASCII
/// (colons allowed, spaces not). Empty is allowed (keys start at `token:`).
pub fn check_once_prefix(prefix: &str) -> Result<()> {
    if prefix.len() > MAX_ONCE_PREFIX_BYTES || !prefix.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(Error::new(
            ErrorCode::Config,
            format!(
                "once store: the key prefix must be at most {MAX_ONCE_PREFIX_BYTES} bytes of printable ASCII"
            ),
        ));
    }
    Ok(())
}

/// The consume-once key of `token_id`: `<prefix>token:<token_id>`.
pub fn once_token_key(prefix: &str, token_id: &str) -> Result<String> {
    check_once_prefix(prefix)?;
    check_once_id("token id", token_id)?;
    Ok(format!("{prefix}{ONCE_TOKEN_KEY_PART}{token_id}"))
}

/// The remembered-result key of a final round:
/// `<prefix>result:<flow_id>:<digest>`.
pub fn once_result_key(prefix: &str, flow_id: &str, digest: &str) -> Result<String> {
    check_once_prefix(prefix)?;
    check_once_id("flow id", flow_id)?;
    check_once_id("answers digest", digest)?;
    Ok(format!("{prefix}{ONCE_RESULT_KEY_PART}{flow_id}:{digest}"))
}
