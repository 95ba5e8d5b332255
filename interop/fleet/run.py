"""The fleet scenarios: four contract servers (two Python, two Node; interop/servers/) share keys
and one Redis (a single server, or a 3-master Redis Cluster), and book_room's
effect happens at most once per flow.

scripts/test-fleet.sh starts Redis and the servers, and runs this script in
phases around a Redis outage (it owns Redis: redis.sh stops and restarts it
between the phases):

    run.py shared   a. 200 flows, the same final retry sent to all four at once
                    b. a retry after a "lost" response, later, on another server
                    c. the token replayed after completion with other answers
                    e. a completed flow driven on: its token sent again without
                       answers, and a second token of the flow with other answers,
                       on other servers
                    f. two tokens of one flow racing with different answers
                    g. a late release after a takeover (this script holds a claim
                       whose lease lapses, a server takes the flow over, then this
                       script releases and completes, late)
                    h. the final round's connection dropped mid-flight, then retried
                    t. tasks: each step of a task (create, poll, answer, finish,
                       cancel) on another server; two last answers at once
                    d1. round 1 of the outage flows (no store involved yet)
    run.py storm    d2. flows keep running while the script stops Redis: every
                        answer a booking or -32603, one text per flow
    run.py outage   d3. Redis stopped: final retries and tasks/get -> -32603, servers alive
    run.py resumed  d4. Redis back on the same port (empty): the failed flows
                        (d2's that booked nowhere, d3's) retried -> each booked
                        exactly once, on all four servers

Environment: SNODO_FLEET_SERVERS="python:PORT,python:PORT,node:PORT,node:PORT",
SNODO_FLEET_REDIS ("single" or "cluster"), SNODO_REDIS_PORT (a port of the
server, or of one cluster node), SNODO_REDIS_URL or SNODO_REDIS_CLUSTER_URLS
(scenario g's own store), SNODO_KEYS (the fleet's keys: scenario g opens the
final round as the servers do), SNODO_FLEET_STATE (a JSON file carried between
the phases). The ledger (the Redis list snodo:ledger) is read with redis-cli.
Scenario g uses the snodo-mrtr wheel and redis-py the Python servers run on.
Every check failing is counted; any failure exits 1.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Tuple

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}
TOOL = {"name": "book_room", "arguments": {}}
LEDGER_KEY = "snodo:ledger"
FLOWS = 200
OUTAGE_FLOWS = 20
REPLAYED = "Invalid or expired requestState"
STORE_PREFIX = "once store unavailable: "
USERS = ["alice", "bob", "carol"]


class Fail(Exception):
    pass


def servers() -> List[Tuple[str, int]]:
    out = []
    for entry in os.environ["SNODO_FLEET_SERVERS"].split(","):
        kind, _, port = entry.partition(":")
        out.append((kind, int(port)))
    if len(out) != 4:
        raise Fail(f"expected four servers, got {out}")
    return out


def post(port: int, msg: Dict[str, Any], user: Optional[str], timeout: float = 20) -> Tuple[int, bytes]:
    """One request on a fresh connection: (HTTP status, body bytes)."""
    headers = {"Content-Type": "application/json", "MCP-Protocol-Version": "2026-07-28",
               "Mcp-Method": msg["method"]}
    if "name" in msg["params"]:
        headers["Mcp-Name"] = msg["params"]["name"]
    elif "taskId" in msg["params"]:
        headers["Mcp-Name"] = msg["params"]["taskId"]
    if user:
        headers["Authorization"] = f"Bearer {user}"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", "/mcp", json.dumps(msg).encode(), headers)
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def request(rid: Any, method: str, **params: Any) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": META}}


# A client that declares the Tasks extension on its requests.
TASKS_META = {**META, "io.modelcontextprotocol/clientCapabilities": {
    "elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}}


def task_request(rid: Any, method: str, **params: Any) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": TASKS_META}}


def task_call(port: int, user: str, rid: Any, method: str, **params: Any) -> Tuple[int, Dict[str, Any]]:
    status, raw = post(port, task_request(rid, method, **params), user)
    return status, json.loads(raw)


def poll(port: int, user: str, task_id: str, until: Tuple[str, ...], seconds: float = 15) -> Dict[str, Any]:
    """tasks/get on `port` until the status is one of `until` (the task runs in the background)."""
    deadline = time.monotonic() + seconds
    while True:
        _, body = task_call(port, user, "poll", "tasks/get", taskId=task_id)
        res = body.get("result") or {}
        if res.get("status") in until or time.monotonic() > deadline:
            return body
        time.sleep(0.05)


def nights_for(n: int) -> int:
    return 1 + n % 14


def final_msg(rid: int, token: str, nights: int) -> Dict[str, Any]:
    answers = {"booking": {"action": "accept", "content": {"nights": nights, "confirm": True}}}
    return request(rid, "tools/call", **TOOL, inputResponses=answers, requestState=token)


def round1(port: int, user: str) -> str:
    status, raw = post(port, request(1, "tools/call", **TOOL), user)
    res = json.loads(raw).get("result") or {}
    if status != 200 or res.get("resultType") != "input_required" or list(res.get("inputRequests") or {}) != ["booking"]:
        raise Fail(f"round 1 on :{port}: HTTP {status} {raw[:300]!r}")
    return str(res["requestState"])


def text_of(raw: bytes) -> Optional[str]:
    r = json.loads(raw)
    content = (r.get("result") or {}).get("content") or [{}]
    return content[0].get("text")


def error_of(raw: bytes) -> Optional[Dict[str, Any]]:
    e = json.loads(raw).get("error")
    return e if isinstance(e, dict) else None


def at_once(ports: List[int], msg: Dict[str, Any], user: str) -> List[Tuple[int, bytes]]:
    """The same request to every port, released together."""
    gate = threading.Barrier(len(ports))
    out: List[Any] = [None] * len(ports)

    def one(i: int) -> None:
        gate.wait()
        try:
            out[i] = post(ports[i], msg, user)
        except Exception as e:  # recorded as a failure of this request, never hidden
            out[i] = (0, repr(e).encode())

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(ports))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def without_server_info(raw: bytes) -> str:
    """The response as canonical JSON minus the serverInfo each server stamps with its own
    name (snodo-python-example, snodo-node-example): what must be the same on all four."""
    r = json.loads(raw)
    meta = (r.get("result") or {}).get("_meta")
    if isinstance(meta, dict):
        meta.pop("io.modelcontextprotocol/serverInfo", None)
        if not meta:
            del r["result"]["_meta"]
    return json.dumps(r, sort_keys=True)


def ledger(port: int) -> List[Dict[str, Any]]:
    # -c follows a cluster's MOVED redirection to the list's node.
    cluster = ["-c"] if os.environ.get("SNODO_FLEET_REDIS") == "cluster" else []
    out = subprocess.run(["redis-cli", *cluster, "-h", "127.0.0.1", "-p", str(port), "--raw",
                          "LRANGE", LEDGER_KEY, "0", "-1"],
                         check=True, capture_output=True, text=True, timeout=10).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


class Report:
    def __init__(self) -> None:
        self.failures: List[str] = []

    def check(self, ok: bool, what: str) -> bool:
        if not ok:
            self.failures.append(what)
            print(f"  FAIL: {what}", file=sys.stderr, flush=True)
        return ok

    def line(self, name: str, summary: str, before: int) -> None:
        status = "ok" if len(self.failures) == before else f"FAILED ({len(self.failures) - before} checks)"
        print(f"fleet: {name}: {status}: {summary}", flush=True)


def alive_all(rep: Report, fleet: List[Tuple[str, int]]) -> int:
    """tools/list on every server: service goes on whatever the store does."""
    ok = 0
    for kind, port in fleet:
        try:
            status, raw = post(port, request(1, "tools/list"), None, timeout=10)
            names = [t["name"] for t in json.loads(raw)["result"]["tools"]]
            ok += rep.check(status == 200 and "book_room" in names, f"tools/list on {kind}:{port}: HTTP {status}")
        except Exception as e:
            rep.check(False, f"{kind}:{port} does not answer: {e!r}")
    return ok


def phase_shared(rep: Report, fleet: List[Tuple[str, int]], redis_port: int, state: Dict[str, Any]) -> None:
    ports = [p for _, p in fleet]
    rng = random.Random(17)
    before_ledger = len(ledger(redis_port))
    rep.check(before_ledger == 0, f"the ledger starts empty (has {before_ledger})")

    # a. the same final retry to all four servers at once, 200 flows
    t0, n0 = time.monotonic(), len(rep.failures)
    flows: List[Dict[str, Any]] = []
    lock = threading.Lock()
    identical = same_json = 0

    def flow(n: int) -> None:
        nonlocal identical, same_json
        user, first = USERS[n % len(USERS)], rng.choice(ports)
        token = round1(first, user)
        rid = 1000 + n
        got = at_once(ports, final_msg(rid, token, nights_for(n)), user)
        texts = [text_of(raw) if status == 200 else None for status, raw in got]
        ok = rep.check(all(s == 200 for s, _ in got) and all(t and t.startswith("Booked: entry #") for t in texts),
                       f"flow {n}: final answers {[(s, r[:200]) for s, r in got]}")
        with lock:
            # Byte for byte within each language (the same serverInfo), as JSON across them.
            identical += all(len({raw for (_, raw), (k, _) in zip(got, fleet) if k == kind}) == 1
                             for kind in ("python", "node"))
            same_json += len({without_server_info(raw) for _, raw in got}) == 1 if ok else 0
            flows.append({"n": n, "user": user, "token": token, "rid": rid, "text": texts[0], "first": first})

    with ThreadPoolExecutor(max_workers=8) as pool:
        for f in pool.map(flow, range(FLOWS)):
            pass
    entries = ledger(redis_port)
    flow_ids = [e["flow"] for e in entries]
    rep.check(len(flows) == FLOWS, f"{len(flows)} of {FLOWS} flows ran")
    rep.check(len(entries) == FLOWS, f"ledger has {len(entries)} entries for {FLOWS} flows")
    rep.check(len(set(flow_ids)) == len(entries), f"{len(entries) - len(set(flow_ids))} duplicate flow ids in the ledger")
    numbers = sorted(int(f["text"].rsplit("#", 1)[1]) for f in flows if f["text"])
    rep.check(numbers == list(range(1, FLOWS + 1)), "the entry numbers answered are not exactly 1..200")
    rep.check(same_json == FLOWS, f"{FLOWS - same_json} flows got different results from the four servers")
    rep.check(identical == FLOWS, f"{FLOWS - identical} flows got different bytes from two servers of one language")
    rep.line("a. same final retry to all four servers at once",
             f"{len(flows)} flows x 4 servers, {len(entries)} ledger entries, {len(set(flow_ids))} distinct flow ids, "
             f"answers byte-identical per language in {identical} flows and identical JSON (but the "
             f"serverInfo stamp) across all four in {same_json} ({time.monotonic() - t0:.1f} s)", n0)

    # b. the response was lost: the same retry again, later, on another server
    t0, n0 = time.monotonic(), len(rep.failures)
    same = 0
    sample = flows[::4]
    for i, f in enumerate(sample):
        port = ports[(ports.index(f["first"]) + 1 + i) % 4]
        status, raw = post(port, final_msg(f["rid"], f["token"], nights_for(f["n"])), f["user"])
        same += rep.check(status == 200 and text_of(raw) == f["text"],
                          f"lost-response retry of flow {f['n']} on :{port}: {status} {raw[:200]!r} (want {f['text']!r})")
    after = len(ledger(redis_port))
    rep.check(after == FLOWS, f"ledger grew to {after} after the lost-response retries")
    rep.line("b. retry after a lost response, on another server",
             f"{same}/{len(sample)} got the remembered result, ledger {after} entries (no new entry) "
             f"({time.monotonic() - t0:.1f} s)", n0)

    # c. the token replayed after completion with other answers
    t0, n0 = time.monotonic(), len(rep.failures)
    refused = 0
    sample = flows[1::10]
    for i, f in enumerate(sample):
        port = ports[i % 4]
        other = nights_for(f["n"]) % 14 + 1  # another number of nights
        status, raw = post(port, final_msg(f["rid"], f["token"], other), f["user"])
        err = error_of(raw)
        refused += rep.check(err is not None and err.get("code") == -32602 and err.get("message") == REPLAYED
                             and (err.get("data") or {}).get("reason") == "replayed",
                             f"replay of flow {f['n']} with other answers on :{port}: {status} {raw[:200]!r}")
    after = len(ledger(redis_port))
    rep.check(after == FLOWS, f"ledger grew to {after} after the replays")
    rep.line("c. token replayed after completion with other answers",
             f"{refused}/{len(sample)} refused -32602 '{REPLAYED}' (reason replayed), ledger {after} entries (no new entry) "
             f"({time.monotonic() - t0:.1f} s)", n0)

    scenarios_on_one_flow(rep, fleet, redis_port, flows)

    tasks_across_the_fleet(rep, fleet, state)

    # d1. round 1 of the flows the outage will interrupt (no store is involved in round 1)
    outage = []
    for n in range(FLOWS, FLOWS + OUTAGE_FLOWS):
        user = USERS[n % len(USERS)]
        outage.append({"n": n, "user": user, "token": round1(ports[n % 4], user), "rid": 1000 + n})
    state["outage"] = outage
    state["ledger_before_outage"] = after


def ask_again(port: int, token: str, user: str) -> str:
    """A retry of `token` without answers: the server asks again and issues a new token of
    the same flow (only while the flow has not completed)."""
    status, raw = post(port, request(7, "tools/call", **TOOL, requestState=token), user)
    res = json.loads(raw).get("result") or {}
    if status != 200 or res.get("resultType") != "input_required":
        raise Fail(f"asking again on :{port}: HTTP {status} {raw[:300]!r}")
    return str(res["requestState"])


def is_replayed(status: int, raw: bytes) -> bool:
    err = error_of(raw)
    return (status == 200 and err is not None and err.get("code") == -32602 and err.get("message") == REPLAYED
            and (err.get("data") or {}).get("reason") == "replayed")


def scenarios_on_one_flow(rep: Report, fleet: List[Tuple[str, int]], redis_port: int,
                          flows: List[Dict[str, Any]]) -> None:
    ports = [p for _, p in fleet]
    before = len(ledger(redis_port))

    # e. a completed flow driven on through its own token and through a second token of
    #    the flow (issued before the final round), with other answers, on other servers
    t0, n0 = time.monotonic(), len(rep.failures)
    refused = remembered = 0
    cases = 12
    for n in range(cases):
        user = USERS[n % len(USERS)]
        first = ports[n % 4]
        t1 = round1(first, user)
        t2 = ask_again(ports[(n + 1) % 4], t1, user)
        status, raw = post(ports[(n + 2) % 4], final_msg(1, t1, 3), user)
        booked = text_of(raw) if status == 200 and error_of(raw) is None else None
        rep.check(bool(booked and booked.startswith("Booked: entry #")), f"e: flow {n} did not book: {raw[:200]!r}")
        # The booked token again without answers: refused before anything is asked.
        status, raw = post(ports[(n + 3) % 4], request(8, "tools/call", **TOOL, requestState=t1), user)
        refused += rep.check(is_replayed(status, raw), f"e: flow {n}: booked token without answers: {raw[:200]!r}")
        # The second token with other answers, then with the booked answers.
        for i, port in enumerate(ports):
            status, raw = post(port, final_msg(9, t2, 5 + i), user)
            refused += rep.check(is_replayed(status, raw), f"e: flow {n}: second token, other answers: {raw[:200]!r}")
        status, raw = post(ports[(n + 1) % 4], final_msg(10, t2, 3), user)
        remembered += rep.check(status == 200 and text_of(raw) == booked,
                                f"e: flow {n}: second token, same answers: {raw[:200]!r} (want {booked!r})")
    after = len(ledger(redis_port))
    rep.check(after == before + cases, f"e: the ledger grew by {after - before} for {cases} flows")
    rep.line("e. completed flow driven on through new tokens with new answers, on other servers",
             f"{cases} flows booked once each; {refused}/{cases * 5} later rounds refused -32602 (replayed), "
             f"{remembered}/{cases} with the booked answers got the remembered result "
             f"({time.monotonic() - t0:.1f} s)", n0)

    # f. two tokens of one flow racing, with different answers, on different servers
    t0, n0 = time.monotonic(), len(rep.failures)
    before = len(ledger(redis_port))
    single = 0
    cases = 20
    for n in range(cases):
        user = USERS[n % len(USERS)]
        t1 = round1(ports[n % 4], user)
        t2 = ask_again(ports[(n + 1) % 4], t1, user)
        msgs = [(ports[i], final_msg(20 + i, t1 if i % 2 == 0 else t2, 1 + i)) for i in range(4)]
        gate = threading.Barrier(4)
        got: List[Any] = [None] * 4

        def one(i: int) -> None:
            gate.wait()
            got[i] = post(msgs[i][0], msgs[i][1], user)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        booked = [raw for status, raw in got if status == 200 and (text_of(raw) or "").startswith("Booked")]
        others = [raw for status, raw in got if not (status == 200 and (text_of(raw) or "").startswith("Booked"))]
        single += rep.check(len(booked) == 1 and all(is_replayed(200, raw) for raw in others),
                            f"f: flow {n}: {[(s, r[:120]) for s, r in got]}")
    after = len(ledger(redis_port))
    rep.check(after == before + cases, f"f: the ledger grew by {after - before} for {cases} flows")
    rep.line("f. two tokens of one flow racing with different answers",
             f"{cases} flows x 4 final rounds (two tokens, four answers) at once: one booking and three "
             f"-32602 (replayed) in {single}, ledger +{after - before} ({time.monotonic() - t0:.1f} s)", n0)

    late_release_after_takeover(rep, ports, redis_port)
    dropped_mid_flight(rep, ports, redis_port)


def own_store(lease_secs: float) -> Any:
    """This script's own store on the fleet's Redis, with a short lease."""
    from snodo_mrtr.once import RedisStore

    if os.environ.get("SNODO_FLEET_REDIS") == "cluster":
        return RedisStore.cluster(os.environ["SNODO_REDIS_CLUSTER_URLS"].split(","), lease_secs=lease_secs)
    return RedisStore(os.environ["SNODO_REDIS_URL"], lease_secs=lease_secs)


def late_release_after_takeover(rep: Report, ports: List[int], redis_port: int) -> None:
    """g. This script opens a flow's final round as a server would and wins its claim with a
    one-second lease, then stalls past it; a server takes the flow over (a greater fence) and
    books; then this script's late release, completion and extension must change nothing."""
    import snodo_mrtr as mrtr

    t0, n0 = time.monotonic(), len(rep.failures)
    kid, _, secret = os.environ["SNODO_KEYS"].partition(":")
    engine = mrtr.Engine([(kid, bytes.fromhex(secret))])
    store = own_store(1.0)
    cases = 3
    for n in range(cases):
        user = USERS[n % len(USERS)]
        token = round1(ports[n % 4], user)
        msg = final_msg(30 + n, token, 2)
        call = engine.begin(json.dumps(msg).encode(), user)
        run = mrtr.OnceRun(call, store.prefix, store.lease_ms)
        step = run.start()
        step = run.feed(store.execute(step.command))
        if not rep.check(step.kind == "effect" and step.ticket.fence == 1, f"g: flow {n}: no claim won: {step.kind}"):
            continue
        ticket = step.ticket
        time.sleep(1.3)  # the lease lapses
        status, raw = post(ports[(n + 1) % 4], msg, user)
        booked = text_of(raw) if status == 200 and error_of(raw) is None else None
        rep.check(bool(booked and booked.startswith("Booked: entry #")), f"g: flow {n}: no takeover: {raw[:200]!r}")
        extended = ticket.extended(store.execute(ticket.extend_command))
        rep.check(not extended, f"g: flow {n}: the former owner extended a lease it lost")
        step = run.effect_failed()
        step = run.feed(store.execute(step.command))
        rep.check(step.kind == "released", f"g: flow {n}: the late release: {step.kind}")
        for i, port in enumerate(ports):
            status, raw = post(port, msg, user)
            rep.check(status == 200 and text_of(raw) == booked,
                      f"g: flow {n} on :{port} after the late release: {raw[:200]!r} (want {booked!r})")
        entries = [e for e in ledger(redis_port) if e["flow"] == call.flow_id]
        rep.check(len(entries) == 1 and entries[0].get("fence") == 2,
                  f"g: flow {n}: ledger entries {entries} (want one, fence 2)")
    store.close()
    rep.line("g. a late release after a takeover",
             f"{cases} flows: a claim held past its 1 s lease, taken over by a server (fence 2) that booked; "
             f"the former owner's extension and release were lost and all four servers answer the booking "
             f"({time.monotonic() - t0:.1f} s)", n0)


def dropped_mid_flight(rep: Report, ports: List[int], redis_port: int) -> None:
    """h. The final round's connection is closed right after the request is written (the
    client went away mid-flight); the retry on another server gets the one booking."""
    import socket

    t0, n0 = time.monotonic(), len(rep.failures)
    before = len(ledger(redis_port))
    cases = 20
    same = 0
    for n in range(cases):
        user = USERS[n % len(USERS)]
        token = round1(ports[n % 4], user)
        msg = final_msg(40 + n, token, 4)
        body = json.dumps(msg).encode()
        head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: book_room\r\n"
                f"Authorization: Bearer {user}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
        with socket.create_connection(("127.0.0.1", ports[n % 4]), timeout=5) as s:
            s.sendall(head + body)
        deadline = time.monotonic() + 40
        while True:
            status, raw = post(ports[(n + 2) % 4], msg, user)
            err = error_of(raw)
            if err and err.get("code") == -32603 and time.monotonic() < deadline:
                time.sleep(0.2)  # still running elsewhere: retry, as a client may
                continue
            break
        same += rep.check(status == 200 and (text_of(raw) or "").startswith("Booked: entry #"),
                          f"h: flow {n}: the retry got {status} {raw[:200]!r}")
    after = len(ledger(redis_port))
    rep.check(after == before + cases, f"h: the ledger grew by {after - before} for {cases} flows")
    rep.line("h. the final round's connection dropped mid-flight, then retried",
             f"{same}/{cases} retries on another server got the booking, ledger +{after - before} "
             f"({time.monotonic() - t0:.1f} s)", n0)


def tasks_across_the_fleet(rep: Report, fleet: List[Tuple[str, int]], state: Dict[str, Any]) -> None:
    """t. Tasks (io.modelcontextprotocol/tasks) in the one store: each step of a task on
    another server than the one before, the two languages alternating."""
    ports = [p for _, p in fleet]
    t0, n0 = time.monotonic(), len(rep.failures)
    done = 0
    for i in range(8):
        user, at = USERS[i % len(USERS)], [ports[(i + k) % 4] for k in range(4)]
        _, created = task_call(at[0], user, 1, "tools/call", name="confirm_delete",
                               arguments={"filename": f"f{i}.txt"})
        task = created.get("result") or {}
        if not rep.check(task.get("resultType") == "task", f"t{i}: confirm_delete on :{at[0]}: {created}"):
            continue
        tid = task["taskId"]
        waiting = (poll(at[1], user, tid, ("input_required",)).get("result") or {})
        keys = list(waiting.get("inputRequests") or {})
        rep.check(waiting.get("status") == "input_required" and len(keys) == 1, f"t{i}: waiting on :{at[1]}: {waiting}")
        _, foreign = task_call(at[2], "mallory", 2, "tasks/get", taskId=tid)
        rep.check((foreign.get("error") or {}).get("code") == -32602, f"t{i}: another user on :{at[2]}: {foreign}")
        answer = {k: {"action": "accept", "content": {"confirm": True}} for k in keys}
        _, ack = task_call(at[2], user, 3, "tasks/update", taskId=tid, inputResponses=answer)
        rep.check(ack.get("result") == {"resultType": "complete"}, f"t{i}: tasks/update on :{at[2]}: {ack}")
        final = poll(at[3], user, tid, ("completed", "failed", "cancelled")).get("result") or {}
        ok = rep.check(final.get("status") == "completed" and
                       (final.get("result") or {}).get("content", [{}])[0].get("text") == f"Deleted f{i}.txt.",
                       f"t{i}: finished on :{at[3]}: {final}")
        seen = [json.dumps(task_call(p, user, 4, "tasks/get", taskId=tid)[1], sort_keys=True) for p in ports]
        done += rep.check(ok and len(set(seen)) == 1, f"t{i}: the four servers answer tasks/get differently: {seen}")
    # Cancelled on one server while it works (60 s of simulated work), seen cancelled on all.
    _, created = task_call(ports[2], "alice", 5, "tools/call", name="slow_compute", arguments={"seconds": 60})
    tid = str((created.get("result") or {}).get("taskId"))
    _, ack = task_call(ports[0], "alice", 6, "tasks/cancel", taskId=tid)
    rep.check(ack.get("result") == {"resultType": "complete"}, f"cancel on :{ports[0]}: {ack}")
    statuses = [(task_call(p, "alice", 7, "tasks/get", taskId=tid)[1].get("result") or {}).get("status") for p in ports]
    rep.check(statuses == ["cancelled"] * 4, f"the cancelled task on the four servers: {statuses}")
    # Two users' last answers to two servers at once: the task completes once.
    _, created = task_call(ports[1], "bob", 8, "tools/call", name="multi_input", arguments={})
    tid = str((created.get("result") or {}).get("taskId"))
    keys = list((poll(ports[3], "bob", tid, ("input_required",)).get("result") or {}).get("inputRequests") or {})
    gate = threading.Barrier(2)

    def answer(port: int, key: str) -> None:
        gate.wait()
        task_call(port, "bob", 9, "tasks/update", taskId=tid,
                  inputResponses={key: {"action": "accept", "content": {"name": key}}})

    pair = [threading.Thread(target=answer, args=(ports[j], k)) for j, k in zip((0, 3), keys)]
    for t in pair:
        t.start()
    for t in pair:
        t.join()
    final = poll(ports[2], "bob", tid, ("completed", "failed", "cancelled")).get("result") or {}
    rep.check(len(keys) == 2 and final.get("status") == "completed", f"multi_input answered on two servers: {final}")
    state["task"] = {"id": tid, "user": "bob"}
    rep.line("t. tasks across the fleet",
             f"{done}/8 confirm_delete tasks created, polled, answered and finished on four different servers "
             f"(another user: -32602), a task cancelled on one server is cancelled on all four, two last answers "
             f"at once on two servers complete the task once ({time.monotonic() - t0:.1f} s)", n0)


def phase_storm(rep: Report, fleet: List[Tuple[str, int]], state: Dict[str, Any]) -> None:
    """Flows keep running (the same final retry to all four at once) while test-fleet.sh stops
    Redis: in-flight requests see the connections drop. Every answer is a booking or the store
    error, never anything else; a flow's bookings are one text; flows that booked nowhere are
    retried once Redis is back (phase resumed)."""
    ports = [p for _, p in fleet]
    t0, n0 = time.monotonic(), len(rep.failures)
    lock = threading.Lock()
    seen = {"ok": 0, "store": 0}
    failed: List[Dict[str, Any]] = []
    booked = 0
    counter = iter(range(FLOWS + OUTAGE_FLOWS, 10 ** 6))

    def worker() -> None:
        nonlocal booked
        while time.monotonic() - t0 < 10:
            with lock:
                if seen["ok"] and seen["store"] >= 16:
                    return  # the stop fell in the middle of the storm: enough
                n = next(counter)
            user = USERS[n % len(USERS)]
            f = {"n": n, "user": user, "token": round1(ports[n % 4], user), "rid": 1000 + n}
            got = at_once(ports, final_msg(f["rid"], f["token"], nights_for(f["n"])), f["user"])
            texts = set()
            for (status, raw), port in zip(got, ports):
                err = error_of(raw) if status == 200 else None
                if status == 200 and err is None and (text_of(raw) or "").startswith("Booked: entry #"):
                    texts.add(text_of(raw))
                elif not rep.check(err is not None and err.get("code") == -32603
                                   and str(err.get("message", "")).startswith(STORE_PREFIX),
                                   f"storm: flow {n} on :{port}: {status} {raw[:200]!r}"):
                    continue
                with lock:
                    seen["store" if err else "ok"] += 1
            rep.check(len(texts) <= 1, f"storm: flow {n} booked as {texts}")
            with lock:
                booked += bool(texts)
                if not texts:
                    failed.append(f)
            time.sleep(0.02)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rep.check(seen["ok"] > 0 and seen["store"] > 0,
              f"the Redis stop did not fall mid-storm ({seen['ok']} bookings, {seen['store']} store errors)")
    state["storm_failed"] = failed
    rep.line("d. Redis stopped mid-run (flows in flight)",
             f"{booked + len(failed)} flows: {booked} booked before the stop (one text each), {len(failed)} booked "
             f"nowhere; answers: {seen['ok']} bookings, {seen['store']} -32603 store errors, nothing else "
             f"({time.monotonic() - t0:.1f} s)", n0)


def phase_outage(rep: Report, fleet: List[Tuple[str, int]], state: Dict[str, Any]) -> None:
    ports = [p for _, p in fleet]
    t0, n0 = time.monotonic(), len(rep.failures)
    store_errors = 0
    for f in state["outage"]:
        got = at_once(ports, final_msg(f["rid"], f["token"], nights_for(f["n"])), f["user"])
        for (status, raw), port in zip(got, ports):
            err = error_of(raw) if status == 200 else None
            store_errors += rep.check(err is not None and err.get("code") == -32603
                                      and str(err.get("message", "")).startswith(STORE_PREFIX),
                                      f"outage: flow {f['n']} on :{port}: {status} {raw[:200]!r}")
    # A task in the stopped store: -32603 on every server, never a guess.
    task = state["task"]
    for port in ports:
        _, body = task_call(port, task["user"], 1, "tasks/get", taskId=task["id"])
        store_errors += rep.check((body.get("error") or {}).get("code") == -32603,
                                  f"outage: tasks/get on :{port}: {body}")
    answering = alive_all(rep, fleet)
    rep.line("d. Redis stopped",
             f"{store_errors}/{4 * len(state['outage']) + 4} final retries and tasks/get got -32603, "
             f"{answering}/4 servers still answer ({time.monotonic() - t0:.1f} s)", n0)


def phase_resumed(rep: Report, fleet: List[Tuple[str, int]], redis_port: int, state: Dict[str, Any]) -> None:
    ports = [p for _, p in fleet]
    t0, n0 = time.monotonic(), len(rep.failures)
    entries = ledger(redis_port)
    # The test Redis runs without persistence: it is back empty, and nothing of the outage
    # attempts may be in it (a booking during the outage would have had to reach it).
    rep.check(entries == [], f"after the restart the ledger has {len(entries)} entries, want 0 (restarted empty)")
    deadline = time.monotonic() + 20
    pending = list(state["outage"]) + list(state.get("storm_failed", []))
    texts: Dict[int, str] = {}
    attempts = retried = 0
    served_by = set()
    while pending and time.monotonic() < deadline:
        attempts += 1
        left = []
        for f in pending:
            got = at_once(ports, final_msg(f["rid"], f["token"], nights_for(f["n"])), f["user"])
            oks = [(p, text_of(raw)) for (s, raw), p in zip(got, ports) if s == 200 and error_of(raw) is None]
            errs = [error_of(raw) for s, raw in got if s == 200 and error_of(raw) is not None]
            bad = [(s, raw[:200]) for s, raw in got if s != 200]
            rep.check(not bad, f"resumed: flow {f['n']}: {bad}")
            rep.check(all(e.get("code") == -32603 for e in errs if e), f"resumed: flow {f['n']}: errors {errs}")
            rep.check(len({t for _, t in oks}) <= 1, f"resumed: flow {f['n']}: different results {oks}")
            for p, t in oks:
                served_by.add(p)
                if t is not None:
                    rep.check(texts.setdefault(f["n"], t) == t, f"resumed: flow {f['n']}: {t} after {texts[f['n']]}")
            if len(oks) < 4:
                left.append(f)  # a server still reconnecting: the client retries, as it may after -32603
        retried += len(left)
        pending = left
        if pending:
            time.sleep(0.25)
    entries = ledger(redis_port)
    flow_ids = {e["flow"] for e in entries}
    rep.check(not pending, f"{len(pending)} outage flows never completed on all four servers")
    want = len(state["outage"]) + len(state.get("storm_failed", []))
    rep.check(len(entries) == want and len(flow_ids) == len(entries),
              f"after the retries the ledger has {len(entries)} entries ({len(flow_ids)} flows), want {want}, one each")
    rep.check(len(served_by) == 4, f"only {len(served_by)}/4 servers answered a booking after the restart")
    answering = alive_all(rep, fleet)
    rep.line("d. Redis restarted (same port, empty)",
             f"{len(texts)}/{want} failed flows booked, ledger {len(entries)} entries "
             f"({len(flow_ids)} distinct flows), {len(served_by)}/4 servers booking again, {answering}/4 answering, "
             f"{attempts} rounds of retries ({retried} flow retries while reconnecting) ({time.monotonic() - t0:.1f} s)", n0)


def main() -> int:
    phase = sys.argv[1] if len(sys.argv) == 2 else ""
    if phase not in ("shared", "storm", "outage", "resumed"):
        print("usage: run.py shared|storm|outage|resumed", file=sys.stderr)
        return 2
    fleet = servers()
    redis_port = int(os.environ["SNODO_REDIS_PORT"])
    path = os.environ["SNODO_FLEET_STATE"]
    state: Dict[str, Any] = {} if phase == "shared" else json.load(open(path))
    rep = Report()
    try:
        if phase == "shared":
            phase_shared(rep, fleet, redis_port, state)
        elif phase == "storm":
            phase_storm(rep, fleet, state)
        elif phase == "outage":
            phase_outage(rep, fleet, state)
        else:
            phase_resumed(rep, fleet, redis_port, state)
    except Fail as e:
        rep.check(False, str(e))
    with open(path, "w") as f:
        json.dump(state, f)
    if rep.failures:
        print(f"fleet: {phase}: {len(rep.failures)} checks failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
