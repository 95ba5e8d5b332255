"""Shared helpers for the snodo_mrtr test suite.

The suite runs against the *installed* wheel (scripts/test-python.sh builds
it and installs it into a fresh venv outside the repository).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Dict, Optional

import pytest

import snodo_mrtr
from snodo_mrtr import Engine, RawJSON

REPO = Path(__file__).resolve().parents[2]
VECTORS = Path(os.environ.get("SNODO_VECTORS_DIR", REPO / "tests" / "vectors"))

KEY = bytes(range(32))
NOW = 1_800_000_000
V = "2026-07-28"


def load_exact(text: str) -> Any:
    """Parses JSON keeping every number as its exact text (a RawJSON leaf).

    RawJSON compares by text, so ``1`` and ``1.0`` stay different, and a
    dict with RawJSON leaves passed back to snodo keeps those spellings.
    """
    return json.loads(text, parse_float=RawJSON, parse_int=RawJSON)


def plain(value: Any) -> Any:
    """RawJSON leaves → int/float, for comparing with values snodo returns."""
    if isinstance(value, RawJSON):
        return json.loads(value.text)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def same(a: Any, b: Any) -> bool:
    """Equality that also compares types, so ``1 != 1.0`` and ``True != 1``."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def to_int(value: Any) -> int:
    return int(value.text) if isinstance(value, RawJSON) else int(value)


def engine_for(config: Dict[str, Any], now: Any) -> Engine:
    """An engine from a vector file's `config` block at fixed time `now`."""
    names = {
        "ttlSecs": "ttl_secs",
        "maxRounds": "max_rounds",
        "maxFlowAgeSecs": "max_flow_age_secs",
        "maxTokenBytes": "max_token_bytes",
        "maxRequestBytes": "max_request_bytes",
        "maxInputResponses": "max_input_responses",
        "clockSkewSecs": "clock_skew_secs",
        "tokenVersion": "token_version",
        "minTokenVersion": "min_token_version",
        # Not a limit of the core's table: the test-only seed, applied as
        # the vectors give it (this suite runs on a test-knobs build).
        "testRandomSeed": "test_random_seed",
    }
    kwargs: Dict[str, Any] = {}
    keys = []
    for field, value in config.items():
        if field == "keys":
            for k in value:
                secret = bytes.fromhex(k["hex"]) if "hex" in k else __import__("base64").b64decode(k["base64"])
                keys.append((k["id"], secret))
        elif field == "supportedVersions":
            kwargs["supported_versions"] = list(value)
        elif field == "serverInfo":
            kwargs["server_info"] = value
        elif field == "strictAnswers":
            kwargs["strict_answers"] = value
        elif field == "audience":
            kwargs["audience"] = value
        elif field == "legacyVersions":
            kwargs["legacy_versions"] = list(value)
        elif field in names:
            kwargs[names[field]] = to_int(value)
        else:
            raise AssertionError(f"unknown config field {field!r} in a vector")
    return Engine(keys, fixed_time=to_int(now), **kwargs)


def meta(caps: Optional[Dict[str, Any]] = None, version: str = V) -> Dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}} if caps is None else caps,
    }


def request(method: str = "tools/call", id: Any = 1, **params: Any) -> Dict[str, Any]:
    p = {"name": "pick", "arguments": {}, **params}
    p.setdefault("_meta", meta())
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": p}


@pytest.fixture
def engine() -> Engine:
    # Token ids are random: tests pin them like the clock.
    return Engine([("k1", KEY)], fixed_time=NOW, test_random_seed=1)


@pytest.fixture(scope="session", autouse=True)
def _installed_wheel() -> None:
    """Under scripts/test-python.sh, prove the tests import the installed wheel."""
    if os.environ.get("SNODO_EXPECT_INSTALLED"):
        where = Path(snodo_mrtr.__file__).resolve()
        assert Path(sys.prefix).resolve() in where.parents, f"snodo_mrtr imported from {where}"
        assert REPO not in where.parents, f"snodo_mrtr imported from the source tree: {where}"
