#!/usr/bin/env bash
# Python packaging checks, run by scripts/test-python.sh after the
# suite with the release wheel it built (argument 1; the suite itself ran on a
# test-knobs build):
#   - the wheel is abi3 and manylinux_2_34 (auditwheel, pinned in
#     bindings-python/requirements-release.txt, agrees);
#   - a rebuild gives the same bytes (SOURCE_DATE_EPOCH is set by the caller);
#   - it installs and works on every CPython 3.10+ pyenv has here;
#   - `pip install ./bindings-python` (PEP 517) works in a fresh venv;
#   - the sdist builds and installs in a fresh venv (compiles the crate once);
#   - `python -m snodo_mrtr --version` prints the wheel's and the core's versions;
#   - every one of these installs refuses the test-only settings (`fixed_time=`,
#     `test_random_seed=`) with a ConfigError, while a normal engine works.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WHEEL="$1"
VENV="$ROOT/.venv"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
expect_version="snodo-mrtr $version (snodo core $version, MRTR 2026-07-28)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
step() { printf '== python package: %s (%ss)\n' "$1" "$SECONDS"; }

# One begin/decide round and the version line, in the given interpreter,
# from a directory outside the repository.
cat >"$WORK/smoke.py" <<'PY'
import json, subprocess, sys
import snodo_mrtr as m
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
e = m.Engine([("k1", bytes(32))])
call = e.begin(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": "t", "_meta": meta}}), None)
assert isinstance(call, m.Call), call
q = m.elicit_form("Name?", {"type": "object", "properties": {"n": {"type": "string"}}})
r = e.decide(call, m.input_required({"n": q}))
assert json.loads(r.to_json())["result"]["resultType"] == "input_required", r.to_json()
for knob, value in (("fixed_time", 1_800_000_000), ("test_random_seed", 1)):
    try:
        m.Engine([("k1", bytes(32))], **{knob: value})
    except m.ConfigError as err:
        assert str(err).startswith(f"{knob}: a test-only setting, absent from this build"), err
    else:
        raise AssertionError(f"an installed build accepts the test-only {knob}=")
assert m.__file__.find("site-packages") > 0, m.__file__
out = subprocess.run([sys.executable, "-m", "snodo_mrtr", "--version"], check=True,
                     capture_output=True, text=True).stdout.strip()
print(f"{sys.version.split()[0]}: {out}")
print(out, file=open(sys.argv[1], "w"))
PY
check_install() { # venv-python label
  (cd "$WORK" && "$1" smoke.py "$WORK/version.txt")
  if [ "$(cat "$WORK/version.txt")" != "$expect_version" ]; then
    echo "FAIL ($2): --version printed '$(cat "$WORK/version.txt")', expected '$expect_version'" >&2
    exit 1
  fi
}

step "build backend pin"
backend="$(sed -n 's/^requires = \["maturin==\(.*\)"\]$/\1/p' bindings-python/pyproject.toml)"
tested="$(sed -n 's/^maturin==//p' bindings-python/requirements-test.txt)"
if [ -z "$backend" ] || [ "$backend" != "$tested" ]; then
  echo "FAIL: pyproject.toml builds with maturin '$backend', the tests pin '$tested'" >&2
  exit 1
fi
echo "maturin $backend in both"

step "abi3 + manylinux (auditwheel)"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r bindings-python/requirements-release.txt
case "$(basename "$WHEEL")" in
snodo_mrtr-"$version"-cp310-abi3-manylinux_2_34_x86_64.whl) ;;
*) echo "FAIL: wheel name $(basename "$WHEEL") is not cp310-abi3-manylinux_2_34_x86_64" >&2; exit 1 ;;
esac
"$VENV/bin/auditwheel" show "$WHEEL" >"$WORK/audit.txt"
cat "$WORK/audit.txt"
tr -s ' \n' ' ' <"$WORK/audit.txt" | grep -q 'is consistent with the following platform tag: "manylinux_2_34_x86_64"' ||
  { echo "FAIL: auditwheel does not confirm manylinux_2_34" >&2; exit 1; }
echo "size: $(stat -c %s "$WHEEL") bytes"

step "reproducible rebuild"
"$VENV/bin/maturin" build --release --locked -m bindings-python/Cargo.toml -i "$VENV/bin/python" --out "$WORK/rebuild" >/dev/null 2>&1
if ! cmp "$WHEEL" "$WORK/rebuild/$(basename "$WHEEL")"; then
  echo "FAIL: rebuilding the same tree gave different wheel bytes" >&2
  exit 1
fi
echo "same bytes: $(sha256sum "$WHEEL" | cut -c1-16)…"

step "the wheel on every CPython 3.10+ found"
pyenv_root="$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"
tested_versions=()
for py in "$pyenv_root"/versions/3.*/bin/python3 /usr/bin/python3; do
  [ -x "$py" ] || continue
  v="$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  case " ${tested_versions[*]-} " in *" $v "*) continue ;; esac
  "$py" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || continue
  "$py" -m venv "$WORK/py$v"
  "$WORK/py$v/bin/python" -m pip install -q --disable-pip-version-check "$WHEEL"
  check_install "$WORK/py$v/bin/python" "CPython $v"
  tested_versions+=("$v")
done
echo "tested on CPython ${tested_versions[*]}"
[ "${#tested_versions[@]}" -ge 1 ] || { echo "FAIL: no CPython 3.10+ found" >&2; exit 1; }

step "pip install ./bindings-python (PEP 517, fresh venv)"
python3 -m venv "$WORK/src"
(cd "$ROOT" && "$WORK/src/bin/python" -m pip install -q --disable-pip-version-check ./bindings-python)
check_install "$WORK/src/bin/python" "pip install ./bindings-python"

step "sdist: build, install into a fresh venv (compiles the crate)"
"$VENV/bin/maturin" sdist -m bindings-python/Cargo.toml --out "$WORK/sdist" >/dev/null 2>&1
SDIST=$(ls "$WORK"/sdist/snodo_mrtr-"$version".tar.gz)
echo "sdist: $(basename "$SDIST"), $(stat -c %s "$SDIST") bytes, $(tar tzf "$SDIST" | wc -l) files"
python3 -m venv "$WORK/sd"
# A target dir of its own under target/: reused by later local runs, and no
# fight with the workspace build over pyo3's build script.
(cd "$WORK" && CARGO_TARGET_DIR="$ROOT/target/sdist-build" \
  "$WORK/sd/bin/python" -m pip install -q --disable-pip-version-check "$SDIST")
check_install "$WORK/sd/bin/python" "sdist"
echo "python package: all green (${SECONDS}s)"
