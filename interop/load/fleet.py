"""The pieces the load and fault scenarios are built from: server processes
(the contract servers of interop/servers/, and for `run.py bench` also the two
examples), a keep-alive MCP client over HTTP and the two-round flow.

Standard library only, so any Python 3.9+ runs it; the servers themselves run
under the interpreter that has the snodo-mrtr wheel (SNODO_LOAD_PYTHON) and
under node (SNODO_LOAD_NODE).
"""

from __future__ import annotations

import datetime
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(os.environ.get("SNODO_LOAD_ROOT") or Path(__file__).resolve().parents[2])
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}
# Throwaway test keys (32 bytes each, hex): they sign tokens for local test servers only.
OLD = "old:" + "11" * 32
NEW = "new:" + "22" * 32
BOOK = {"name": "book_table", "arguments": {}}
# The servers by kind (the same command lines as interop/lib/servers.mjs). The examples serve
# only preferred_color and book_room: `run.py bench` runs the preference flow on them.
SCRIPTS = {
    "python": "interop/servers/python/server.py",
    "node": "interop/servers/node/server.mjs",
    "python-example": "bindings-python/examples/server.py",
    "node-example": "bindings-node/examples/server.mjs",
}
COLOR = {"name": "preferred_color", "arguments": {}}
COLORS = ("red", "green", "blue")
PREFERENCE = False  # True: round1/round2 run the preference flow (set by use_flow)


def use_flow(kind: str) -> None:
    """The flow the next load runs against `kind` (forked client processes inherit it)."""
    global PREFERENCE
    PREFERENCE = kind.endswith("-example")


class Server:
    """One server process over HTTP on 127.0.0.1."""

    def __init__(self, kind: str, keys: str, port: int = 0, clock_offset: int = 0, **env: str) -> None:
        self.kind = kind
        if kind not in SCRIPTS:
            raise ValueError(f"unknown server {kind!r}: expected one of {', '.join(SCRIPTS)}")
        script = str(ROOT / SCRIPTS[kind])
        if kind == "python":
            # SNODO_LOAD_PYTHON_SERVER: another copy of the script, for an A/B run against a change.
            script = os.environ.get("SNODO_LOAD_PYTHON_SERVER") or script
        if kind.startswith("python"):
            cmd = [os.environ.get("SNODO_LOAD_PYTHON") or sys.executable, script]
        else:
            cmd = [os.environ.get("SNODO_LOAD_NODE") or "node", script]
        full_env = {**os.environ, "SNODO_KEYS": keys, **env}
        if clock_offset:
            # A host whose clock is off, as the operating system tells it: libfaketime
            # (Debian's faketime, installed by scripts/test-load.sh) shifts every
            # wall-clock read of the process. The server itself has no clock setting.
            cmd = ["faketime", "-f", f"{clock_offset:+d}s"] + cmd
            full_env["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
        # A process group of its own: faketime runs the server as its child, and a signal to
        # the group reaches the server too (else a stopped faketime leaves it running).
        self.proc = subprocess.Popen(cmd + ["--http", str(port)], cwd=ROOT, env=full_env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, start_new_session=True)
        self.log: List[str] = []
        self.port = self._wait_listening()
        # Keep draining stderr so a chatty server can never block on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()

    def _wait_listening(self) -> int:
        assert self.proc.stderr is not None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.log.append(line)
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/mcp", line)
            if m:
                return int(m.group(1))
        self.kill()
        raise RuntimeError(f"{self.kind} server did not start: {''.join(self.log)}")

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.log.append(line)

    def status(self, field: str) -> int:
        """A number from /proc/<pid>/status: VmRSS (KiB) or Threads."""
        text = Path(f"/proc/{self.proc.pid}/status").read_text()
        m = re.search(rf"^{field}:\s+(\d+)", text, re.M)
        if not m:
            raise RuntimeError(f"no {field} in /proc/{self.proc.pid}/status")
        return int(m.group(1))

    def cpu(self) -> float:
        """CPU seconds (user + system, all threads) the server process has used so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime (fields 14, 15)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def _signal(self, sig: int) -> None:
        """`sig` to the server's process group (the server, and faketime when it runs it)."""
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass

    def kill(self) -> None:
        """SIGKILL: nothing is flushed, nothing is handed over (the restart scenario's point)."""
        self._signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.kill()


def request(id: Any, method: str, **params: Any) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": {**params, "_meta": META}}


class Client:
    """One keep-alive HTTP/1.1 connection, like an MCP client's. Never retries:
    a reset or a dropped connection is counted and reported as what it is."""

    def __init__(self, port: int, user: Optional[str], timeout: float = 20) -> None:
        self.port, self.user, self.timeout = port, user, timeout
        self.conn: Optional[http.client.HTTPConnection] = None
        self.connections = 0

    def post(self, msg: Dict[str, Any], user: Optional[str] = "") -> Tuple[int, Dict[str, Any]]:
        who = self.user if user == "" else user
        params = msg["params"]
        headers = {"Content-Type": "application/json", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": msg["method"]}
        if "name" in params:
            headers["Mcp-Name"] = params["name"]
        if who:
            headers["Authorization"] = f"Bearer {who}"
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            self.connections += 1
        try:
            self.conn.request("POST", "/mcp", json.dumps(msg).encode(), headers)
            r = self.conn.getresponse()
            raw = r.read()
        except BaseException:
            self.close()
            raise
        if r.getheader("Connection", "").lower() == "close":
            self.close()
        return r.status, json.loads(raw) if raw else {}

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def answers_for(n: int) -> Tuple[str, int]:
    """A date and a guest count unique to flow n, so every final text is that flow's own."""
    day = datetime.date(2026, 1, 1) + datetime.timedelta(days=n % 20000)
    return day.isoformat(), 1 + (n // 20000) % 8


def round1(client: Client) -> str:
    """Round 1 of book_table: input_required asking date and guests (of preferred_color:
    asking color); returns requestState."""
    status, r = client.post(request(1, "tools/call", **(COLOR if PREFERENCE else BOOK)))
    res = r.get("result") or {}
    asked = ["color"] if PREFERENCE else ["date", "guests"]
    if status != 200 or res.get("resultType") != "input_required" or list(res.get("inputRequests") or {}) != asked:
        raise FlowError(f"round 1: HTTP {status} {r}")
    return str(res["requestState"])


def retry_msg(state: str, n: int) -> Dict[str, Any]:
    if PREFERENCE:
        answer = {"color": {"action": "accept", "content": {"color": COLORS[n % 3]}}}
        return request(2, "tools/call", **COLOR, inputResponses=answer, requestState=state)
    date, guests = answers_for(n)
    answers = {"date": {"action": "accept", "content": {"date": date}},
               "guests": {"action": "accept", "content": {"guests": guests}}}
    return request(2, "tools/call", **BOOK, inputResponses=answers, requestState=state)


def round2(client: Client, state: str, n: int) -> None:
    """The retry: must complete with flow n's own answer."""
    date, guests = answers_for(n)
    status, r = client.post(retry_msg(state, n))
    want = f"Your preferred color is {COLORS[n % 3]}." if PREFERENCE else f"Booked a table for {guests} on {date}."
    got = (((r.get("result") or {}).get("content") or [{}])[0]).get("text")
    if status != 200 or got != want:
        raise FlowError(f"round 2 of flow {n}: HTTP {status} {r}")


def rejected_reason(client: Client, state: str, n: int, user: Optional[str] = "") -> Optional[str]:
    """Retries flow n's token (as `user` if given); the -32602 reason, or None if it was accepted."""
    status, r = client.post(retry_msg(state, n), user)
    err = r.get("error")
    if err is None:
        return None
    if status != 200 or err.get("code") != -32602 or err.get("message") != "Invalid or expired requestState":
        raise FlowError(f"rejected retry of flow {n}: HTTP {status} {r}")
    return str((err.get("data") or {}).get("reason"))


class FlowError(Exception):
    """A flow that did not end as it must."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
