"""Prints the one table of `make bench` from the results of its parts.

Usage: bench-table.py CRITERION_DIR RESULTS_DIR

CRITERION_DIR holds criterion's output for the core group (`core/<op>/<case>`);
RESULTS_DIR holds python.json, node.json and c.json written by the binding
benches (with the core's begin+decide sampled beside their rounds, group
"core-in-window", when scripts/bench.sh gave them the round sampler), and
core-sampler.json, the sampler's check against criterion. Standard library only. Medians are criterion's median estimate (core)
or the median of the interleaved repeats (bindings); the spread is the
minimum and maximum per-sample mean.
"""

from __future__ import annotations

import json
import os
import sys

CASES = [("state_256", "256 B state"), ("state_4096", "4 KiB state"), ("args_32768", "32 KiB arguments")]
CORE_OPS = ["floor", "format_floor", "format_floor_seal", "drop_state", "seal", "open", "seal_v2", "open_v2", "begin", "decide", "flow3"]
CORE_LABEL = {
    "floor": "floor: HMAC-SHA256 + base64url of the same bytes",
    "format_floor": "format floor: open this token format, no JSON",
    "format_floor_seal": "format floor: seal this token format, no JSON",
    "drop_state": "free the caller's state tree (decide owns it)",
    "seal": "seal",
    "open": "open",
    "seal_v2": "seal v2 (XChaCha20-Poly1305, issue 17)",
    "open_v2": "open v2",
    "begin": "begin (retry: parse, binding, open)",
    "decide": "decide (ask one question, seal)",
    "flow3": "three-round flow (3 × begin + decide)",
}
TARGETS = {"core_open_floor": 4.0, "speedup": 3.0, "call_us": 10.0}
# Issue 16: libsnodo on two threads, against one, in calls per second.
C_TWO_THREADS = 1.8
# Issue 16, the core rows: (label, ops summed, case, at most this × the floor of the case).
CORE_TARGETS = [
    ("core begin on a retry, 256 B state ≤ 4× floor", ("begin",), "state_256", 4.0),
    ("core decide asking one question, 256 B state ≤ 4× floor", ("decide",), "state_256", 4.0),
    ("core begin with 32 KiB arguments ≤ 3× floor (same bytes)", ("begin",), "args_32768", 3.0),
    ("core three-round flow, 4 KiB state ≤ 8× floor", ("flow3",), "state_4096", 8.0),
    ("core begin+decide, 256 B state ≤ 8× floor", ("begin", "decide"), "state_256", 8.0),
]
# Issue 17: v2 (encrypted) seal+open at most this × v1's, at 4 KiB.
V2_TARGET = ("state_4096", 1.5)
# At most once (core/benches/once.rs, group `once`): (bench, label).
ONCE_ROWS = [
    ("memory_run_once", "run_once of a final round, in-memory store (claim + complete)"),
    ("memory_check_done", "check_once of a completed flow, in-memory store"),
    ("redis_run_once", "run_once of a final round on loopback Redis (two script round trips)"),
]
GROWTH = [("state", [256, 1024, 4096, 16384], ["begin", "decide"]),
          ("args", [1024, 8192, 32768, 262144], ["begin"])]


def fmt_ns(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def core_rows(crit: str, group: str = "core", ops=CORE_OPS, cases=None) -> dict[tuple[str, str], tuple[float, float, float]]:
    out = {}
    for op in ops:
        for case in cases or [c for c, _ in CASES]:
            d = os.path.join(crit, group, op, case, "new")
            try:
                with open(os.path.join(d, "estimates.json")) as f:
                    est = json.load(f)
                with open(os.path.join(d, "sample.json")) as f:
                    sample = json.load(f)
            except FileNotFoundError:
                continue
            per = [t / i for t, i in zip(sample["times"], sample["iters"])]
            out[(op, case)] = (est["median"]["point_estimate"], min(per), max(per))
    return out


def once_rows(crit: str) -> dict[str, tuple[float, float, float]]:
    """Medians and spread of the `once` group (one level: once/<bench>/new)."""
    out = {}
    for bench, _ in ONCE_ROWS:
        d = os.path.join(crit, "once", bench, "new")
        try:
            with open(os.path.join(d, "estimates.json")) as f:
                est = json.load(f)
            with open(os.path.join(d, "sample.json")) as f:
                sample = json.load(f)
        except FileNotFoundError:
            continue
        per = [t / i for t, i in zip(sample["times"], sample["iters"])]
        out[bench] = (est["median"]["point_estimate"], min(per), max(per))
    return out


def load(path: str) -> list[dict]:
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return []


def main() -> None:
    crit, res = sys.argv[1], sys.argv[2]
    rows: list[tuple[str, str, str, str, str, str, str]] = []
    checks: list[tuple[str, str, bool]] = []

    core = core_rows(crit)
    flow_least: dict[str, float] = {}  # case: the flow's least over the floor
    for case, label in CASES:
        floor = core.get(("floor", case))
        for op in CORE_OPS:
            r = core.get((op, case))
            if not r:
                continue
            # The arguments case signs the 32 KiB arguments: only begin and
            # the flow read them, so only those compare with its floor.
            comparable = op != "floor" and (case != "args_32768" or op in ("begin", "flow3"))
            ratio = f"{r[0] / floor[0]:.1f}×" if floor and comparable else ""
            # begin and open beside the least the token format itself costs
            # to open (base64url, HMAC over the whole token, principal tag).
            ff = core.get(("format_floor", case))
            note = f"{r[0] / ff[0]:.1f}× format floor" if ff and op in ("open", "begin") else ""
            rows.append(("core", CORE_LABEL[op], label, fmt_ns(r[0]), f"{fmt_ns(r[1])}–{fmt_ns(r[2])}", ratio, note))
        # Issue 16, eighth pass: the least a three-round flow can cost with
        # this token format and an Outcome that owns its state, before any
        # JSON: two seals and two opens at the format floor, and the two
        # state trees decide frees (rounds 1 and 2 ask; round 3 completes).
        parts = [core.get((op, case)) for op in ("format_floor_seal", "format_floor", "drop_state")]
        if floor and case != "args_32768" and all(parts):
            least = 2 * sum(p[0] for p in parts)
            flow_least[case] = least / floor[0]
            rows.append(("core", "three-round flow's least: 2 × (seal + open format floors + free state)", label,
                         fmt_ns(least), "", f"{least / floor[0]:.1f}×", ""))
    if ("open", "state_4096") in core and ("floor", "state_4096") in core:
        x = core[("open", "state_4096")][0] / core[("floor", "state_4096")][0]
        checks.append(("core open at 4 KiB ≤ 4× the floor", f"{x:.1f}×", x <= TARGETS["core_open_floor"]))
    if ("begin", "state_256") in core and ("decide", "state_256") in core:
        us = (core[("begin", "state_256")][0] + core[("decide", "state_256")][0]) / 1e3
        checks.append(("core begin + decide, typical tools/call ≤ 10 µs", f"{us:.2f} µs", us <= TARGETS["call_us"]))
    case, most = V2_TARGET
    if all((op, case) in core for op in ("seal", "open", "seal_v2", "open_v2")):
        v1 = core[("seal", case)][0] + core[("open", case)][0]
        x = (core[("seal_v2", case)][0] + core[("open_v2", case)][0]) / v1
        checks.append((f"core v2 seal+open ≤ {most:g}× v1 at 4 KiB", f"{x:.2f}×", x <= most))
    once = once_rows(crit)
    for bench, label in ONCE_ROWS:
        if bench in once:
            r = once[bench]
            rows.append(("core", label, "one flow", fmt_ns(r[0]), f"{fmt_ns(r[1])}–{fmt_ns(r[2])}", "", ""))
    if "redis_run_once" not in once:
        rows.append(("core", "run_once on loopback Redis", "", "not run", "", "",
                     "needs --features redis and SNODO_REDIS_URL"))
    # The round sampler's check (scripts/bench.sh): one sample right after
    # criterion, beside criterion's begin + decide.
    check = load_obj(os.path.join(res, "core-sampler.json"))
    crit_ns = criterion_core_ns(core)
    if check.get("ns") and crit_ns:
        rows.append(("core", "begin + decide, round_sampler right after criterion", "256 B state",
                     fmt_ns(check["ns"]), f"{fmt_ns(check['begin_ns'])} + {fmt_ns(check['decide_ns'])}", "",
                     f"{check['ns'] / crit_ns:.2f}× criterion's {fmt_ns(crit_ns)}"))
    for name, ops, case, most in CORE_TARGETS:
        if all((op, case) in core for op in ops + ("floor",)):
            x = sum(core[(op, case)][0] for op in ops) / core[("floor", case)][0]
            # The flow's row says what its least is (fifteenth pass).
            note = f" (its least: {flow_least[case]:.1f}×)" if ops == ("flow3",) and case in flow_least else ""
            checks.append((name, f"{x:.1f}×{note}", x <= most))

    peers = {
        "python": ("snodo seal+open", "sdk boundary _seal+_unseal (str state)"),
        "node": ("snodo seal+open", "sdk createRequestStateCodec mint+verify (no bind)"),
    }
    for lang in ("python", "node"):
        # Rows with a `group` (growth) are tabled apart, below.
        results = [r for r in load(os.path.join(res, f"{lang}.json")) if not r.get("group")]
        by = {(r["op"], r["size"]): r for r in results}
        ours, peer = peers[lang]
        for r in results:
            ratio_peer = ""
            if r["op"] == ours and (peer, r["size"]) in by:
                ratio_peer = f"{by[(peer, r['size'])]['median_ns'] / r['median_ns']:.1f}× faster"
            elif r["op"] != ours and r["op"].startswith("sdk") and (ours, r["size"]) in by:
                ratio_peer = f"{r['median_ns'] / by[(ours, r['size'])]['median_ns']:.1f}× snodo's time"
            rows.append((lang, r["op"], f"{r['size']} B state", fmt_ns(r["median_ns"]),
                         f"{fmt_ns(r['min_ns'])}–{fmt_ns(r['max_ns'])}", "", ratio_peer))
            if r["op"].startswith("snodo begin+decide"):
                us = r["median_ns"] / 1e3
                checks.append((f"{lang} {r['op'][6:]} ≤ 10 µs", f"{us:.2f} µs", us <= TARGETS["call_us"]))
        rows += in_window_rows(res, lang, core)
        # The host's part of the rounds (host-round group; node only).
        rows += [(lang, r["op"], "256 B state", fmt_ns(r["median_ns"]),
                  f"{fmt_ns(r['min_ns'])}–{fmt_ns(r['max_ns'])}", "", "")
                 for r in load(os.path.join(res, f"{lang}.json")) if r.get("group") == "host-round"]
        for size in (256, 4096):
            if (ours, size) in by and (peer, size) in by:
                x = by[(peer, size)]["median_ns"] / by[(ours, size)]["median_ns"]
                checks.append((f"{lang} seal+open ≥ 3× faster than the SDK ({size} B)", f"{x:.1f}×",
                               x >= TARGETS["speedup"]))

    checks += node_checks(res, core)
    checks += python_checks(res, core)

    c_rate = {}
    for r in load(os.path.join(res, "c.json")):
        if r.get("group"):
            continue
        c_rate[r["threads"]] = r["calls_per_s"]
        rows.append(("c", r["op"], "256 B state", f"{r['calls_per_s']:,.0f}/s",
                     f"{r['min_calls_per_s']:,.0f}–{r['max_calls_per_s']:,.0f}/s", "",
                     f"{r['median_ns'] / 1e3:.2f} µs/call/thread"))
        if r["threads"] == 1:
            us = r["median_ns"] / 1e3
            checks.append(("c begin+decide per call (1 thread) ≤ 10 µs", f"{us:.2f} µs", us <= TARGETS["call_us"]))
    # Issue 16's last row (kept from the first pass): two threads on one
    # engine do at least 1.8x the calls of one (medians of the run's repeats).
    if 1 in c_rate and 2 in c_rate:
        scale = c_rate[2] / c_rate[1]
        checks.append((f"c calls/s on 2 threads ≥ {C_TWO_THREADS}× 1 thread",
                       f"{scale:.2f}× ({c_rate[2]:,.0f}/s against {c_rate[1]:,.0f}/s)", scale >= C_TWO_THREADS))
    rows += in_window_rows(res, "c", core)
    checks += round_checks(res, "c", core, C_ROUND_VS_CORE)

    head = ("part", "operation", "payload", "median", "min–max", "vs floor", "vs peer / note")
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    line = lambda r: "| " + " | ".join(str(x).ljust(w) for x, w in zip(r, widths)) + " |"  # noqa: E731
    print(line(head))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))
    growth_table(crit)
    binding_growth_table(res, "node")
    memory_table(res, "node")
    binding_growth_table(res, "python")
    memory_table(res, "python")
    memory_table(res, "c")
    print()
    print("Targets (ratios within this run):")
    for name, value, ok in checks:
        print(f"  [{'met' if ok else 'MISSED'}] {name}: {value}")


def growth_table(crit: str) -> None:
    """Cost against size (core/benches/growth.rs), each beside the floor of the same bytes."""
    lines = []
    for kind, sizes, ops in GROWTH:
        cases = [f"{kind}_{n}" for n in sizes]
        g = core_rows(crit, "growth", ["floor"] + ops, cases)
        for n, case in zip(sizes, cases):
            if ("floor", case) not in g:
                continue
            fl = g[("floor", case)][0]
            cells = [f"{fmt_ns(g[(op, case)][0])} ({g[(op, case)][0] / fl:.1f}×)" if (op, case) in g else "" for op in ops]
            lines.append(f"| {kind} {n} B | {fmt_ns(fl)} | " + " | ".join(cells) + " |" + (" |" if len(ops) == 1 else ""))
    if lines:
        print()
        print("Growth (core; ratio to the floor of the same bytes):")
        print("| size | floor | begin | decide |")
        print("|---|---|---|---|")
        print("\n".join(lines))


# Issue 16: C's begin+decide per call (one thread) at most this × the core's.
C_ROUND_VS_CORE = 1.3


def in_window(res: str, lang: str) -> tuple[list[float], dict] | None:
    """Issue 16, seventh pass: a binding's per-round time and the core's
    begin+decide sampled beside it (core/examples/round_sampler.rs), per
    repeat: ([binding ns per round], the core-in-window row), or None when
    the bench ran without the sampler. A binding's round is the mean of its
    round 1 and round 2 samples of that repeat (Python, Node), or C's
    1-thread time per call (a call is one round)."""
    rows = load(os.path.join(res, f"{lang}.json"))
    core = next((r for r in rows if r.get("group") == "core-in-window"), None)
    if lang == "c":
        rounds = [r for r in rows if not r.get("group") and r.get("threads") == 1]
    else:
        rounds = [r for r in rows if not r.get("group") and r["op"].startswith("snodo begin+decide round")]
    if not core or not rounds or any(len(r.get("samples_ns", [])) != len(core["samples_ns"]) for r in rounds):
        return None
    own = [sum(r["samples_ns"][i] for r in rounds) / len(rounds) for i in range(len(core["samples_ns"]))]
    return own, core


def criterion_core_ns(core: dict) -> float | None:
    """criterion's begin + decide of the 256 B state (the start of the run)."""
    if ("begin", "state_256") in core and ("decide", "state_256") in core:
        return core[("begin", "state_256")][0] + core[("decide", "state_256")][0]
    return None


def in_window_rows(res: str, lang: str, core: dict) -> list[tuple[str, ...]]:
    """The core's begin+decide as sampled beside this binding, with criterion's beside it."""
    pair = in_window(res, lang)
    if not pair:
        return []
    c = pair[1]
    crit = criterion_core_ns(core)
    note = f"criterion's (start of run): {fmt_ns(crit)}" if crit else "no criterion result"
    return [(lang, "core begin+decide, in window (round_sampler)", "256 B state", fmt_ns(c["median_ns"]),
             f"{fmt_ns(c['min_ns'])}–{fmt_ns(c['max_ns'])}", "", note)]


def median(xs: list[float]) -> float:
    s = sorted(xs)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


def round_checks(res: str, lang: str, core: dict, most: float) -> list[tuple[str, str, bool]]:
    """A binding's begin+decide per round against the core's. Per repeat,
    the binding's round over the core sample taken right beside it; the
    row is the median of those ratios (min–max beside it), and decides
    [met]/[MISSED]. Without in-window samples the denominator is
    criterion's begin + decide from the start of the run, minutes before
    the binding ran, and the value says so. Either way the value also
    shows the other denominator's ratio, for comparison with older runs."""
    crit = criterion_core_ns(core)
    own_rows = [r for r in load(os.path.join(res, f"{lang}.json")) if not r.get("group")]
    if lang == "c":
        own_rows = [r for r in own_rows if r.get("threads") == 1]
        name = f"c begin+decide per call (1 thread), 256 B, ≤ {most:g}× the core's begin+decide"
    else:
        own_rows = [r for r in own_rows if r["op"].startswith("snodo begin+decide round")]
        name = (f"{lang} begin+decide per round (mean of rounds 1 and 2), 256 B, ≤ "
                f"{most:g}× the core's begin+decide")
    if not own_rows:
        return []
    # The ratio as computed before the seventh pass: the binding's medians
    # over criterion's.
    old = sum(r["median_ns"] for r in own_rows) / len(own_rows) / crit if crit else None
    pair = in_window(res, lang)
    if pair:
        own, c = pair
        ratios = [o / k for o, k in zip(own, c["samples_ns"])]
        x = median(ratios)
        then = f"; criterion's core {fmt_ns(crit)} would give {old:.2f}×" if old is not None else ""
        # For comparison only: the same two rounds done by the core alone,
        # warm and one call at a time (round_sampler's `rounds_ns`), the
        # stricter denominator; the row keeps the begin+decide.
        warm = c.get("rounds_ns") or []
        strict = ""
        if len(warm) == len(own):
            s = median([o / k for o, k in zip(own, warm)])
            strict = f"; {s:.2f}× the core doing the same two rounds warm ({fmt_ns(median(warm))})"
        value = (f"{x:.2f}× (in window: median of {len(ratios)} paired repeats, {min(ratios):.2f}–{max(ratios):.2f}×; "
                 f"core {fmt_ns(c['median_ns'])} beside it{then}{strict})")
        return [(name, value, x <= most)]
    if old is None:
        return []
    return [(name, f"{old:.2f}× (criterion's core from the start of the run, {fmt_ns(crit)}: "
                   "no in-window core samples)", old <= most)]


# Issue 16, fifteenth pass: the host's own part of a binding's rows, timed
# in the binding's step of the same run (growth-state group): what the
# language itself costs to read the state object and build one back, before
# any token work. Node: JSON.stringify + JSON.parse (how the addon crosses)
# and structuredClone (V8's object-to-object copy, no text); Python:
# marshal's dumps + loads (CPython's fastest writer and reader of a dict).
HOST_ROWS = {
    "node": ("host: JSON.parse(JSON.stringify(state))", "host: structuredClone(state)"),
    "python": ("host: marshal.loads(marshal.dumps(state))",),
}


def host_series(res: str, lang: str) -> dict[int, tuple[str, float]]:
    """The cheapest of the host's rows at each state size: {size: (op, ns)}."""
    rows = [r for r in load(os.path.join(res, f"{lang}.json"))
            if r.get("group") == "growth-state" and r["op"] in HOST_ROWS[lang]]
    out: dict[int, tuple[str, float]] = {}
    for r in rows:
        if r["size"] not in out or r["median_ns"] < out[r["size"]][1]:
            out[r["size"]] = (r["op"], r["median_ns"])
    return out


def host_least_4k(res: str, lang: str, core: dict, peer_ns: float) -> str:
    """The seal+open row's bound: the host's part at 4 KiB plus the core's
    seal and open format floors (the least the token format costs, no
    JSON), and the speedup over the peer a binding that added nothing to
    those would show; "" when a part is missing."""
    host = host_series(res, lang).get(4096)
    ff = [core.get((op, "state_4096")) for op in ("format_floor_seal", "format_floor")]
    if not host or not all(ff):
        return ""
    least = host[1] + ff[0][0] + ff[1][0]
    return (f"; its least here {fmt_ns(least)} = {host[0][6:]} {fmt_ns(host[1])} + the core's seal and open "
            f"format floors {fmt_ns(ff[0][0] + ff[1][0])}, {peer_ns / least:.1f}× the peer")


def host_slope(res: str, lang: str, floor: list[tuple[int, float, float]]) -> str:
    """The state slope's bound: the host's part alone over the floor's slope."""
    host = host_series(res, lang)
    (n0, f0, _), (n1, f1, _) = floor[0], floor[-1]
    if n0 not in host or n1 not in host or f1 <= f0:
        return ""
    x = (host[n1][1] - host[n0][1]) / (f1 - f0)
    return f" (the host's part alone, {host[n1][0][6:]}: {x:.1f}×)"


def add_note(checks: list[tuple[str, str, bool]], note: str) -> list[tuple[str, str, bool]]:
    """The last check with `note` after its value."""
    if not checks or not note:
        return checks
    name, value, ok = checks[-1]
    return checks[:-1] + [(name, value + note, ok)]


# Issue 16, the Node rows: seal+open at 4 KiB at least this many times faster
# than the TS SDK codec; begin+decide per round at most this × the core's;
# growth slope at most this × the floor's.
NODE_TARGETS = {"speedup_4k": 5.0, "round_vs_core": 1.3, "slope": 1.5}


def node_checks(res: str, core: dict) -> list[tuple[str, str, bool]]:
    out = []
    by = {(r["op"], r["size"]): r["median_ns"] for r in load(os.path.join(res, "node.json")) if not r.get("group")}
    ours, peer = ("snodo seal+open", 4096), ("sdk createRequestStateCodec mint+verify (no bind)", 4096)
    if ours in by and peer in by:
        x = by[peer] / by[ours]
        out.append((f"node seal+open, 4 KiB object state, ≥ {NODE_TARGETS['speedup_4k']:g}× faster than "
                    "createRequestStateCodec (no bind)", f"{x:.1f}×", x >= NODE_TARGETS["speedup_4k"]))
        out = add_note(out, host_least_4k(res, "node", core, by[peer]))
    out += add_note(round_checks(res, "node", core, NODE_TARGETS["round_vs_core"]), node_round_least(res))
    for kind, op in (("state", "snodo seal+open"), ("args", "snodo begin (retry)")):
        rows = growth_rows(res, kind, op)
        if len(rows) >= 2:
            (n0, f0, t0), (n1, f1, t1) = rows[0], rows[-1]
            x = (t1 - t0) / (f1 - f0) if f1 > f0 else float("inf")
            out.append((f"node growth, {op} {n0} B → {n1} B: slope ≤ {NODE_TARGETS['slope']:g}× the floor's",
                        f"{x:.1f}×" + (host_slope(res, "node", rows) if kind == "state" else ""),
                        x <= NODE_TARGETS["slope"]))
    mem = load_obj(os.path.join(res, "node-memory.json"))
    if mem:
        r = mem["readings"]
        peak = max(x["rss_kib"] for x in r) - r[0]["rss_kib"]
        out.append((f"node RSS over {mem['flows']:,} two-round flows flat after warm-up (≤ {mem['bound_kib']} KiB)",
                    f"+{peak} KiB", bool(mem["ok"])))
    return out


def node_round_least(res: str) -> str:
    """The per-round row's bound: the JSON.stringify that hands the addon
    what the two rounds give it (host-round rows, mean of the two), added
    to the core sampled in window: the ratio a binding that did nothing
    else would show."""
    rows = load(os.path.join(res, "node.json"))
    s = [r["median_ns"] for r in rows if r.get("group") == "host-round"]
    c = next((r["median_ns"] for r in rows if r.get("group") == "core-in-window"), None)
    if len(s) != 2 or not c:
        return ""
    mean = sum(s) / 2
    return (f"; JSON.stringify of what the rounds hand over {fmt_ns(mean)} a round "
            f"alone makes {(c + mean) / c:.2f}× the core in window")


def load_obj(path: str) -> dict:
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return {}


def growth_rows(res: str, kind: str, op: str, lang: str = "node") -> list[tuple[int, float, float]]:
    """(size, floor ns, op ns) of one growth series of a binding (node.json, python.json), by size."""
    rows = [r for r in load(os.path.join(res, f"{lang}.json")) if r.get("group") == f"growth-{kind}"]
    floor = {r["size"]: r["median_ns"] for r in rows if r["op"].startswith("floor")}
    ours = {r["size"]: r["median_ns"] for r in rows if r["op"] == op}
    return [(n, floor[n], ours[n]) for n in sorted(ours) if n in floor]


# Issue 16, the Python rows (and C's memory row): seal+open of a 4 KiB dict
# state at least this many times faster than the mcp 2.3.0 boundary (str
# state); begin+decide per round at most this × the core's; growth slope at
# most this × the floor's.
PYTHON_TARGETS = {"speedup_4k": 5.0, "round_vs_core": 1.3, "slope": 1.5}


def python_checks(res: str, core: dict) -> list[tuple[str, str, bool]]:
    out = []
    by = {(r["op"], r["size"]): r["median_ns"] for r in load(os.path.join(res, "python.json")) if not r.get("group")}
    ours, peer = ("snodo seal+open", 4096), ("sdk boundary _seal+_unseal (str state)", 4096)
    if ours in by and peer in by:
        x = by[peer] / by[ours]
        out.append((f"python seal+open, 4 KiB dict state, ≥ {PYTHON_TARGETS['speedup_4k']:g}× faster than "
                    "the mcp boundary (str state)", f"{x:.1f}×", x >= PYTHON_TARGETS["speedup_4k"]))
        out = add_note(out, host_least_4k(res, "python", core, by[peer]))
    out += round_checks(res, "python", core, PYTHON_TARGETS["round_vs_core"])
    for kind, op in (("state", "snodo seal+open"), ("args", "snodo begin (retry)")):
        rows = growth_rows(res, kind, op, "python")
        if len(rows) >= 2:
            (n0, f0, t0), (n1, f1, t1) = rows[0], rows[-1]
            x = (t1 - t0) / (f1 - f0) if f1 > f0 else float("inf")
            out.append((f"python growth, {op} {n0} B → {n1} B: slope ≤ {PYTHON_TARGETS['slope']:g}× the floor's",
                        f"{x:.1f}×" + (host_slope(res, "python", rows) if kind == "state" else ""),
                        x <= PYTHON_TARGETS["slope"]))
    for lang in ("python", "c"):
        mem = load_obj(os.path.join(res, f"{lang}-memory.json"))
        if mem:
            r = mem["readings"]
            grew = r[-1]["peak_kib"] - r[0]["peak_kib"]
            out.append((f"{lang} peak RSS over {mem['flows']:,} two-round flows flat after {r[0]['flows']:,} "
                        f"(≤ {mem['bound_kib']} KiB)", f"+{grew} KiB", bool(mem["ok"])))
    return out


# The growth series every binding measures (op per kind), and the floor
# each one divides by: its own language's HMAC-SHA256 + base64url.
BINDING_GROWTH = [("state", "snodo seal+open"), ("args", "snodo begin (retry)")]
GROWTH_FLOOR = {
    "node": "node:crypto HMAC-SHA256 + base64url",
    "python": "hmac.new(k, m, sha256) + base64url",
}


def binding_growth_table(res: str, lang: str) -> None:
    """A binding's cost against size, each beside the floor of the same bytes."""
    lines = []
    # The host's rows (HOST_ROWS) beside the state series, one column each.
    hosts = HOST_ROWS[lang]
    host = {(r["op"], r["size"]): r["median_ns"] for r in load(os.path.join(res, f"{lang}.json"))
            if r.get("group") == "growth-state" and r["op"] in hosts}
    for kind, op in BINDING_GROWTH:
        for n, fl, t in growth_rows(res, kind, op, lang):
            cells = [f"{fmt_ns(host[(h, n)])} ({host[(h, n)] / fl:.1f}×)" if kind == "state" and (h, n) in host else ""
                     for h in hosts]
            lines.append(f"| {kind} {n} B | {fmt_ns(fl)} | {op} | {fmt_ns(t)} ({t / fl:.1f}×) | " + " | ".join(cells) + " |")
    if lines:
        print()
        print(f"Growth ({lang}; ratio to the floor of the same bytes, {GROWTH_FLOOR[lang]}):")
        print("| size | floor | operation | median | " + " | ".join(h[6:] for h in hosts) + " |")
        print("|---|---|---|---|" + "---|" * len(hosts))
        print("\n".join(lines))


# The columns of each memory bench's table, as (column, key of a reading):
# Node reads RSS beside the V8 heap after global.gc() (memory.mjs); Python
# and C read the kernel's peak.
NODE_MEMORY = [("RSS", "rss_kib"), ("V8 heap reserved", "heap_total_kib"),
               ("RSS outside the V8 heap", "outside_kib"), ("V8 heap used", "heap_used_kib")]
PEAK_MEMORY = [("VmHWM", "hwm_kib"), ("VmRSS", "rss_kib"), ("peak", "peak_kib")]


def memory_table(res: str, lang: str) -> None:
    """RSS over flows of one memory bench (<lang>-memory.json), if it ran."""
    mem = load_obj(os.path.join(res, f"{lang}-memory.json"))
    if not mem:
        return
    node = lang == "node"
    state = "4 KiB state, after global.gc()" if node else f"{mem['state_bytes']} B state"
    columns = NODE_MEMORY if node else PEAK_MEMORY
    print()
    print(f"Memory ({lang}, {mem['flows']:,} two-round flows, {state}):")
    print("| flows | " + " | ".join(f"{c} (KiB)" for c, _ in columns) + " |")
    print("|---:|" + "---:|" * len(columns))
    for r in mem["readings"]:
        if node:
            r = {**r, "outside_kib": r["rss_kib"] - r["heap_total_kib"]}
        print(f"| {r['flows']:,} | " + " | ".join(f"{r[k]:,}" for _, k in columns) + " |")


if __name__ == "__main__":
    main()
