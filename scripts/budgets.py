#!/usr/bin/env python3
"""Prints the size budgets of the code a reviewer reads, and fails on any
over its bound (make test runs it from scripts/test-rust.sh).

Production lines: every line of a source file that is not a test file
(`tests.rs`, `*_tests.rs`, `tests_*.rs`, a `tests/` or `test/` directory) up
to an inline `#[cfg(test)]` module, blank lines and comments included.
Generated loaders (napi's `index.js`, `index.d.ts`) are not under `src/`.

Also counted: history in source comments ("Nth pass", "issue N"), which
belongs in commit messages and the CHANGELOG, never in the code (0 allowed).
"""

from __future__ import annotations

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (label, paths, suffixes, bound)
BUDGETS = [
    ("core/src/json (Rust)", ["core/src/json"], (".rs",), 1500),
    ("bindings-python/src (Rust)", ["bindings-python/src"], (".rs",), 2500),
    ("bindings-node/src (Rust and JS)", ["bindings-node/src"], (".rs", ".js", ".mjs", ".cjs"), 2500),
    ("ffi/src (Rust)", ["ffi/src"], (".rs",), 3500),
    ("integrations/rmcp/src (Rust)", ["integrations/rmcp/src"], (".rs",), 800),
    ("bindings-python/examples/server.py", ["bindings-python/examples/server.py"], (".py",), 250),
    ("bindings-node/examples/server.mjs", ["bindings-node/examples/server.mjs"], (".mjs",), 250),
    ("docs/benchmarks.md", ["docs/benchmarks.md"], (".md",), 250),
]

# Where history in comments is looked for: every source file of the project.
SOURCE_DIRS = ["core", "ffi", "bindings-python", "bindings-node", "examples", "interop", "tests", "scripts", "fuzz",
               "integrations"]
SOURCE_SUFFIXES = (".rs", ".py", ".js", ".mjs", ".cjs", ".ts", ".c", ".h", ".go", ".sh")
SKIP_DIRS = {"node_modules", "target", ".venv", "__pycache__", "corpus", "artifacts"}
HISTORY = re.compile(r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
                     r"thirteenth|fourteenth|fifteenth|\d+(?:st|nd|rd|th))\s+(?:review\s+)?pass\b|\bissue\s+#?\d+",
                     re.IGNORECASE)
COMMENT = {".rs": ("//",), ".c": ("//", "/*", "*"), ".h": ("//", "/*", "*"), ".go": ("//",), ".js": ("//", "/*", "*"),
           ".mjs": ("//", "/*", "*"), ".cjs": ("//", "/*", "*"), ".ts": ("//", "/*", "*"), ".py": ("#",),
           ".sh": ("#",)}


def is_test_path(rel: str) -> bool:
    parts = rel.split(os.sep)
    name = parts[-1]
    stem = name.rsplit(".", 1)[0]
    return (any(p in ("tests", "test") for p in parts[:-1]) or stem == "tests" or stem.endswith("_tests")
            or stem.startswith("tests_") or stem.endswith(".test"))


def production_lines(path: str) -> int:
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if path.endswith(".rs"):
        for i, line in enumerate(lines):
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if line.strip() == "#[cfg(test)]" and (nxt.startswith("mod ") or nxt.startswith("#[")):
                return i
    return len(lines)


def files(path: str, suffixes: tuple[str, ...]) -> list[str]:
    full = os.path.join(ROOT, path)
    if os.path.isfile(full):
        return [full]
    out = []
    for d, dirs, names in os.walk(full):
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS]
        for n in names:
            p = os.path.join(d, n)
            if n.endswith(suffixes) and not is_test_path(os.path.relpath(p, ROOT)):
                out.append(p)
    return out


def history_in_comments() -> list[str]:
    found = []
    for top in SOURCE_DIRS:
        for d, dirs, names in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [x for x in dirs if x not in SKIP_DIRS]
            for n in names:
                suffix = os.path.splitext(n)[1]
                if suffix not in COMMENT or n.endswith((".d.ts",)) or n == "index.js":
                    continue
                p = os.path.join(d, n)
                try:
                    text = open(p, encoding="utf-8").read()
                except (UnicodeDecodeError, OSError):
                    continue
                in_doc = False
                for number, line in enumerate(text.split("\n"), 1):
                    s = line.strip()
                    if suffix == ".py" and s.count('"""') == 1:
                        in_doc = not in_doc
                    commented = in_doc or s.startswith(COMMENT[suffix]) or " // " in line or " # " in line
                    if commented and HISTORY.search(line):
                        found.append(f"{os.path.relpath(p, ROOT)}:{number}: {s[:100]}")
    return found


def main() -> int:
    failed = 0
    for label, paths, suffixes, bound in BUDGETS:
        total = sum(production_lines(p) for path in paths for p in files(path, suffixes))
        ok = total <= bound
        failed += not ok
        print(f"budget: {label}: {total} lines, at most {bound}: {'ok' if ok else 'OVER'}")
    history = history_in_comments()
    print(f"budget: history in source comments (\"Nth pass\", \"issue N\"): {len(history)}, at most 0: "
          f"{'ok' if not history else 'OVER'}")
    for h in history[:40]:
        print(f"  {h}")
    failed += bool(history)
    print(f"budgets: {len(BUDGETS) + 1 - failed} within, {failed} over")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
