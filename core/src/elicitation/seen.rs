//! Issue 16: the input requests this thread has seen pass
//! [`validate_input_request`](super::validate_input_request), by the
//! SHA-256 of their canonical form, so that `decide` asking the same
//! question again (a handler's fixed question, every call) need not
//! validate it again.
//!
//! Why that is the same check: validation is a function of the request's
//! value, and the canonical form is a faithful spelling of the value
//! (strings and numbers exact, arrays in order, members sorted), so two
//! requests with the same digest are the same value and pass or fail
//! alike; telling two apart under one digest would take a SHA-256
//! collision. Only passes are kept (a failure is always reported by
//! validating), a few per thread (no lock between threads).

use std::cell::RefCell;

/// Digests kept per thread; the oldest is replaced.
const KEEP: usize = 16;

struct Passed {
    digests: [[u8; 32]; KEEP],
    /// How many slots are filled, and the next one to replace.
    filled: usize,
    next: usize,
}

thread_local! {
    static PASSED: RefCell<Passed> =
        const { RefCell::new(Passed { digests: [[0; 32]; KEEP], filled: 0, next: 0 }) };
}

/// Whether a request with this digest passed validation on this thread.
pub(crate) fn passed_before(digest: &[u8; 32]) -> bool {
    PASSED.with(|p| {
        let p = p.borrow();
        p.digests.get(..p.filled).is_some_and(|kept| kept.contains(digest))
    })
}

/// Notes that a request with this digest passed validation.
pub(crate) fn remember_passed(digest: [u8; 32]) {
    PASSED.with(|p| {
        let mut p = p.borrow_mut();
        if p.digests.get(..p.filled).is_some_and(|kept| kept.contains(&digest)) {
            return;
        }
        let at = p.next;
        if let Some(slot) = p.digests.get_mut(at) {
            *slot = digest;
        }
        p.next = (at + 1) % KEEP;
        p.filled = (p.filled + 1).min(KEEP);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_few_passes() {
        assert!(!passed_before(&[1; 32]));
        remember_passed([1; 32]);
        assert!(passed_before(&[1; 32]));
        assert!(!passed_before(&[0; 32]), "an empty slot is not a pass");
        for i in 0..KEEP as u8 {
            remember_passed([i + 2; 32]);
        }
        assert!(!passed_before(&[1; 32]), "the oldest is replaced");
        assert!(passed_before(&[KEEP as u8 + 1; 32]));
    }
}
