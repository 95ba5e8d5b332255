"""Memory of the snodo_mrtr wheel: peak RSS over 100 000
two-round flows in a loop, which must stay flat after warm-up.

A flow is what an application does per tools/call with the 4 KiB dict
state: round 1 begins and asks one form question, sealing the state into a
token; round 2 is the retry with the answer built from that token (opens it,
reads the answer and the state back as a dict, completes), each response
turned into its wire text. Prints VmHWM (the peak resident set; the larger
of it and VmRSS, as the kernel updates it lazily) after 10k, 25k, 50k, 75k
and 100k flows, writes them to OUT.json and exits 1 if the peak grew by more
than 1 MiB after the first 10k flows (a leak, or a cache without a bound).

Usage: memory.py PAYLOAD_DIR OUT.json   Run by scripts/bench.sh.
"""

from __future__ import annotations

import gc
import json
import os
import sys

import snodo_mrtr as mrtr

KEY = bytes(range(32))
FLOWS = int(os.environ.get("BENCH_MEMORY_FLOWS", "100000"))
MARKS = [FLOWS // 10, FLOWS // 4, FLOWS // 2, FLOWS * 3 // 4, FLOWS]
BOUND_KIB = 1024
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}
ARGS = {"query": "flights to LIS", "limit": 10}
QUESTION = mrtr.elicit_form(
    "Which seat?",
    {"type": "object", "properties": {"seat": {"type": "string"}}, "required": ["seat"]},
)
DONE = mrtr.complete({"content": [{"type": "text", "text": "booked"}]})


def status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])
    return -1


def request(extra: dict | None = None) -> bytes:
    params = {"name": "book_flight", "arguments": ARGS, "_meta": META, **(extra or {})}
    return json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}).encode()


def main() -> int:
    payload_dir, out_path = sys.argv[1], sys.argv[2]
    with open(os.path.join(payload_dir, "state-4096.json"), "rb") as f:
        state = json.loads(f.read())
    engine = mrtr.Engine([("k1", KEY)])  # the real clock, as installed; each flow is fresh
    r1 = request()
    readings = []
    for i in range(1, FLOWS + 1):
        call = engine.begin(r1, "alice")
        first = engine.decide(call, mrtr.input_required({"seat": QUESTION}, state=state))
        token = first.body["result"]["requestState"]
        first.to_json()
        r2 = request({"inputResponses": {"seat": {"action": "accept", "content": {"seat": "12A"}}},
                      "requestState": token})
        retry = engine.begin(r2, "alice")
        if not retry.response("seat", QUESTION).is_accepted or retry.state != state:
            print("memory: the retry did not read back the answer and the state", file=sys.stderr)
            return 1
        engine.decide(retry, DONE).to_json()
        if i in MARKS:
            gc.collect()
            hwm, rss = status_kib("VmHWM:"), status_kib("VmRSS:")
            readings.append({"flows": i, "hwm_kib": hwm, "rss_kib": rss, "peak_kib": max(hwm, rss)})
            print(f"python  rss  {i:>6} flows  VmHWM {hwm:>7} KiB  VmRSS {rss:>7} KiB", flush=True)
    growth = readings[-1]["peak_kib"] - readings[0]["peak_kib"]
    ok = growth <= BOUND_KIB
    with open(out_path, "w") as f:
        json.dump({"lang": "python", "flows": FLOWS, "state_bytes": 4096, "bound_kib": BOUND_KIB, "ok": ok,
                   "readings": readings}, f, indent=1)
    print(f"python  rss  peak grew {growth} KiB after {MARKS[0]:,} flows (bound {BOUND_KIB} KiB): "
          f"{'flat' if ok else 'GREW'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
