//! The hashing sink: the canonical form hashed as it is written, in
//! large updates, with the count of bytes written.

use sha2::{Digest, Sha256};

use super::{Sink, copy_short};

/// A SHA-256 sink that gathers the many small pieces of the canonical form
/// (punctuation, keys, short values) into one buffer and hashes them in
/// large updates: each `Sha256::update` call has a fixed cost that
/// dominated hashing small pieces one at a time. The digest is the same.
/// The buffer lives inline (no heap allocation per digest: `begin` and
/// `decide` each take one or more digests).
#[derive(Debug)]
pub struct HashSink {
    hash: Sha256,
    buf: [u8; HashSink::CAP],
    len: usize,
    /// Bytes already given to `hash` (not counting a prefix it held when
    /// made): with `len`, the length of what was written.
    hashed: usize,
}

impl HashSink {
    const CAP: usize = 1024;

    /// Continues `hash` (which may already hold a prefix).
    pub fn new(hash: Sha256) -> HashSink {
        HashSink { hash, buf: [0; Self::CAP], len: 0, hashed: 0 }
    }

    /// How many bytes were written to this sink: the length of the
    /// canonical form it hashed, had for free by whoever needs both.
    pub fn written(&self) -> usize {
        self.hashed + self.len
    }

    /// The hash with every piece written so far.
    pub fn finish(mut self) -> Sha256 {
        self.hash.update(self.buf.get(..self.len).unwrap_or_default());
        self.hash
    }
}

impl Sink for HashSink {
    #[inline]
    fn put_byte(&mut self, byte: u8) {
        match self.buf.get_mut(self.len) {
            Some(slot) => {
                *slot = byte;
                self.len += 1;
            }
            None => self.put(&[byte]),
        }
    }

    /// As for a buffer: copied by fixed sizes into the gathering buffer
    /// when it has room, only the string's length counted.
    #[inline]
    fn put_quoted(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        let copied = self.buf.get_mut(self.len..).is_some_and(|room| {
            // Room for a quote, at most 16 bytes (`copy_short` copies no
            // more) and a quote.
            let Some((open, rest)) = room.split_first_mut() else { return false };
            if rest.len() < 17 || !copy_short(bytes, rest) {
                return false;
            }
            *open = b'"';
            rest.get_mut(n).map(|close| *close = b'"').is_some()
        });
        if copied {
            self.len += n + 2;
        } else {
            self.put_byte(b'"');
            self.put(bytes);
            self.put_byte(b'"');
        }
    }

    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        if let Some(slot) = self.buf.get_mut(self.len..end) {
            slot.copy_from_slice(bytes);
            self.len = end;
            return;
        }
        self.hash.update(self.buf.get(..self.len).unwrap_or_default());
        self.hashed += self.len;
        self.len = 0;
        match self.buf.get_mut(..bytes.len()) {
            Some(slot) => {
                slot.copy_from_slice(bytes);
                self.len = bytes.len();
            }
            None => {
                self.hash.update(bytes);
                self.hashed += bytes.len();
            }
        }
    }
}
