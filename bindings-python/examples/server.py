"""A small MCP server (protocol 2026-07-28) on snodo_mrtr.

Transport is the standard library only:

    python server.py --stdio          # newline-delimited JSON-RPC on stdin/stdout
    python server.py --http 8787      # Streamable HTTP, POST /mcp, JSON responses (127.0.0.1)

Keys come from SNODO_KEYS: comma-separated `id:hex` or `id:base64` entries;
the first signs, all verify (rotation). Without it the server makes a random
key for this process only and says so on stderr.

What it serves: a read-only preference workflow (ask the user's preferred
color with a form, then return it) as a tool, a resource and a prompt, plus
the tools and prompt the official conformance suite's input-required
scenarios call. Copy the plumbing; replace the handlers.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import os
import sys
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Tuple

import snodo_mrtr as mrtr
from snodo_mrtr import Call, Engine, Response

SERVER_INFO = {"name": "snodo-python-example", "version": mrtr.VERSION}
MAX_BODY = 4 * 1024 * 1024
Outcome = Dict[str, Any]

# --- input requests (deterministic: the same question every round, so snodo can pin it) ---

COLOR = mrtr.elicit_form(
    "Which color do you prefer?",
    {"type": "object", "properties": {"color": {"type": "string", "enum": ["red", "green", "blue"]}}, "required": ["color"]},
)
ASK_NAME = mrtr.elicit_form("What is your name?", {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
ASK_CONTEXT = mrtr.elicit_form("Any context for the prompt?", {"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]})
ASK_CONFIRM = mrtr.elicit_form("Continue to the next round?", {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]})
with warnings.catch_warnings():
    # Sampling and roots are deprecated in 2026-07-28; the conformance suite still exercises them.
    warnings.simplefilter("ignore", DeprecationWarning)
    ASK_SAMPLE = mrtr.sampling({"messages": [{"role": "user", "content": {"type": "text", "text": "Say hello"}}], "maxTokens": 50})
    ASK_ROOTS = mrtr.list_roots()


def text(t: str) -> Dict[str, Any]:
    return {"content": [{"type": "text", "text": t}]}


# --- handlers: each takes a Call and returns an outcome ---


def ask_then(call: Call, asks: Dict[str, Any], done: Callable[[Dict[str, Any]], Outcome], state: Any = None) -> Outcome:
    """Asks every question in `asks` until each has an accepted answer, then calls `done`."""
    answers = {k: call.response(k, q) for k, q in asks.items()}
    refused = [k for k, a in answers.items() if a.kind in ("declined", "cancelled")]
    if refused:
        return mrtr.tool_error(f"input refused: {', '.join(refused)}") if call.method == "tools/call" else mrtr.error(-32602, "input refused")
    if all(a.is_accepted for a in answers.values()):
        return done({k: a.value for k, a in answers.items()})
    return mrtr.input_required(asks, state)


def with_color(call: Call, render: Callable[[str], Dict[str, Any]]) -> Outcome:
    """The read-only preference workflow: ask the preferred color until answered, then render it."""
    answer = call.response("color", COLOR)
    if answer.is_accepted:
        return mrtr.complete(render((answer.value or {})["color"]))
    if answer.kind in ("declined", "cancelled"):
        return mrtr.complete(render("no preference"))
    return mrtr.input_required({"color": COLOR})  # missing or invalid: ask (again)


def preference_tool(call: Call) -> Outcome:
    return with_color(call, lambda c: text(f"Your preferred color is {c}."))


def preference_resource(call: Call) -> Outcome:
    # Cache hints on the final result only; snodo keeps them off input_required.
    return with_color(call, lambda c: {"contents": [{"uri": call.uri, "mimeType": "text/plain", "text": c}], "ttlMs": 0, "cacheScope": "private"})


def preference_prompt(call: Call) -> Outcome:
    return with_color(call, lambda c: {"messages": [{"role": "user", "content": {"type": "text", "text": f"Write a short poem about the color {c}."}}]})


def conf_elicitation(call: Call) -> Outcome:
    return ask_then(call, {"user_name": ASK_NAME}, lambda a: mrtr.complete(text(f"Hello, {a['user_name']['name']}!")))


def conf_sampling(call: Call) -> Outcome:
    return ask_then(call, {"sample": ASK_SAMPLE}, lambda a: mrtr.complete(text(f"Sampled: {json.dumps(a['sample'].get('content'))}")))


def conf_list_roots(call: Call) -> Outcome:
    return ask_then(call, {"roots": ASK_ROOTS}, lambda a: mrtr.complete(text(f"Roots: {json.dumps(a['roots'])}")))


def conf_request_state(call: Call) -> Outcome:
    if call.is_retry and call.state != {"flow": "request-state"}:
        return mrtr.error(-32602, "unexpected state")
    return ask_then(call, {"user_name": ASK_NAME}, lambda a: mrtr.complete(text("state-ok")), state={"flow": "request-state"})


def conf_multiple_inputs(call: Call) -> Outcome:
    asks = {"user_name": ASK_NAME, "sample": ASK_SAMPLE, "roots": ASK_ROOTS}
    return ask_then(call, asks, lambda a: mrtr.complete(text("all inputs received")), state={"flow": "multiple"})


def conf_multi_round(call: Call) -> Outcome:
    # Round 1 asks for a name, round 2 for a confirmation (a new state), round 3 completes.
    state: Dict[str, Any] = call.state or {}
    step = state.get("step", 0)
    if step == 0:
        return mrtr.input_required({"user_name": ASK_NAME}, {"step": 1})
    if step == 1:
        name = call.response("user_name", ASK_NAME)
        if not name.is_accepted:
            return mrtr.input_required({"user_name": ASK_NAME}, {"step": 1})
        return mrtr.input_required({"confirm": ASK_CONFIRM}, {"step": 2, "name": (name.value or {}).get("name")})
    if not call.response("confirm", ASK_CONFIRM).is_accepted:
        return mrtr.input_required({"confirm": ASK_CONFIRM}, state)
    return mrtr.complete(text(f"Done after 3 rounds, {state.get('name')}"))


def conf_capabilities(call: Call) -> Outcome:
    # Ask only what this client can receive; never -32021 for optional questions.
    asks = mrtr.filter_supported({"user_name": ASK_NAME, "sample": ASK_SAMPLE, "roots": ASK_ROOTS}, call.client_capabilities)
    if not asks:
        return mrtr.complete(text("the client can receive no input requests"))
    return ask_then(call, asks, lambda a: mrtr.complete(text(f"received: {', '.join(sorted(a))}")))


def conf_missing_capability(call: Call) -> Outcome:
    # A required question: snodo answers -32021 (HTTP 400) if sampling is not declared.
    return ask_then(call, {"sample": ASK_SAMPLE}, lambda a: mrtr.complete(text("sampled")))


def conf_prompt(call: Call) -> Outcome:
    def done(a: Dict[str, Any]) -> Outcome:
        msg = f"Context: {a['context']['context']}"
        return mrtr.complete({"messages": [{"role": "user", "content": {"type": "text", "text": msg}}]})

    return ask_then(call, {"context": ASK_CONTEXT}, done)


NO_ARGS = {"type": "object", "properties": {}}
TOOLS: Dict[str, Tuple[str, Callable[[Call], Outcome]]] = {
    "preferred_color": ("Asks your preferred color (read-only)", preference_tool),
    "test_input_required_result_elicitation": ("Conformance: one elicitation round", conf_elicitation),
    "test_input_required_result_sampling": ("Conformance: one sampling round", conf_sampling),
    "test_input_required_result_list_roots": ("Conformance: one roots/list round", conf_list_roots),
    "test_input_required_result_request_state": ("Conformance: input plus requestState", conf_request_state),
    "test_input_required_result_multiple_inputs": ("Conformance: elicitation, sampling and roots at once", conf_multiple_inputs),
    "test_input_required_result_multi_round": ("Conformance: three rounds", conf_multi_round),
    "test_input_required_result_tampered_state": ("Conformance: integrity-protected requestState", conf_request_state),
    "test_input_required_result_capabilities": ("Conformance: asks only what the client can receive", conf_capabilities),
    "test_missing_capability": ("Conformance: requires sampling (-32021 without it)", conf_missing_capability),
}
RESOURCES = {"prefs://color": ("Your preferred color", preference_resource)}
PROMPTS = {
    "preferred_color": ("A poem about your preferred color", preference_prompt),
    "test_input_required_result_prompt": ("Conformance: input_required on prompts/get", conf_prompt),
}
CACHE = {"ttlMs": 0, "cacheScope": "private"}


def listing(call: Call) -> Outcome:
    if call.method == "server/discover":
        caps: Dict[str, Any] = {"tools": {}, "resources": {}, "prompts": {}}
        return mrtr.complete({"supportedVersions": [mrtr.MRTR_VERSION], "capabilities": caps, **CACHE})
    if call.method == "tools/list":
        tools = [{"name": n, "description": d, "inputSchema": NO_ARGS} for n, (d, _) in TOOLS.items()]
        return mrtr.complete({"tools": tools, **CACHE})
    if call.method == "resources/list":
        res = [{"uri": u, "name": n, "mimeType": "text/plain"} for u, (n, _) in RESOURCES.items()]
        return mrtr.complete({"resources": res, **CACHE})
    prompts = [{"name": n, "description": d, "arguments": []} for n, (d, _) in PROMPTS.items()]
    return mrtr.complete({"prompts": prompts, **CACHE})


def route(call: Call) -> Outcome:
    if call.method in ("server/discover", "tools/list", "resources/list", "prompts/list"):
        return listing(call)
    table: Dict[str, Any] = {"tools/call": (TOOLS, call.name), "resources/read": (RESOURCES, call.uri), "prompts/get": (PROMPTS, call.name)}
    if call.method not in table:
        return mrtr.error(-32601, f"Method not found: {call.method}")
    entries, name = table[call.method]
    if name not in entries:
        return mrtr.error(-32602, f"Unknown {call.method.split('/')[0][:-1]}: {name}")
    handler: Callable[[Call], Outcome] = entries[name][1]
    return handler(call)


# --- the MCP plumbing: bytes in, (status, bytes) out ---


def handle(engine: Engine, raw: bytes, principal: Optional[str]) -> Optional[Tuple[int, str]]:
    """One JSON-RPC message → (HTTP status, response JSON), or None for a notification."""
    try:
        begun = engine.begin(raw, principal)
    except mrtr.NotARequestError:
        return None  # a notification or a response: nothing to send back
    if isinstance(begun, Response):
        return begun.http_status, begun.to_json()
    try:
        outcome = route(begun)
    except Exception as e:  # a handler bug must still produce one response
        print(f"handler error: {e!r}", file=sys.stderr)
        outcome = mrtr.error(-32603, "Internal error")
    response = engine.decide(begun, outcome)
    if response.diagnostic:
        print(f"snodo: {response.diagnostic}", file=sys.stderr)
    return response.http_status, response.to_json()


def serve_stdio(engine: Engine) -> None:
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        # stdio has no authentication: the principal is the explicit anonymous one.
        out = handle(engine, line, None)
        if out is not None:
            sys.stdout.write(out[1] + "\n")
            sys.stdout.flush()


def serve_http(engine: Engine, port: int) -> None:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.path.split("?")[0] != "/mcp":
                return self.reply(404, None)
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                return self.reply(413, None)
            # A real server authenticates here and passes the verified user id.
            out = handle(engine, self.rfile.read(length), None)
            if out is None:
                return self.reply(202, None)
            self.reply(*out)

        def do_GET(self) -> None:
            self.reply(405, None)  # no server-initiated stream in this example

        def reply(self, status: int, body: Optional[str]) -> None:
            data = (body or "").encode("utf-8")
            self.send_response(status)
            if body is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            print(f"http: {format % args}", file=sys.stderr)

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/mcp", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


def decode_secret(spelling: str) -> bytes:
    try:
        return bytes.fromhex(spelling)  # hex first: a hex string is also valid base64
    except ValueError:
        pass
    try:
        padded = spelling + "=" * (-len(spelling) % 4)
        return base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        raise SystemExit("SNODO_KEYS: a secret is neither hex nor base64") from None


def load_engine() -> Engine:
    spec = os.environ.get("SNODO_KEYS", "").strip()
    if not spec:
        print("warning: SNODO_KEYS is not set; using a random key for this process only "
              "(tokens will not survive a restart or work across instances)", file=sys.stderr, flush=True)
        return Engine.development()
    keys: List[Tuple[str, bytes]] = []
    for entry in spec.split(","):
        kid, sep, secret = entry.strip().partition(":")
        if not sep:
            raise SystemExit("SNODO_KEYS: each entry is id:hex or id:base64")
        keys.append((kid, decode_secret(secret)))
    try:
        return Engine(keys, server_info=SERVER_INFO)
    except mrtr.ConfigError as e:
        raise SystemExit(f"SNODO_KEYS: {e}") from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stdio", action="store_true", help="serve newline-delimited JSON-RPC on stdin/stdout")
    mode.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT/mcp (0 = any free port)")
    args = parser.parse_args()
    engine = load_engine()
    if args.stdio:
        serve_stdio(engine)
    else:
        serve_http(engine, args.http)


if __name__ == "__main__":
    main()
