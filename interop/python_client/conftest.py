"""Fixtures for driving a snodo server with the official Python client.

Options: ``--server`` (a kind of SERVERS below), ``--transport stdio|http`` and
``--era 2026|legacy``. The Python servers run on the interpreter named by
``SNODO_INTEROP_PYTHON`` (the one with the snodo-mrtr wheel installed); the
Node ones on ``node``. The contract servers run the contract's workflows
(test_workflows.py, test_legacy_workflows.py); the two examples run theirs
(test_example_workflows.py, test_example_legacy.py); the two servers on the
official SDKs run both, since they serve the examples' ``book_room`` too.

The session writes ``target/interop/python_client-<server>-<transport>.json``:
every test's outcome and the counts, so a silently skipped run cannot pass.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Fixed throwaway test keys (32 bytes, hex); the same as interop/lib/servers.mjs.
KEY_A = "k1:" + "11" * 32


# Every server kind and its script: the same table as interop/lib/servers.mjs.
SERVERS = {
    "python": "interop/servers/python/server.py",
    "node": "interop/servers/node/server.mjs",
    "python-sdk": "interop/servers/python/sdk_server.py",
    "node-sdk": "interop/servers/node/sdk_server.mjs",
    "fastmcp": "interop/servers/python/fastmcp_server.py",
    # A binary (scripts/test-interop-sdk.sh builds it): the contract server on rmcp.
    "rust-sdk": "target/release/examples/contract_server",
    "python-example": "bindings-python/examples/server.py",
    "node-example": "bindings-node/examples/server.mjs",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--server", choices=list(SERVERS), required=True)
    parser.addoption("--transport", choices=["stdio", "http"], required=True)
    # "legacy" runs only the 2025-handshake modules and writes the "-legacy" summary; "2026"
    # (the default) runs the others. Deselected, never skipped.
    parser.addoption("--era", choices=["2026", "legacy"], default="2026")


LEGACY_MODULES = {"test_legacy_workflows.py", "test_example_legacy.py"}
EXAMPLE_MODULES = {"test_example_workflows.py", "test_example_legacy.py"}
# The examples' own tools beyond book_room (the SDK servers serve only book_room of theirs); both eras in one
# module, which runs with the 2026 suites.
EXAMPLE_ONLY = {"test_example_report.py"}
# The contract servers' task fixtures on a 2025 session (the SDK servers do not serve them).
CONTRACT_LEGACY_ONLY = {"test_legacy_tasks.py"}


def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    legacy = config.getoption("--era") == "legacy"
    server = str(config.getoption("--server"))
    # Which suites a kind runs: the contract's, the examples', or (SDK servers) both.
    # (fastmcp: the contract server on FastMCP, which serves book_room as the SDK servers do.)
    suites = {True} if server.endswith("-example") else \
        {False, True} if server.endswith("-sdk") or server == "fastmcp" else {False}
    def kept(name: str) -> bool:
        if name in EXAMPLE_ONLY:
            return not legacy and server.endswith("-example")
        if name in CONTRACT_LEGACY_ONLY:
            return legacy and server in ("python", "node")
        return (name in LEGACY_MODULES) == legacy and (name in EXAMPLE_MODULES) in suites

    keep = [i for i in items if kept(i.path.name)]
    gone = [i for i in items if i not in keep]
    if gone:
        config.hook.pytest_deselected(items=gone)
        items[:] = keep


def server_command(server: str, mode: List[str]) -> List[str]:
    script = str(ROOT / SERVERS[server])
    if script.endswith(".py"):
        return [os.environ.get("SNODO_INTEROP_PYTHON", sys.executable), script, *mode]
    if server == "rust-sdk":
        return [script, *mode]
    return [os.environ.get("SNODO_INTEROP_NODE", "node"), script, *mode]


class HttpServer:
    """A server on 127.0.0.1 with a free port."""

    def __init__(self, server: str, keys: str) -> None:
        env = dict(os.environ, SNODO_KEYS=keys)
        self.proc = subprocess.Popen(
            server_command(server, ["--http", "0"]), cwd=ROOT, env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        self.log: List[str] = []
        self.url: Optional[str] = None
        ready = threading.Event()

        def pump() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.log.append(line)
                m = re.search(r"listening on (http://127\.0\.0\.1:\d+/mcp)", line)
                if m and self.url is None:
                    self.url = m.group(1)
                    ready.set()
            ready.set()

        threading.Thread(target=pump, daemon=True).start()
        if not ready.wait(20) or self.url is None:
            self.stop()
            raise RuntimeError(f"{server} server did not start:\n{''.join(self.log)}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture(scope="session")
def target(request: pytest.FixtureRequest) -> Iterator[Dict[str, Any]]:
    """What the client connects to: ``{"server", "transport", "connect"}``.

    ``connect`` is a URL string (HTTP) or ``StdioServerParameters`` (stdio),
    exactly what ``mcp.Client`` accepts.
    """
    from mcp.client.stdio import StdioServerParameters

    server = request.config.getoption("--server")
    transport = request.config.getoption("--transport")
    if transport == "http":
        http = HttpServer(server, KEY_A)
        try:
            yield {"server": server, "transport": transport, "connect": http.url}
        finally:
            http.stop()
    else:
        cmd = server_command(server, ["--stdio"])
        params = StdioServerParameters(
            command=cmd[0], args=cmd[1:], cwd=str(ROOT),
            env={"PATH": os.environ.get("PATH", ""), "SNODO_KEYS": KEY_A},
        )
        yield {"server": server, "transport": transport, "connect": params}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# --- the machine-readable summary ---

_results: Dict[str, Dict[str, Any]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    name = report.nodeid.split("::", 1)[-1]
    if report.when == "call" or report.outcome != "passed":
        entry: Dict[str, Any] = {"status": "pass" if report.outcome == "passed" else "fail"}
        if report.outcome != "passed":
            # A skip is not a pass: it counts as a failure in the summary.
            entry["phase"] = report.when
            entry["error"] = str(report.longrepr)[-2000:]
        if _results.get(name, {}).get("status") != "fail":
            _results[name] = entry


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    server = session.config.getoption("--server")
    transport = session.config.getoption("--transport")
    era = session.config.getoption("--era")
    passed = sum(1 for r in _results.values() if r["status"] == "pass")
    summary = {
        "suite": "python_client", "server": server, "transport": transport, "era": era,
        "passed": passed, "failed": len(_results) - passed, "total": len(_results), "results": _results,
    }
    suffix = "-legacy" if era == "legacy" else ""
    out = ROOT / "target" / "interop" / f"python_client-{server}-{transport}{suffix}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=2) + "\n")
