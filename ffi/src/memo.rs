//! The parsed questions of `snodo_call_response` and of `input_required`
//! outcomes, remembered by their text, and an outcome's state read as
//! canonical text ([`outcome`]) (issue 16, eighth pass); since the
//! thirteenth pass an outcome's questions are kept as shared trees
//! ([`Parsed`]) and handed to `decide` without a copy.
//!
//! A handler asks the same question every round, so `snodo_call_response`
//! gets the same JSON text again and again; parsing it (and freeing the
//! tree) was about a fifth of what libsnodo adds to the core per flow. A
//! few texts are kept per thread with their parsed `Value`: a repeat costs
//! a length check and a compare of the bytes. Keyed by the bytes
//! themselves (the caller's buffer is never held), so a caller who reuses
//! a buffer for another question simply misses. Only texts that parse are
//! kept, so every error is `parse_json`'s, as before; a hit is the tree
//! that parsing those very bytes gave, so the answer is the same by
//! construction (held to it by the tests below on random texts).
//! Per thread: no lock, nothing shared between the threads of a server.

use std::cell::{OnceCell, RefCell};
use std::ops::Deref;
use std::rc::Rc;
use std::sync::Arc;

use serde_json::Value;

/// Texts kept per thread (a handler asks a few distinct questions).
const ENTRIES: usize = 4;
/// Longest text kept: questions are small; a large one would cost memory
/// for a compare as long as the parse it saves is short next to it.
const MAX_BYTES: usize = 4096;

/// A text and its parse.
type Entry = (Box<[u8]>, Rc<Parsed>);

/// An outcome's questions by key, each a tree shared with `decide`.
type Asked = Vec<(String, Arc<Value>)>;

/// A kept text's parse (what [`parsed`] gives; reads as the `Value`), and,
/// for the rest of an outcome, its questions as shared trees.
pub(crate) struct Parsed {
    value: Value,
    /// Issue 16, thirteenth pass: when `value` is an `input_required`
    /// outcome without a state, its questions as `Outcome::from_value`
    /// reads them, each in an `Arc`, worked out on the first use; `None`
    /// for any other value. `from_value` is a function of the tree, so
    /// this is what it would give on every later round with these bytes.
    asked: OnceCell<Option<Asked>>,
}

impl Parsed {
    fn new(value: Value) -> Parsed {
        Parsed { value, asked: OnceCell::new() }
    }

    /// The questions of an `input_required` outcome without a state.
    fn asked(&self) -> Option<&[(String, Arc<Value>)]> {
        self.asked
            .get_or_init(|| match snodo::Outcome::from_value(self.value.clone()) {
                Ok(snodo::Outcome::InputRequired { requests, state: None }) => {
                    Some(requests.into_iter().map(|(key, q)| (key, Arc::new(q))).collect())
                }
                _ => None,
            })
            .as_deref()
    }
}

impl Deref for Parsed {
    type Target = Value;
    fn deref(&self) -> &Value {
        &self.value
    }
}

thread_local! {
    /// Newest last.
    static QUESTIONS: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

/// The parsed JSON of `text` (`parse_json`'s value or error, `what` naming
/// the argument in its message), remembered for the next call with the
/// same bytes.
pub(crate) fn parsed(text: &[u8], what: &str) -> snodo::Result<Rc<Parsed>> {
    if text.len() > MAX_BYTES {
        return snodo::parse_json(text, what).map(|v| Rc::new(Parsed::new(v)));
    }
    // `try_with`, as the core's memos: called from another thread-local's
    // destructor (a C thread-exit hook), this one may be gone, and the text
    // is then simply parsed (`with` would panic: a panic status).
    let known = QUESTIONS
        .try_with(|q| {
            let q = q.try_borrow().ok()?;
            q.iter().rev().find(|(t, _)| **t == *text).map(|(_, v)| Rc::clone(v))
        })
        .ok()
        .flatten();
    if let Some(value) = known {
        return Ok(value);
    }
    let value = Rc::new(Parsed::new(snodo::parse_json(text, what)?));
    let _gone = QUESTIONS.try_with(|q| {
        if let Ok(mut q) = q.try_borrow_mut() {
            if q.len() >= ENTRIES {
                q.remove(0);
            }
            q.push((text.into(), Rc::clone(&value)));
        }
    });
    Ok(value)
}

/// The key of the application state in an outcome (`QUOTED` below is it
/// in quotes).
const STATE: &str = "state";

/// Issue 16, eighth pass: an outcome text with a `state` read with the
/// state as canonical text (`Outcome::InputRequiredText`): the text is
/// canonicalised once by the core's streaming canonicaliser and the state
/// cut out of it (`StateText::split_member`), so the state never becomes a
/// `Value` tree to build, write and free; the rest (the kind and the
/// questions, the same every round) goes through the memo above. `None`
/// when the text has no `state` member, does not canonicalise or is not
/// an object, or the rest is not a valid outcome: the caller then reads it
/// the reference way, which words every error. The outcome is the
/// reference's by construction (`canonicalize` is held to
/// `canonical(parse_json(..))` by the core, and canonical text parses to
/// the same tree); the tests below check the tokens on random outcomes.
pub(crate) fn outcome(text: &[u8]) -> Option<snodo::Outcome> {
    // Most outcomes carry no state (`complete`, `error`, ...): reading
    // them twice would only add work. A key spelled with escapes
    // (`"st\u0061te"`) goes the reference way: still correct.
    // (The first byte checked alone: a slice compare per window is a
    // `memcmp` call per byte of the text.)
    const QUOTED: &[u8] = b"\"state\"";
    if !text.windows(QUOTED.len()).any(|w| w.first() == Some(&b'"') && w == QUOTED) {
        return None;
    }
    let (rest, state) = snodo::StateText::split_member(text, STATE)?;
    let rest = parsed(rest.as_bytes(), "outcome").ok()?;
    let state = state.filter(|s| !s.is_null());
    // Thirteenth pass: the questions the memo keeps go to `decide` shared
    // (`Outcome::InputRequiredShared`), not as a copy of the rest's tree
    // each round; the core holds the two to the same response.
    if let Some(asked) = rest.asked() {
        return Some(snodo::Outcome::InputRequiredShared { requests: asked.to_vec(), state });
    }
    match (snodo::Outcome::from_value(rest.value.clone()).ok()?, state) {
        (snodo::Outcome::InputRequired { requests, state: None }, Some(state)) => {
            Some(snodo::Outcome::InputRequiredText { requests, state })
        }
        (outcome, _) => Some(outcome),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

    use super::*;

    const QUESTION: &str = r#"{"method":"elicitation/create","params":{"mode":"form","message":"Which seat?","requestedSchema":{"type":"object","properties":{"seat":{"type":"string"}},"required":["seat"]}}}"#;

    /// Bytes the edits below put in: JSON's punctuation, digits, letters,
    /// an escape, a two-byte character and a byte that is never UTF-8.
    const BYTES: &[u8] = b"{}[]\":,01.e-ax \\\xc3\xa9\xff";

    /// `text` with up to `most` bytes changed, inserted or removed: often
    /// still JSON (another question or outcome), often not.
    fn edited(text: &str, most: usize) -> impl Strategy<Value = Vec<u8>> {
        let text = text.as_bytes().to_vec();
        let edit = (0u8..3, any::<prop::sample::Index>(), prop::sample::select(BYTES));
        prop::collection::vec(edit, 0..=most).prop_map(move |edits| {
            let mut t = text.clone();
            for (kind, at, byte) in edits {
                let at = at.index(t.len() + 1);
                match kind {
                    0 if at < t.len() => t[at] = byte,
                    1 => t.insert(at, byte),
                    _ if at < t.len() => {
                        t.remove(at);
                    }
                    _ => {}
                }
            }
            t
        })
    }

    /// A seeded runner, so a failure reproduces and the counts below are
    /// the same on every run.
    fn runner(cases: u32) -> TestRunner {
        TestRunner::new_with_rng(
            Config { cases, failure_persistence: None, ..Config::default() },
            TestRng::deterministic_rng(RngAlgorithm::ChaCha),
        )
    }

    fn reference(text: &[u8]) -> Result<Value, (snodo::ErrorCode, String)> {
        snodo::parse_json(text, "request").map_err(|e| (e.code(), e.to_string()))
    }

    fn through_memo(text: &[u8]) -> Result<Value, (snodo::ErrorCode, String)> {
        parsed(text, "request").map(|v| v.value.clone()).map_err(|e| (e.code(), e.to_string()))
    }

    #[test]
    fn memo_gives_the_parse_of_the_same_bytes_or_its_error() {
        // Runs of texts: each either one seen lately in the run (a hit, or
        // an error again) or a new edit of QUESTION.
        let step = (edited(QUESTION, 4), any::<Option<prop::sample::Index>>());
        let (hits, errors) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
        runner(600)
            .run(&prop::collection::vec(step, 1..40), |steps| {
                let mut recent: Vec<Vec<u8>> = Vec::new();
                for (new, again) in steps {
                    let text = match again {
                        Some(i) if !recent.is_empty() => recent[i.index(recent.len())].clone(),
                        _ => new,
                    };
                    let want = reference(&text);
                    hits.set(hits.get() + usize::from(want.is_ok() && recent.contains(&text)));
                    errors.set(errors.get() + usize::from(want.is_err()));
                    prop_assert_eq!(through_memo(&text), want, "{}", String::from_utf8_lossy(&text));
                    recent.push(text);
                    if recent.len() > 6 {
                        recent.remove(0);
                    }
                }
                Ok(())
            })
            .unwrap();
        // Both sides of the memo were exercised.
        assert!(hits.get() > 1000 && errors.get() > 1000, "hits {}, errors {}", hits.get(), errors.get());
    }

    #[test]
    fn a_buffer_reused_for_another_question_is_parsed_anew() {
        let mut text = QUESTION.as_bytes().to_vec();
        let first = parsed(&text, "request").unwrap();
        let at = QUESTION.find("Which seat?").unwrap();
        text[at..at + 5].copy_from_slice(b"Where");
        let second = parsed(&text, "request").unwrap();
        assert_eq!(second["params"]["message"], "Where seat?");
        assert_eq!(first["params"]["message"], "Which seat?");
        assert_eq!(**parsed(QUESTION.as_bytes(), "request").unwrap(), **first);
    }

    /// The response text (or error) of deciding `outcome` on a fresh call
    /// of a fresh engine with pinned time and randomness.
    fn decided(outcome: snodo::Result<snodo::Outcome>) -> Result<String, String> {
        let mut config =
            snodo::Config::new(vec![snodo::Key::new("k1", vec![7; 32]).unwrap()]).fixed_time(1_800_000_000);
        config.set_limit("test_random_seed", 5).unwrap();
        let engine = snodo::Engine::new(config).unwrap();
        let request = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}}}"#;
        let snodo::Begin::Call(call) =
            engine.begin(request.as_bytes(), &snodo::Principal::from_option(Some("alice")).unwrap()).unwrap()
        else {
            panic!("begin refused the request");
        };
        outcome.and_then(|o| engine.decide(&call, o)).map(|r| r.to_json()).map_err(|e| e.to_string())
    }

    #[test]
    fn outcome_with_state_text_gives_the_reference_response() {
        let base = format!(
            r#"{{"type":"input_required","inputRequests":{{"seat":{QUESTION}}},"state":{{"n":1,"b":[1.0,-0,"x\u00e9"],"a":null}}}}"#
        );
        let fixed: Vec<&[u8]> = vec![
            br#"{"type":"input_required","state":null}"#,
            br#"{"type":"input_required","inputRequests":{"seat":{"method":"x"}},"state":[1]}"#,
            br#"{"type":"complete","result":{"content":[]},"state":{"a":1}}"#,
            br#"{"type":"input_required","state":{"a":1},"state":{"a":2}}"#,
            br#"{"state":1}"#,
            br#"["state"]"#,
        ];
        // Thirteenth pass: two questions (the shared ones in key order),
        // with a state, a null one and none.
        let other = QUESTION.replace("seat", "meal");
        let two: Vec<String> = ["", r#","state":null"#, r#","state":{"z":[2]}"#]
            .iter()
            .map(|s| {
                format!(
                    r#"{{"inputRequests":{{"seat":{QUESTION},"meal":{other}}}{s},"type":"input_required"}}"#
                )
            })
            .collect();
        let (fast, shared, total) =
            (std::cell::Cell::new(0), std::cell::Cell::new(0), std::cell::Cell::new(0));
        let check = |text: &[u8]| {
            let reference = snodo::parse_json(text, "outcome").and_then(snodo::Outcome::from_value);
            let want = decided(reference);
            // Twice: the rest's memo misses, then hits.
            for _ in 0..2 {
                if let Some(o) = outcome(text) {
                    fast.set(fast.get() + 1);
                    shared.set(
                        shared.get() + usize::from(matches!(o, snodo::Outcome::InputRequiredShared { .. })),
                    );
                    assert_eq!(decided(Ok(o)), want, "{}", String::from_utf8_lossy(text));
                }
                total.set(total.get() + 1);
            }
        };
        check(base.as_bytes());
        fixed.into_iter().for_each(check);
        two.iter().for_each(|t| check(t.as_bytes()));
        runner(3000)
            .run(&edited(&base, 2), |text| {
                check(&text);
                Ok(())
            })
            .unwrap();
        let (fast, shared, total) = (fast.get(), shared.get(), total.get());
        // The fast reading was taken, and declined, often; most of what it
        // took went to `decide` with the questions shared.
        assert!(fast > total / 10 && fast < total, "{fast} of {total}");
        assert!(shared > fast / 2, "{shared} shared of {fast}");
    }

    /// Review (p9): from a thread-local's destructor, when the memo's own
    /// thread-local may be gone already (a C `pthread_key_create`
    /// destructor or a Rust thread-local calling libsnodo at thread exit),
    /// the text is parsed afresh, as the core's memos do (`try_with`), not
    /// a panic (`LocalKey::with` on a destroyed key), which every export
    /// would turn into a panic status.
    #[test]
    fn usable_from_a_thread_local_destructor() {
        struct Late(std::sync::mpsc::Sender<bool>);
        impl Drop for Late {
            fn drop(&mut self) {
                let ok = std::panic::catch_unwind(|| {
                    let text = QUESTION.as_bytes();
                    **parsed(text, "request").unwrap() == reference(text).unwrap()
                        && outcome(br#"{"type":"input_required","state":{"a":1}}"#).is_some()
                });
                let _ = self.0.send(matches!(ok, Ok(true)));
            }
        }
        thread_local! {
            static LATE: std::cell::RefCell<Option<Late>> = const { std::cell::RefCell::new(None) };
        }
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            LATE.with(|l| *l.borrow_mut() = Some(Late(tx)));
            // The memo's thread-local is registered after LATE's, so it is
            // destroyed first.
            assert!(parsed(QUESTION.as_bytes(), "request").is_ok());
        })
        .join()
        .unwrap();
        assert_eq!(rx.recv().ok(), Some(true), "the memo failed in a thread-local destructor");
    }

    #[test]
    fn long_texts_are_parsed_and_not_kept() {
        let long = format!(r#"{{"pad":"{}"}}"#, "x".repeat(MAX_BYTES));
        assert_eq!(**parsed(long.as_bytes(), "request").unwrap(), reference(long.as_bytes()).unwrap());
        QUESTIONS.with(|q| assert!(q.borrow().iter().all(|(t, _)| t.len() <= MAX_BYTES)));
    }
}
