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
//!
//! Thirteenth pass: each pass keeps the kind validation found, so that
//! [`Call::response`](crate::Call::response) reading an answer to a
//! question that passed before need not validate it again either (the
//! kind is a function of the value, like the pass itself).

use std::cell::RefCell;

use super::RequestKind;

/// Digests kept per thread; the oldest is replaced.
const KEEP: usize = 16;

struct Passed {
    /// Each pass's digest and the kind validation found.
    kept: [([u8; 32], RequestKind); KEEP],
    /// How many slots are filled, and the next one to replace.
    filled: usize,
    next: usize,
}

thread_local! {
    static PASSED: RefCell<Passed> = const {
        RefCell::new(Passed { kept: [([0; 32], RequestKind::Form); KEEP], filled: 0, next: 0 })
    };
}

/// Whether a request with this digest passed validation on this thread.
pub(crate) fn passed_before(digest: &[u8; 32]) -> bool {
    passed_kind(digest).is_some()
}

/// The kind validation found for a request with this digest, when one
/// passed on this thread; `None` otherwise (the caller validates).
pub(crate) fn passed_kind(digest: &[u8; 32]) -> Option<RequestKind> {
    // `try_with`: a call from another thread-local's destructor finds
    // this one gone, and simply validates.
    PASSED
        .try_with(|p| {
            let p = p.try_borrow().ok()?;
            let kept = p.kept.get(..p.filled)?;
            kept.iter().find(|(d, _)| d == digest).map(|&(_, kind)| kind)
        })
        .ok()
        .flatten()
}

/// Notes that a request with this digest passed validation as `kind`.
pub(crate) fn remember_passed(digest: [u8; 32], kind: RequestKind) {
    let _gone = PASSED.try_with(|p| {
        // Nothing here calls back, but a busy memo is skipped, never a panic.
        let Ok(mut p) = p.try_borrow_mut() else { return };
        if p.kept.get(..p.filled).is_some_and(|kept| kept.iter().any(|(d, _)| *d == digest)) {
            return;
        }
        let at = p.next;
        if let Some(slot) = p.kept.get_mut(at) {
            *slot = (digest, kind);
        }
        p.next = (at + 1) % KEEP;
        p.filled = (p.filled + 1).min(KEEP);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_few_passes() {
        assert!(!passed_before(&[1; 32]));
        remember_passed([1; 32], RequestKind::Url);
        assert!(passed_before(&[1; 32]));
        assert_eq!(passed_kind(&[1; 32]), Some(RequestKind::Url), "the kind found is kept");
        remember_passed([1; 32], RequestKind::Form);
        assert_eq!(passed_kind(&[1; 32]), Some(RequestKind::Url), "a digest is kept once");
        assert!(!passed_before(&[0; 32]), "an empty slot is not a pass");
        assert_eq!(passed_kind(&[0; 32]), None, "an empty slot has no kind");
        for i in 0..KEEP as u8 {
            remember_passed([i + 2; 32], RequestKind::Sampling);
        }
        assert!(!passed_before(&[1; 32]), "the oldest is replaced");
        assert!(passed_before(&[KEEP as u8 + 1; 32]));
    }
}
