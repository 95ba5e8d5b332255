"""Every fenced block of the user docs, run or checked as a reader would use it.

A page is only as good as its worst line: a reader copies a block and it
must work. This harness finds every fenced block in the pages below and
fails on any block that no entry of CLAIMS accounts for, and on any entry
that matches no block (a stale claim). Each entry says how its block is
proven:

  python   written to a file as is (after a prelude that supplies only the
           names the prose leaves to the reader, and optionally as the body
           of a function when the prose shows a handler's body), checked
           with `mypy --strict`, run, then driven by the entry's driver.
  js       the same for Node: an ES module in a project where snodo-mrtr,
           the TypeScript SDK and node-redis are installed, checked with
           `tsc --strict --checkJs`, run, driven.
  sh       run with bash in a fresh folder (the commands of an install line).
  console  each `$ ` line runs with bash in a fresh folder, and what it
           prints must match the lines after it (`…` stands for any text,
           a line of `…` alone for any lines, `  # ` starts a comment).
  lines    every command of the block is a line of the script that
           `make test` runs (the block is that script's recipe).
  covered  code a named suite compiles or compares byte for byte (the C
           programs, the Rust handler, the Lua scripts, the wire bytes).
  go       the Go block inside a program whose main drives it
           (tests/docs/drive_go.go.txt), built with cgo against the
           libsnodo the page's own install block put in place, and run.
  text     not code: a grammar, a listing, printed output; only for blocks
           tagged `text`.

Usage (scripts/test-docs.sh): run.py --python PY --mypy PY --node-dir DIR --tsc TSC
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", *sorted(glob.glob("docs/*.md", root_dir=ROOT)), "bindings-python/README.md",
         "bindings-node/README.md", "ffi/README.md", "examples/go/README.md", "interop/README.md"]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


@dataclass
class Claim:
    file: str
    first: str  # the block's first line starts with this, or the block holds it
    kind: str
    prelude: str = ""
    driver: str = ""
    wrap: str = ""  # a `def`/`function` line: the block is shown as its body
    by: str = ""  # lines, covered: the script that proves it
    env: Optional[Dict[str, str]] = None
    cwd: str = ""  # sh: "checkout" runs it at the checkout's root, else in a fresh folder
    after: str = ""  # python, js: a block of the same page this one continues (its `first`)


# Names the pages leave to the reader, and what each driver checks.
SECRET = "secret_bytes = bytes(range(32))\n"
PY_META = """\
import json
from typing import Any, Dict, List, Optional, Tuple

import snodo_mrtr as mrtr
from snodo_mrtr import Call, Response, Session

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}
engine = mrtr.Engine([("k1", bytes(range(32)))])
sent: List[Tuple[int, str]] = []


def send(status: int, body: str) -> None:
    sent.append((status, body))
"""
PY_LEGACY = PY_META + """\
import time

COLOR = mrtr.elicit_form("Which colour?", {"type": "object",
    "properties": {"color": {"type": "string", "enum": ["red", "green"]}}, "required": ["color"]})
init: Dict[str, Any] = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "docs", "version": "1"}}}
mcp_session_id, user = "sid-1", "alice"


def handler(call: Call) -> Dict[str, Any]:
    answer = call.response("color", COLOR)
    if answer.kind == "accepted":
        return mrtr.complete({"content": [{"type": "text", "text": answer.value["color"]}]})
    return mrtr.input_required({"color": COLOR})


def wait_for_answers(pending: mrtr.PendingFlow) -> mrtr.Feed:
    fed = None
    for r in pending.requests:  # the client accepts every question
        reply = {"jsonrpc": "2.0", "id": r["id"], "result": {"action": "accept", "content": {"color": "red"}}}
        fed = engine.feed(pending, json.dumps(reply), "alice")
    assert fed is not None
    return fed
"""
PY_LEGACY_DRIVER = """
call_bytes = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "t", "arguments": {}}}).encode()
on_session_request(call_bytes, "alice")
assert any("elicitation/create" in body for _, body in sent), sent
assert json.loads(sent[-1][1])["result"]["content"][0]["text"] == "red", sent[-1]
sent.clear()
on_session_request(call_bytes, "mallory")  # another user: the 404 of a session that does not exist
assert sent[-1][0] == 404 and json.loads(sent[-1][1])["error"]["code"] == -32001, sent
print("legacy session: asks on the session, completes, refuses another user")
"""
PY_ORIGIN = PY_META + 'headers = [("host", "127.0.0.1:8000"), ("origin", "https://page.example")]\n'
PY_ORIGIN_DRIVER = '\nassert sent and sent[0][0] == 403, sent\nprint("a foreign page gets 403")\n'
# A final round of a booking flow: the Call that `run_once` takes.
PY_ONCE = PY_META + """\
NIGHTS = mrtr.elicit_form("How many nights?", {"type": "object",
    "properties": {"nights": {"type": "integer"}}, "required": ["nights"]})
_req: Dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                        "params": {"name": "book_room", "arguments": {}, "_meta": META}}
_first = engine.begin(json.dumps(_req), "alice")
assert isinstance(_first, Call)
_state = json.loads(engine.decide(_first, mrtr.input_required({"nights": NIGHTS})).to_json())["result"]["requestState"]
_req["params"].update(inputResponses={"nights": {"action": "accept", "content": {"nights": 2}}}, requestState=_state)
call = engine.begin(json.dumps(_req), "alice")
assert isinstance(call, Call)
answers = call.response("nights", NIGHTS).value


class Ledger:
    def __init__(self) -> None:
        self.entries: List[Any] = []

    def append(self, answers: Any, fence: int) -> Dict[str, Any]:
        self.entries.append((answers, fence))
        return {"content": [{"type": "text", "text": f"Booked: entry #{len(self.entries)}"}]}


ledger = Ledger()
"""
PY_ONCE_DRIVER = """
assert json.loads(response.to_json())["result"]["content"][0]["text"] == "Booked: entry #1"
assert run_once(store, call, book) == result and len(ledger.entries) == 1  # a retry: remembered, not booked again
print("booked once; the retry gets the remembered result")
"""

JS_META = """\
import { Engine as DocEngine, Call as DocCall, elicitForm as docElicitForm, complete as docComplete,
  inputRequired as docInputRequired } from 'snodo-mrtr';
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
const engine = new DocEngine({ keys: [{ id: 'k1', secret: Buffer.alloc(32, 7) }] });
/** @type {Array<[string, number | undefined]>} */
const sent = [];
/** @param {string} body @param {number} [status] */
const send = (body, status) => { sent.push([body, status]); };
"""
JS_LEGACY = JS_META + """\
const COLOR = docElicitForm('Which colour?', { type: 'object',
  properties: { color: { type: 'string', enum: ['red', 'green'] } }, required: ['color'] });
const initializeRequest = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25',
  capabilities: { elicitation: {} }, clientInfo: { name: 'docs', version: '1' } } };
const negotiated = engine.legacyVersionFor('2025-11-25') ?? '2025-11-25';
const user = 'alice';
const sessionId = 'sid-1';
/** @param {import('snodo-mrtr').Call} call */
const handler = (call) => {
  const a = call.response('color', COLOR);
  return a.kind === 'accepted' ? docComplete({ content: [{ type: 'text', text: a.value.color }] }) : docInputRequired({ color: COLOR });
};
/** @param {import('snodo-mrtr').PendingFlow} pending @returns {Promise<import('snodo-mrtr').Feed>} */
const answers = async (pending) => {
  /** @type {import('snodo-mrtr').Feed} */
  let fed = { kind: 'waiting' };
  for (const r of pending.requests) {
    fed = engine.feed(pending, { jsonrpc: '2.0', id: r.id, result: { action: 'accept', content: { color: 'red' } } }, 'alice');
  }
  return fed;
};
"""
JS_LEGACY_DRIVER = """
const callText = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: {} } });
await onSessionRequest(callText, 'alice');
if (!sent.some(([b]) => b.includes('elicitation/create'))) throw new Error('no question sent');
if (JSON.parse(sent[sent.length - 1][0]).result.content[0].text !== 'red') throw new Error(String(sent));
sent.length = 0;
await onSessionRequest(callText, 'mallory');
if (sent[0][1] !== 404 || JSON.parse(sent[0][0]).error.code !== -32001) throw new Error(String(sent));
console.log('legacy session: asks on the session, completes, refuses another user');
"""
JS_ORIGIN = "import { OriginPolicy, checkHttpOrigin } from 'snodo-mrtr';\n"
JS_ORIGIN_DRIVER = """
/** @type {[number, string][]} */
const out = [];
/** @type {any} */
const res = { writeHead: (/** @type {number} */ s) => ({ end: (/** @type {string} */ b) => { out.push([s, b]); } }) };
/** @type {any} */
const req = { rawHeaders: ['Host', 'mcp.example.com', 'Origin', 'https://page.example'] };
onRequest(req, res);
if (out.length !== 1 || out[0][0] !== 403) throw new Error(JSON.stringify(out));
console.log('a foreign page gets 403');
"""
JS_ONCE = JS_META + """\
const NIGHTS = docElicitForm('How many nights?', { type: 'object', properties: { nights: { type: 'integer' } }, required: ['nights'] });
const req = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'book_room', arguments: {}, _meta: META } };
const first = engine.begin(JSON.stringify(req), 'alice');
if (!(first instanceof DocCall)) throw new Error('not a call');
const state = JSON.parse(engine.decide(first, docInputRequired({ nights: NIGHTS })).json).result.requestState;
const call = engine.begin(JSON.stringify({ ...req, params: { ...req.params, requestState: state,
  inputResponses: { nights: { action: 'accept', content: { nights: 2 } } } } }), 'alice');
if (!(call instanceof DocCall)) throw new Error('not a call');
"""
JS_ONCE_DRIVER = """
if (result.content[0].text !== 'booked #42') throw new Error(JSON.stringify(result));
if (remembered !== null) throw new Error('nothing was booked before');
if (JSON.stringify(await checkOnce(fleet, call)) !== JSON.stringify(result)) throw new Error('not remembered');
await client.quit();
console.log('booked once; checkOnce gives the remembered result');
"""

KEYS = {"SNODO_KEYS": "docs:" + "07" * 32}
TS_COLOR_DRIVER = """
import { callTool, check } from './drive_sdk.mjs';
const asked = await callTool(factory, 'preferred_color', {});
check(asked.result?.resultType === 'input_required', asked);
const done = await callTool(factory, 'preferred_color', {}, { requestState: asked.result.requestState,
  inputResponses: { color: { action: 'accept', content: { color: 'teal' } } } });
check(done.result?.content?.[0]?.text === 'teal', done);
console.log('asks through the SDK, completes with the answer');
"""
TS_TRANSFER_DRIVER = """
import { callTool, check } from './drive_sdk.mjs';
const asked = await callTool(factory, 'transfer', { amount: 5 });
check(asked.result?.resultType === 'input_required', asked);
const retry = { requestState: asked.result.requestState, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } };
const done = await callTool(factory, 'transfer', { amount: 5 }, retry);
check(done.result?.content?.[0]?.text === 'Sent 5 (#1)', done);
const again = await callTool(factory, 'transfer', { amount: 5 }, retry);
check(again.result?.content?.[0]?.text === 'Sent 5 (#1)' && sent.length === 1, 'a retry is not sent twice', again, sent);
const bare = await callTool(factory, 'transfer', { amount: 5 }, { requestState: asked.result.requestState });
check(bare.error?.code === -32602 && bare.error?.data?.reason === 'replayed', bare);
const bad = await callTool(factory, 'transfer', { amount: -1 });
check(bad.result?.isError === true, 'the inputSchema is checked', bad);
console.log('sends once per flow; a replay is -32602 replayed; bad arguments are an isError result');
"""
TS_HTTP_DRIVER = """
import { check } from './drive_sdk.mjs';
await new Promise((ok) => setTimeout(ok, 100));
const post = (/** @type {Record<string, string>} */ headers, /** @type {unknown} */ body) => fetch('http://127.0.0.1:3000/mcp', {
  method: 'POST', body: JSON.stringify(body),
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } });
const init = await post({}, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25',
  capabilities: { elicitation: {} }, clientInfo: { name: 'docs', version: '1' } } });
check(init.status === 200 && init.headers.get('mcp-session-id'), 'a 2025 client gets a session', init.status);
const page = await post({ origin: 'https://page.example' }, {});
check(page.status === 403, 'a foreign page is refused', page.status);
console.log('both eras on one listener; a foreign page gets 403');
await listener.close();
process.exit(0);
"""
TS_LOW_PRELUDE = """import { Server } from '@modelcontextprotocol/server';
const server = new Server({ name: 'low', version: '1' }, { capabilities: { tools: {} } });
/** @param {import('snodo-mrtr').Call} call */
const route = (call) => preferredColor(call);
"""
TS_LOW_DRIVER = """
import { callTool, check } from './drive_sdk.mjs';
const asked = await callTool(() => server, 'preferred_color', {});
check(asked.result?.resultType === 'input_required', asked);
console.log('the low-level handler asks');
"""

PY_SDK = """
import anyio
from typing import Any

from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult


def accepting(content: Any) -> Any:
    async def answer(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content=content)
    return answer
"""
PY_COLOR_DRIVER = PY_SDK + """

async def main() -> None:
    async with Client(mcp, mode="2026-07-28", elicitation_callback=accepting({"color": "teal"})) as client:
        done = await client.call_tool("preferred_color", {})
        assert getattr(done.content[0], "text", None) == "teal", done
    print("asks through the SDK, completes with the answer")

anyio.run(main)
"""
PY_TRANSFER_DRIVER = PY_SDK + """

async def main() -> None:
    async with Client(mcp, mode="2026-07-28", elicitation_callback=accepting({"confirm": True})) as client:
        first = await client.session.call_tool("transfer", {"amount": 5}, allow_input_required=True)
        token = getattr(first, "request_state", None)
        assert isinstance(token, str), first

        async def final(confirm: Any) -> Any:
            answers: Any = {"confirm": ElicitResult(action="accept", content={"confirm": confirm})} if confirm else None
            return await client.session.call_tool("transfer", {"amount": 5}, input_responses=answers,
                                                  request_state=token, allow_input_required=True)

        texts = [getattr((await final(True)).content[0], "text", None) for _ in range(2)]
        assert texts == ["Sent 5 (#1)"] * 2 and SENT == [5], (texts, SENT)  # the retry is not sent again
        try:
            await final(None)
            raise AssertionError("a replay must be refused")
        except MCPError as e:
            assert e.code == -32602 and (e.error.data or {}).get("reason") == "replayed", e
    print("sends once per flow; a replay is -32602 replayed")

anyio.run(main)
"""
PY_FASTMCP = """
import anyio
from typing import Any, Dict

from fastmcp import Client
from mcp.shared.exceptions import MCPError


def accepting(content: Dict[str, Any]) -> Any:
    async def answer(message: str, response_type: Any, params: Any, context: Any) -> Dict[str, Any]:
        return content
    return answer
"""
PY_FASTMCP_COLOR_DRIVER = PY_FASTMCP + """

async def main() -> None:
    async with Client(mcp, mode="2026-07-28", elicitation_handler=accepting({"color": "teal"})) as client:
        first = await client.session.call_tool("preferred_color", {}, allow_input_required=True)
        token = getattr(first, "request_state", "")
        assert token.startswith("v1.docs."), first  # snodo's token, not FastMCP's envelope
        done = await client.call_tool("preferred_color", {})
        assert getattr(done.content[0], "text", None) == "teal", done
    print("asks through FastMCP on snodo's token, completes with the answer")

anyio.run(main)
"""
PY_FASTMCP_BOOK_DRIVER = PY_FASTMCP + """

async def main() -> None:
    async with Client(mcp, mode="2026-07-28", elicitation_handler=accepting({"nights": 2})) as client:
        first = await client.session.call_tool("book_room", {}, allow_input_required=True)
        token = getattr(first, "request_state", None)
        assert isinstance(token, str), first

        async def final(nights: Any) -> Any:
            answers: Any = {"nights": {"action": "accept", "content": {"nights": nights}}} if nights else None
            return await client.session.call_tool("book_room", {}, input_responses=answers,
                                                  request_state=token, allow_input_required=True)

        texts = [getattr((await final(2)).content[0], "text", None) for _ in range(2)]
        assert texts == ["Booked #1"] * 2 and BOOKED == [2], (texts, BOOKED)  # the retry is not booked again
        try:
            await final(None)
            raise AssertionError("a replay must be refused")
        except MCPError as e:
            assert e.code == -32602 and (e.error.data or {}).get("reason") == "replayed", e
    print("books once per flow; a replay is -32602 replayed")

anyio.run(main)
"""
PY_LOW_PRELUDE = """from typing import Any

import mcp_types as t

import snodo_mrtr as mrtr
from snodo_mrtr.mcp import Snodo

engine = mrtr.Engine.from_env()
COLOR = mrtr.elicit_form("Which color?", {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]})


async def list_tools(ctx: Any, params: Any) -> t.ListToolsResult:
    return t.ListToolsResult(tools=[t.Tool(name="preferred_color", input_schema={"type": "object"})])


def route(call: mrtr.Call) -> mrtr.Outcome:
    a = call.response("color", COLOR)
    if a.kind == "accepted":
        return mrtr.complete({"content": [{"type": "text", "text": a.value["color"]}]})
    return mrtr.input_required({"color": COLOR})
"""
PY_LOW_DRIVER = PY_COLOR_DRIVER.replace("Client(mcp,", "Client(server,")

def cli_env(python: str) -> Dict[str, str]:
    """TOKEN and KEYS of docs/cli.md: the token and ring of the CLI vector the
    page's samples are (tests/vectors/cli/cli.json), and the command on PATH."""
    cases = json.loads((ROOT / "tests" / "vectors" / "cli" / "cli.json").read_text(encoding="utf-8"))["tests"]
    case = next(c for c in cases if c["comment"].startswith("tokens.json 4 ") and c["keys"])
    return {"TOKEN": case["args"][-1], "KEYS": case["keys"],
            "PATH": f"{Path(python).parent}{os.pathsep}{os.environ['PATH']}"}


SH_INSTALL = """\
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
export CARGO_TARGET_DIR=<checkout>/target HOME="$PWD/home" npm_config_cache="$PWD/npm-cache"
mkdir -p "$HOME"
cargo init -q --name docs_app .
cp <checkout>/Cargo.lock .          # the versions the checkout pins
python3 -m venv venv && . venv/bin/activate
npm init -y >/dev/null
"""
SH_INSTALL_CHECK = """
printf 'fn main() { snodo::Engine::development().expect("engine"); println!("rust: ok"); }\\n' > src/main.rs
cargo run -q --locked
python -c 'import snodo_mrtr; print("python:", snodo_mrtr.__version__)'
node -e 'require("snodo-mrtr"); console.log("node: ok")'
PKG_CONFIG_PATH="$HOME/.local/lib/pkgconfig" pkg-config --exists snodo
"""

CLAIMS: List[Claim] = [
    # README.md
    Claim("README.md", "make demo", "lines", by="Makefile"),
    Claim("README.md", "cargo add snodo", "sh", prelude=SH_INSTALL, driver=SH_INSTALL_CHECK),
    Claim("README.md", "use serde_json::json;", "covered", by="scripts/test-rust.sh"),
    Claim("README.md", "import snodo_mrtr as mrtr", "python", prelude=SECRET,
          driver='\nfrom drive import drive\ndrive("README.md python", handle)\n'),
    Claim("README.md", "import { Engine, Call, elicitForm", "js",
          prelude="const keyBuffer = Buffer.alloc(32, 7);\n",
          driver="\nimport { drive } from './drive.mjs';\ndrive('README.md js', handle);\n"),
    # bindings-python/README.md
    Claim("bindings-python/README.md", "pip install <checkout>/bindings-python", "sh",
          prelude="python3 -m venv venv && . venv/bin/activate\n",
          driver="python -c 'import snodo_mrtr'\n"),
    Claim("bindings-python/README.md", "engine = mrtr.Engine.from_env(", "python", env=KEYS,
          driver='\nassert "docs" in repr(engine), engine\n'),
    Claim("bindings-python/README.md", "from typing import Optional, Tuple", "python", prelude=SECRET,
          driver='\nfrom drive import drive\ndrive("bindings-python/README.md handler", on_message)\n'),
    Claim("bindings-python/README.md", "# On initialize (no 2026 _meta claim)", "python", prelude=PY_LEGACY,
          driver=PY_LEGACY_DRIVER),
    Claim("bindings-python/README.md", "policy = mrtr.OriginPolicy()", "python", prelude=PY_ORIGIN,
          driver=PY_ORIGIN_DRIVER),
    Claim("bindings-python/README.md", "import os", "python", prelude=PY_ONCE, driver=PY_ONCE_DRIVER),
    # bindings-node/README.md
    Claim("bindings-node/README.md", "import { Engine, Call, elicitForm", "js",
          env={"KEY_HEX": "07" * 32},
          driver="\nimport { drive } from './drive.mjs';\ndrive('bindings-node/README.md', onMessage);\n"),
    Claim("bindings-node/README.md", "const engine = Engine.fromEnv(", "js", env=KEYS,
          driver="\nif (engine.toJSON().keyIds[0] !== 'docs') throw new Error('not the ring of SNODO_KEYS');\n"),
    Claim("bindings-node/README.md", "npm install <checkout>/bindings-node", "sh",
          prelude="npm init -y >/dev/null\n", driver="node -e 'require(\"snodo-mrtr\")'\n"),
    Claim("bindings-node/README.md", "// On initialize: answer engine.legacyVersionFor", "js",
          prelude=JS_LEGACY.replace("import { ", "import { Session, Call, ", 1), driver=JS_LEGACY_DRIVER),
    Claim("bindings-node/README.md", "const policy = new OriginPolicy(", "js", prelude=JS_ORIGIN,
          driver=JS_ORIGIN_DRIVER),
    Claim("bindings-node/README.md", "import { createClient } from 'redis';", "js", prelude=JS_ONCE,
          driver=JS_ONCE_DRIVER),
    # docs/
    Claim("docs/benchmarks.md", "make bench", "lines", by="Makefile"),
    Claim("docs/benchmarks.md", "Guards:", "text"),
    Claim("docs/benchmarks.md", "Core (criterion medians", "text"),
    Claim("docs/once.md", "run = OnceRun(", "text"),
    *[Claim("docs/once.md", first, "covered", by="core/tests/once_docs.rs")
      for first in ("redis.replicate_commands()", "local r = redis.call('HMGET', KEYS[1], 'state', 'fence'",
                    "local r = redis.call('HMGET', KEYS[1], 'state', 'owner')")],
    Claim("docs/once.md", "use snodo::{check_once", "covered", by="core/src/lib.rs"),
    # Plans for SDKs this machine cannot install: every block is a marked sketch.
    Claim("docs/other-sdks.md", "# sketch, not runnable", "text"),
    # docs/tasks.md: the handler, then the runner serving it; both driven as a task and in the request.
    Claim("docs/tasks.md", "import snodo_mrtr as mrtr", "python"),
    Claim("docs/tasks.md", "from typing import Optional", "python", after="import snodo_mrtr as mrtr",
          driver='\nfrom drive import drive_task\ndrive_task("docs/tasks.md python", handle)\n'),
    Claim("docs/tasks.md", "import { complete, elicitForm", "js"),
    Claim("docs/tasks.md", "import { Call, Engine } from 'snodo-mrtr';", "js", after="import { complete, elicitForm",
          driver="\nimport { driveTask } from './drive.mjs';\nawait driveTask('docs/tasks.md js', handle);\n"),
    Claim("docs/tasks.md", "-> tools/call report", "text"),
    Claim("docs/token-format.md", "token     =", "text"),
    Claim("docs/wire.md", "", "covered", by="scripts/wire-doc.py"),
    Claim("docs/cli.md", "$ snodo-mrtr keygen", "console", env={}),
    Claim("docs/cli.md", "$ snodo-mrtr inspect", "console", env={}),
    Claim("docs/cli.md", '$ SNODO_KEYS="$KEYS" snodo-mrtr inspect', "console", env={}),
    # docs/with-mcp-python.md (the mcp SDK pinned as the interop client pins it)
    Claim("docs/with-mcp-python.md", 'pip install "<checkout>/bindings-python[mcp]"', "sh",
          prelude="python3 -m venv venv && . venv/bin/activate\n",
          env={"PIP_CONSTRAINT": str(ROOT / "interop" / "python_client" / "requirements.txt")},
          driver="python -c 'import snodo_mrtr.mcp, mcp'\n"),
    Claim("docs/with-mcp-python.md", "def preferred_color(call", "python", env=KEYS, driver=PY_COLOR_DRIVER),
    Claim("docs/with-mcp-python.md", "async def transfer(call", "python", env=KEYS, driver=PY_TRANSFER_DRIVER),
    Claim("docs/with-mcp-python.md", "from mcp.server import Server", "python", env=KEYS,
          prelude=PY_LOW_PRELUDE, driver=PY_LOW_DRIVER),
    # docs/with-fastmcp.md (FastMCP pinned as the interop venv pins it)
    Claim("docs/with-fastmcp.md", 'pip install "<checkout>/bindings-python[fastmcp]"', "sh",
          prelude="python3 -m venv venv && . venv/bin/activate\n",
          env={"PIP_CONSTRAINT": " ".join(str(ROOT / f) for f in (
              "interop/python_client/requirements.txt", "interop/servers/python/requirements-fastmcp.txt"))},
          driver="python -c 'import snodo_mrtr.fastmcp, fastmcp'\n"),
    Claim("docs/with-fastmcp.md", "def preferred_color(call", "python", env=KEYS, driver=PY_FASTMCP_COLOR_DRIVER),
    Claim("docs/with-fastmcp.md", "async def book_room(call", "python", env=KEYS, driver=PY_FASTMCP_BOOK_DRIVER),
    # docs/with-mcp-typescript.md
    Claim("docs/with-mcp-typescript.md", "npm install <checkout>/bindings-node @modelcontextprotocol/server", "sh",
          prelude="npm init -y >/dev/null\n", driver="node -e 'require(\"snodo-mrtr/mcp\"); require(\"zod\")'\n"),
    Claim("docs/with-mcp-typescript.md", "preferred_color: [{ description", "js", env=KEYS, driver=TS_COLOR_DRIVER),
    Claim("docs/with-mcp-typescript.md", "async function transfer(", "js", env=KEYS, driver=TS_TRANSFER_DRIVER),
    Claim("docs/with-mcp-typescript.md", "const listener = snodo.http(sdk, factory", "js", env=KEYS,
          after="preferred_color: [{ description", driver=TS_HTTP_DRIVER),
    Claim("docs/with-mcp-typescript.md", "server.setRequestHandler('tools/call', snodo.handler(", "js", env=KEYS,
          after="preferred_color: [{ description", prelude=TS_LOW_PRELUDE, driver=TS_LOW_DRIVER),
    # docs/with-rmcp.md: the Rust block is snodo-rmcp's doctest (compiled, not run: it serves stdio);
    # the install block's pins are compared with the crate's manifest.
    Claim("docs/with-rmcp.md", "[dependencies]", "covered", by="integrations/rmcp/tests/docs_page.rs"),
    Claim("docs/with-rmcp.md", "use std::sync::Arc;", "covered", by="integrations/rmcp/src/lib.rs"),
    # ffi/README.md: scripts/test-c-readme.sh runs the install block and the program as written.
    Claim("ffi/README.md", "make -C snodo install", "covered", by="scripts/test-c-readme.sh"),
    Claim("ffi/README.md", "lib/libsnodo.so.0.1.0", "text"),
    Claim("ffi/README.md", "cc -std=c11 -Wall colour.c $(pkg-config --cflags --libs snodo-static)", "covered",
          by="scripts/test-c-readme.sh"),
    Claim("ffi/README.md", "#include <stdio.h>", "covered", by="scripts/test-c-readme.sh"),
    Claim("ffi/README.md", "#include <stdlib.h>", "covered", by="scripts/test-c.sh"),
    Claim("ffi/README.md", "cc -std=c11 examples/c/once_redis.c", "covered", by="scripts/test-c.sh"),
    # examples/go/README.md: its install block puts libsnodo where the Go block's program links it.
    Claim("examples/go/README.md", "make install PREFIX", "sh", cwd="checkout",
          env={"HOME": "<work>/go-home", "GOTOOLCHAIN": "local", "GOPROXY": "off", "GOSUMDB": "off"}),
    Claim("examples/go/README.md", "// handle serves one request body", "go"),
    # interop/README.md
    Claim("interop/README.md", "bash scripts/test-interop.sh", "lines", by="Makefile"),
    Claim("interop/README.md", "node interop/official_client/run.mjs", "sh", cwd="checkout"),
]
def blocks(page: str) -> List[Tuple[str, str, int]]:
    text = (ROOT / page).read_text(encoding="utf-8")
    return [(m.group(1), m.group(2), text[: m.start()].count("\n") + 1) for m in FENCE.finditer(text)]


def slug(claim: Claim, line: int) -> str:
    return re.sub(r"[^a-z0-9]+", "_", f"{claim.file}_{line}".lower()).strip("_")


WORK = ROOT / "target" / "docs"


def run(cmd: List[str], cwd: Path, env: Optional[Dict[str, str]] = None) -> Tuple[bool, str]:
    home = Path.home()
    # A page's block may run under a fresh HOME; the toolchains stay the machine's.
    # A block gets nothing the suites set up for themselves (the interop
    # interpreter): what it needs, it must say.
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("SNODO_INTEROP")}
    full = {"CARGO_HOME": str(home / ".cargo"), "RUSTUP_HOME": str(home / ".rustup"), **inherited,
            **{k: v.replace("<work>", str(WORK)) for k, v in (env or {}).items()}}
    p = subprocess.run(cmd, cwd=cwd, env=full, capture_output=True, text=True, timeout=600)
    return p.returncode == 0, (p.stdout + p.stderr).strip()


def console(code: str, folder: Path, env: Optional[Dict[str, str]]) -> List[str]:
    """Runs a ```console block; returns what differs (nothing when it matches)."""
    steps: List[Tuple[str, List[str]]] = []
    for line in code.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(re.sub(r"\s{2,}# .*$", "", line))
    problems = []
    for cmd, want in steps:
        ok, out = run(["bash", "-euo", "pipefail", "-c", cmd], folder, env)
        pattern = "".join(r"(?:.*\n)*?" if w == "…" else
                          ".*".join(map(re.escape, w.split("…"))) + r"\n" for w in want)
        got = "\n".join(s.rstrip() for s in out.splitlines()) + "\n"
        if (not re.fullmatch(pattern, got)) if want else out:
            problems.append(f"$ {cmd}\n--- printed:\n{got}--- the page shows:\n" + "\n".join(want))
    return problems


def body(claim: Claim, code: str, indent: str) -> str:
    if claim.wrap:
        return claim.wrap + "\n" + textwrap.indent(code, indent) + "\n"
    return code


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True, help="the interpreter with snodo-mrtr, mcp and redis installed")
    ap.add_argument("--mypy", required=True, help="an interpreter with mypy")
    ap.add_argument("--node-dir", required=True, help="a folder whose node_modules has snodo-mrtr and the SDK")
    ap.add_argument("--tsc", required=True, help="the tsc --strict --checkJs command line (scripts/tsc-check.sh)")

    args = ap.parse_args()
    # The commands run in their own folders: make every path absolute first.
    args.python, args.mypy = (str(Path(p).absolute()) for p in (args.python, args.mypy))

    work = WORK
    shutil.rmtree(work, ignore_errors=True)
    (work / "py").mkdir(parents=True)
    node = work / "node"
    node.mkdir()
    (node / "node_modules").symlink_to(Path(args.node_dir).resolve() / "node_modules")
    (node / "package.json").write_text('{"type": "module", "private": true}\n')
    for helper in ("drive.mjs", "drive_sdk.mjs"):
        shutil.copy(ROOT / "tests" / "docs" / helper, node / helper)

    failures: List[str] = []
    used = [0] * len(CLAIMS)
    jobs: List[Tuple[str, Claim, Path]] = []
    for page in PAGES:
        for lang, code, line in blocks(page):
            where = f"{page}:{line}"
            first = code.lstrip("\n").split("\n", 1)[0]
            mine = [i for i, c in enumerate(CLAIMS) if c.file == page]
            hits = [i for i in mine if first.startswith(CLAIMS[i].first)] or [i for i in mine if CLAIMS[i].first in code]
            if len(hits) != 1:
                failures.append(f"{where}: {len(hits)} claims for the ```{lang} block starting {first[:60]!r}")
                continue
            used[hits[0]] += 1
            claim = CLAIMS[hits[0]]
            if claim.kind == "text":
                if lang != "text":
                    failures.append(f"{where}: a `text` claim on a ```{lang} block")
                continue
            # A block that continues another runs after it, as a reader pastes both.
            before = next((c for lg, c, _ in blocks(page) if claim.after and claim.after in c), "")
            if claim.after and not before:
                failures.append(f"{where}: no block holding {claim.after!r} to continue")
            if claim.kind == "python":
                path = work / "py" / f"{slug(claim, line)}.py"
                path.write_text(claim.prelude + before + body(claim, code, "    ") + claim.driver, encoding="utf-8")
                jobs.append((where, claim, path))
            elif claim.kind == "js":
                path = node / f"{slug(claim, line)}.mjs"
                path.write_text(claim.prelude + before + body(claim, code, "  ") + ("}\n" if claim.wrap else "")
                                + claim.driver, encoding="utf-8")
                jobs.append((where, claim, path))
            elif claim.kind == "sh":
                # Outside the checkout: `cargo init` there would join the workspace.
                folder = Path(tempfile.mkdtemp(prefix=f"snodo-docs-{slug(claim, line)}-"))
                script = (claim.prelude + code + claim.driver).replace("<checkout>", str(ROOT))
                ok, out = run(["bash", "-euo", "pipefail", "-c", script],
                              ROOT if claim.cwd == "checkout" else folder, claim.env)
                print(f"{where}: sh {'ok' if ok else 'FAILED'}")
                shutil.rmtree(folder, ignore_errors=True)
                if not ok:
                    failures.append(f"{where}: {out[-2000:]}")
            elif claim.kind == "console":
                folder = work / "console" / slug(claim, line)
                folder.mkdir(parents=True)
                diffs = console(code, folder, {**cli_env(args.python), **(claim.env or {})})
                print(f"{where}: console {'ok' if not diffs else 'FAILED'}")
                failures.extend(f"{where}: {d}" for d in diffs)
            elif claim.kind == "go":
                folder = work / "go"
                folder.mkdir()
                (folder / "go.mod").write_text("module docs\n\ngo 1.19\n\nrequire snodo.example/snodo v0.0.0\n\n"
                                               f"replace snodo.example/snodo => {ROOT / 'examples' / 'go'}\n")
                driver = (ROOT / "tests" / "docs" / "drive_go.go.txt").read_text(encoding="utf-8")
                (folder / "main.go").write_text('package main\n\nimport (\n\t"encoding/json"\n\t"fmt"\n\t"strings"\n\n'
                                                '\t"snodo.example/snodo"\n)\n\n' + code + "\n" + driver)
                jobs.append((where, claim, folder / "main.go"))
            elif claim.kind == "lines":
                script = (ROOT / claim.by).read_text(encoding="utf-8")
                have = {" ".join(s.split()) for s in script.splitlines()}
                for cmd in code.splitlines():
                    cmd = " ".join(cmd.split("#", 1)[0].split())
                    if cmd and cmd not in have and not (claim.by == "Makefile" and f"{cmd.split()[-1]}:" in script):
                        failures.append(f"{where}: {cmd!r} is not what {claim.by} runs")
                print(f"{where}: the commands of {claim.by}")
            elif claim.kind == "covered":
                if page not in (ROOT / claim.by).read_text(encoding="utf-8"):
                    failures.append(f"{where}: {claim.by} does not name {page}")
                print(f"{where}: checked by {claim.by}")
            else:
                failures.append(f"{where}: unknown kind {claim.kind}")
    for i, n in enumerate(used):
        if n == 0:
            failures.append(f"stale claim: {CLAIMS[i].file} block starting {CLAIMS[i].first!r}")

    py = [p for _, c, p in jobs if c.kind == "python"]
    if py:
        ok, out = run([args.mypy, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(work / "mypy-cache"),
                       "--python-executable", args.python, *map(str, py)], work / "py",
                      {"MYPYPATH": str(ROOT / "tests" / "docs")})
        print(f"mypy --strict on {len(py)} Python blocks: {'ok' if ok else 'FAILED'}")
        if not ok:
            failures.append(f"mypy --strict:\n{out}")
    js = [p for _, c, p in jobs if c.kind == "js"]
    if js:
        ok, out = run([*args.tsc.split(), *map(str, js)], node)
        print(f"tsc --strict on {len(js)} Node blocks: {'ok' if ok else 'FAILED'}")
        if not ok:
            failures.append(f"tsc --strict:\n{out}")
    for where, claim, path in jobs:
        if claim.kind == "python":
            ok, out = run([args.python, str(path)], path.parent,
                          {"PYTHONPATH": str(ROOT / "tests" / "docs"), **(claim.env or {})})
        elif claim.kind == "go":
            lib = work / "go-home" / ".local"
            env = {"GOTOOLCHAIN": "local", "GOPROXY": "off", "GOSUMDB": "off", "GOFLAGS": "-mod=mod",
                   "CGO_ENABLED": "1", "CGO_CFLAGS": f"-I{lib / 'include'}",
                   "CGO_LDFLAGS": f"-L{lib / 'lib'} -Wl,-rpath,{lib / 'lib'}"}
            ok, out = run(["go", "run", "."], path.parent, env)
        else:
            ok, out = run(["node", str(path)], path.parent, claim.env)
        print(f"{where}: {claim.kind} {'ok' if ok else 'FAILED'}{(': ' + out.splitlines()[-1]) if ok and out else ''}")
        if not ok:
            failures.append(f"{where}:\n{out[-3000:]}")

    for f in failures:
        print(f"FAIL: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
