"""The two begin+decide rounds of bench.py, run N times each, for profiling:
under `valgrind --tool=callgrind` with N and 2N, the difference is the cost
of N rounds without the set-up.

Usage: rounds.py ROUND N   (ROUND: 1, 2 or both; N rounds of each)

The set-up and the two statements are bench.py's, byte for byte (request,
question, 256 B state from core/benches/payloads/state-256.json, the
longest TTL); prints the wall and process time per round.
"""

from __future__ import annotations

import json
import os
import sys
import time

import snodo_mrtr as mrtr

from fixtures import KEY, QUESTION as Q, TTL_SECS, request

HERE = os.path.dirname(os.path.abspath(__file__))
STATE = os.path.join(HERE, "..", "..", "core", "benches", "payloads", "state-256.json")


def main() -> None:
    which, n = sys.argv[1], int(sys.argv[2])
    with open(STATE, "rb") as f:
        S256 = json.loads(f.read())
    fixed = mrtr.Engine([("k1", KEY)], ttl_secs=TTL_SECS)
    R1 = request()
    token = fixed.decide(fixed.begin(R1, "alice"), mrtr.input_required({"seat": Q}, state=S256)).body["result"][
        "requestState"]
    R2 = request({"inputResponses": {"seat": {"action": "accept", "content": {"seat": "12A"}}}, "requestState": token})
    assert fixed.begin(R2, "alice").response("seat", Q).is_accepted

    def round1() -> None:
        for _ in range(n):
            fixed.decide(fixed.begin(R1, 'alice'), mrtr.input_required({'seat': Q}, state=S256))

    def round2() -> None:
        for _ in range(n):
            c = fixed.begin(R2, 'alice'); c.response('seat', Q)  # noqa: E702 (bench.py's statement)
            fixed.decide(c, mrtr.complete({'content': [{'type': 'text', 'text': 'booked'}]}))

    for name, fn in (("1", round1), ("2", round2)):
        if which not in (name, "both"):
            continue
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        w1, c1 = time.perf_counter(), time.process_time()
        print(f"round {name}: {(w1 - w0) / n * 1e9:8.0f} ns wall, {(c1 - c0) / n * 1e9:8.0f} ns cpu per round")


if __name__ == "__main__":
    main()
