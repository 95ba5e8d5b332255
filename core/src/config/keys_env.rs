//! The key ring from text: `SNODO_KEYS`, the one spelling every server,
//! binding and the `snodo-mrtr` command read ([`parse_keys`],
//! [`Config::from_env`]). Errors are `CONFIG` and name the bad entry by
//! position (and its id when the id itself is valid), never key bytes.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use zeroize::Zeroizing;

use super::Config;
use crate::error::{Error, ErrorCode, Result};
use crate::token::{Key, MAX_KEYS, MIN_KEY_BYTES};

/// The environment variable [`Config::from_env`] reads.
pub const KEYS_ENV: &str = "SNODO_KEYS";

/// Parses a `SNODO_KEYS` value: comma-separated `id:secret` entries, the
/// secret in hex when it is an even-length hex string, else base64
/// (standard or url-safe, padding optional). Spaces around entries, ids
/// and secrets are ignored. The first key signs, all verify.
///
/// Errors (`CONFIG`) name the entry by position: a blank value, an empty
/// entry (a stray or trailing comma is refused, not skipped: it usually
/// means a key went missing in templating), an entry without `:`, a bad
/// id, a secret that is neither hex nor base64, a key shorter than 32 or
/// longer than 1024 bytes, a repeated id, more than 8 entries.
pub fn parse_keys(spec: &str) -> Result<Vec<Key>> {
    parse_keys_named(spec, KEYS_ENV)
}

/// [`parse_keys`] with `name` (the variable's) in the messages.
fn parse_keys_named(spec: &str, name: &str) -> Result<Vec<Key>> {
    let fail = |m: String| Error::new(ErrorCode::Config, m);
    if spec.trim().is_empty() {
        return Err(fail(format!("{name} is empty: `snodo-mrtr keygen` prints an entry")));
    }
    let entries: Vec<&str> = spec.split(',').map(str::trim).collect();
    // Counted before any decoding, so an absurd value costs one split.
    if entries.len() > MAX_KEYS {
        return Err(fail(format!("{name}: {} entries, at most {MAX_KEYS} keys", entries.len())));
    }
    let mut keys: Vec<Key> = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let at = format!("{name} entry {}", i + 1);
        if entry.is_empty() {
            return Err(fail(format!("{at} is empty (a stray comma?)")));
        }
        let Some((id, secret)) = entry.split_once(':') else {
            return Err(fail(format!("{at}: expected id:hex or id:base64")));
        };
        let id = id.trim();
        // The id is checked first, with Key::new's own rule (stand-in
        // bytes), so that only a valid id is ever echoed: an invalid one
        // may be part of a pasted secret.
        Key::new(id, vec![0u8; MIN_KEY_BYTES]).map_err(|e| fail(format!("{at}: {}", e.message())))?;
        let Some(bytes) = decode_secret(secret.trim()) else {
            return Err(fail(format!("{at}: key {id:?}: the secret is neither hex nor base64")));
        };
        if let Some(first) = keys.iter().position(|k| k.id() == id) {
            return Err(fail(format!("{at}: key {id:?} repeats entry {}; ids must differ", first + 1)));
        }
        // Key::new's errors name the id and the length, never the bytes.
        keys.push(Key::new(id, bytes.to_vec()).map_err(|e| fail(format!("{at}: {}", e.message())))?);
    }
    Ok(keys)
}

fn decode_secret(s: &str) -> Option<Zeroizing<Vec<u8>>> {
    if !s.is_empty() && s.len().is_multiple_of(2) && s.bytes().all(|b| b.is_ascii_hexdigit()) {
        let pair = |i: usize| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok());
        return (0..s.len()).step_by(2).map(pair).collect::<Option<Vec<u8>>>().map(Zeroizing::new);
    }
    // One alphabet and optional padding: map url-safe to standard, re-pad.
    let mut std_text: Zeroizing<String> = Zeroizing::new(
        s.chars()
            .map(|c| match c {
                '-' => '+',
                '_' => '/',
                c => c,
            })
            .collect(),
    );
    let unpadded = std_text.trim_end_matches('=').len();
    std_text.truncate(unpadded);
    while !std_text.len().is_multiple_of(4) {
        std_text.push('=');
    }
    STANDARD.decode(std_text.as_str()).ok().filter(|b| !b.is_empty()).map(Zeroizing::new)
}

impl Config {
    /// A configuration with every default and the key ring of the
    /// environment variable `SNODO_KEYS` ([`parse_keys`]); adjust its
    /// fields, then [`Engine::new`](crate::Engine::new). Unset or blank is
    /// `CONFIG` "SNODO_KEYS is not set: `snodo-mrtr keygen` prints an
    /// entry"; a bad entry is `CONFIG` naming its position (and id).
    pub fn from_env() -> Result<Config> {
        Config::from_env_var(KEYS_ENV)
    }

    /// [`Config::from_env`] reading the variable `name` instead (its
    /// messages name it).
    pub fn from_env_var(name: &str) -> Result<Config> {
        let fail = |m: String| Error::new(ErrorCode::Config, m);
        let spec = match std::env::var(name) {
            Ok(spec) if !spec.trim().is_empty() => Zeroizing::new(spec),
            Ok(_) | Err(std::env::VarError::NotPresent) => {
                return Err(fail(format!("{name} is not set: `snodo-mrtr keygen` prints an entry")));
            }
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(fail(format!("{name} is not valid UTF-8")));
            }
        };
        Ok(Config::new(parse_keys_named(&spec, name)?))
    }
}

#[cfg(test)]
#[path = "keys_env_tests.rs"]
mod tests;
