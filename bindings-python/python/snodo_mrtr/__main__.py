"""``python -m snodo_mrtr --version``: the installed wheel's version and the
version of the snodo core compiled into it (they differ only if a wheel was
built from a modified checkout), plus the MRTR protocol revision."""

from __future__ import annotations

import sys
from importlib import metadata

from . import MRTR_VERSION, VERSION

USAGE = "usage: python -m snodo_mrtr --version"


def main(argv: list[str]) -> int:
    if argv != ["--version"]:
        print(USAGE, file=sys.stderr)
        return 0 if argv in (["-h"], ["--help"]) else 2
    try:
        wheel = metadata.version("snodo-mrtr")
    except metadata.PackageNotFoundError:
        # Imported from a source tree (maturin develop without metadata).
        wheel = "unknown (not installed)"
    print(f"snodo-mrtr {wheel} (snodo core {VERSION}, MRTR {MRTR_VERSION})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
