//! Store keys: which ids are accepted and how a flow's key is spelled. The
//! memory store uses the same spelling as its map keys, and every Redis
//! client (Rust, Python, Node, C) gets the key from the core inside each
//! command, so a fleet of mixed processes shares one record per flow.

use crate::error::{Error, ErrorCode, Result};

/// The default key prefix (configurable per fleet, e.g.
/// `"snodo:once:billing:"`; every process of one fleet must use the same).
pub const DEFAULT_ONCE_PREFIX: &str = "snodo:once:";

/// The longest flow id, answers digest or owner a store accepts, in bytes.
/// Real ones are 22–43 characters of base64url; the bound keeps a bad
/// caller from growing keys without limit.
pub const MAX_ONCE_ID_BYTES: usize = 128;

/// The longest key prefix, in bytes.
pub const MAX_ONCE_PREFIX_BYTES: usize = 128;

/// The part of a flow's key after the prefix: `<prefix>flow:{<flow_id>}`.
/// The braces are a Redis Cluster hash tag: whatever else a flow's record
/// ever needs lands in the same slot, so every script stays single-slot.
pub const ONCE_FLOW_KEY_PART: &str = "flow:";

/// Checks one id (flow id, answers digest, owner): 1 to
/// [`MAX_ONCE_ID_BYTES`] bytes of base64url (`A–Z a–z 0–9 - _`). Anything
/// else could change a key's shape: `:` separates key parts, braces would
/// move a key's Redis Cluster hash slot, and a space would split a reply.
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
    if !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return Err(Error::new(
            ErrorCode::Argument,
            format!("once store: {what} must be base64url (A-Z, a-z, 0-9, '-', '_')"),
        ));
    }
    Ok(())
}

/// Checks a key prefix: at most [`MAX_ONCE_PREFIX_BYTES`] of printable
/// ASCII without spaces or braces (a brace would turn part of the prefix
/// into the Redis Cluster hash tag and scatter one flow's keys). Empty is
/// allowed (keys start at `flow:`).
pub fn check_once_prefix(prefix: &str) -> Result<()> {
    if prefix.len() > MAX_ONCE_PREFIX_BYTES
        || !prefix.bytes().all(|b| b.is_ascii_graphic() && b != b'{' && b != b'}')
    {
        return Err(Error::new(
            ErrorCode::Config,
            format!(
                "once store: the key prefix must be at most {MAX_ONCE_PREFIX_BYTES} bytes of printable ASCII without spaces or braces"
            ),
        ));
    }
    Ok(())
}

/// The key of a flow's record: `<prefix>flow:{<flow_id>}`.
pub fn once_flow_key(prefix: &str, flow_id: &str) -> Result<String> {
    check_once_prefix(prefix)?;
    check_once_id("flow id", flow_id)?;
    Ok(format!("{prefix}{ONCE_FLOW_KEY_PART}{{{flow_id}}}"))
}
