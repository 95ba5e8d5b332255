//! The Rust public surface, snapshotted: every item reachable from the crate
//! root (the `pub use` re-exports of `lib.rs` and the items `lib.rs`
//! defines), each with its kind, must equal `core/public-api.txt`. A change
//! to the API is then a visible diff of that file, made on purpose; the
//! same list is in docs/api.md ("Rust public API").
//!
//! Run with `SNODO_BLESS=1` to rewrite the file after a deliberate change.
//!
//! Also checked: modules are private (the only `pub mod` is the hidden
//! `internal`), so each public item has exactly one path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::{Path, PathBuf};

const KINDS: &[&str] = &["struct", "enum", "fn", "const", "type", "trait", "static"];

fn core_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `lib.rs` up to the hidden `internal` module (which is not API).
fn lib_text() -> String {
    let lib = fs::read_to_string(core_dir().join("src/lib.rs")).unwrap();
    lib.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// `(module, name)` for every `pub use module::{…};` of `lib.rs`.
fn reexports(lib: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = lib;
    while let Some(at) = rest.find("\npub use ") {
        rest = &rest[at + "\npub use ".len()..];
        let end = rest.find(';').expect("a `pub use` without `;`");
        let statement: String = rest[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        let (module, names) = statement.split_once("::").expect("`pub use module::…`");
        for name in names.trim_start_matches('{').trim_end_matches('}').split(',') {
            let name = name.trim();
            if !name.is_empty() {
                out.push((module.to_owned(), name.to_owned()));
            }
        }
    }
    out
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rs_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The kind of the public item `name` defined somewhere in `module`.
fn kind_of(module: &str, name: &str) -> Option<&'static str> {
    let src = core_dir().join("src");
    let mut files = Vec::new();
    let file = src.join(format!("{module}.rs"));
    if file.is_file() {
        files.push(file);
    }
    let dir = src.join(module);
    if dir.is_dir() {
        rs_files(&dir, &mut files);
    }
    for file in files {
        let text = fs::read_to_string(&file).unwrap();
        for line in text.lines() {
            let t = line.trim_start();
            for kind in KINDS {
                let prefix = format!("pub {kind} {name}");
                if t.strip_prefix(&prefix)
                    .is_some_and(|after| after.starts_with(|c: char| !(c.is_alphanumeric() || c == '_')))
                {
                    return Some(kind);
                }
            }
        }
    }
    None
}

/// The surface as sorted `kind name` lines.
fn surface() -> Vec<String> {
    let lib = lib_text();
    let public = lib.split("pub mod internal").next().unwrap_or(&lib);
    let mut lines = Vec::new();
    for (module, name) in reexports(public) {
        let kind = kind_of(&module, &name).unwrap_or_else(|| {
            panic!("lib.rs re-exports `{module}::{name}`, but no `pub <kind> {name}` is in {module}")
        });
        lines.push(format!("{kind} {name}"));
    }
    // Items lib.rs defines itself, outside `internal`.
    let after_internal = lib.split("pub mod internal").nth(1).map_or("", |s| {
        // Skip the internal module's braces.
        let mut depth = 0usize;
        for (i, c) in s.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return &s[i + 1..];
                    }
                }
                _ => {}
            }
        }
        ""
    });
    for text in [public, after_internal] {
        for line in text.lines() {
            for kind in KINDS {
                if let Some(rest) = line.strip_prefix(&format!("pub {kind} ")) {
                    let name: String =
                        rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    lines.push(format!("{kind} {name}"));
                }
            }
        }
    }
    lines.sort();
    lines.dedup();
    lines
}

#[test]
fn public_surface_matches_the_snapshot() {
    let path = core_dir().join("public-api.txt");
    let header = "# The snodo Rust public API: every item at the crate root, one per line.\n\
                  # Checked by core/tests/public_api.rs; SNODO_BLESS=1 rewrites it.\n";
    let now = format!("{header}{}\n", surface().join("\n"));
    if std::env::var_os("SNODO_BLESS").is_some() {
        fs::write(&path, &now).unwrap();
        return;
    }
    let before = fs::read_to_string(&path).unwrap_or_default();
    if before != now {
        let old: Vec<&str> = before.lines().filter(|l| !l.starts_with('#')).collect();
        let new: Vec<&str> = now.lines().filter(|l| !l.starts_with('#')).collect();
        let added: Vec<&&str> = new.iter().filter(|l| !old.contains(l)).collect();
        let removed: Vec<&&str> = old.iter().filter(|l| !new.contains(l)).collect();
        panic!(
            "the public API drifted from core/public-api.txt\n  added: {added:?}\n  removed: {removed:?}\n\
             If deliberate, rerun with SNODO_BLESS=1 and update docs/api.md (Rust public API)."
        );
    }
}

#[test]
fn modules_are_private() {
    let lib = lib_text();
    let public_mods: Vec<&str> =
        lib.lines().filter(|l| l.starts_with("pub mod ") || l.starts_with("pub(crate) mod ")).collect();
    assert_eq!(
        public_mods,
        vec!["pub mod internal {"],
        "only the hidden `internal` module may be public at the root"
    );
    assert!(lib.contains("#[doc(hidden)]\npub mod internal"), "`internal` must stay #[doc(hidden)]");
}

#[test]
fn every_root_item_is_in_docs_api_md() {
    let docs = fs::read_to_string(core_dir().join("../docs/api.md")).unwrap();
    let section =
        docs.split("### Rust public API").nth(1).expect("docs/api.md has a `### Rust public API` section");
    let section = section.split("\n#").next().unwrap_or(section);
    let missing: Vec<String> = surface()
        .into_iter()
        .filter_map(|l| l.split_once(' ').map(|(_, n)| n.to_owned()))
        .filter(|n| !section.contains(&format!("`{n}`")))
        .collect();
    assert!(missing.is_empty(), "docs/api.md's Rust public API section does not list: {missing:?}");
}
