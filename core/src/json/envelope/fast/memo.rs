//! Issue 16, twelfth pass: the `_meta` objects a client sends on every
//! request (`clientCapabilities`, `clientInfo`), read once per thread.
//!
//! A client sends the same capabilities, byte for byte, with each call;
//! building their tree (two keys and two maps for `{"elicitation":{"form":
//! {}}}`) and freeing it again was about a tenth of a retry's `begin`.
//! This keeps the last few such objects as their exact text and the tree
//! the hand reader built of it, shared (`Arc`): a request whose member
//! starts with a kept text gets a count on that tree instead.
//!
//! Why a hit is exactly the tree the reader would build: the reader's
//! result is a function of the bytes it reads (the same call site, so the
//! same nesting bound). A kept text is a whole object the reader read
//! without giving up, so it ends at its own closing brace: a message whose
//! bytes from here start with it holds that object, and reading it would
//! stop at the same byte with the same tree. Only successes are kept (a
//! text the reader gives up on goes to the serde walk every time), only
//! objects, only short ones, a few per thread; no lock between threads.
//! The fast reader's property tests against the serde walk run through
//! this, warm and cold (`fast/tests.rs`).

use std::cell::RefCell;
use std::sync::Arc;

use serde_json::Value;

/// Texts kept per thread; the oldest is replaced.
const KEEP: usize = 8;
/// Longest text kept (capabilities and client info are a few dozen bytes;
/// an object this long is read each time).
pub(super) const MAX_TEXT: usize = 1024;

struct Kept {
    entries: Vec<(Box<[u8]>, Arc<Value>)>,
    /// The entry to replace next once `KEEP` are kept.
    next: usize,
}

thread_local! {
    static KEPT: RefCell<Kept> = const { RefCell::new(Kept { entries: Vec::new(), next: 0 }) };
}

/// The kept object whose text `rest` starts with: its length and tree.
pub(super) fn find(rest: &[u8]) -> Option<(usize, Arc<Value>)> {
    // `try_with`: from another thread-local's destructor this one may be
    // gone; the reader then builds the tree, as before.
    KEPT.try_with(|k| {
        let k = k.borrow();
        k.entries
            .iter()
            .find(|(text, _)| rest.starts_with(text))
            .map(|(text, tree)| (text.len(), Arc::clone(tree)))
    })
    .ok()
    .flatten()
}

/// Keeps `tree`, which the reader built from exactly `text` (an object).
pub(super) fn keep(text: &[u8], tree: &Arc<Value>) {
    if text.len() > MAX_TEXT || text.first() != Some(&b'{') {
        return;
    }
    let _gone = KEPT.try_with(|k| {
        let mut k = k.borrow_mut();
        let entry = (Box::from(text), Arc::clone(tree));
        if k.entries.len() < KEEP {
            k.entries.push(entry);
        } else {
            let at = k.next;
            if let Some(slot) = k.entries.get_mut(at) {
                *slot = entry;
            }
            k.next = (at + 1) % KEEP;
        }
    });
}

/// Forgets every kept text (tests: a cold reader).
#[cfg(test)]
pub(super) fn clear() {
    let _gone = KEPT.try_with(|k| {
        let mut k = k.borrow_mut();
        k.entries.clear();
        k.next = 0;
    });
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_kept_prefix_and_stays_bounded() {
        clear();
        let tree = Arc::new(serde_json::json!({"a": {}}));
        keep(br#"{"a":{}}"#, &tree);
        let (len, hit) = find(br#"{"a":{}},"x":1}"#).unwrap();
        assert_eq!(len, 8);
        assert!(Arc::ptr_eq(&hit, &tree));
        assert!(find(br#"{"a":{ }}"#).is_none(), "other bytes are not a hit");
        keep(br#"[1]"#, &tree);
        assert!(find(b"[1]").is_none(), "only objects are kept");
        keep(&[b'{'; MAX_TEXT + 1], &tree);
        assert!(find(&[b'{'; MAX_TEXT + 2]).is_none(), "long texts are not kept");
        for i in 0..KEEP * 2 {
            keep(format!(r#"{{"k":{i}}}"#).as_bytes(), &tree);
            assert!(KEPT.with(|k| k.borrow().entries.len()) <= KEEP);
        }
        assert!(find(br#"{"a":{}}"#).is_none(), "the oldest is replaced");
        assert!(find(format!(r#"{{"k":{}}}"#, KEEP * 2 - 1).as_bytes()).is_some());
        clear();
    }
}
