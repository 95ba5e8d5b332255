"""Prints the table of `make bench` from the results of its parts.

Usage: bench-table.py CRITERION_DIR RESULTS_DIR

CRITERION_DIR is criterion's output (groups core, growth, once, tasks); RESULTS_DIR
holds what scripts/bench.sh wrote: python.json, node.json, c.json (the
binding benches), sdk-python.json, sdk-node.json (snodo inside each official
SDK), fastmcp-python.json (inside FastMCP; information, read when present), rmcp.json (inside
rmcp; information, read when present), servers.json (the example servers under load), the *-memory.json of
the memory benches and core-sampler.json (the round sampler's check).

Only the guard rows, printed last, say [met] or [MISSED]; everything else is
there to read. A missed guard is reported, not an error: the exit status is 0
either way, and 1 only when an input a guard needs is missing. Standard
library only.
"""

from __future__ import annotations

import json
import os
import sys

CASES = [("state_256", "256 B state"), ("state_4096", "4 KiB state"), ("args_32768", "32 KiB args")]
CORE_OPS = [
    ("floor", "floor: HMAC-SHA256 + base64url of the same bytes"),
    ("format_floor", "format floor: open this token format, no JSON"),
    ("format_floor_seal", "format floor: seal this token format, no JSON"),
    ("drop_state", "free the caller's state tree"),
    ("seal", "seal"), ("open", "open"), ("seal_v2", "seal v2 (XChaCha20-Poly1305)"), ("open_v2", "open v2"),
    ("begin", "begin (retry: parse, binding, open)"), ("decide", "decide (ask one question, seal)"),
    ("flow3", "three-round flow (3 × begin + decide)"),
]
# The 32 KiB arguments are signed, not sealed: only begin and the flow read
# them, so only those rows compare with that case's floor.
ARGS_VS_FLOOR = ("begin", "flow3")
ONCE = [("memory_run_once", "run_once of a final round, in-memory store"),
        ("memory_check_done", "check_once of a completed flow, in-memory store"),
        ("redis_run_once", "run_once of a final round, loopback Redis")]
TASKS = [("memory_task_life", "a task's life (create, park, get, update, complete, get), in-memory store"),
         ("redis_task_life", "a task's life, loopback Redis (six round trips)")]
CORE_GROWTH = [("state", [256, 1024, 4096, 16384], ["begin", "decide"]), ("args", [1024, 8192, 32768, 262144], ["begin"])]
BINDING_GROWTH = [("state", "snodo seal+open"), ("args", "snodo begin (retry)")]
# Each binding's own SDK codec, the peer of its `snodo seal+open` row.
PEER = {"python": "sdk boundary _seal+_unseal (str state)",
        "node": "sdk createRequestStateCodec mint+verify (no bind)"}
# The guards' bounds.
SPEEDUP_MIN = 2.0  # snodo seal+open against the SDK's own codec
CORE_CALL_US = 10.0  # the core's begin + decide of a typical tools/call
ROUND_US = 15.0  # a binding's begin + decide per round
SERVER_FLOWS_MIN = 1000.0  # each example server at SERVER_CLIENTS clients
SERVER_CLIENTS = 64
# The files the guards read, and what writes each.
NEEDED = [("python.json", "bindings-python/benches/bench.py"), ("node.json", "bindings-node/benches/bench.mjs"),
          ("c.json", "ffi/benches/bench.c"), ("sdk-python.json", "bindings-python/benches/sdk_bench.py"),
          ("sdk-node.json", "bindings-node/benches/sdk_bench.mjs"), ("servers.json", "interop/load/run.py bench")]


class Missing(Exception):
    """An input a guard needs is not there."""


def fmt_ns(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.2f} µs" if ns >= 1e3 else f"{ns:.0f} ns"


def load(path: str, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return default


def criterion(crit: str, *parts: str) -> float | None:
    """criterion's median estimate (ns) of one bench, None if it did not run."""
    est = load(os.path.join(crit, *parts, "new", "estimates.json"))
    return est["median"]["point_estimate"] if est else None


def median(xs: list[float]) -> float:
    s = sorted(xs)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


def table(title: str, head: list[str], rows: list[list[str]]) -> None:
    """A Markdown table with its columns padded to line up."""
    if not rows:
        return
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    print(f"\n{title}")
    for r in [head, ["-" * w for w in widths]] + rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")


class Results:
    """One binding bench's rows; `by` holds those without a group, by (op, size)."""

    def __init__(self, res: str, lang: str) -> None:
        self.path = os.path.join(res, f"{lang}.json")
        self.rows = load(self.path, [])
        self.by = {(r["op"], r["size"]): r for r in self.rows if not r.get("group")}

    def ns(self, op: str, size: int) -> float:
        r = self.by.get((op, size))
        if r is None:
            raise Missing(f"{self.path} has no row '{op}' at {size} B")
        return r["median_ns"]

    def group(self, name: str) -> list[dict]:
        return [r for r in self.rows if r.get("group") == name]


def round_rows(rows: list[dict], lang: str) -> list[dict]:
    """A binding's per-round rows: Python's and Node's `snodo begin+decide
    round 1 ...` and `... round 2 ...`; C's 1-thread row (a call is a round)."""
    if lang == "c":
        return [r for r in rows if not r.get("group") and r.get("threads") == 1]
    return [r for r in rows if not r.get("group") and r["op"].startswith("snodo begin+decide round")]


def guards(crit: str, res: str) -> list[tuple[str, str, bool]]:
    out = []
    for lang in ("python", "node"):
        r = Results(res, lang)
        for size in (256, 4096):
            ours, peer = r.ns("snodo seal+open", size), r.ns(PEER[lang], size)
            x = peer / ours
            out.append((f"{lang} seal+open ≥ {SPEEDUP_MIN:g}× faster than the SDK's codec, {size} B",
                        f"{x:.1f}× ({fmt_ns(ours)} against {fmt_ns(peer)})", x >= SPEEDUP_MIN))
    begin, decide = criterion(crit, "core", "begin", "state_256"), criterion(crit, "core", "decide", "state_256")
    if begin is None or decide is None:
        raise Missing(f"no criterion result for core/begin/state_256 and core/decide/state_256 in {crit}")
    us = (begin + decide) / 1e3
    out.append((f"core begin+decide, typical tools/call (256 B state) ≤ {CORE_CALL_US:g} µs",
                f"{us:.2f} µs (begin {fmt_ns(begin)} + decide {fmt_ns(decide)})", us <= CORE_CALL_US))
    for lang, what, want in (("python", "per round", 2), ("node", "per round", 2), ("c", "per call, 1 thread", 1)):
        path = os.path.join(res, f"{lang}.json")
        rounds = round_rows(load(path, []), lang)
        if len(rounds) != want:
            raise Missing(f"{path} has {len(rounds)} begin+decide {what} rows, not {want}")
        us = sum(r["median_ns"] for r in rounds) / want / 1e3
        each = f" (mean of rounds 1 and 2: {' and '.join(fmt_ns(r['median_ns']) for r in rounds)})" if want > 1 else ""
        out.append((f"{lang} begin+decide {what} ≤ {ROUND_US:g} µs", f"{us:.2f} µs{each}", us <= ROUND_US))
    for lang, ours, theirs in (("python", "snodo_color", "sdk_color"), ("node", "snodo", "sdk")):
        path = os.path.join(res, f"sdk-{lang}.json")
        flow = load(path, {}).get("us_per_flow", {})
        if ours not in flow or theirs not in flow:
            raise Missing(f"{path} has no us_per_flow.{ours} and .{theirs}")
        floor = f"; one-round floor {flow['floor']:.1f} µs" if "floor" in flow else ""
        out.append((f"{lang} SDK: snodo's two-round flow ≤ the SDK's own",
                    f"{flow[ours]:.1f} µs against {flow[theirs]:.1f} µs a flow{floor}", flow[ours] <= flow[theirs]))
    rows = load(os.path.join(res, "servers.json"), {}).get("rows", [])
    for kind in ("python-example", "node-example"):
        row = next((r for r in rows if r["server"] == kind and r["clients"] == SERVER_CLIENTS), None)
        if row is None:
            raise Missing(f"{os.path.join(res, 'servers.json')} has no {kind} row at {SERVER_CLIENTS} clients")
        ok = row["flows_per_s"] >= SERVER_FLOWS_MIN and row["failed"] == 0
        out.append((f"{kind} ≥ {SERVER_FLOWS_MIN:,.0f} flows/s at {SERVER_CLIENTS} clients, 0 failed",
                    f"{row['flows_per_s']:,.0f} flows/s, {row['failed']} failed", ok))
    return out


def core_tables(crit: str) -> None:
    cell = {}
    for op, _ in CORE_OPS:
        for case, _ in CASES:
            ns = criterion(crit, "core", op, case)
            if ns is not None:
                cell[(op, case)] = ns
    rows = []
    for op, label in CORE_OPS:
        cells = []
        for case, _ in CASES:
            ns, floor = cell.get((op, case)), cell.get(("floor", case))
            if ns is None:
                cells.append("")
            elif floor and op != "floor" and (case != "args_32768" or op in ARGS_VS_FLOOR):
                cells.append(f"{fmt_ns(ns)} ({ns / floor:.1f}×)")
            else:
                cells.append(fmt_ns(ns))
        if any(cells):
            rows.append([label] + cells)
    table("Core (criterion medians; in brackets, × the floor of the same bytes):",
          ["operation"] + [c for _, c in CASES], rows)
    if all(k in cell for k in [("seal", "state_4096"), ("open", "state_4096"), ("seal_v2", "state_4096"),
                               ("open_v2", "state_4096")]):
        v1 = cell[("seal", "state_4096")] + cell[("open", "state_4096")]
        v2 = cell[("seal_v2", "state_4096")] + cell[("open_v2", "state_4096")]
        print(f"\nv2 against v1, seal+open of the 4 KiB state: {v2 / v1:.2f}× ({fmt_ns(v2)} against {fmt_ns(v1)})")
    once = [[label, fmt_ns(ns)] for bench, label in ONCE if (ns := criterion(crit, "once", bench)) is not None]
    table("At most once (criterion medians, one flow):", ["operation", "median"], once)
    tasks = [[label, fmt_ns(ns)] for bench, label in TASKS if (ns := criterion(crit, "tasks", bench)) is not None]
    table("Tasks (criterion medians, one task):", ["operation", "median"], tasks)

    rows, slopes = [], []
    for kind, sizes, ops in CORE_GROWTH:
        series = {op: [] for op in ops}
        for n in sizes:
            floor = criterion(crit, "growth", "floor", f"{kind}_{n}")
            if floor is None:
                continue
            cells = []
            for op in ops:
                ns = criterion(crit, "growth", op, f"{kind}_{n}")
                cells.append(f"{fmt_ns(ns)} ({ns / floor:.1f}×)" if ns else "")
                if ns:
                    series[op].append((n, floor, ns))
            rows.append([f"{kind} {n} B", fmt_ns(floor)] + cells + [""] * (2 - len(ops)))
        slopes += [f"core {op}, {kind}: {slope(s)}" for op, s in series.items() if len(s) >= 2]
    table("Growth (core; in brackets, × the floor of the same bytes):", ["size", "floor", "begin", "decide"], rows)
    for s in slopes:
        print(f"  slope {s}")


def slope(series: list[tuple[int, float, float]]) -> str:
    """How fast a series grows against the floor's growth, first size to last."""
    (n0, f0, t0), (n1, f1, t1) = series[0], series[-1]
    x = (t1 - t0) / (f1 - f0) if f1 > f0 else float("inf")
    return f"{n0} B → {n1} B, {x:.1f}× the floor's"


def binding_tables(res: str) -> None:
    rows = []
    for lang in ("python", "node"):
        r = Results(res, lang)
        for row in r.rows:
            if row.get("group") not in (None, "host-round"):
                continue
            note, size = "", row["size"]
            if row["op"] == "snodo seal+open" and (PEER[lang], size) in r.by:
                note = f"{r.by[(PEER[lang], size)]['median_ns'] / row['median_ns']:.1f}× faster than the SDK's codec"
            elif row["op"].startswith("sdk") and ("snodo seal+open", size) in r.by:
                note = f"{row['median_ns'] / r.by[('snodo seal+open', size)]['median_ns']:.1f}× snodo's time"
            rows.append([lang, row["op"], f"{size} B", fmt_ns(row["median_ns"]),
                         f"{fmt_ns(row['min_ns'])}–{fmt_ns(row['max_ns'])}", note])
    rate = {}
    for row in load(os.path.join(res, "c.json"), []):
        if not row.get("group"):
            rate[row["threads"]] = row["calls_per_s"]
            rows.append(["c", row["op"], f"{row['size']} B", f"{row['calls_per_s']:,.0f}/s",
                         f"{row['min_calls_per_s']:,.0f}–{row['max_calls_per_s']:,.0f}/s",
                         f"{row['median_ns'] / 1e3:.2f} µs a call per thread"])
    table("Bindings (median of interleaved repeats):", ["binding", "operation", "state", "median", "min–max", "note"],
          rows)
    if 1 in rate and 2 in rate:
        print(f"\nc on 2 threads: {rate[2] / rate[1]:.2f}× the calls/s of 1 thread")

    for lang in ("python", "node"):
        r = Results(res, lang)
        hosts = sorted({row["op"] for row in r.group("growth-state") if row["op"].startswith("host:")})
        rows, slopes = [], []
        for kind, op in BINDING_GROWTH:
            group = r.group(f"growth-{kind}")
            floor = {row["size"]: row["median_ns"] for row in group if row["op"].startswith("floor")}
            ns = {(row["op"], row["size"]): row["median_ns"] for row in group}
            series = [(n, floor[n], ns[(op, n)]) for n in sorted(floor) if (op, n) in ns]
            for n, fl, t in series:
                host = [f"{fmt_ns(ns[(h, n)])} ({ns[(h, n)] / fl:.1f}×)" if kind == "state" and (h, n) in ns else ""
                        for h in hosts]
                rows.append([f"{kind} {n} B", fmt_ns(fl), op, f"{fmt_ns(t)} ({t / fl:.1f}×)"] + host)
            if len(series) >= 2:
                slopes.append(f"{lang} {op}, {kind}: {slope(series)}")
        table(f"Growth ({lang}; in brackets, × its own language's floor of the same bytes):",
              ["size", "floor", "operation", "median"] + [h[len("host: "):] for h in hosts], rows)
        for s in slopes:
            print(f"  slope {s}")


def in_window_table(crit: str, res: str) -> None:
    """Each binding's round over the core's begin+decide sampled beside it in
    the same repeat (core/examples/round_sampler.rs), and over the core doing
    the same two rounds warm: the median of the per-repeat ratios."""
    rows = []
    for lang in ("python", "node", "c"):
        data = load(os.path.join(res, f"{lang}.json"), [])
        core = next((r for r in data if r.get("group") == "core-in-window"), None)
        own_rows = round_rows(data, lang)
        if not core or not own_rows or any(len(r.get("samples_ns", [])) != len(core["samples_ns"]) for r in own_rows):
            continue
        own = [sum(r["samples_ns"][i] for r in own_rows) / len(own_rows) for i in range(len(core["samples_ns"]))]
        ratios = [o / c for o, c in zip(own, core["samples_ns"])]
        warm = core.get("rounds_ns") or []
        vs_warm = f"{median([o / w for o, w in zip(own, warm)]):.2f}×" if len(warm) == len(own) else ""
        rows.append([lang, fmt_ns(median(own)), fmt_ns(core["median_ns"]),
                     f"{median(ratios):.2f}× ({min(ratios):.2f}–{max(ratios):.2f}×)",
                     fmt_ns(median(warm)) if warm else "", vs_warm])
    table("Per round against the core sampled in the same repeat (round_sampler; median of paired repeats):",
          ["binding", "per round", "core begin+decide", "ratio (min–max)", "core's two rounds, warm", "ratio"], rows)
    check = load(os.path.join(res, "core-sampler.json"), {})
    begin, decide = criterion(crit, "core", "begin", "state_256"), criterion(crit, "core", "decide", "state_256")
    if rows and check.get("ns") and begin and decide:
        print(f"  round_sampler right after criterion: {fmt_ns(check['ns'])}, "
              f"{check['ns'] / (begin + decide):.2f}× criterion's begin+decide {fmt_ns(begin + decide)}")


def memory_table(res: str) -> None:
    """RSS over many flows after warm-up, as each memory bench reads it."""
    rows = []
    for lang, key, what in (("python", "peak_kib", "peak RSS"), ("node", "rss_kib", "RSS after gc"),
                            ("c", "peak_kib", "peak RSS")):
        mem = load(os.path.join(res, f"{lang}-memory.json"))
        if not mem:
            continue
        r = mem["readings"]
        grew = max(x[key] for x in r) - r[0][key]
        rows.append([lang, what, f"{mem['flows']:,}", f"{r[0][key]:,} KiB at {r[0]['flows']:,}",
                     " ".join(f"{x[key]:,}" for x in r[1:]), f"+{grew:,} KiB", f"{mem['bound_kib']:,} KiB",
                     "flat" if mem["ok"] else "grew"])
    table("Memory (two-round flows; readings after the warm-up, KiB):",
          ["binding", "reading", "flows", "after warm-up", "later readings", "growth", "bound", "the bench says"], rows)


def servers_table(res: str) -> None:
    rows = [[r["server"], str(r["clients"]), f"{r['flows_per_s']:,.0f}", f"{r['p50_ms']:.2f}", f"{r['p99_ms']:.2f}",
             str(r["failed"]), f"{r['server_ms_per_flow']:.3f}"]
            for r in load(os.path.join(res, "servers.json"), {}).get("rows", [])]
    table("Example servers over HTTP (interop/load/run.py bench, two-round flows):",
          ["server", "clients", "flows/s", "p50 ms", "p99 ms", "failed", "server CPU ms/flow"], rows)


def fastmcp_table(res: str) -> None:
    """Information, no guard: the two-round flow inside FastMCP, when its bench ran."""
    flow = load(os.path.join(res, "fastmcp-python.json"), {}).get("us_per_flow", {})
    if not all(k in flow for k in ("snodo_color", "fastmcp_color", "floor")):
        return
    table("Inside FastMCP 4.2.3 (bindings-python/benches/fastmcp_bench.py, µs per two-round flow, in process):",
          ["snodo_mrtr.fastmcp", "FastMCP's guard pattern (its AES-GCM state)", "one-round floor", "snodo - FastMCP"],
          [[f"{flow['snodo_color']:.1f}", f"{flow['fastmcp_color']:.1f}", f"{flow['floor']:.1f}",
            f"{flow['snodo_color'] - flow['fastmcp_color']:+.1f}"]])


def rmcp_table(res: str) -> None:
    """Information, no guard: the two-round flow inside rmcp, when its bench ran."""
    flow = load(os.path.join(res, "rmcp.json"), {}).get("us_per_flow", {})
    if not all(k in flow for k in ("snodo", "rmcp", "floor")):
        return
    table("Inside rmcp 3.11 (integrations/rmcp/examples/bench_flow.rs, µs per two-round flow, in process):",
          ["snodo-rmcp", "rmcp's own MRTR (its rs2 codec)", "two plain calls", "snodo - rmcp"],
          [[f"{flow['snodo']:.1f}", f"{flow['rmcp']:.1f}", f"{flow['floor']:.1f}",
            f"{flow['snodo'] - flow['rmcp']:+.1f}"]])


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: bench-table.py CRITERION_DIR RESULTS_DIR", file=sys.stderr)
        return 2
    crit, res = sys.argv[1], sys.argv[2]
    absent = [f"{os.path.join(res, name)} (written by {by})" for name, by in NEEDED
              if not os.path.exists(os.path.join(res, name))]
    try:
        if absent:
            raise Missing("missing input" + "s" * (len(absent) > 1) + ": " + ", ".join(absent))
        checks = guards(crit, res)
    except Missing as e:
        print(f"bench-table: a guard cannot be computed, {e}", file=sys.stderr)
        return 1
    core_tables(crit)
    binding_tables(res)
    in_window_table(crit, res)
    memory_table(res)
    servers_table(res)
    fastmcp_table(res)
    rmcp_table(res)
    print("\nGuards:")
    for name, value, ok in checks:
        print(f"  {'[met]   ' if ok else '[MISSED]'} {name}: {value}")
    met = sum(ok for _, _, ok in checks)
    print(f"guards: {met} met, {len(checks) - met} missed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
