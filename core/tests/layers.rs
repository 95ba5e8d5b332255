//! The core's layering, checked: every `crate::…` path in a production file
//! of `core/src` must name a module in a layer *below* the file's own (or
//! the file's own module). A newcomer can then read the crate bottom up,
//! and no rule can quietly depend on the engine again.
//!
//! The check is textual on purpose (no parser dependency): it reads every
//! `.rs` file under `core/src` except `lib.rs` (the table of contents) and
//! test modules (`tests.rs` files and inline `mod tests { … }`), skips
//! comment lines, and resolves each `crate::X` (or each `X` of
//! `crate::{X, …}`) to a top module: `X` itself if it is a module, else the
//! module `lib.rs` re-exports `X` from. Items defined in `lib.rs` itself
//! (`MRTR_VERSION`, …) sit below every layer.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The layer order, bottom up. A module may import only from earlier rows.
const LAYERS: &[(&str, &[&str])] = &[
    ("foundation: the error type", &["error"]),
    ("foundation: strict JSON and the canonical form", &["json"]),
    ("leaf rules", &["answer", "audience", "error_policy", "result_check", "schema"]),
    ("questions: input requests as values", &["elicitation"]),
    ("protocol objects on questions", &["capabilities", "token"]),
    ("extension rules", &["tasks"]),
    ("request and reply", &["call", "config", "response"]),
    ("at most once per flow: the machine on a call, and its stores", &["once"]),
    ("validated configuration", &["policy"]),
    ("the two steps", &["begin", "decide", "http_headers", "http_origin"]),
    ("the task machine on the two steps", &["task_machine"]),
    ("the legacy bridge on the two steps", &["legacy"]),
    ("the thin front", &["engine"]),
    ("tools on the engine", &["inspect"]),
];

/// Longest production file allowed, in lines (test files are exempt).
const MAX_PRODUCTION_LINES: usize = 400;

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, mods)| mods.contains(&module))
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rs_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The top module a file belongs to (`token/seal.rs` → `token`), or `None`
/// for `lib.rs`.
fn top_module(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_string_lossy().into_owned();
    if first == "lib.rs" {
        return None;
    }
    Some(first.trim_end_matches(".rs").to_owned())
}

fn is_test_file(file: &Path) -> bool {
    file.file_name().is_some_and(|n| n == "tests.rs")
}

/// The production part of a file: comment lines dropped, and everything
/// from an inline `#[cfg(test)] mod tests {` on.
fn production_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]")
            && lines[i + 1..].iter().take(3).any(|l| l.trim_start().starts_with("mod tests {"))
        {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push((i + 1, *line));
    }
    out
}

/// The identifiers a `crate::` path starts with, at each occurrence.
fn crate_paths(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("crate::") {
        // `$crate::` or an identifier ending in `crate` is not this crate's root.
        let before = rest[..at].chars().last();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let ident: String =
                    item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !ident.is_empty() {
                    found.push(ident);
                }
            }
        } else {
            let ident: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !ident.is_empty() {
                found.push(ident);
            }
        }
    }
    found
}

/// `lib.rs`'s declared modules and, for each re-exported name, its module.
fn read_lib(src: &Path) -> (Vec<String>, BTreeMap<String, String>) {
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap_or_else(|e| panic!("reading lib.rs: {e}"));
    let mut modules = Vec::new();
    let mut reexports = BTreeMap::new();
    // Join multi-line `pub use x::{…};` statements before reading them.
    let mut statement = String::new();
    for line in lib.lines() {
        let t = line.trim();
        if let Some(m) = t.strip_prefix("mod ").and_then(|m| m.strip_suffix(';')) {
            modules.push(m.to_owned());
            continue;
        }
        if t.starts_with("pub use ") || !statement.is_empty() {
            statement.push_str(t);
            statement.push(' ');
            if t.ends_with(';') {
                let body = statement.trim().trim_start_matches("pub use ").trim_end_matches(';').to_owned();
                statement.clear();
                let Some((module, names)) = body.split_once("::") else { continue };
                if module == "crate" {
                    continue;
                }
                let names = names.trim().trim_start_matches('{').trim_end_matches('}');
                for name in names.split(',') {
                    let name = name.trim();
                    if !name.is_empty() {
                        reexports.insert(name.to_owned(), module.to_owned());
                    }
                }
            }
        }
    }
    (modules, reexports)
}

#[test]
fn every_module_has_a_layer() {
    let (modules, _) = read_lib(&src_dir());
    assert!(!modules.is_empty(), "no `mod` lines found in lib.rs");
    for m in &modules {
        assert!(
            rank(m).is_some(),
            "lib.rs declares `mod {m}`, which core/tests/layers.rs does not place in a layer"
        );
    }
    for (_, mods) in LAYERS {
        for m in *mods {
            assert!(
                modules.contains(&m.to_string()),
                "layer table lists `{m}`, which lib.rs does not declare"
            );
        }
    }
}

#[test]
fn no_module_imports_one_above_it() {
    let src = src_dir();
    let (modules, reexports) = read_lib(&src);
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let mut violations = Vec::new();
    let mut edges = 0;
    for file in &files {
        let Some(own) = top_module(&src, file) else { continue };
        if is_test_file(file) {
            continue;
        }
        let own_rank =
            rank(&own).unwrap_or_else(|| panic!("{}: module `{own}` has no layer", file.display()));
        let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
        for (line_no, line) in production_lines(&text) {
            for ident in crate_paths(line) {
                let target = if modules.contains(&ident) {
                    ident.clone()
                } else if let Some(m) = reexports.get(&ident) {
                    m.clone()
                } else {
                    // Defined in lib.rs itself (or `internal`): below every layer.
                    continue;
                };
                edges += 1;
                if target == own {
                    continue;
                }
                let target_rank = rank(&target).unwrap_or(usize::MAX);
                if target_rank >= own_rank {
                    violations.push(format!(
                        "{}:{line_no}: `{own}` (layer {}: {}) imports `crate::{ident}` from `{target}` (layer {}: {}), which is not below it",
                        file.strip_prefix(&src).unwrap_or(file).display(),
                        own_rank + 1,
                        LAYERS[own_rank].0,
                        target_rank.saturating_add(1),
                        LAYERS.get(target_rank).map_or("none", |l| l.0),
                    ));
                }
            }
        }
    }
    assert!(edges > 20, "found only {edges} crate:: imports: the scan is broken");
    assert!(violations.is_empty(), "layering violations:\n{}", violations.join("\n"));
}

#[test]
fn no_production_file_is_too_long() {
    let src = src_dir();
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let mut long = Vec::new();
    for file in files.iter().filter(|f| !is_test_file(f)) {
        let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
        let n = production_lines(&text).last().map_or(0, |(line_no, _)| *line_no);
        if n > MAX_PRODUCTION_LINES {
            long.push(format!("{}: {n} lines", file.strip_prefix(&src).unwrap_or(file).display()));
        }
    }
    assert!(
        long.is_empty(),
        "production files over {MAX_PRODUCTION_LINES} lines (move tests to a sibling tests.rs or split):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_scan_catches_an_upward_import() {
    // The checker itself: a grouped and a plain path are both read.
    assert_eq!(crate_paths("use crate::{json, schema::x};"), vec!["json", "schema"]);
    assert_eq!(crate_paths("let x = crate::engine::Engine::new(c);"), vec!["engine"]);
    assert_eq!(crate_paths("$crate::json"), Vec::<String>::new());
    assert!(rank("engine") > rank("token"));
    let text = "use crate::x;\n// crate::engine\n#[cfg(test)]\nmod tests {\nuse crate::engine;\n}";
    let kept: Vec<&str> = production_lines(text).into_iter().map(|(_, l)| l).collect();
    assert_eq!(kept, vec!["use crate::x;"]);
}
