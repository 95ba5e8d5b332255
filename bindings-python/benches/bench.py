"""snodo_mrtr beside the official Python SDK's requestState protection (mcp 2.3.0).

Run by scripts/bench.sh (`make bench`), in a venv with the snodo_mrtr wheel
and bindings-python/benches/requirements.txt. Everything runs in one
process; every repeat runs every operation once, in a freshly shuffled
order, so drifting machine load spreads over all of them alike. Each sample
is a timeit loop calibrated to BENCH_SAMPLE_MS; the result is the median of
BENCH_REPEATS per-op means, with the min and max.

Usage: bench.py PAYLOAD_DIR OUT.json

The peers:

* `RequestStateBoundary._seal` / `._unseal`: the per-round work the SDK's
  middleware does (`MCPServer` always installs it): an AES-256-GCM codec plus
  the claims envelope (expiry, request binding, audience, principal). These
  are private methods, called directly with a real `ServerRequestContext`
  and an authenticated OAuth `AccessToken` in the auth context, so the SDK's
  default principal binding runs. The SDK seals a `str`; an application whose
  state is a dict also pays `json.dumps`/`json.loads`, measured as a
  separate row ("+ json") because snodo takes and returns the dict itself.
* `AESGCMRequestStateCodec.seal` / `.unseal` alone over the same bytes: the
  codec layer without the envelope (it binds nothing).

Growth, rows with a `group`: seal+open of a dict state of 256 B, 1 KiB,
4 KiB and 16 KiB, and `begin` of a retry whose arguments are 1, 8,
32 and 256 KiB, each beside the floor over the same bytes (Python's
`hmac.new(k, m, sha256).digest()` over the base64url of the bytes, plus
base64url of the tag: what core/benches/growth.rs calls the floor). The
sizes without a shared payload file are made by `payload_of_size`, the rule
of core/benches/common/mod.rs, byte for byte. Beside each state size, the
host's own part: `marshal.loads(marshal.dumps(state))`, the least CPython
itself takes to read the dict and build one back, which the table sets
beside the 4 KiB row and the state slope.

In-window core samples: with BENCH_CORE_SAMPLER set to the path of the
core's round sampler (core/examples/round_sampler.rs,
built by scripts/bench.sh; BENCH_CORE_BATCH is its decide batch), every
repeat runs the two begin+decide rounds next to each other and one sample
of the core's begin+decide right before or after them (alternating), so
the per-round row divides by a core timed in the same seconds, not by
criterion's minutes earlier. The core samples go into the JSON as a row of
group "core-in-window"; every row carries its per-repeat samples
(`samples_ns`, in repeat order) so the table can pair them. Unset, the
rounds are shuffled like every other operation.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import json
import marshal
import os
import random
import statistics
import subprocess
import sys
import timeit

import snodo_mrtr as mrtr
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.context import ServerRequestContext
from mcp.server.request_state import (
    AESGCMRequestStateCodec,
    RequestStateBoundary,
    RequestStateSecurity,
)

from fixtures import ARGS, KEY, QUESTION, TTL_SECS, request  # shared with rounds.py

SAMPLE_S = float(os.environ.get("BENCH_SAMPLE_MS", "50")) / 1000
REPEATS = int(os.environ.get("BENCH_REPEATS", "11"))


def payload_of_size(size: int) -> bytes:
    """A canonical JSON object of exactly `size` bytes: flight items, then a
    `pad` string (the rule of `payload_of_size` in core/benches/common/mod.rs)."""
    def item(i: int) -> str:
        return (f'{{"fare":{129 + i % 300}.5,"from":"LHR","ok":{"true" if i % 2 == 0 else "false"},'
                f'"seats":{i % 9},"sku":"FL-{i:05}","to":"LIS"}}')

    def text(items: list[str], pad: int) -> str:
        return f'{{"flow":"booking","items":[{",".join(items)}],"pad":"{"x" * pad}","step":2}}'

    items: list[str] = []
    while len(text(items, 0)) + 80 < size * 3 // 4:
        items.append(item(len(items)))
    out = text(items, size - len(text(items, 0))).encode()
    assert len(out) == size and mrtr.canonicalize(out) == out.decode()
    return out


def payload(payload_dir: str, kind: str, size: int) -> bytes:
    """The shared payload file where there is one, else `payload_of_size`."""
    path = os.path.join(payload_dir, f"{kind}-{size}.json")
    if os.path.exists(path):
        with open(path, "rb") as f:
            return f.read()
    return payload_of_size(size)


def floor(data: bytes) -> bytes:
    """HMAC-SHA256 + base64url of the same bytes (core/benches/common/mod.rs `floor`)."""
    body = base64.urlsafe_b64encode(data).rstrip(b"=")
    tag = hmac.new(KEY, body, hashlib.sha256).digest()
    return body + b"." + base64.urlsafe_b64encode(tag).rstrip(b"=")


def request_text(args: str, retry: tuple[str, str] | None = None) -> bytes:
    """The core growth bench's request (core/benches/common/mod.rs `request`), arguments as given."""
    extra = ""
    if retry:
        key, token = retry
        extra = (f',"inputResponses":{{"{key}":{{"action":"accept","content":{{"{key}":"12A"}}}}}},'
                 f'"requestState":"{token}"')
    return (f'{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"book_flight","arguments":{args}'
            f'{extra},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            f'"io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{"form":{{}}}}}}}}}}}}').encode()


class CoreSampler:
    """The core's round sampler as a child process: one `sample <ms>` line
    in, one JSON line out (core/examples/round_sampler.rs)."""

    def __init__(self, path: str, batch: str | None) -> None:
        self.proc = subprocess.Popen([path, *([batch] if batch else [])], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        if not self._line().get("ready"):
            raise RuntimeError("round_sampler did not say ready")

    def _line(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"round_sampler ended (exit {self.proc.wait()})")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"round_sampler: {reply['error']}")
        return reply

    def sample(self, ms: int) -> dict:
        self.proc.stdin.write(f"sample {ms}\n")
        self.proc.stdin.flush()
        return self._line()

    def close(self) -> None:
        self.proc.stdin.write("quit\n")
        self.proc.stdin.close()
        self.proc.wait()


# The name of the host's row in the growth-state group (read by
# scripts/bench-table.py).
HOST_MARSHAL = "host: marshal.loads(marshal.dumps(state))"


def main() -> None:
    payload_dir, out_path = sys.argv[1], sys.argv[2]
    states = {}
    for size in (256, 4096):
        with open(os.path.join(payload_dir, f"state-{size}.json"), "rb") as f:
            raw = f.read()
        assert len(raw) == size
        states[size] = raw

    # The SDK's default principal binding reads the OAuth token of the request.
    auth_context_var.set(
        AuthenticatedUser(
            AccessToken(
                token="t", client_id="client-1", scopes=[], subject="alice",
                claims={"iss": "https://issuer.example"},
            )
        )
    )
    security = RequestStateSecurity(keys=[KEY])
    boundary = RequestStateBoundary(security, default_audience="bench-server")
    codec = AESGCMRequestStateCodec([KEY])
    ctx = ServerRequestContext(
        session=None, lifespan_context=None, protocol_version="2026-07-28",
        method="tools/call", params={"name": "book_flight", "arguments": ARGS},
    )

    # snodo: the default TTL for seal+open (as the SDK), the longest for the
    # begin+decide flow so its prepared retry outlives the run.
    engine = mrtr.Engine([("k1", KEY)])
    fixed = mrtr.Engine([("k1", KEY)], ttl_secs=TTL_SECS)
    binding = mrtr.binding_digest("tools/call", {"name": "book_flight", "arguments": ARGS})

    g: dict = {
        "boundary": boundary, "codec": codec, "ctx": ctx, "replace": dataclasses.replace,
        "engine": engine, "fixed": fixed, "binding": binding, "json": json, "mrtr": mrtr,
        "Q": QUESTION,
    }
    ops: list[tuple[str, int, str]] = []  # (name, size, statement)
    for size, raw in states.items():
        g[f"S{size}"] = json.loads(raw)  # the state as the application holds it
        g[f"T{size}"] = raw.decode()  # the same state as text, for the SDK's str API
        g[f"B{size}"] = raw
        ops += [
            ("snodo seal+open", size,
             f"o = engine.open(engine.seal(principal='alice', binding=binding, round=1, "
             f"flow_start=FS, state=S{size}), principal='alice', binding=binding); o.state"),
            ("sdk boundary _seal+_unseal (str state)", size,
             f"boundary._unseal(replace(ctx, params={{**ctx.params, 'requestState': boundary._seal(ctx, T{size})}}))"),
            ("sdk boundary + json dumps/loads (dict state)", size,
             f"json.loads(boundary._unseal(replace(ctx, params={{**ctx.params, 'requestState': "
             f"boundary._seal(ctx, json.dumps(S{size}, separators=(',', ':')))}}))[0])"),
            ("sdk AESGCM codec seal+unseal (bytes, no envelope)", size,
             f"codec.unseal(codec.seal(B{size}))"),
        ]
    g["FS"] = engine.now()

    # begin+decide of a typical tools/call: round 1 asks one question with
    # 256 B of state (seals); round 2 reads the answer and completes (opens).
    r1 = request()
    call = fixed.begin(r1, "alice")
    token = fixed.decide(call, mrtr.input_required({"seat": QUESTION}, state=g["S256"])).body["result"]["requestState"]
    r2 = request({"inputResponses": {"seat": {"action": "accept", "content": {"seat": "12A"}}}, "requestState": token})
    g.update(R1=r1, R2=r2)
    check = fixed.begin(r2, "alice")
    assert check.response("seat", QUESTION).is_accepted, "the bench retry must be accepted"
    ops += [
        ("snodo begin+decide round 1 (ask, seal 256 B state)", 256,
         "fixed.decide(fixed.begin(R1, 'alice'), mrtr.input_required({'seat': Q}, state=S256))"),
        ("snodo begin+decide round 2 (open, answer, complete)", 256,
         "c = fixed.begin(R2, 'alice'); c.response('seat', Q); "
         "fixed.decide(c, mrtr.complete({'content': [{'type': 'text', 'text': 'booked'}]}))"),
    ]

    # Growth: a roomy engine, as core/benches/growth.rs (a 16 KiB
    # state makes a token over the default 16 KiB token limit).
    roomy = mrtr.Engine([("k1", KEY)], ttl_secs=TTL_SECS, max_token_bytes=64 << 10)
    g.update(roomy=roomy, floor=floor, marshal=marshal)
    growth: list[tuple[str, int, str, str]] = []  # (name, size, statement, group)
    for size in (256, 1024, 4096, 16384):
        raw = payload(payload_dir, "state", size)
        g[f"GS{size}"], g[f"GB{size}"] = json.loads(raw), raw
        for name, stmt in (
            ("snodo seal+open",
             f"roomy.open(roomy.seal(principal='alice', binding=binding, state=GS{size}), "
             f"principal='alice', binding=binding).state"),
            ("floor: HMAC-SHA256 + base64url", f"floor(GB{size})"),
            # The host's part of that row: the
            # dict written out and a dict built back by marshal, CPython's
            # fastest writer and reader of these objects (no text, no key
            # order, no checks); any binding that takes and gives a dict
            # pays at least this. The table sets it beside the row.
            (HOST_MARSHAL, f"marshal.loads(marshal.dumps(GS{size}))"),
        ):
            growth.append((name, size, stmt, "growth-state"))
    for size in (1024, 8192, 32768, 262144):
        raw = payload(payload_dir, "args", size)
        r1 = request_text(raw.decode())
        tok = roomy.decide(roomy.begin(r1, "alice"), mrtr.input_required({"seat": QUESTION}, state=g["S256"]))
        r2 = request_text(raw.decode(), ("seat", tok.body["result"]["requestState"]))
        assert roomy.begin(r2, "alice").response("seat", QUESTION).is_accepted, "the growth retry must be accepted"
        g[f"GR{size}"], g[f"GA{size}"] = r2, raw
        for name, stmt in (("snodo begin (retry)", f"roomy.begin(GR{size}, 'alice')"),
                           ("floor: HMAC-SHA256 + base64url", f"floor(GA{size})")):
            growth.append((name, size, stmt, "growth-args"))

    timers = []
    for name, size, stmt, group in [(*op, "") for op in ops] + growth:
        t = timeit.Timer(stmt, globals=g)
        t.timeit(3)  # warm up, and fail early
        n, elapsed = 1, 0.0
        while True:  # calibrate the loop count to the sample time
            elapsed = t.timeit(n)
            if elapsed >= SAMPLE_S / 4:
                break
            n *= 4
        loops = max(1, int(n * SAMPLE_S / max(elapsed, 1e-9)))
        timers.append((name, size, group, t, loops, []))
    # With the core sampler the two rounds are one unit of the shuffle (-1),
    # sampled together, the core's sample alternately before and after them.
    path = os.environ.get("BENCH_CORE_SAMPLER")
    sampler = CoreSampler(path, os.environ.get("BENCH_CORE_BATCH")) if path else None
    rounds = [i for i, tm in enumerate(timers) if tm[0].startswith("snodo begin+decide round")] if sampler else []
    core: list[dict] = []
    core_ms = max(1, round(2 * SAMPLE_S * 1000))  # as long as the two rounds together

    def run(i: int) -> None:
        _name, _size, _group, t, loops, samples = timers[i]
        samples.append(t.timeit(loops) / loops * 1e9)

    for r in range(REPEATS):
        order = [i for i in range(len(timers)) if i not in rounds] + ([-1] if rounds else [])
        random.shuffle(order)
        for i in order:
            if i >= 0:
                run(i)
                continue
            random.shuffle(rounds)
            if r % 2 == 0:
                core.append(sampler.sample(core_ms))
            for j in rounds:
                run(j)
            if r % 2 == 1:
                core.append(sampler.sample(core_ms))
    if sampler:
        sampler.close()
    results = []
    for name, size, group, _t, _loops, samples in timers:
        results.append({
            "lang": "python", "op": name, "size": size, **({"group": group} if group else {}),
            "median_ns": statistics.median(samples), "min_ns": min(samples), "max_ns": max(samples),
            "repeats": len(samples), "samples_ns": samples,
        })
        label = f"{group}: {name}" if group else name
        print(f"python  {label:<55} {size:>6} B  {statistics.median(samples) / 1000:9.2f} µs"
              f"  ({min(samples) / 1000:.2f}–{max(samples) / 1000:.2f})", flush=True)
    if core:
        ns = [c["ns"] for c in core]
        results.append({
            "lang": "python", "op": "core begin+decide (round_sampler, beside the rounds)", "size": 256,
            "group": "core-in-window", "median_ns": statistics.median(ns), "min_ns": min(ns), "max_ns": max(ns),
            "repeats": len(ns), "samples_ns": ns, "begin_ns": [c["begin_ns"] for c in core],
            "decide_ns": [c["decide_ns"] for c in core], "rounds_ns": [c["rounds_ns"] for c in core],
        })
        print(f"python  {'core begin+decide, in window (round_sampler)':<55} {256:>6} B  "
              f"{statistics.median(ns) / 1000:9.2f} µs  ({min(ns) / 1000:.2f}–{max(ns) / 1000:.2f})", flush=True)
    with open(out_path, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
