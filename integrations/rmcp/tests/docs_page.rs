//! docs/with-rmcp.md's install block names the rmcp this crate is built and
//! tested with (its Rust blocks are this crate's doctests, in src/lib.rs).

#[test]
fn the_install_block_pins_the_tested_rmcp() {
    let page = include_str!("../../../docs/with-rmcp.md");
    let manifest = include_str!("../Cargo.toml");
    let block = page.split("```toml\n").nth(1).and_then(|b| b.split("```").next()).unwrap_or_default();
    let pin = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("rmcp = "))
            .and_then(|l| l.split("version = \"").nth(1))
            .and_then(|v| v.split('"').next())
            .map(str::to_owned)
    };
    assert_eq!(
        pin(block),
        pin(manifest),
        "docs/with-rmcp.md's rmcp version differs from integrations/rmcp/Cargo.toml's"
    );
    assert!(pin(block).is_some(), "docs/with-rmcp.md's install block names no rmcp version");
    for line in
        ["snodo = { path = \"<checkout>/core\" }", "snodo-rmcp = { path = \"<checkout>/integrations/rmcp\" }"]
    {
        assert!(block.contains(line), "the install block lacks {line}");
    }
}
