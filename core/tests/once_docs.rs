//! docs/once.md shows the Lua scripts that every language must send byte
//! for byte; this keeps the page equal to the `ONCE_*` constants.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use snodo::{
    DEFAULT_ONCE_PREFIX, ONCE_CLAIM_SCRIPT, ONCE_COMPLETE_SCRIPT, ONCE_EXTEND_SCRIPT, ONCE_LOOKUP_SCRIPT,
    ONCE_RELEASE_SCRIPT,
};

#[test]
fn the_scripts_in_docs_once_md_are_the_constants() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/once.md")).unwrap();
    let blocks: Vec<String> =
        page.split("```lua\n").skip(1).map(|b| b.split("```").next().unwrap().to_owned()).collect();
    assert_eq!(
        blocks,
        vec![
            ONCE_CLAIM_SCRIPT,
            ONCE_COMPLETE_SCRIPT,
            ONCE_RELEASE_SCRIPT,
            ONCE_EXTEND_SCRIPT,
            ONCE_LOOKUP_SCRIPT
        ]
    );
    assert!(page.contains(&format!("`{DEFAULT_ONCE_PREFIX}`")));
}
