"""``Engine.from_env``: the key ring of ``SNODO_KEYS`` through the core's one
loader, with the constructor's keywords; every error names the entry."""

from __future__ import annotations

import base64

import pytest

import snodo_mrtr as s

HEX = bytes(range(32)).hex()
B64 = base64.b64encode(bytes(range(32))).decode()
BINDING = bytes(32)


def test_reads_snodo_keys_and_takes_the_constructor_keywords(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNODO_KEYS", f"new:{B64}, old:{HEX}")
    engine = s.Engine.from_env(ttl_secs=60, server_info={"name": "t", "version": "1"})
    assert repr(engine) == 'Engine(key_ids=["new", "old"], ttl_secs=60, max_rounds=16, supported_versions=["2026-07-28"])'
    token = engine.seal(principal="alice", binding=BINDING)
    assert token.startswith("v1.new.")  # the first entry signs
    # An engine built from the same bytes by hand opens it: the same ring.
    by_hand = s.Engine([("old", bytes(range(32))), ("new", bytes(range(32)))])
    assert by_hand.open(token, principal="alice", binding=BINDING).key_id == "new"
    with pytest.raises(s.ConfigError, match="ttl_secs"):
        s.Engine.from_env(ttl_secs=0)
    with pytest.raises(TypeError, match="SNODO_KEYS"):
        s.Engine.from_env(keys=[("k", bytes(32))])  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        s.Engine.from_env(bogus=1)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "SNODO_KEYS is not set: `snodo-mrtr keygen` prints an entry"),
        ("  ", "SNODO_KEYS is not set: `snodo-mrtr keygen` prints an entry"),
        (f"k1:{HEX},", "SNODO_KEYS entry 2 is empty (a stray comma?)"),
        (f"k1:{HEX},{HEX}", "SNODO_KEYS entry 2: expected id:hex or id:base64"),
        (f"k1:{HEX},k2:%%%%", 'SNODO_KEYS entry 2: key "k2": the secret is neither hex nor base64'),
        (f"k1:{HEX},k2:{HEX[:62]}", 'SNODO_KEYS entry 2: key "k2": 31 bytes is too short, at least 32 required'),
        (f"k1:{HEX},k1:{B64}", 'SNODO_KEYS entry 2: key "k1" repeats entry 1; ids must differ'),
        (",".join([f"k1:{HEX}"] * 9), "SNODO_KEYS: 9 entries, at most 8 keys"),
    ],
)
def test_errors_name_the_entry_never_the_key(monkeypatch: pytest.MonkeyPatch, value: str | None, message: str) -> None:
    if value is None:
        monkeypatch.delenv("SNODO_KEYS", raising=False)
    else:
        monkeypatch.setenv("SNODO_KEYS", value)
    with pytest.raises(s.ConfigError) as info:
        s.Engine.from_env()
    assert info.value.message == message
    assert info.value.name == "CONFIG"
    assert HEX not in str(info.value) and B64 not in str(info.value) and HEX not in repr(info.value)
