"""Checks the interop summaries that make test depends on.

Usage: check_summaries.py OUT_DIR NAME...

Each NAME is a summary file in OUT_DIR written by a runner (official
clients, conformance). A summary passes only when it exists, lists at least
one result, every result passed, its totals agree, and no
`input-required-result-*` or `tasks-*` scenario has a warning or a skipped check (a
conformance warning is never counted as a pass). One checker for every
suite, so the gate cannot differ between test-interop.sh and
test-interop-sdk.sh. Exits 1 when any summary fails.
"""
import json
import sys
from pathlib import Path


def check(out: Path, name: str) -> bool:
    try:
        data = json.loads((out / name).read_text())
        results = data["results"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"FAIL {name}: missing or unreadable ({e})")
        return False
    failed = sorted(k for k, v in results.items() if v.get("status") != "pass")
    if not results or failed or data.get("failed") != 0 or data.get("total") != len(results):
        print(f"FAIL {name}: {len(results)} results, failed: {', '.join(failed) or 'none listed'}")
        return False
    strict = [k for k, v in results.items()
              if k.startswith(("input-required-result-", "tasks-")) and (v.get("warning", 0) or v.get("skipped", 0))]
    if strict:
        print(f"FAIL {name}: warnings or skips in {', '.join(sorted(strict))}")
        return False
    notes = []
    for key, label in (("success", "checks passed"), ("warning", "warning checks"),
                       ("skipped", "checks skipped by design (not passes)")):
        n = sum(v.get(key, 0) for v in results.values())
        if n:
            notes.append(f"{n} {label}")
    warned = sorted({w for v in results.values() for w in v.get("warnings", [])})
    if warned:
        notes.append("warnings: " + ", ".join(warned))
    print(f"ok   {name}: {len(results)} passed" + (f" ({'; '.join(notes)})" if notes else ""))
    return True


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: check_summaries.py OUT_DIR NAME...", file=sys.stderr)
        return 2
    out = Path(sys.argv[1])
    names = sys.argv[2:]
    bad = sum(not check(out, name) for name in names)
    print(f"{len(names) - bad} of {len(names)} summaries green")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
