"""A small MCP server (protocol 2026-07-28) on snodo_mrtr, per interop/CONTRACT.md.

Transport is the standard library only:

    python server.py --stdio          # newline-delimited JSON-RPC on stdin/stdout
    python server.py --http 8787      # Streamable HTTP, POST /mcp, JSON responses (127.0.0.1; 0 = any port)

Keys: SNODO_KEYS="id:hex-or-base64,old:..." (the first signs, all verify).
Without it: a random key for this process only, with a warning on stderr.

It serves a preference workflow (ask the preferred color with a form) as a
tool, a resource and a prompt; a two-question `book_table` tool; and the
fixtures the official conformance suite calls. Copy the plumbing; replace the handlers.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import queue
import re
import socket
import sys
import threading
import time
import uuid
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, NoReturn, Optional, Tuple

import snodo_mrtr as mrtr
from snodo_mrtr import Call, Engine, Response

SERVER_INFO = {"name": "snodo-python-example", "version": mrtr.VERSION}
MAX_BODY = 4 * 1024 * 1024
CACHE = {"ttlMs": 0, "cacheScope": "private"}
Outcome = Dict[str, Any]
Handler = Callable[[Call], Outcome]  # a Call in, an outcome for engine.decide out

# --- input requests: built once, identical every round (snodo pins each question into the token) ---


def form(message: str, key: str, schema: Dict[str, Any]) -> Dict[str, Any]:
    """A one-field elicitation form whose field `key` is required."""
    return mrtr.elicit_form(message, {"type": "object", "properties": {key: schema}, "required": [key]})


COLOR = form("Which color do you prefer?", "color", {"type": "string", "enum": ["red", "green", "blue"]})
DATE = form("Which day?", "date", {"type": "string", "format": "date"})
GUESTS = form("How many guests?", "guests", {"type": "integer", "minimum": 1, "maximum": 8})
NAME = form("What is your name?", "name", {"type": "string"})
CONFIRM = form("Please confirm", "ok", {"type": "boolean"})
STEP1 = form("Step 1: What is your name?", "name", {"type": "string"})
STEP2 = form("Step 2: What is your favorite color?", "color", {"type": "string"})
CONTEXT = form("What context should the prompt use?", "context", {"type": "string"})
with warnings.catch_warnings():
    # Sampling and roots are deprecated in 2026-07-28; the conformance suite still exercises them.
    warnings.simplefilter("ignore", DeprecationWarning)
    CAPITAL = mrtr.sampling({"messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}], "maxTokens": 100})
    GREETING = mrtr.sampling({"messages": [{"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}], "maxTokens": 50})
    ROOTS = mrtr.list_roots()


def text(t: str) -> Outcome:
    return mrtr.complete({"content": [{"type": "text", "text": t}]})


def ended(call: Call, key: str) -> Outcome:
    """The user declined or cancelled `key`: the flow ends here, it is never asked again."""
    why = f"No answer to {key}: the user declined or cancelled."
    if call.method == "tools/call":
        return mrtr.tool_error(why)
    return mrtr.error(-32602, why)  # prompts/get, resources/read have no tool error


def ask_all(call: Call, asks: Dict[str, Any], state: Any, done: Callable[[Dict[str, Any]], Outcome]) -> Outcome:
    """Until every question in `asks` has an accepted answer, ask all of them again (same state).
    A declined or cancelled question ends the flow."""
    answers = {k: call.response(k, q) for k, q in asks.items()}
    for k, a in answers.items():
        if a.is_declined or a.is_cancelled:
            return ended(call, k)
    if all(a.is_accepted for a in answers.values()):
        return done({k: a.value for k, a in answers.items()})
    return mrtr.input_required(asks, state)


# --- the app's workflows ---


def preferred_color_tool(call: Call) -> Outcome:
    a = call.response("color", COLOR)
    if a.is_accepted:
        return text(f"Your preferred color is {(a.value or {})['color']}.")
    if a.is_declined:
        return text("You declined to choose a color.")
    if a.is_cancelled:
        return mrtr.tool_error("You cancelled the color question.")
    return mrtr.input_required({"color": COLOR})  # missing or invalid: ask (again)


def color_or_none(call: Call) -> Optional[str]:
    """The accepted color, "no preference" on decline/cancel, None when it must be asked."""
    a = call.response("color", COLOR)
    if a.is_accepted:
        return str((a.value or {})["color"])
    return "no preference" if a.is_declined or a.is_cancelled else None


def preferred_color_resource(call: Call) -> Outcome:
    color = color_or_none(call)
    if color is None:
        return mrtr.input_required({"color": COLOR})
    # Cache hints on the final result only; snodo keeps them off input_required.
    return mrtr.complete({"contents": [{"uri": "prefs://color", "mimeType": "text/plain", "text": color}], **CACHE})


def preferred_color_prompt(call: Call) -> Outcome:
    color = color_or_none(call)
    if color is None:
        return mrtr.input_required({"color": COLOR})
    poem = {"role": "user", "content": {"type": "text", "text": f"Write a short poem about the color {color}."}}
    return mrtr.complete({"description": "A poem about your preferred color", "messages": [poem]})


def book_table(call: Call) -> Outcome:
    # Accepted answers travel in the (signed) state, so each question is asked until answered, once.
    state: Dict[str, Any] = dict(call.state or {})
    for key, ask in (("date", DATE), ("guests", GUESTS)):
        if key not in state:
            a = call.response(key, ask)
            if a.is_accepted:
                state[key] = (a.value or {})[key]
            elif a.is_declined or a.is_cancelled:
                return text("No table booked.")
    if "date" in state and "guests" in state:
        return text(f"Booked a table for {int(state['guests'])} on {state['date']}.")
    asks = {k: q for k, q in (("date", DATE), ("guests", GUESTS)) if k not in state}
    return mrtr.input_required(asks, state or None)


# --- a task-backed tool (Tasks extension, io.modelcontextprotocol/tasks) ---
#
# DEMO ONLY: tasks live in this process's memory, so tasks/get and tasks/update must
# reach the process that created the task. A real server keeps them in a shared store.
TASKS: Dict[str, Dict[str, Any]] = {}
TASKS_LOCK = threading.Lock()
TASK_TTL_MS = 60_000


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def paint_task(call: Call) -> Outcome:
    """Asks the color by MRTR; the last round answers with a task when the client declared
    the Tasks extension (a finished one: painting is instant here), else with the result."""
    a = call.response("color", COLOR)
    if a.is_declined or a.is_cancelled:
        return mrtr.tool_error("No color chosen: nothing painted.")
    if not a.is_accepted:
        return mrtr.input_required({"color": COLOR})
    result = {"content": [{"type": "text", "text": f"Painted it {(a.value or {})['color']}."}]}
    if not mrtr.declares_tasks(call.client_capabilities):
        return mrtr.complete(result)
    now = utc_now()
    task: Dict[str, Any] = {"taskId": str(uuid.uuid4()), "status": "completed", "createdAt": now, "lastUpdatedAt": now,
            "ttlMs": TASK_TTL_MS, "pollIntervalMs": 1000}
    with TASKS_LOCK:
        TASKS[task["taskId"]] = {"task": task, "result": result}
    return mrtr.complete({"resultType": "task", **task})


def known_task(call: Call) -> Optional[Dict[str, Any]]:
    with TASKS_LOCK:
        return TASKS.get(str(call.params.get("taskId")))


def tasks_get(call: Call) -> Outcome:
    entry = known_task(call)
    if entry is None:
        return mrtr.error(-32602, f"Unknown task: {call.params.get('taskId')}")
    task = entry["task"]
    # The input requests a task carries must be receivable by this client (none here; the check shows where).
    missing = mrtr.check_task_input_requests(task, call.client_capabilities)
    if missing:
        return mrtr.error(-32021, "Missing required client capability", {"requiredCapabilities": missing})
    return mrtr.complete({**task, "result": entry["result"]})


def tasks_update(call: Call) -> Outcome:
    # Answers for keys the task never asked are ignored (this task asks none once created).
    if known_task(call) is None:
        return mrtr.error(-32602, f"Unknown task: {call.params.get('taskId')}")
    return mrtr.complete({})


# --- conformance fixtures (input-required-result-*, server-stateless) ---


def sampled_text(result: Dict[str, Any]) -> str:
    """The text of a sampling answer (the whole CreateMessageResult): its first content block."""
    content = result["content"]
    block = (content or [{}])[0] if isinstance(content, list) else content
    return str(block.get("text", ""))


def multi_round(call: Call) -> Outcome:
    state: Dict[str, Any] = call.state if isinstance(call.state, dict) else {}
    if state.get("step") == 2:
        a = call.response("step2", STEP2)
        if a.is_accepted:
            return text(f"Done after 3 rounds, {state['name']} likes {(a.value or {})['color']}.")
        if a.is_declined or a.is_cancelled:
            return ended(call, "step2")
        return mrtr.input_required({"step2": STEP2}, state)
    if state.get("step") == 1:
        a = call.response("step1", STEP1)
        if a.is_accepted:
            return mrtr.input_required({"step2": STEP2}, {"step": 2, "name": (a.value or {})["name"]})
        if a.is_declined or a.is_cancelled:
            return ended(call, "step1")
        return mrtr.input_required({"step1": STEP1}, state)
    return mrtr.input_required({"step1": STEP1}, {"step": 1})


def capabilities(call: Call) -> Outcome:
    # Ask only what this client can receive; optional questions never cause -32021.
    asks = mrtr.filter_supported({"user_name": NAME, "greeting": GREETING, "client_roots": ROOTS}, call.client_capabilities)
    if not asks:
        return text("Nothing this client can answer.")
    return ask_all(call, asks, {"flow": "capabilities"}, lambda v: text(f"Received {len(v)} inputs."))


def fixture(asks: Dict[str, Any], state: Any, done: Callable[[Dict[str, Any]], Outcome]) -> Handler:
    """A conformance tool that asks `asks` (with `state`) until all are accepted, then calls `done`."""
    return lambda call: ask_all(call, asks, state, done)


def context_prompt(call: Call) -> Outcome:
    def done(v: Dict[str, Any]) -> Outcome:
        msg = {"role": "user", "content": {"type": "text", "text": f"Context: {v['user_context']['context']}"}}
        return mrtr.complete({"messages": [msg]})

    return ask_all(call, {"user_context": CONTEXT}, None, done)


HELLO = fixture({"user_name": NAME}, None, lambda v: text(f"Hello, {v['user_name']['name']}!"))
TOOLS: Dict[str, Tuple[str, Handler]] = {
    "preferred_color": ("Asks your preferred color", preferred_color_tool),
    "book_table": ("Books a table: asks the day and the number of guests", book_table),
    "test_input_required_result_elicitation": ("Conformance: one elicitation", HELLO),
    "test_input_required_result_sampling": ("Conformance: one sampling request", fixture(
        {"capital_question": CAPITAL}, None, lambda v: text(f"Sampled: {sampled_text(v['capital_question'])}"))),
    "test_input_required_result_list_roots": ("Conformance: one roots/list request", fixture(
        {"client_roots": ROOTS}, None, lambda v: text("Roots: " + ", ".join(r["uri"] for r in v["client_roots"])))),
    "test_input_required_result_request_state": ("Conformance: input plus requestState", fixture(
        {"confirm": CONFIRM}, {"flow": "request-state"}, lambda v: text("state-ok"))),
    "test_input_required_result_multiple_inputs": ("Conformance: elicitation, sampling and roots at once", fixture(
        {"user_name": NAME, "greeting": GREETING, "client_roots": ROOTS}, {"flow": "multiple"}, lambda v: text("Received 3 inputs."))),
    "test_input_required_result_multi_round": ("Conformance: three rounds", multi_round),
    "test_input_required_result_tampered_state": ("Conformance: integrity-protected requestState", fixture(
        {"confirm": CONFIRM}, {"flow": "tampered"}, lambda v: text("state intact"))),
    "test_input_required_result_capabilities": ("Conformance: asks only what the client can answer", capabilities),
    # A required question: without the sampling capability snodo answers -32021 (HTTP 400).
    "test_missing_capability": ("Conformance: requires sampling", fixture({"greeting": GREETING}, None, lambda v: text("sampled"))),
    "test_streaming_elicitation": ("Conformance: one elicitation", HELLO),
    "test_logging_tool": ("Conformance: logging", lambda c: text("No log level requested, so nothing was logged.")),
    "test_trigger_tool_change": ("Conformance: tool list change", lambda c: text("The tool list is static.")),
    "test_trigger_prompt_change": ("Conformance: prompt list change", lambda c: text("The prompt list is static.")),
    "paint_task": ("Asks a color, then paints as a task (Tasks extension) or directly", paint_task),
}
RESOURCES: Dict[str, Handler] = {"prefs://color": preferred_color_resource}
PROMPTS: Dict[str, Tuple[str, Handler]] = {
    "preferred_color": ("A poem about your preferred color", preferred_color_prompt),
    "test_input_required_result_prompt": ("Conformance: input_required on prompts/get", context_prompt),
}
RESOURCE_LIST = [{"uri": "prefs://color", "name": "preferred-color", "description": "Your preferred color", "mimeType": "text/plain"}]
# No listChanged/subscribe anywhere: the lists are static and there is nothing to listen to.
LISTS: Dict[str, Dict[str, Any]] = {
    "server/discover": {"supportedVersions": [mrtr.MRTR_VERSION], "capabilities": {"tools": {}, "resources": {}, "prompts": {}}},
    "tools/list": {"tools": [{"name": n, "description": d, "inputSchema": {"type": "object", "properties": {}}} for n, (d, _) in TOOLS.items()]},
    "resources/list": {"resources": RESOURCE_LIST},
    "resources/templates/list": {"resourceTemplates": []},
    "prompts/list": {"prompts": [{"name": n, "description": d} for n, (d, _) in PROMPTS.items()]},
}


def route(call: Call) -> Outcome:
    if call.method in LISTS:
        return mrtr.complete({**LISTS[call.method], **CACHE})
    if call.method == "tools/call":
        tool = TOOLS.get(call.name or "")
        return tool[1](call) if tool else mrtr.error(-32602, f"Unknown tool: {call.name}")
    if call.method == "resources/read":
        resource = RESOURCES.get(call.uri or "")
        return resource(call) if resource else mrtr.error(-32602, f"Resource not found: {call.uri}", {"uri": call.uri})
    if call.method == "tasks/get":
        return tasks_get(call)
    if call.method == "tasks/update":
        return tasks_update(call)
    if call.method == "prompts/get":
        prompt = PROMPTS.get(call.name or "")
        return prompt[1](call) if prompt else mrtr.error(-32602, f"Unknown prompt: {call.name}")
    # Includes the removed initialize, ping, logging/setLevel, subscriptions/listen, ...
    return mrtr.error(-32601, f"Method not found: {call.method}")


# --- the MCP plumbing: bytes in, (status, JSON text) out ---


def handle(engine: Engine, raw: bytes, principal: Optional[str]) -> Optional[Tuple[int, str]]:
    """One JSON-RPC message → (HTTP status, response JSON), or None for a notification/response."""
    try:
        begun = engine.begin(raw, principal)
    except mrtr.NotARequestError:
        return None
    if isinstance(begun, Response):
        response = begun  # a ready error (parse, _meta validation, bad version, ...)
    else:
        try:
            outcome = route(begun)
        except Exception as e:  # a handler bug must still produce exactly one response
            print(f"handler error in {begun.method}: {e!r}", file=sys.stderr, flush=True)
            outcome = mrtr.error(-32603, "Internal error")
        response = engine.decide(begun, outcome)
    if response.diagnostic:
        print(f"snodo: {response.diagnostic}", file=sys.stderr, flush=True)  # for the operator, never on the wire
    return response.http_status, response.to_json()


def serve_stdio(engines: Callable[[], Engine]) -> None:
    out_lock = threading.Lock()

    def write(text: str) -> None:
        with out_lock:  # worker threads of a 2025-era connection write too
            sys.stdout.write(text + "\n")
            sys.stdout.flush()

    lines = iter(sys.stdin.buffer)
    for line in lines:
        if not line.strip():
            continue
        # The era is decided per connection: an `initialize` without the 2026 `_meta` claim pins
        # it to 2025 for its lifetime; anything else is served per request as 2026-07-28.
        if b'"initialize"' in line:
            try:
                message = json.loads(line)
            except (ValueError, RecursionError):
                message = None
            if legacy_handshake(message):
                ls, answer = open_legacy_session(engines(), message, "stdio-" + uuid.uuid4().hex)
                write(answer)
                if ls is not None:
                    return serve_stdio_legacy(engines, ls, lines, write)
                continue
        # stdio has no authentication: the principal is anonymous.
        out = handle(engines(), line, None)
        if out is not None:
            write(out[1])


# --- 2025-era sessions (issue 14): the same handlers through snodo's legacy bridge ---
#
# A client that opens with `initialize` (no 2026 `_meta` claim) gets a session. Its requests go
# through engine.begin_legacy; an input_required outcome becomes real `elicitation/create` (or
# sampling/roots) requests on the session: stdio lines, or SSE events on the POST that carries the
# tools/call. The client's responses are fed back; when all are in, the handler runs again with
# them, exactly as on a 2026 retry. Bounded: MAX_SESSIONS sessions (idle ones expire), at most
# MAX_FLOWS requests in flight per session, each flow until its deadline (engine.timeout).

MAX_SESSIONS = 256
MAX_FLOWS = 16
SESSION_IDLE_SECS = 1800
STATE_ROUND_PACE_SECS = 0.25  # a round with state only: rerun the handler, but never in a tight loop
LEGACY_CAPABILITIES: Dict[str, Any] = {"tools": {}, "resources": {}, "prompts": {}}
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
Emit = Callable[[str], None]  # writes one JSON-RPC message to the client


def legacy_handshake(message: Any) -> bool:
    """An `initialize` request without the 2026 `_meta` claim opens a 2025-era session."""
    if not isinstance(message, dict) or message.get("method") != "initialize" or "id" not in message:
        return False
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return not (isinstance(meta, dict) and PROTOCOL_VERSION_KEY in meta)


def legacy_route(call: Call) -> Outcome:
    """The 2026 handlers, minus what a 2025 result must not carry (cache hints)."""
    outcome = route(call)
    if outcome.get("type") == "complete" and isinstance(outcome.get("result"), dict):
        result = {k: v for k, v in outcome["result"].items() if k not in CACHE}
        outcome = mrtr.complete(result)
    return outcome


class Flow:
    """One legacy request in flight: the worker waits on `inbox` for what feeding produced."""

    def __init__(self, origin: Any, emit: Emit) -> None:
        self.origin = origin
        self.emit = emit
        self.pending: Optional[mrtr.PendingFlow] = None
        self.inbox: "queue.Queue[Any]" = queue.Queue()


class LegacySession:
    """What the server keeps per 2025-era session: the snodo Session and the flows in flight."""

    def __init__(self, session: mrtr.Session) -> None:
        self.session = session
        self.initialized = threading.Event()  # no server-to-client request before notifications/initialized
        self.lock = threading.Lock()
        self.flows: List[Flow] = []
        self.closed = False
        self.touched = time.monotonic()

    def start(self, origin: Any, emit: Emit) -> Optional[Flow]:
        with self.lock:
            if self.closed or len(self.flows) >= MAX_FLOWS:
                return None
            flow = Flow(origin, emit)
            self.flows.append(flow)
            return flow

    def finish(self, flow: Flow) -> None:
        with self.lock:
            if flow in self.flows:
                self.flows.remove(flow)

    def awaiting(self, rid: Any) -> Optional[Flow]:
        with self.lock:
            return next((f for f in self.flows if f.pending is not None and f.pending.awaits(rid)), None)

    def by_origin(self, origin: Any) -> Optional[Flow]:
        with self.lock:
            return next((f for f in self.flows if f.origin == origin and type(f.origin) is type(origin)), None)

    def close(self) -> None:
        """Disconnect or DELETE: every flow ends without writing (snodo holds nothing else)."""
        with self.lock:
            self.closed = True
            flows, self.flows = self.flows, []
        for f in flows:
            f.inbox.put(None)


def open_legacy_session(engine: Engine, message: Dict[str, Any], sid: str) -> Tuple[Optional[LegacySession], str]:
    """Answers `initialize`: the session (None if refused) and the response text."""
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    requested = params.get("protocolVersion") if isinstance(params, dict) else None
    version = engine.legacy_version_for(requested if isinstance(requested, str) else "")
    if version is None:
        err = {"code": -32602, "message": "Unsupported protocol version",
               "data": {"supported": [], "requested": requested}}
        return None, json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": err})
    try:
        session = mrtr.Session.from_initialize(message, version, id=sid)
    except mrtr.SnodoError as e:
        err = {"code": -32602, "message": f"Invalid initialize: {e}"}
        return None, json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": err})
    result = {"protocolVersion": version, "capabilities": LEGACY_CAPABILITIES, "serverInfo": SERVER_INFO}
    return LegacySession(session), json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})


def serve_legacy_request(engines: Callable[[], Engine], ls: LegacySession, raw: bytes, message: Dict[str, Any],
                         principal: Optional[str], emit: Emit) -> None:
    """One request on a 2025-era session, start to end: the final response (or nothing, if the
    client cancelled it or the session closed) and every server-to-client request go to `emit`."""
    if message.get("method") == "ping":
        return emit(json.dumps({"jsonrpc": "2.0", "id": message.get("id"), "result": {}}))
    if message.get("method") == "initialize":
        err = {"code": -32600, "message": "Session already initialized"}
        return emit(json.dumps({"jsonrpc": "2.0", "id": message.get("id"), "error": err}))
    flow = ls.start(message.get("id"), emit)
    if flow is None:
        err = {"code": -32603, "message": f"Too many requests in flight on this session (at most {MAX_FLOWS})"}
        return emit(json.dumps({"jsonrpc": "2.0", "id": message.get("id"), "error": err}))
    try:
        drive(engines, ls, flow, raw, principal, emit)
    finally:
        ls.finish(flow)


def drive(engines: Callable[[], Engine], ls: LegacySession, flow: Flow, raw: bytes, principal: Optional[str],
          emit: Emit) -> None:
    engine = engines()
    try:
        begun = engine.begin_legacy(raw, ls.session, principal)
    except mrtr.NotARequestError:
        return
    if isinstance(begun, Response):
        return emit(begun.to_json())
    call: Call = begun
    while True:
        try:
            outcome = legacy_route(call)
        except Exception as e:  # a handler bug must still produce exactly one response
            print(f"handler error in {call.method}: {e!r}", file=sys.stderr, flush=True)
            outcome = mrtr.error(-32603, "Internal error")
        decided = engines().decide_legacy(call, outcome)
        if isinstance(decided, Response):
            if decided.diagnostic:
                print(f"snodo: {decided.diagnostic}", file=sys.stderr, flush=True)
            return emit(decided.to_json())
        if isinstance(decided, Call):
            time.sleep(STATE_ROUND_PACE_SECS)
            call = decided
            continue
        pending = decided
        flow.pending = pending
        # Wait for notifications/initialized before asking anything (bounded by the flow's deadline).
        if not ls.initialized.wait(max(0.0, pending.deadline - engines().now())):
            fed = engines().timeout(pending)
        else:
            for request in pending.requests:
                emit(json.dumps(request))
            fed = None
        while fed is None or fed.kind == "waiting":
            try:
                fed = flow.inbox.get(timeout=max(0.05, pending.deadline - engines().now() + 0.5))
            except queue.Empty:
                if engines().now() >= pending.deadline:
                    fed = engines().timeout(pending)
                continue
            if fed is None:  # session closed, or the client cancelled the request: write nothing
                return
        if fed.kind == "resume" and fed.call is not None:
            call = fed.call
            continue
        for note in fed.cancellations:
            emit(json.dumps(note))
        if fed.response is not None:
            return emit(fed.response.to_json())
        return


def legacy_message(engines: Callable[[], Engine], ls: LegacySession, raw: bytes, message: Any) -> Optional[str]:
    """A response or notification from the client on a 2025-era session. Returns None when
    accepted, else why it was refused (for the operator; HTTP answers it with 400)."""
    ls.touched = time.monotonic()
    if not isinstance(message, dict):
        return "not a JSON-RPC message"
    method = message.get("method")
    if method == "notifications/initialized":
        ls.initialized.set()
        return None
    if method == "notifications/cancelled":
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        flow = ls.by_origin(params.get("requestId")) if isinstance(params, dict) else None
        if flow is not None:
            ls.finish(flow)
            if flow.pending is not None:
                # The reason is the client's; the legs it left unanswered are cancelled in turn.
                for note in flow.pending.cancel("The originating request was cancelled"):
                    flow.emit(json.dumps(note))
            flow.inbox.put(None)
        return None
    if method is not None:
        return None  # other notifications: nothing to do
    flow = ls.awaiting(message.get("id"))
    if flow is None or flow.pending is None:
        return f"response to an unknown or finished request id {message.get('id')!r}"
    try:
        fed = engines().feed(flow.pending, raw)
    except mrtr.SnodoError as e:
        return str(e)
    flow.inbox.put(fed)
    return None


class Sessions:
    """The HTTP sessions: at most MAX_SESSIONS; one idle for SESSION_IDLE_SECS is dropped."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.table: Dict[str, LegacySession] = {}

    def add(self, ls: LegacySession) -> bool:
        now = time.monotonic()
        with self.lock:
            idle = [k for k, v in self.table.items() if now - v.touched > SESSION_IDLE_SECS and not v.flows]
            for k in idle:
                self.table.pop(k).close()
            if len(self.table) >= MAX_SESSIONS:
                return False
            self.table[ls.session.id] = ls
            return True

    def get(self, sid: str) -> Optional[LegacySession]:
        with self.lock:
            ls = self.table.get(sid)
        if ls is not None:
            ls.touched = time.monotonic()
        return ls

    def remove(self, sid: str) -> Optional[LegacySession]:
        with self.lock:
            return self.table.pop(sid, None)


SESSIONS = Sessions()


def rpc_error(rid: Any, code: int, message: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})


def serve_stdio_legacy(engines: Callable[[], Engine], ls: LegacySession, lines: Any, write: Emit) -> None:
    """The rest of a stdio connection pinned to the 2025 era: requests run in worker threads so
    the client's responses, interleaved with other requests, keep being read."""
    try:
        for line in lines:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except (ValueError, RecursionError):
                err = {"code": -32700, "message": "Parse error"}
                write(json.dumps({"jsonrpc": "2.0", "id": None, "error": err}))
                continue
            if isinstance(message, dict) and "method" in message and "id" in message:
                threading.Thread(target=serve_legacy_request, daemon=True,
                                 args=(engines, ls, line, message, None, write)).start()
                continue
            why = legacy_message(engines, ls, line, message)
            if why is not None:
                print(f"legacy: ignored a client message: {why}", file=sys.stderr, flush=True)
    finally:
        ls.close()


# --- HTTP plumbing (docs/operations.md): keep-alive, a deep listen backlog, bounded threads and deadlines ---
#
# Why the standard library's ThreadingHTTPServer needs these four changes to hold load:
# * its listen backlog is 5, so past ~8 concurrent clients new connections are dropped
#   or reset and clients wait on SYN retries (request_queue_size below);
# * BaseHTTPRequestHandler speaks HTTP/1.0 unless told otherwise, so every request pays
#   a new TCP connection and a new thread (protocol_version = "HTTP/1.1", with an exact
#   Content-Length on every reply);
# * it starts one thread per connection without limit (MAX_CONNECTIONS: at the cap the
#   server stops accepting and new connections wait in the backlog instead);
# * it leaves Nagle's algorithm on, so each keep-alive reply stalls ~40 ms on a delayed ACK;
# * nothing bounds how long a client may hold a connection: an idle or stalled socket is
#   closed after SNODO_HTTP_TIMEOUT_SECS (default 10) seconds, and a request body must
#   arrive within that time (a slow-drip upload gets 408).
# A production deployment may sit behind a reverse proxy instead; the handlers stay the same.

MAX_CONNECTIONS = 256  # one thread each; a keep-alive client holds one while connected
QUIET_ERRORS = (ConnectionError, TimeoutError)  # clients that vanish are normal, not server faults


class McpServer(ThreadingHTTPServer):
    request_queue_size = 1024  # the listen backlog (the kernel caps it at net.core.somaxconn)
    daemon_threads = True  # never join connection threads at exit, and keep no list of them

    def __init__(self, address: Tuple[str, int], handler: Any) -> None:
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        self.slots.acquire()  # at the cap: stop accepting; the backlog holds the next ones
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def shutdown_request(self, request: Any) -> None:
        # Lingering close: closing a socket with unread input makes the kernel send a reset,
        # which can destroy the reply (a 400 for garbage, a 413) before the client reads it.
        # Stop writing, read what is left for a moment, then close.
        deadline = time.monotonic() + 1.0  # in all: a client still dripping bytes must not hold us
        try:
            request.shutdown(socket.SHUT_WR)
            for _ in range(64):  # at most 4 MiB more
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                request.settimeout(remaining)
                if not request.recv(1 << 16):
                    break
        except OSError:
            pass
        self.close_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if not isinstance(error, QUIET_ERRORS):  # one line, no traceback: 1 000 disconnects must not flood stderr
            print(f"http: connection error: {error!r}", file=sys.stderr, flush=True)


def serve_http(engines: Callable[[], Engine], port: int) -> None:
    http_timeout = float(env_int("SNODO_HTTP_TIMEOUT_SECS") or 10)  # idle keep-alive, and a whole body

    class McpHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive; every reply below has an exact Content-Length
        timeout = http_timeout  # socket timeout: an idle keep-alive connection is closed after this
        # The head and the body of a reply go out in two writes; with Nagle's algorithm on, the
        # second waits for the client's delayed ACK (~40 ms) on a keep-alive connection.
        disable_nagle_algorithm = True
        # Buffer replies: the head and the body leave in one send when the request is done
        # (handle_one_request flushes), not two. Each send releases and retakes the GIL;
        # at 64 connections every extra handover is a context switch between busy threads.
        # SSE streams and 100 Continue flush themselves (stream, handle_expect_100).
        wbufsize = 64 * 1024
        # Unparsable request lines are answered as HTTP/0.9 (a bare body, no status line) by
        # default; answer them with a status, and without the stdlib's HTML error page.
        default_request_version = "HTTP/1.1"
        error_message_format = ""

        def do_POST(self) -> None:
            if self.path.split("?")[0] != "/mcp":
                return self.reply(404, close=self.headers.get("Content-Length") not in (None, "0"))
            if self.headers.get("Transfer-Encoding"):
                return self.reply(411, close=True)  # chunked uploads are not read: say so, then close
            length = self.headers.get("Content-Length") or "0"
            if not length.isdigit():
                return self.reply(400, close=True)  # the body's end is unknown: the connection cannot be reused
            if int(length) > MAX_BODY:
                # Read the upload (within the deadline, keeping nothing) before answering: closing
                # mid-upload makes clients see a reset, not the 413.
                self.read_body(int(length), keep=False)
                return self.reply(413, close=True)
            body = self.read_body(int(length))
            if body is None:
                return self.reply(408, close=True)  # slow drip past the deadline, or the client left
            # 2025-era sessions (issue 14): an `initialize` handshake or an Mcp-Session-Id header.
            # Everything else goes on to the 2026 per-request path below, unchanged.
            sid = self.headers.get("Mcp-Session-Id")
            if (sid is not None or b'"initialize"' in body) and self.legacy(sid, body):
                return None
            # The request-metadata header rules (-32020, HTTP 400) are snodo's: every
            # occurrence of every header goes in, so a repeated one is caught.
            mismatch = mrtr.check_http_headers(self.headers.items(), body)
            if mismatch is not None:
                return self.reply(mismatch.http_status, mismatch.to_json())
            # DEMO ONLY: the bearer token is trusted as the user id. A real server
            # verifies the token first and passes the verified user id instead.
            scheme, _, token = (self.headers.get("Authorization") or "").partition(" ")
            principal = token if scheme.lower() == "bearer" and token else None
            try:
                out = handle(engines(), body, principal)
            except Exception as e:  # never drop the connection without an answer
                print(f"request failed: {e!r}", file=sys.stderr, flush=True)
                return self.reply(500, close=True)
            self.reply(*(out or (202, None)))

        def principal(self) -> Optional[str]:
            # DEMO ONLY: the bearer token is trusted as the user id (see do_POST).
            scheme, _, token = (self.headers.get("Authorization") or "").partition(" ")
            return token if scheme.lower() == "bearer" and token else None

        def legacy(self, sid: Optional[str], body: bytes) -> bool:
            """Serves a POST on the 2025-era path; False when it belongs to the 2026 path."""
            try:
                message = json.loads(body)
            except (ValueError, RecursionError):
                if sid is None:
                    return False  # the 2026 path answers the parse error
                self.reply(400, rpc_error(None, -32700, "Parse error"))
                return True
            if sid is None:
                if not legacy_handshake(message):
                    return False
                ls, answer = open_legacy_session(engines(), message, uuid.uuid4().hex)
                if ls is None:
                    self.reply(200, answer)
                elif not SESSIONS.add(ls):
                    self.reply(503, rpc_error(message.get("id"), -32000, "Too many sessions; try again later"))
                else:
                    self.reply(200, answer, {"Mcp-Session-Id": ls.session.id})
                return True
            ls = SESSIONS.get(sid)
            if ls is None:
                self.reply(404, rpc_error(None, -32001, "Session not found"))
                return True
            version = self.headers.get("MCP-Protocol-Version")
            if version is not None and version != ls.session.protocol_version:
                self.reply(400, rpc_error(None, -32000, f"Bad MCP-Protocol-Version: {version}"))
                return True
            if isinstance(message, dict) and "method" in message and "id" in message:
                if message.get("method") in mrtr.MRTR_METHODS:
                    self.stream(ls, body, message)
                else:
                    out: List[str] = []
                    serve_legacy_request(engines, ls, body, message, self.principal(), out.append)
                    self.reply(200, out[-1] if out else None, {"Mcp-Session-Id": sid})
                return True
            why = legacy_message(engines, ls, body, message)
            if why is None:
                self.reply(202)
            else:
                self.reply(400, rpc_error(None, -32600, why))
            return True

        def stream(self, ls: LegacySession, body: bytes, message: Dict[str, Any]) -> None:
            """A request that may ask the user: its answer is an SSE stream carrying the server's
            requests, then the response; the stream (and the connection) ends with it."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Mcp-Session-Id", ls.session.id)
            self.send_header("Connection", "close")  # no length known: the end of the stream is the close
            self.end_headers()
            self.wfile.flush()  # the client sees the stream open before the first event
            lock = threading.Lock()

            def emit(text: str) -> None:
                with lock:  # a cancellation may be written from another request's thread
                    try:
                        self.wfile.write(f"event: message\ndata: {text}\n\n".encode("utf-8"))
                        self.wfile.flush()
                    except OSError:
                        pass  # the client dropped the stream: not a cancellation; the flow times out

            serve_legacy_request(engines, ls, body, message, self.principal(), emit)

        def do_DELETE(self) -> None:
            sid = self.headers.get("Mcp-Session-Id")
            if sid is None or self.path.split("?")[0] != "/mcp":
                return self.not_allowed()
            ls = SESSIONS.remove(sid)
            if ls is None:
                return self.reply(404, rpc_error(None, -32001, "Session not found"))
            ls.close()  # its pending flows end without writing
            self.reply(200)

        def read_body(self, length: int, keep: bool = True) -> Optional[bytes]:
            """The body, read within the HTTP timeout in all; None if the client is too slow or leaves."""
            deadline = time.monotonic() + http_timeout
            chunks: List[bytes] = []
            left = length
            try:
                while left > 0:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return None
                    self.connection.settimeout(remaining)  # per-recv timeouts alone let a slow drip last forever
                    chunk = self.rfile.read1(min(left, 1 << 16))
                    if not chunk:
                        return None
                    left -= len(chunk)
                    if keep:
                        chunks.append(chunk)
            except (TimeoutError, ConnectionError):
                return None
            finally:
                self.connection.settimeout(http_timeout)
            return b"".join(chunks)

        def not_allowed(self) -> None:
            close = self.headers.get("Content-Length") not in (None, "0")  # an unread body: do not reuse
            if self.path.split("?")[0] != "/mcp":
                return self.reply(404, close=close)
            self.reply(405, headers={"Allow": "POST"}, close=close)  # no server-initiated (GET) stream

        do_GET = do_PUT = do_PATCH = do_OPTIONS = not_allowed

        def reply(self, status: int, body: Optional[str] = None, headers: Optional[Dict[str, str]] = None,
                  close: bool = False) -> None:
            data = (body or "").encode("utf-8")
            self.send_response(status)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            if body is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if close:
                self.send_header("Connection", "close")  # also sets close_connection
            self.end_headers()
            self.wfile.write(data)

        def handle_expect_100(self) -> bool:
            ok = super().handle_expect_100()
            self.wfile.flush()  # the 100 Continue must go out before we wait for the body
            return ok

        def log_request(self, code: Any = "-", size: Any = "-") -> None:
            pass  # no access log: stderr is for the listening line and real problems

        def log_message(self, format: str, *args: Any) -> None:
            print(f"http: {format % args}", file=sys.stderr)  # stdout is never used for logs

    server = McpServer(("127.0.0.1", port), McpHandler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/mcp", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


def decode_secret(spelling: str) -> bytes:
    # Hex first: an even-length hex string is also valid base64, and hex is what people paste.
    if len(spelling) % 2 == 0 and re.fullmatch(r"[0-9a-fA-F]*", spelling):
        return bytes.fromhex(spelling)
    b64 = spelling.rstrip("=").replace("-", "+").replace("_", "/")  # url-safe and unpadded too
    return base64.b64decode(b64 + "=" * (-len(b64) % 4), validate=True)


def env_int(name: str) -> Optional[int]:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        fail(f"{name}: {raw!r} is not an integer")


def load_engine() -> Callable[[], Engine]:
    """The engine to use for each request (one, except under the test-only clock offset)."""
    spec = os.environ.get("SNODO_KEYS", "").strip()
    if not spec:
        print("warning: SNODO_KEYS is not set; using a random key for this process only "
              "(tokens will not survive a restart or work across instances)", file=sys.stderr, flush=True)
        dev = Engine.development()
        return lambda: dev
    keys: List[Tuple[str, bytes]] = []
    for n, entry in enumerate(spec.split(","), 1):
        kid, sep, secret = entry.strip().partition(":")
        try:
            if not sep:
                raise ValueError("no ':'")
            keys.append((kid, decode_secret(secret)))
        except ValueError:  # binascii.Error is a ValueError
            fail(f"SNODO_KEYS entry {n} is malformed: expected id:hex or id:base64")  # never echo the secret
    ttl = env_int("SNODO_TTL_SECS")  # token lifetime; unset = snodo's default (300 s)
    offset = env_int("SNODO_CLOCK_OFFSET_SECS")  # TEST ONLY: simulates a host whose clock is off

    def build(now: Optional[int]) -> Engine:
        try:
            return Engine(keys, server_info=SERVER_INFO, ttl_secs=ttl, fixed_time=now)
        except (mrtr.SnodoError, ValueError, TypeError) as e:
            fail(f"SNODO_KEYS: {e}")

    if offset is None:
        engine = build(None)
        return lambda: engine
    return offset_clock(build, offset)


def offset_clock(build: Callable[[Optional[int]], Engine], offset: int) -> Callable[[], Engine]:
    """TEST ONLY (SNODO_CLOCK_OFFSET_SECS): engines whose clock runs `offset` seconds off.

    Engines take a fixed clock (`fixed_time=`), not a clock function, so one is built per
    second of the shifted clock and shared by every request in that second.
    """
    lock = threading.Lock()
    current: Dict[int, Engine] = {}
    build(int(time.time()) + offset)  # a config error exits now, not on the first request

    def engine() -> Engine:
        now = int(time.time()) + offset
        with lock:
            if now not in current:
                current.clear()
                current[now] = build(now)
            return current[now]

    return engine


def fail(message: str) -> NoReturn:
    print(message, file=sys.stderr, flush=True)
    sys.exit(2)


def main() -> None:
    parser = argparse.ArgumentParser(description="A small MCP 2026-07-28 server on snodo_mrtr.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stdio", action="store_true", help="serve newline-delimited JSON-RPC on stdin/stdout")
    mode.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT/mcp (0 = any free port)")
    args = parser.parse_args()
    engines = load_engine()
    if args.stdio:
        serve_stdio(engines)
    else:
        serve_http(engines, args.http)


if __name__ == "__main__":
    main()
