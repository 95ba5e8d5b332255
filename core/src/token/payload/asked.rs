//! Issue 16, eighth pass: the digests of the questions this thread asks
//! again and again, kept beside a copy of each question, so that `decide`
//! asking a handler's fixed question does not write its canonical form and
//! hash it (three or four SHA-256 blocks and a walk) on every call.
//!
//! Why the digest is the same: the digest is the SHA-256 of the canonical
//! form, and the canonical form is a function of the value alone. Two
//! `Value`s that compare equal are the same value: strings and keys byte
//! for byte, numbers by their spelling (the `arbitrary_precision` feature
//! keeps it, and the canonical form writes it as spelled), arrays in order,
//! objects with the same members whatever order a map keeps them in (the
//! canonical form sorts them). So they have the same canonical bytes, the
//! same digest, and the same depth, hence the same answer to the depth
//! bound.
//!
//! What is kept: only questions that were digested within the depth bound
//! and had already passed validation on this thread (`passed`, which
//! `decide` gives as `elicitation::passed_before`), so
//! a question is copied the second time it is asked, never the first: a
//! handler whose every question differs (a message naming the booking,
//! say) pays the comparisons and no copies. At most [`KEEP`] per thread,
//! each at most [`KEEP_BYTES`] (a larger question is never kept), the
//! oldest replaced; copies of questions the server wrote itself, never
//! anything the client sent.

use std::cell::RefCell;

use serde_json::Value;

use super::question_digest_and_len_within;

/// Questions kept per thread.
const KEEP: usize = 4;

/// Largest question kept, in bytes of its canonical form. Review (p9): a
/// question is as large as the handler makes it (a long message, a schema
/// with a big `enum`), and a copy kept here lives as long as the thread,
/// in every thread of a server; past a few KiB the copy is memory held
/// for good, while the saving (three or four SHA-256 blocks and a walk) is
/// small next to building such a question in the first place. So a larger
/// one is simply digested every time. The length is the digest walk's own
/// count, so measuring it costs nothing.
const KEEP_BYTES: usize = 4096;

struct Asked {
    kept: Vec<(Value, [u8; 32])>,
    /// The slot the next copy replaces once all are filled.
    next: usize,
}

thread_local! {
    static ASKED: RefCell<Asked> = const { RefCell::new(Asked { kept: Vec::new(), next: 0 }) };
}

/// The digest of `request`, or `None` when it nests past the depth bound:
/// exactly [`super::question_digest_within`], from this thread's copies when an
/// equal question was kept. `passed` says whether a digest passed
/// validation on this thread (a question is kept only then).
pub(crate) fn question_digest_asked(request: &Value, passed: &dyn Fn(&[u8; 32]) -> bool) -> Option<[u8; 32]> {
    // `try_with`: a seal from another thread-local's destructor finds
    // this one gone, and simply digests.
    let kept = ASKED
        .try_with(|a| {
            let a = a.try_borrow().ok()?;
            a.kept.iter().find(|(q, _)| q == request).map(|(_, d)| *d)
        })
        .ok()
        .flatten();
    if kept.is_some() {
        return kept;
    }
    let (digest, len) = question_digest_and_len_within(request)?;
    if passed(&digest) && len <= KEEP_BYTES {
        let _gone = ASKED.try_with(|a| {
            // Not reached while borrowed (nothing here calls back), but a
            // busy memo is skipped rather than a panic.
            let Ok(mut a) = a.try_borrow_mut() else { return };
            let entry = (request.clone(), digest);
            if a.kept.len() < KEEP {
                a.kept.push(entry);
            } else {
                let at = a.next;
                if let Some(slot) = a.kept.get_mut(at) {
                    *slot = entry;
                }
                a.next = (at + 1) % KEEP;
            }
        });
    }
    Some(digest)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    use super::super::question_digest_within;
    use super::*;
    use crate::elicitation::{passed_before, remember_passed};

    /// Questions that are often equal, or differ in one small way: a
    /// number's spelling, a key, a string's last byte, nesting.
    fn arb_question() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            Just(json!(1)),
            Just(json!(1.0)),
            Just(json!(10)),
            Just(json!("seat")),
            Just(json!("seat ")),
            Just(json!("se\"at")),
            any::<bool>().prop_map(Value::from),
        ];
        leaf.prop_recursive(70, 200, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::vec((prop::sample::select(vec!["a", "b", "type", "é"]), inner), 0..3)
                    .prop_map(|kv| Value::Object(
                        kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect::<Map<_, _>>()
                    )),
            ]
        })
    }

    /// Deeper than the bound: an array nested `n` levels.
    fn nested(n: usize) -> Value {
        (0..n).fold(json!("x"), |v, _| Value::Array(vec![v]))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// The kept digest is the digest, for random questions asked in
        /// random order, passed or not, some nested past the bound.
        #[test]
        fn kept_digest_is_the_digest(
            asks in prop::collection::vec((arb_question(), any::<bool>(), 0usize..3), 1..12),
        ) {
            for (q, pass, deep) in asks {
                let q = match deep {
                    1 => Value::Array(vec![q, nested(crate::json::MAX_DEPTH)]),
                    _ => q,
                };
                let expected = question_digest_within(&q);
                prop_assert_eq!(question_digest_asked(&q, &passed_before), expected);
                if let (true, Some(d)) = (pass, expected) {
                    remember_passed(d, crate::elicitation::RequestKind::Form);
                }
                prop_assert_eq!(question_digest_asked(&q, &passed_before), expected);
            }
        }
    }

    /// A question is copied on its second asking (after passing), answered
    /// from the copy after that, and a changed question is not.
    #[test]
    fn kept_from_the_second_asking() {
        let q = json!({"method": "elicitation/create", "params": {"message": "kept test", "n": 1}});
        let d = question_digest_within(&q).unwrap();
        let has = |q: &Value| ASKED.with(|a| a.borrow().kept.iter().any(|(k, _)| k == q));
        assert_eq!(question_digest_asked(&q, &passed_before), Some(d));
        assert!(!has(&q), "not copied before it passed");
        remember_passed(d, crate::elicitation::RequestKind::Form);
        assert_eq!(question_digest_asked(&q, &passed_before), Some(d));
        assert!(has(&q), "copied on the second asking");
        assert_eq!(question_digest_asked(&q, &passed_before), Some(d));
        let changed = json!({"method": "elicitation/create", "params": {"message": "kept test", "n": 1.0}});
        assert_ne!(question_digest_asked(&changed, &passed_before), Some(d), "1.0 is not 1");
        assert_eq!(question_digest_asked(&nested(crate::json::MAX_DEPTH + 1), &passed_before), None);
    }

    /// Review (p9): a large question is digested but never kept, however
    /// often it passes, so a thread does not hold a handler's one huge
    /// question (up to the envelope bounds) for the rest of its life; a
    /// question just under the cap still is.
    #[test]
    fn large_questions_are_not_kept() {
        let has = |q: &Value| ASKED.with(|a| a.borrow().kept.iter().any(|(k, _)| k == q));
        let big = json!({"method": "elicitation/create", "params": {"message": "x".repeat(64 * 1024)}});
        let d = question_digest_within(&big).unwrap();
        remember_passed(d, crate::elicitation::RequestKind::Form);
        for _ in 0..3 {
            assert_eq!(question_digest_asked(&big, &passed_before), Some(d));
        }
        assert!(!has(&big), "a 64 KiB question was kept");
        let over = json!({"method": "elicitation/create", "params": {"message": "y".repeat(KEEP_BYTES)}});
        let d = question_digest_within(&over).unwrap();
        remember_passed(d, crate::elicitation::RequestKind::Form);
        assert_eq!(question_digest_asked(&over, &passed_before), Some(d));
        assert!(!has(&over), "a question just over the cap was kept");
        let under =
            json!({"method": "elicitation/create", "params": {"message": "z".repeat(KEEP_BYTES / 2)}});
        let d = question_digest_within(&under).unwrap();
        remember_passed(d, crate::elicitation::RequestKind::Form);
        assert_eq!(question_digest_asked(&under, &passed_before), Some(d));
        assert!(has(&under), "a question under the cap is kept");
        assert_eq!(question_digest_asked(&under, &passed_before), Some(d));
    }
}
