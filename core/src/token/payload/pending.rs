//! Issue 16, tenth pass: the payload's fixed-length base64url fields (the
//! binding, the principal tag, the question digests, the two ids) encoded
//! in one call of the `base64` crate instead of one call each, the other
//! direction of `fields.rs`.
//!
//! Each field was its own call, under the block encoder's threshold (128
//! bytes), so into the crate's scalar engine, and its set-up cost about as
//! much as the encoding. `write_head` now leaves room for each field's
//! text (as it always did for the flow id, drawn later) and queues the
//! bytes; `write_tail` encodes the queue at once and copies each field's
//! text into its room. The queue holds each field's bytes filled out with
//! zero bytes to whole three-byte groups: groups encode independently, and
//! the text without padding of a field is the first characters of its
//! filled group's (the zero bits after its last byte are what the unpadded
//! encoder writes too). The queue is filled out with zeros to the block
//! encoder's threshold, which costs less than the scalar engine. A
//! property test holds the result to encoding each field on its own.

use base64::Engine as _;

/// Fields in the queue: the binding, the principal tag, the two ids and
/// this many question digests; any more are encoded where written.
const QUEUED_DIGESTS: usize = 4;
const PLACES: usize = 4 + QUEUED_DIGESTS;

/// Room for the 32-byte fields (filled to 33) and the 16-byte ones (18).
const ROOM: usize = 33 * (1 + QUEUED_DIGESTS) + 18 * 3;

/// Bytes the queue is encoded with at least: the `base64` crate's block
/// encoder takes inputs from 128 bytes (a whole number of groups).
const BLOCK_FLOOR: usize = 129;
const _: () = assert!(BLOCK_FLOOR <= ROOM, "the queue holds the block encoder's floor");

/// Field bytes waiting to be encoded, and where each one's text goes.
pub(crate) struct Pending {
    raw: [u8; ROOM],
    len: usize,
    /// The text's place in the payload, and its length.
    places: [(usize, usize); PLACES],
    count: usize,
}

impl Pending {
    pub(crate) fn new() -> Pending {
        Pending { raw: [0; ROOM], len: 0, places: [(0, 0); PLACES], count: 0 }
    }

    /// Appends room for the base64url text of `bytes` to `out`, queued to
    /// be filled by [`Pending::finish`].
    pub(crate) fn put<const N: usize>(&mut self, out: &mut Vec<u8>, bytes: &[u8; N]) {
        let place = out.len();
        out.resize(place + (N * 4).div_ceil(3), b'-');
        self.queue(out, place, bytes);
    }

    /// Queues `bytes` for the room at `place` in `out` (as long as their
    /// text); encoded into it at once when the queue is full.
    pub(crate) fn queue<const N: usize>(&mut self, out: &mut [u8], place: usize, bytes: &[u8; N]) {
        let text = (N * 4).div_ceil(3);
        let end = self.len + N.div_ceil(3) * 3;
        let queued = end <= ROOM && self.count < PLACES;
        match (queued, self.raw.get_mut(self.len..self.len + N), self.places.get_mut(self.count)) {
            (true, Some(room), Some(slot)) => {
                room.copy_from_slice(bytes);
                *slot = (place, text);
                self.count += 1;
                self.len = end;
            }
            _ => {
                if let Some(room) = out.get_mut(place..place + text) {
                    // Exactly the text's length, so this cannot fail.
                    let _ = super::super::b64::url().encode_slice(bytes, room);
                }
            }
        }
    }

    /// Encodes the queue and writes each field's text into its room.
    pub(crate) fn finish(&mut self, out: &mut [u8]) {
        let mut text = [0u8; (ROOM / 3) * 4];
        let len = self.len.clamp(BLOCK_FLOOR, ROOM);
        let (Some(raw), Some(room)) = (self.raw.get(..len), text.get_mut(..len / 3 * 4)) else {
            return;
        };
        if super::super::b64::url().encode_slice(raw, room).is_err() {
            return;
        }
        // Each field starts a group: its text starts at 4 characters for
        // each 3 bytes before it.
        let mut at = 0;
        for &(place, n) in self.places.get(..self.count).unwrap_or_default() {
            if let (Some(to), Some(from)) = (out.get_mut(place..place + n), text.get(at..at + n)) {
                to.copy_from_slice(from);
            }
            at += n.div_ceil(4) * 4;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use proptest::prelude::*;

    use super::super::put_b64;
    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Any mix of 32- and 16-byte fields, with other bytes between
        /// them, comes out as encoding each field where it is written.
        #[test]
        fn queued_fields_encode_as_each_alone(
            fields in prop::collection::vec((any::<bool>(), any::<[u8; 32]>(), "[a-z,:\"]{0,5}"), 0..12),
        ) {
            let (mut got, mut want) = (Vec::new(), Vec::new());
            let mut pending = Pending::new();
            // A room left first and queued last, as the flow id is.
            let late = [0xa5u8; 16];
            got.extend_from_slice(b"fid:");
            got.extend_from_slice(&[b'-'; 22]);
            want.extend_from_slice(b"fid:");
            put_b64(&mut want, &late);
            for (long, bytes, between) in &fields {
                got.extend_from_slice(between.as_bytes());
                want.extend_from_slice(between.as_bytes());
                if *long {
                    pending.put(&mut got, bytes);
                    put_b64(&mut want, bytes);
                } else {
                    let short: [u8; 16] = bytes[..16].try_into().unwrap();
                    pending.put(&mut got, &short);
                    put_b64(&mut want, &short);
                }
            }
            pending.queue(&mut got, 4, &late);
            pending.finish(&mut got);
            prop_assert_eq!(String::from_utf8(got).unwrap(), String::from_utf8(want).unwrap());
        }
    }
}
