//! Issue 16, tenth pass: the payload's fixed-length base64url fields (the
//! binding, the principal tag, the question digests, the two ids) decoded
//! in one call of the `base64` crate instead of one call each.
//!
//! Each field was its own call into the crate's scalar engine (its texts
//! are 22 or 43 characters, under the block engine's threshold), and the
//! per-call set-up cost more than the decoding: about a tenth of a
//! retry's `begin` outside SHA-256. Here each field's text is copied into
//! one buffer, filled out with `A` (the symbol of six zero bits) to whole
//! quads, and the buffer decoded once by the token's block engine
//! (`b64::url`). Quads decode independently, so each field's bytes are
//! where its quads fell; a field's own decoding (`decode_fixed`) takes the
//! same symbols and refuses only a symbol outside the alphabet (the whole
//! buffer is then refused) or stray bits after the last byte, which after
//! the filling land in the quad's bytes past the field's: those must be
//! zero. A property test holds this to decoding each field on its own.

use base64::Engine as _;

/// Question digests that join the batch; any more are decoded one by one.
pub(super) const BATCH_QUESTIONS: usize = 4;

/// Room for the binding and the digests (43 symbols, filled to 44) and
/// the principal tag and the two ids (22 symbols, filled to 24).
const ROOM: usize = 44 * (1 + BATCH_QUESTIONS) + 24 * 3;

/// Where a queued field's bytes start in the decoded batch.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slot<const N: usize>(usize);

/// Field texts queued for one decode.
pub(super) struct Batch {
    text: [u8; ROOM],
    len: usize,
}

/// The batch decoded: every queued field's bytes, and the bytes the
/// filling made after each.
pub(super) struct Decoded {
    bytes: [u8; ROOM / 4 * 3],
}

impl Batch {
    pub(super) fn new() -> Batch {
        Batch { text: [b'A'; ROOM], len: 0 }
    }

    /// Queues the text of an `N`-byte field (`T` symbols), or `None` when
    /// there is no room left (the caller decodes it on its own) or `T` is
    /// not the unpadded length of `N` bytes.
    pub(super) fn push<const N: usize, const T: usize>(&mut self, text: &[u8; T]) -> Option<Slot<N>> {
        if T != (N * 4).div_ceil(3) {
            return None;
        }
        let quads = T.div_ceil(4) * 4;
        let end = self.len.checked_add(quads)?;
        if end > ROOM {
            return None;
        }
        // The room is `A` already, so the filling is in place.
        self.text.get_mut(self.len..self.len + T)?.copy_from_slice(text);
        let slot = Slot(self.len / 4 * 3);
        self.len = end;
        Some(slot)
    }

    /// Decodes every queued field at once; `None` if any symbol is not
    /// base64url.
    pub(super) fn decode(&self) -> Option<Decoded> {
        let mut bytes = [0u8; ROOM / 4 * 3];
        let text = self.text.get(..self.len)?;
        let n = super::super::b64::url().decode_slice(text, &mut bytes).ok()?;
        (n == self.len / 4 * 3).then_some(Decoded { bytes })
    }
}

impl Decoded {
    /// The field at `slot`: its bytes, or `None` when the symbols had bits
    /// set after its last byte (text that is not the one encoding of any
    /// bytes, which `decode_fixed` refuses).
    pub(super) fn get<const N: usize>(&self, slot: Slot<N>) -> Option<[u8; N]> {
        let end = slot.0.checked_add(N)?;
        let filled = slot.0.checked_add(N.div_ceil(3) * 3)?;
        let stray = self.bytes.get(end..filled)?.iter().fold(0u8, |acc, b| acc | b);
        if stray != 0 {
            return None;
        }
        self.bytes.get(slot.0..end)?.try_into().ok()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use proptest::prelude::*;

    use super::super::decode_fixed;
    use super::*;

    /// Field text: mostly base64url of the field's length, sometimes with
    /// a symbol swapped for another or for a byte outside the alphabet.
    fn field(len: usize) -> impl Strategy<Value = Vec<u8>> {
        let symbol = prop_oneof![
            40 => prop::sample::select(
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".to_vec()
            ),
            1 => prop::sample::select(b"+/=. \0\x80".to_vec()),
        ];
        prop::collection::vec(symbol, len..=len)
    }

    /// How a field's bytes are read back once the batch is decoded.
    type Reads = Box<dyn Fn(&Decoded) -> Option<Vec<u8>>>;

    fn each<const N: usize, const T: usize>(
        batch: &mut Batch,
        text: &[u8],
        slots: &mut Vec<Reads>,
        alone: &mut Vec<Option<Vec<u8>>>,
        queued: &mut Vec<bool>,
    ) {
        let text: [u8; T] = text.try_into().unwrap();
        alone.push(
            std::str::from_utf8(&text).ok().and_then(|s| decode_fixed::<N>(s).ok()).map(|a| a.to_vec()),
        );
        match batch.push::<N, T>(&text) {
            Some(slot) => {
                queued.push(true);
                slots.push(Box::new(move |d: &Decoded| d.get(slot).map(|a| a.to_vec())));
            }
            // No room: the caller decodes it alone, as the reference does.
            None => {
                queued.push(false);
                let own = alone.last().unwrap().clone();
                slots.push(Box::new(move |_| own.clone()));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Every field decoded in the batch comes out as decoding it alone
        /// gives it (bytes, or a refusal), whatever else is in the batch.
        #[test]
        fn the_batch_decodes_each_field_as_alone(
            long in prop::collection::vec(field(43), 1..8),
            short in prop::collection::vec(field(22), 3..4),
        ) {
            let mut batch = Batch::new();
            let (mut slots, mut alone, mut queued) = (Vec::new(), Vec::new(), Vec::new());
            each::<32, 43>(&mut batch, &long[0], &mut slots, &mut alone, &mut queued);
            for s in &short {
                each::<16, 22>(&mut batch, s, &mut slots, &mut alone, &mut queued);
            }
            for l in &long[1..] {
                each::<32, 43>(&mut batch, l, &mut slots, &mut alone, &mut queued);
            }
            match batch.decode() {
                Some(decoded) => {
                    let got: Vec<_> = slots.iter().map(|f| f(&decoded)).collect();
                    prop_assert_eq!(got, alone);
                }
                // Refused as a whole: some field in it was refused alone.
                None => prop_assert!(alone.iter().zip(&queued).any(|(a, q)| *q && a.is_none())),
            }
        }
    }

    #[test]
    fn a_wrong_length_is_not_queued() {
        assert!(Batch::new().push::<32, 44>(&[b'A'; 44]).is_none());
        assert!(Batch::new().push::<16, 22>(&[b'A'; 22]).is_some());
    }
}
