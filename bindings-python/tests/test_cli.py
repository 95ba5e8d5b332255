"""The ``snodo-mrtr`` console script, run as installed.

Every case of tests/vectors/cli/cli.json is run through the real script in
the venv, and its stdout, stderr and exit code must equal the vector byte
for byte (the Node ``bin`` is held to the same file). Then the decoded
fields are checked against tokens.json's own inputs, and key bytes are
searched for in everything the script prints.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from conftest import VECTORS

SCRIPT = Path(sys.executable).parent / "snodo-mrtr"
CLI = json.loads((Path(VECTORS) / "cli" / "cli.json").read_text(encoding="utf-8"))
TOKENS = json.loads((Path(VECTORS) / "tokens.json").read_text(encoding="utf-8"))


def run(args: List[str], keys: Optional[str] = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SNODO_KEYS"}
    if keys is not None:
        env["SNODO_KEYS"] = keys
    return subprocess.run([str(SCRIPT), *args], env=env, capture_output=True, text=True,
                          encoding="utf-8", timeout=60, check=False)


def test_the_script_is_installed() -> None:
    assert SCRIPT.is_file(), f"no console script at {SCRIPT}"


@pytest.mark.parametrize("case", CLI["tests"], ids=lambda c: str(c["tcId"]))
def test_cli_vector(case: Dict[str, Any], tmp_path: Path) -> None:
    args = list(case["args"])
    if case["request"] is not None:
        request = tmp_path / "request.json"
        request.write_text(case["request"], encoding="utf-8")
        args = [str(request) if a == "{{request}}" else a for a in args]
    got = run(args, case["keys"])
    exp = case["expected"]
    assert (got.stdout, got.stderr, got.returncode) == (exp["stdout"], exp["stderr"], exp["exitCode"])


def test_vectors_cover_every_open_token() -> None:
    opens = [t for t in TOKENS["tests"] if t["op"] == "open"]
    ids = {c["tcId"] for c in CLI["tests"]}
    assert opens and all(200 + t["tcId"] in ids and 100 + t["tcId"] in ids for t in opens)


# Fields readable without a key: v1 tokens only (a v2 token is encrypted;
# test_cli_vector covers its inspection with keys, byte for byte).
@pytest.mark.parametrize("t", [t for t in TOKENS["tests"] if t["op"] == "open" and t["result"] == "valid"
                               and t["token"].startswith("v1.")],
                         ids=lambda t: str(t["tcId"]))
def test_fields_match_the_token_vector(t: Dict[str, Any]) -> None:
    out = run(["inspect", "--now", str(t["now"]), t["token"]])
    assert out.returncode == 0, out.stderr
    exp = t["expected"]
    lines = dict(line.split(":", 1) for line in out.stdout.splitlines())
    assert lines["round"].strip() == str(exp["round"])
    assert lines["issued at"].strip().endswith(f"({exp['issuedAt']})")
    assert lines["expires at"].strip().endswith(f"({exp['expiresAt']})")
    assert lines["flow start"].strip().endswith(f"({exp['flowStart']})")
    assert json.loads(lines["questions"]) == exp["questionKeys"]
    state = lines["state"].strip()
    assert (None if state == "none" else json.loads(state)) == exp["state"]


def test_keygen_prints_a_fresh_usable_key() -> None:
    a, b = run(["keygen"]), run(["keygen", "--id", "next"])
    assert a.returncode == 0 and b.returncode == 0
    assert re.fullmatch(r"\d{4}-\d\d-\d\d:[A-Za-z0-9+/]{43}=\n", a.stdout), a.stdout
    kid, secret = b.stdout.strip().split(":")
    assert kid == "next" and len(base64.b64decode(secret)) == 32
    assert run(["keygen", "--id", "next"]).stdout != b.stdout
    # The printed key is accepted as SNODO_KEYS (a config error would exit 2).
    assert run(["inspect", "v1.x"], keys=b.stdout.strip()).returncode == 1


def test_key_bytes_are_never_printed() -> None:
    t = next(t for t in TOKENS["tests"] if t["tcId"] == 4)
    secret = bytes.fromhex(TOKENS["config"]["keys"][0]["hex"])
    spellings = [secret.hex(), secret.hex().upper(), base64.b64encode(secret).decode(),
                 base64.urlsafe_b64encode(secret).decode().rstrip("=")]
    for keys in [f"k1:{secret.hex()}", f"k1:{spellings[2]}", f"k2:{secret.hex()}", f"k1:{secret.hex()[:40]}"]:
        for args in (["inspect", "--now", str(t["now"]), t["token"]], ["inspect", "--bogus"], ["keygen"]):
            out = run(args, keys)
            for s in spellings + [secret.hex()[:40]]:
                assert s not in out.stdout and s not in out.stderr


def test_module_entry_point_matches_the_script() -> None:
    out = subprocess.run([sys.executable, "-m", "snodo_mrtr.cli", "inspect", "--help"], capture_output=True,
                         text=True, timeout=60, check=False)
    assert out.returncode == 0 and out.stdout == run(["inspect", "--help"]).stdout
