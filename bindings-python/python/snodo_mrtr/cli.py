"""The ``snodo-mrtr`` command: ``keygen`` prints a fresh key for
``SNODO_KEYS``; ``inspect TOKEN`` reads a continuation token and, with
``SNODO_KEYS`` set, says why the server refused it (docs/cli.md).

Arguments are parsed by the snodo core, not here, so that this console
script and the Node package's ``bin`` accept the same options and print the
same bytes; this file only connects argv, the environment and the streams.
"""

from __future__ import annotations

import os
import sys
from typing import List, Optional

from ._native import run_cli


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    stdout, stderr, code = run_cli(args, os.environ.get("SNODO_KEYS"))
    sys.stdout.write(stdout)
    sys.stderr.write(stderr)
    sys.stdout.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
