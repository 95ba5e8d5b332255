//! The token id and flow id every token carries, and where their
//! random bytes (and v2 nonces) come from.
//!
//! Production draws from the operating system (`getrandom`) on every seal:
//! no userspace generator, nothing seeded once. Tests and the
//! cross-language vectors set `test_random_seed`, which replaces the OS by
//! a deterministic function of the seed and the seal's own inputs, so that
//! every language reproduces the same token bytes (docs/token-format.md).

use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorCode, Result};

use super::Ids;
#[cfg(test)]
use super::*;

/// Bytes of a token id and of a flow id.
pub(crate) const ID_BYTES: usize = 16;

/// Where a sealer's random bytes come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Random {
    /// The operating system, on every call (production).
    Os,
    /// Tests only (`test-knobs`): bytes derived from this seed and the
    /// seal's inputs.
    #[cfg(any(test, feature = "test-knobs"))]
    Seeded(u64),
}

/// What a deterministic draw is derived from, besides the seed: the seal's
/// time, round, flow start and binding, so that ids differ from round to
/// round without any counter (a counter would depend on how many seals an
/// engine made, which differs between the languages' vector runners).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(any(test, feature = "test-knobs")), allow(dead_code))]
pub(crate) struct Draw<'a> {
    pub(crate) now: u64,
    pub(crate) round: u32,
    pub(crate) flow_start: u64,
    pub(crate) binding: &'a [u8; 32],
}

impl Random {
    /// From the config's `test_random_seed` (0 = the operating system).
    #[cfg(feature = "test-knobs")]
    pub(crate) fn from_seed(seed: u64) -> Random {
        if seed == 0 { Random::Os } else { Random::Seeded(seed) }
    }

    /// `out.len()` (at most 32) bytes for `label`. Only the seeded source
    /// reads `label` and `draw`.
    #[cfg_attr(not(any(test, feature = "test-knobs")), allow(unused_variables))]
    pub(crate) fn fill(&self, label: &str, draw: &Draw<'_>, out: &mut [u8]) -> Result<()> {
        match *self {
            Random::Os => getrandom::fill(out)
                .map_err(|_| Error::new(ErrorCode::Config, "the operating system gave no random bytes")),
            #[cfg(any(test, feature = "test-knobs"))]
            Random::Seeded(seed) => {
                // SHA-256("snodo/test-random\0" ‖ seed ‖ label ‖ 0 ‖ now ‖
                // round ‖ flow start ‖ binding), integers big-endian.
                let mut h = Sha256::new();
                h.update(b"snodo/test-random\0");
                h.update(seed.to_be_bytes());
                h.update(label.as_bytes());
                h.update([0]);
                h.update(draw.now.to_be_bytes());
                h.update(draw.round.to_be_bytes());
                h.update(draw.flow_start.to_be_bytes());
                h.update(draw.binding);
                let full: [u8; 32] = h.finalize().into();
                // Up to 32 bytes of `out` (the ids are 16 bytes each).
                for (o, f) in out.iter_mut().zip(full) {
                    *o = f;
                }
                Ok(())
            }
        }
    }

    /// The ids of one seal: a fresh token id, and the flow id `flow` of
    /// the token opened on this request or a fresh one. From the operating
    /// system both fresh ids come from one call (each call is a
    /// syscall whose set-up showed in `decide`'s profile); the seeded
    /// source draws each under its own label, as the vectors pin.
    pub(crate) fn ids(&self, draw: &Draw<'_>, flow: Option<&[u8; ID_BYTES]>) -> Result<Ids> {
        match (self, flow) {
            (Random::Os, None) => {
                let mut both = [0u8; 2 * ID_BYTES];
                self.fill("ids", draw, &mut both)?;
                let (token, flow) = both.split_at(ID_BYTES);
                let mut ids = Ids { token: [0; ID_BYTES], flow: [0; ID_BYTES] };
                ids.token.copy_from_slice(token);
                ids.flow.copy_from_slice(flow);
                Ok(ids)
            }
            _ => Ok(Ids {
                token: self.id("token-id", draw)?,
                flow: match flow {
                    Some(f) => *f,
                    None => self.id("flow-id", draw)?,
                },
            }),
        }
    }

    /// A fresh 16-byte id for `label` (`"token-id"` or `"flow-id"`).
    pub(crate) fn id(&self, label: &str, draw: &Draw<'_>) -> Result<[u8; ID_BYTES]> {
        let mut out = [0u8; ID_BYTES];
        self.fill(label, draw, &mut out)?;
        Ok(out)
    }
}

/// The ids of a v1 token of the first layout (it has none): derived from
/// its MAC tag, so they are stable for that token and distinct between
/// tokens. `SHA-256(label ‖ 0 ‖ tag)[..16]` with the labels
/// `snodo/v1/legacy-token-id` and `snodo/v1/legacy-flow-id`.
pub(crate) fn legacy_ids(tag: &[u8]) -> ([u8; ID_BYTES], [u8; ID_BYTES]) {
    let derive = |label: &[u8]| {
        let mut h = Sha256::new();
        h.update(label);
        h.update([0]);
        h.update(tag);
        let full: [u8; 32] = h.finalize().into();
        let mut out = [0u8; ID_BYTES];
        out.copy_from_slice(&full[..ID_BYTES]);
        out
    };
    (derive(b"snodo/v1/legacy-token-id"), derive(b"snodo/v1/legacy-flow-id"))
}

/// The text form of an id, as the payload and every binding spell it:
/// base64url without padding (22 characters). `open` holds it in place
/// (`IdText`); the tests hold that to this.
#[cfg(test)]
pub(crate) fn id_text(id: &[u8; ID_BYTES]) -> String {
    b64(id)
}

#[cfg(test)]
mod review_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Both ids of one `getrandom` call are distinct
    /// across seals, the token id is never the flow id, each of the 256
    /// bits is set about half the time (a split that dropped or repeated
    /// bytes would show), and a given flow id is kept as it is.
    #[test]
    fn os_ids_are_fresh_distinct_and_balanced() {
        let binding = [1u8; 32];
        let draw = Draw { now: 1, round: 1, flow_start: 1, binding: &binding };
        const N: usize = 2000;
        let mut seen = std::collections::HashSet::new();
        let mut ones = [0usize; 2 * ID_BYTES * 8];
        for _ in 0..N {
            let ids = Random::Os.ids(&draw, None).unwrap();
            assert_ne!(ids.token, ids.flow);
            assert!(seen.insert(ids.token) && seen.insert(ids.flow), "an id came twice");
            for (i, byte) in ids.token.iter().chain(ids.flow.iter()).enumerate() {
                for bit in 0..8 {
                    ones[i * 8 + bit] += usize::from(byte >> bit & 1);
                }
            }
        }
        // Binomial(2000, 1/2): sd about 22; 30%..70% is 18 sd out.
        assert!(ones.iter().all(|&n| (N * 3 / 10..N * 7 / 10).contains(&n)), "{ones:?}");
        let flow = [9u8; ID_BYTES];
        let kept = Random::Os.ids(&draw, Some(&flow)).unwrap();
        assert_eq!(kept.flow, flow);
        assert_ne!(kept.token, flow);
        assert_ne!(Random::Os.ids(&draw, Some(&flow)).unwrap().token, kept.token);
    }
}
