//! Issue 16: `snodo::internal::json::trusted_state_text`, the hand-over of
//! a binding's own canonical writer's text: canonical text is taken as is
//! (the same `StateText` as canonicalising it), and the size cap that
//! `StateText::new` enforces still holds.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use snodo::StateText;
use snodo::internal::json::trusted_state_text;

#[test]
fn canonical_text_is_the_same_state_as_canonicalising_it() {
    for text in ["null", "{}", "[]", r#"{"a":[1,2.5,"\u0001é"],"b":null}"#, "-0", r#""x""#] {
        let checked = StateText::new(text).unwrap();
        assert_eq!(checked.as_str(), text, "the samples are canonical already");
        assert_eq!(trusted_state_text(text.to_owned()), Some(checked));
    }
}

#[test]
fn the_size_cap_still_holds() {
    let cap = snodo::MAX_ARGUMENT_BYTES;
    // A JSON string of exactly the cap, and one byte over it.
    let at_cap = format!("\"{}\"", "x".repeat(cap - 2));
    assert_eq!(trusted_state_text(at_cap.clone()).map(|s| s.as_str().len()), Some(cap));
    let over = format!("\"{}\"", "x".repeat(cap - 1));
    assert!(trusted_state_text(over.clone()).is_none());
    assert!(StateText::new(over).is_err(), "the checked path refuses it too");
    assert!(StateText::new(at_cap).is_ok());
}
