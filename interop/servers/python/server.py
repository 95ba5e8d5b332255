"""The Python contract server of the interop, load and fleet suites: interop/CONTRACT.md
on snodo_mrtr, with every conformance fixture, both eras, the HTTP edge, its limits and
book_room on a shared Redis. Not the example to copy: that is
bindings-python/examples/server.py.

    python interop/servers/python/server.py --stdio       # newline-delimited JSON-RPC on stdin/stdout
    python interop/servers/python/server.py --http PORT   # Streamable HTTP, POST /mcp (127.0.0.1; 0 = any port)

Run it on the interpreter that has the snodo-mrtr wheel (target/interop/venv, made by
interop/setup.sh); the HTTP transport is the standard library's sockets.

Keys: SNODO_KEYS="id:hex-or-base64,old:..." (the first signs, all verify).
Without it: a random key for this process only, with a warning on stderr.

The HTTP edge (every request, before its body): SNODO_ALLOWED_HOSTS and SNODO_ALLOWED_ORIGINS,
comma-separated (neither: loopback hosts only, and no page but the server's own origin).
2025-era sessions belong to the user of their `initialize` and are bounded: SNODO_MAX_SESSIONS
(default 256 in all), SNODO_MAX_SESSIONS_PER_CLIENT (16 per user, or per address when
anonymous), SNODO_SESSION_IDLE_SECS (120: an idle session is dropped).

Fixture settings for the suites: SNODO_TTL_SECS (token lifetime), SNODO_HTTP_TIMEOUT_SECS
(a whole request; an idle keep-alive connection), SNODO_LEDGER (book_room's ledger file).

It serves a preference workflow (ask the preferred color with a form) as a
tool, a resource and a prompt; a two-question `book_table` tool; and the
fixtures the official conformance suite calls; and `book_room`, an effectful tool booked at
most once per flow (SNODO_REDIS_URL or SNODO_REDIS_CLUSTER_URLS: a Redis or Redis Cluster
shared by a fleet; otherwise this process's memory; docs/once.md). The Tasks fixtures run on
snodo's task runner, their tasks in the same store (docs/tasks.md).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import queue
import selectors
import socket
import sys
import threading
import time
import uuid
import warnings
from http import HTTPStatus
from typing import Any, Callable, Dict, List, NamedTuple, NoReturn, Optional, Tuple, Union

import snodo_mrtr as mrtr
from snodo_mrtr import Call, Engine, Response

SERVER_INFO = {"name": "snodo-python-example", "version": mrtr.VERSION}
MAX_BODY = 4 * 1024 * 1024
CACHE = {"ttlMs": 0, "cacheScope": "private"}
Outcome = Dict[str, Any]
Handler = Callable[[Call], Outcome]  # a Call in, an outcome for engine.decide out

# --- input requests: built once, identical every round (snodo pins each question into the token) ---


def form(message: str, key: str, schema: Dict[str, Any]) -> mrtr.Question:
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


# --- task-backed tools (Tasks extension, io.modelcontextprotocol/tasks) ---
#
# Ordinary handlers: each returns run_as_task(state) where the rest of its work may run as a task.
# snodo's runner (snodo_mrtr.Tasks, RUNNER below) does the rest: for a client that declared the
# extension it stores the task, answers the CreateTaskResult and runs the handler again as the task
# (call.task_id set) in a background thread; for any other client it runs it again at once, in the
# request. A run's questions park the task until tasks/update answers them (under keys snodo mints
# for the task, `key@n`, never reused); its end ends the task. The runner answers tasks/get,
# tasks/update and tasks/cancel, and -32021 for TASK_ONLY tools and a client without the extension.
# The tasks live in the task store: the once store's Redis when SNODO_REDIS_URL or
# SNODO_REDIS_CLUSTER_URLS is set (a fleet shares them), else this process's memory.

TASK_ONLY = ("test_tool_with_task", "multi_input", "failing_job")
RUNNER: Optional[mrtr.Tasks] = None
# The -32021 data for a client that must declare the extension (SEP-2663).
TASKS_REQUIRED: Dict[str, Any] = {"requiredCapabilities": mrtr.task_required_capabilities()}


def runner() -> mrtr.Tasks:
    assert RUNNER is not None, "start_tasks() runs before serving"
    return RUNNER


def start_tasks(engine: Engine) -> None:
    """The runner, built once at start-up on the once store's Redis (its client) or in memory."""
    global RUNNER
    store, _ = booking_effects()
    tasks = store if isinstance(store, mrtr.RedisStore) else mrtr.MemoryTaskStore()
    RUNNER = mrtr.Tasks(engine, route, store=tasks, required=TASK_ONLY)


def work(call: Call, seconds: float) -> bool:
    """Simulated work in a task's run (its own thread, never a request): False as soon as the
    task is no longer working (cancelled), checked twice a second."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        time.sleep(min(left, 0.5))
        if runner().status(call) not in ("working", None):
            return False
    return True


def paint_task(call: Call) -> Outcome:
    """Asks the color by MRTR, then paints: as a task when the client declared the extension."""
    if call.state is not None:
        return text(f"Painted it {call.state['color']}.")
    a = call.response("color", COLOR)
    if a.is_declined or a.is_cancelled:
        return mrtr.tool_error("No color chosen: nothing painted.")
    if not a.is_accepted:
        return mrtr.input_required({"color": COLOR})
    return mrtr.run_as_task({"color": (a.value or {})["color"]})


def slow_compute(call: Call) -> Outcome:
    """Simulated work of `seconds` (0-60): as a task that completes `seconds` later when the
    client declared the extension, else answered at once (a request never sleeps)."""
    args = call.params.get("arguments") or {}
    seconds, label = args.get("seconds", 1), str(args.get("label", "slow_compute"))
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not 0 <= seconds <= 60:
        return mrtr.tool_error("seconds must be a number from 0 to 60.")
    if call.state is None and seconds > 0:
        return mrtr.run_as_task({"seconds": seconds})
    if call.task_id is not None and not work(call, float(seconds)):
        return mrtr.tool_error("Stopped: the task was cancelled.")  # dropped by the store: the task stays cancelled
    return text(f"{label}: done ({seconds} s of work).")


def failing_job(call: Call) -> Outcome:
    """Task only: ends completed with a tool error after 1 s (a tool error is a result, never a
    failed task)."""
    if call.state is None:
        return mrtr.run_as_task({"job": "failing"})
    work(call, 1.0)
    return mrtr.tool_error("The job failed.")


def protocol_error_job(call: Call) -> Outcome:
    """As a task it ends failed with a JSON-RPC error after 1 s; without the extension, that error."""
    if call.state is None:
        return mrtr.run_as_task({"job": "protocol_error"})
    if call.task_id is not None:
        work(call, 1.0)
    return mrtr.error(-32603, "The job hit an internal error.")


# The questions of the input-asking task fixtures. multi_input's answers may carry both fields.
DELETE_OK = form("Delete the file?", "confirm", {"type": "boolean"})
PART = mrtr.elicit_form("One part of the input", {"type": "object", "properties": {
    "name": {"type": "string"}, "confirm": {"type": "boolean"}}})


def answered(a: mrtr.Answer) -> bool:
    return a.is_accepted or a.is_declined or a.is_cancelled


def confirm_delete(call: Call) -> Outcome:
    """Asks to confirm deleting `filename`: in a task waiting for tasks/update when the client
    declared the extension, else by MRTR."""
    filename = str((call.params.get("arguments") or {}).get("filename", "the file"))
    if call.state is None:
        return mrtr.run_as_task({"ask": "confirm"})
    a = call.response("confirm", DELETE_OK)
    if not answered(a):
        return mrtr.input_required({"confirm": DELETE_OK}, call.state)
    confirmed = a.is_accepted and (a.value or {}).get("confirm") is True
    return text(f"Deleted {filename}." if confirmed else f"Kept {filename}.")


def multi_input(call: Call) -> Outcome:
    """Task only: two questions at once, which may be answered one tasks/update at a time."""
    if call.state is None:
        return mrtr.run_as_task({"ask": "parts"})
    parts = [call.response(k, PART) for k in ("first", "second")]
    if not all(answered(a) for a in parts):
        return mrtr.input_required({"first": PART, "second": PART}, call.state)
    return text(f"Received {sum(a.is_accepted for a in parts)} of 2 inputs.")


def tool_with_task(call: Call) -> Outcome:
    """Task only: asks the name by MRTR first (those rounds end before the task exists, so their
    key is not a task key), then greets it from the task."""
    if call.state is not None:
        return text(f"Hello, {call.state['name']}, from a task.")
    a = call.response("user_name", NAME)
    if a.is_declined or a.is_cancelled:
        return mrtr.tool_error("No name given: no task created.")
    if not a.is_accepted:
        return mrtr.input_required({"user_name": NAME})
    return mrtr.run_as_task({"name": (a.value or {})["name"]})


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


# --- an effectful tool: book_room, at most once per flow (docs/once.md) ---
#
# Round 1 asks the nights and a confirmation; the final round books: one ledger entry
# {flow, principal, answers, fence}, answered "Booked: entry #N" (N = the ledger's length after
# the append, so a second effect would show as another N). The final round goes through
# run_once: for one flow at most one booking runs, whatever token of the flow and whatever
# answers the client sends, on whatever process of the fleet. Every retry first asks
# check_once: a flow already booked answers its remembered result (a lost response, a double
# click) or, with other answers, is refused as replayed, before anything is asked again.
# SNODO_REDIS_URL (one Redis) or SNODO_REDIS_CLUSTER_URLS (comma-separated seed URLs of a Redis
# Cluster): every process shares one RedisStore and the ledger is the Redis list LEDGER_KEY;
# neither: the store is this process's MemoryStore and the ledger a file (SNODO_LEDGER, one
# JSON line per booking) or a list in memory.
# Not in TOOLS: sdk_server.py serves TOOLS through the SDK, which this demo does not cover.

BOOKING = mrtr.elicit_form("How many nights, and do you confirm the booking?", {
    "type": "object",
    "properties": {"nights": {"type": "integer", "minimum": 1, "maximum": 14}, "confirm": {"type": "boolean"}},
    "required": ["nights", "confirm"],  # same order as server.mjs: the question is pinned byte for byte
})
LEDGER_KEY = "snodo:ledger"
Append = Callable[[Dict[str, Any]], int]  # writes one ledger entry, returns the ledger's new length
_effects: Optional[Tuple[Any, Append]] = None
_effects_lock = threading.Lock()


class LedgerError(RuntimeError):
    """The ledger could not be written (the booking did not happen as far as we know)."""


def booking_effects() -> Tuple[Any, Append]:
    """The once store and the ledger, built once and shared by every thread (a Redis store is
    built and checked at start-up, see main)."""
    global _effects
    with _effects_lock:
        if _effects is None:
            _effects = open_effects()
        return _effects


def redis_store() -> Optional[Any]:
    """The RedisStore the environment names, or None. Its redis-py client has 2 s timeouts:
    a dead Redis is a quick -32603, never a stalled request. redis-py is imported only
    then: a server on the memory store does not need it."""
    url = os.environ.get("SNODO_REDIS_URL", "").strip()
    cluster = [u.strip() for u in os.environ.get("SNODO_REDIS_CLUSTER_URLS", "").split(",") if u.strip()]
    if url:
        return mrtr.RedisStore(url)
    if cluster:
        return mrtr.RedisStore.cluster(cluster)
    return None


def open_effects() -> Tuple[Any, Append]:
    store = redis_store()
    if store is not None:
        redis = importlib.import_module("redis")
        failures = (redis.RedisError, redis.exceptions.RedisClusterException, OSError, mrtr.StoreError)

        def push(entry: Dict[str, Any]) -> int:
            try:  # the store's own client (on a cluster, the list lives in LEDGER_KEY's slot)
                return int(store.client.rpush(LEDGER_KEY, json.dumps(entry, sort_keys=True)))
            except failures as e:
                raise LedgerError(str(e)) from e

        return store, push
    lock = threading.Lock()
    path = os.environ.get("SNODO_LEDGER", "").strip()
    entries: List[str] = []

    def append(entry: Dict[str, Any]) -> int:
        line = json.dumps(entry, sort_keys=True)
        with lock:  # one process owns a file ledger; the lock orders this process's threads
            if not path:
                entries.append(line)
                return len(entries)
            try:
                with open(path, "a+", encoding="utf-8") as f:
                    f.write(line + "\n")
                    f.seek(0)
                    return sum(1 for _ in f)
            except OSError as e:
                raise LedgerError(str(e)) from e

    return mrtr.MemoryStore(), append


def check_effects() -> None:
    """At start-up: a configured Redis must be reachable and must not evict (an evicted flow
    record would let its booking run twice). Exits with the reason otherwise."""
    if not (os.environ.get("SNODO_REDIS_URL", "").strip() or os.environ.get("SNODO_REDIS_CLUSTER_URLS", "").strip()):
        return
    try:
        store, _ = booking_effects()
        store.check()
    except (mrtr.StoreError, mrtr.ConfigError) as e:
        fail(f"once store refused at start-up: {e}")


def store_unavailable(e: mrtr.StoreError) -> Outcome:
    # Nothing was booked here (or it is still running elsewhere): the client may retry.
    return mrtr.error(-32603, f"once store unavailable: {e}")


def replayed() -> Outcome:
    # The flow completed with other answers: the engine's own refusal of a spent token.
    return mrtr.error(-32602, "Invalid or expired requestState", {"reason": "replayed"})


def book_room(call: Call) -> Outcome:
    store, append = booking_effects()
    if call.flow_id is not None:  # a retry: the flow may be booked already, with these answers or others
        try:
            remembered = mrtr.check_once(store, call)
        except mrtr.StoreError as e:
            return store_unavailable(e)
        except mrtr.TokenError:  # booked with other answers: this token cannot ask again
            return replayed()
        if remembered is not None:
            return mrtr.complete(remembered)
    a = call.response("booking", BOOKING)
    if a.is_declined or a.is_cancelled:
        return text("No room booked.")
    if not a.is_accepted:
        return mrtr.input_required({"booking": BOOKING})  # missing or invalid: ask (again)
    answers = dict(a.value or {})
    if answers.get("confirm") is not True:
        return text("Not confirmed: no room booked.")
    if call.flow_id is None:  # an accepted answer always comes with a token; never book without a flow id
        return mrtr.tool_error("This booking has no flow to book once: start again.")
    flow, principal = call.flow_id, call.principal

    def effect(lease: mrtr.OnceLease) -> Dict[str, Any]:
        # Raises only if the append failed: run_once then releases the claim and a retry books.
        # The fence lets a ledger refuse a write from an owner whose lease lapsed.
        n = append({"flow": flow, "principal": principal, "answers": answers, "fence": lease.fence})
        return {"content": [{"type": "text", "text": f"Booked: entry #{n}"}]}

    try:
        result = mrtr.run_once(store, call, effect)
    except mrtr.StoreError as e:
        return store_unavailable(e)
    except mrtr.TokenError:  # the flow completed with other answers meanwhile
        return replayed()
    except LedgerError as e:
        return mrtr.error(-32603, f"ledger unavailable: {e}")
    return mrtr.complete(result)


EFFECT_TOOLS: Dict[str, Tuple[str, Handler]] = {
    "book_room": ("Books a room once: asks the nights and a confirmation, then writes one ledger entry", book_room),
}
# A final round of an effectful tool may wait (run_once polls while another process runs the
# effect; a Redis round trip): the HTTP loop hands requests that may be one to a thread.
EFFECT_MARKS = [f'"{name}"'.encode() for name in EFFECT_TOOLS]


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
}
# The Tasks fixtures: served through RUNNER only (the SDK contract servers, which reuse TOOLS, serve
# no tasks).
TASK_TOOLS: Dict[str, Tuple[str, Handler]] = {
    "paint_task": ("Asks a color, then paints as a task (Tasks extension) or directly", paint_task),
    "greet": ("Tasks conformance: greets `name`, never as a task", lambda c: text(
        f"Hello, {(c.params.get('arguments') or {}).get('name', 'there')}!")),
    "confirm_delete": ("Tasks conformance: confirms deleting `filename`, as a task waiting for the answer", confirm_delete),
    "test_tool_with_task": ("Tasks conformance: task-only, asks a name by MRTR, then creates the task", tool_with_task),
    "multi_input": ("Tasks conformance: task-only, two questions at once", multi_input),
    "slow_compute": ("Tasks conformance: simulated work of `seconds`, as a task when the client declared the extension", slow_compute),
    "failing_job": ("Tasks conformance: task-only, ends with a tool error", failing_job),
    "protocol_error_job": ("Tasks conformance: as a task, ends failed with a JSON-RPC error", protocol_error_job),
}
RESOURCES: Dict[str, Handler] = {"prefs://color": preferred_color_resource}
PROMPTS: Dict[str, Tuple[str, Handler]] = {
    "preferred_color": ("A poem about your preferred color", preferred_color_prompt),
    "test_input_required_result_prompt": ("Conformance: input_required on prompts/get", context_prompt),
}
RESOURCE_LIST = [{"uri": "prefs://color", "name": "preferred-color", "description": "Your preferred color", "mimeType": "text/plain"}]
# No listChanged/subscribe anywhere: the lists are static and there is nothing to listen to.
LISTS: Dict[str, Dict[str, Any]] = {
    "server/discover": {"supportedVersions": [mrtr.MRTR_VERSION], "capabilities": {"tools": {}, "resources": {}, "prompts": {},
                                                                   "extensions": {mrtr.TASKS_EXTENSION: {}}}},
    "tools/list": {"tools": [{"name": n, "description": d, "inputSchema": {"type": "object", "properties": {}}}
                             for n, (d, _) in [*TOOLS.items(), *TASK_TOOLS.items(), *EFFECT_TOOLS.items()]]},
    "resources/list": {"resources": RESOURCE_LIST},
    "resources/templates/list": {"resourceTemplates": []},
    "prompts/list": {"prompts": [{"name": n, "description": d} for n, (d, _) in PROMPTS.items()]},
}


def route(call: Call) -> Outcome:
    if call.method in LISTS:
        return mrtr.complete({**LISTS[call.method], **CACHE})
    if call.method == "tools/call":
        tool = TOOLS.get(call.name or "") or TASK_TOOLS.get(call.name or "") or EFFECT_TOOLS.get(call.name or "")
        return tool[1](call) if tool else mrtr.error(-32602, f"Unknown tool: {call.name}")
    if call.method == "resources/read":
        resource = RESOURCES.get(call.uri or "")
        return resource(call) if resource else mrtr.error(-32602, f"Resource not found: {call.uri}", {"uri": call.uri})
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
        try:  # route(begun), decided; a task's run goes on in a thread; tasks/* answered
            response = runner().answer_sync(begun)
        except Exception as e:  # a handler bug must still produce exactly one response
            print(f"handler error in {begun.method}: {e!r}", file=sys.stderr, flush=True)
            response = engine.decide(begun, mrtr.error(-32603, "Internal error"))
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
                # stdio has no authentication: the session is the anonymous principal's.
                ls, answer = open_legacy_session(engines(), message, "stdio-" + uuid.uuid4().hex, None, "stdio")
                write(answer)
                if ls is not None:
                    return serve_stdio_legacy(engines, ls, lines, write)
                continue
        # stdio has no authentication: the principal is anonymous.
        out = handle(engines(), line, None)
        if out is not None:
            write(out[1])


# --- 2025-era sessions: the same handlers through snodo's legacy bridge ---
#
# A client that opens with `initialize` (no 2026 `_meta` claim) gets a session. Its requests go
# through engine.begin_legacy; an input_required outcome becomes real `elicitation/create` (or
# sampling/roots) requests on the session: stdio lines, or SSE events on the POST that carries the
# tools/call. The client's responses are fed back; when all are in, the handler runs again with
# them, exactly as on a 2026 retry. A session belongs to the principal of its `initialize`: every
# later message on it (a call, an answer, a cancellation, GET, DELETE) from anyone else gets the
# refusal of a session that does not exist (Session.check_principal: 404), and the session is not
# touched. Bounded over HTTP: MAX_SESSIONS sessions in all and MAX_SESSIONS_PER_CLIENT per client
# (the principal; for the anonymous principal, the remote address), one idle for
# SESSION_IDLE_SECS with nothing in flight is dropped; at most MAX_FLOWS requests in flight per
# session, each flow until its deadline (engine.timeout). Each of the three session limits is
# read from the environment at start-up (SNODO_MAX_SESSIONS, SNODO_MAX_SESSIONS_PER_CLIENT,
# SNODO_SESSION_IDLE_SECS); the values here are the defaults.

MAX_SESSIONS = 256
MAX_SESSIONS_PER_CLIENT = 16
SESSION_IDLE_SECS = 120
MAX_FLOWS = 16
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
    """The 2026 handlers, minus what a 2025 result must not carry (cache hints). A 2025 session
    has no tasks: a task-only tool is refused, and a handler's run_as_task goes on in the request
    (decide_legacy hands the continuation back, like a round with state only)."""
    if call.method == "tools/call" and call.name in TASK_ONLY:
        return mrtr.error(-32021, f"{call.name} runs only as a task: a 2025 session has no tasks", TASKS_REQUIRED)
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
    """What the server keeps per 2025-era session: the snodo Session (which knows who opened
    it), the client it counts against, and the flows in flight."""

    def __init__(self, session: mrtr.Session, client: str) -> None:
        self.session = session
        self.client = client
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


def open_legacy_session(engine: Engine, message: Dict[str, Any], sid: str, principal: Optional[str],
                        client: str) -> Tuple[Optional[LegacySession], str]:
    """Answers `initialize` from `principal`: the session (None if refused) and the response text."""
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    requested = params.get("protocolVersion") if isinstance(params, dict) else None
    version = engine.legacy_version_for(requested if isinstance(requested, str) else "")
    if version is None:
        err = {"code": -32602, "message": "Unsupported protocol version",
               "data": {"supported": [], "requested": requested}}
        return None, json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": err})
    try:
        session = mrtr.Session.from_initialize(message, version, principal=principal, id=sid)
    except mrtr.SnodoError as e:
        err = {"code": -32602, "message": f"Invalid initialize: {e}"}
        return None, json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": err})
    result = {"protocolVersion": version, "capabilities": LEGACY_CAPABILITIES, "serverInfo": SERVER_INFO}
    return LegacySession(session, client), json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})


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


def legacy_message(engines: Callable[[], Engine], ls: LegacySession, raw: bytes, message: Any,
                   principal: Optional[str]) -> Optional[str]:
    """A response or notification from `principal` on a 2025-era session (the transport has
    checked that the session is theirs). Returns None when accepted, else why it was refused
    (for the operator; HTTP answers it with 400)."""
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
        fed = engines().feed(flow.pending, raw, principal)  # the engine checks the flow's principal too
    except mrtr.SnodoError as e:
        return str(e)
    flow.inbox.put(fed)
    return None


class Sessions:
    """The HTTP sessions: at most `total`, and `per_client` of one client; one idle for
    `idle_secs` with no flow in flight is dropped (swept whenever a session opens)."""

    def __init__(self, total: int = MAX_SESSIONS, per_client: int = MAX_SESSIONS_PER_CLIENT,
                 idle_secs: float = SESSION_IDLE_SECS) -> None:
        self.lock = threading.Lock()
        self.table: Dict[str, LegacySession] = {}
        self.total, self.per_client, self.idle_secs = total, per_client, idle_secs

    def add(self, ls: LegacySession) -> Optional[str]:
        """None when `ls` is in; else why not (nothing was kept)."""
        now = time.monotonic()
        with self.lock:
            idle = [k for k, v in self.table.items() if now - v.touched > self.idle_secs and not v.flows]
            for k in idle:
                self.table.pop(k).close()
            if len(self.table) >= self.total:
                return "total"
            if sum(1 for v in self.table.values() if v.client == ls.client) >= self.per_client:
                # One client (a user, or one address for anonymous clients) cannot take the
                # whole table: it must close (DELETE) a session or let one expire.
                return "client"
            self.table[ls.session.id] = ls
            return None

    def get(self, sid: str) -> Optional[LegacySession]:
        """The session, untouched: its owner is checked first (`owned`)."""
        with self.lock:
            return self.table.get(sid)

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
            why = legacy_message(engines, ls, line, message, None)
            if why is not None:
                print(f"legacy: ignored a client message: {why}", file=sys.stderr, flush=True)
    finally:
        ls.close()


# --- HTTP plumbing (docs/operations.md): one event loop, keep-alive, a deep backlog, bounded input, deadlines ---
#
# Why one event loop and not a thread per connection: a 2026-era request costs a few snodo
# calls, short and CPU-bound, and Python runs one thread at a time (the GIL). With a thread
# per keep-alive connection, 64 clients are 64 threads handing the GIL to each other on every
# recv and send, which at that count costs more CPU than the requests themselves
# (docs/benchmarks.md). Here one thread waits on every socket at once (the standard library's
# `selectors`) and answers each request inline as soon as its bytes are in: no handover.
#
# What any server of this kind needs, and what each constant below is for:
# * a listen backlog of 1024 (the stdlib default of 5 drops or resets new connections past
#   ~8 concurrent clients), and at most MAX_CONNECTIONS open sockets (at the cap the server
#   stops accepting: new connections wait in the backlog);
# * HTTP/1.1 keep-alive with an exact Content-Length on every reply, and TCP_NODELAY (with
#   Nagle's algorithm on, a keep-alive reply can wait ~40 ms for the client's delayed ACK);
# * bounded input: the request head (MAX_HEAD, else 431) and body (MAX_BODY, else 413);
# * deadlines: a request must arrive whole within SNODO_HTTP_TIMEOUT_SECS (default 10) of its
#   first byte (a slow drip gets 408), and an idle keep-alive connection is closed after it;
# * a lingering close after an error reply: closing a socket with unread input makes the
#   kernel send a reset, which can destroy the reply before the client reads it.
#
# The loop must never wait. One kind of request does: a 2025-era tools/call (or prompts/get,
# resources/read) that asks the user is answered as an SSE stream, held open until the client
# answers on *another* request. Only those are handed to a thread of their own (at most
# MAX_STREAMS), which owns the connection until the stream ends with a close; the 2025-era
# handshake, notifications and answers are short and stay in the loop. The final round of an
# effectful tool (book_room) may wait too, in run_once (a Redis round trip; another process
# still running the same flow's effect): it gets a thread the same way (effect_round).
# A production deployment may sit behind a reverse proxy instead; the handlers stay the same.

MAX_CONNECTIONS = 512  # open sockets, SSE streams included (the default fd limit is 1024)
MAX_STREAMS = 256  # 2025-era SSE streams, one thread each
MAX_HEAD = 64 * 1024  # request line and headers
MAX_HEADERS = 100
MAX_QUEUED_OUT = 1 << 20  # a client sending requests without reading the answers is paused here
LINGER_SECS = 1.0  # in all: a client still dripping bytes must not hold a closing socket
SWEEP_SECS = 0.25  # how often deadlines are checked
QUIET_ERRORS = (ConnectionError, TimeoutError)  # clients that vanish are normal, not server faults
PHRASES = {s.value: s.phrase for s in HTTPStatus}


class Reply(NamedTuple):
    status: int
    body: Optional[str] = None  # JSON text; None = no Content-Type, empty body
    headers: Optional[Dict[str, str]] = None
    close: bool = False  # the connection cannot be reused after this reply


class Handoff(NamedTuple):
    """A reply the loop cannot wait for: `run(send)` gets the connection in a thread of its
    own and writes everything itself; the connection is closed when it returns. `busy` is the
    reply when MAX_STREAMS threads are already running."""
    run: Callable[[Callable[[bytes], None]], None]
    busy: Reply


class Request:
    """A parsed request head; `headers` keeps every occurrence, in order; `peer` is the
    client's address."""

    __slots__ = ("method", "path", "headers", "first", "keep_alive", "peer")

    def __init__(self, method: str, path: str, version: str, headers: List[Tuple[str, str]]) -> None:
        self.method, self.path, self.headers = method, path, headers
        self.peer = ""
        self.first: Dict[str, str] = {}
        for k, v in headers:
            self.first.setdefault(k.lower(), v)
        connection = self.first.get("connection", "").lower()
        self.keep_alive = "close" not in connection if version == "HTTP/1.1" else "keep-alive" in connection

    def header(self, name: str) -> Optional[str]:
        return self.first.get(name)  # `name` in lower case

    def principal(self) -> Optional[str]:
        # DEMO ONLY: the bearer token is trusted as the user id. A real server
        # verifies the token first and passes the verified user id instead.
        scheme, _, token = (self.header("authorization") or "").partition(" ")
        return token if scheme.lower() == "bearer" and token else None

    def client(self) -> str:
        """Whom the session quota counts against: the user, or the address of an anonymous client."""
        principal = self.principal()
        return "user:" + principal if principal is not None else "addr:" + self.peer


def parse_head(raw: bytes) -> Union[Request, Reply]:
    lines = raw.decode("iso-8859-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or parts[2] not in ("HTTP/1.1", "HTTP/1.0"):
        return Reply(400, close=True)
    if len(lines) > MAX_HEADERS + 1:
        return Reply(431, close=True)
    headers: List[Tuple[str, str]] = []
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():  # also refuses obsolete line folding
            return Reply(400, close=True)
        headers.append((name, value.strip()))
    return Request(parts[0], parts[1], parts[2], headers)


def encode_reply(reply: Reply, close: bool) -> bytes:
    data = (reply.body or "").encode("utf-8")
    head = [f"HTTP/1.1 {reply.status} {PHRASES.get(reply.status, '')}"]
    head += [f"{k}: {v}" for k, v in (reply.headers or {}).items()]
    if reply.body is not None:
        head.append("Content-Type: application/json")
    head.append(f"Content-Length: {len(data)}")
    if close:
        head.append("Connection: close")
    return ("\r\n".join(head) + "\r\n\r\n").encode("iso-8859-1") + data


class Connection:
    """What the loop keeps per client socket."""

    def __init__(self, sock: socket.socket, now: float, peer: str) -> None:
        self.sock = sock
        self.peer = peer
        self.inbuf = bytearray()
        self.out = bytearray()
        self.head: Optional[Request] = None  # a parsed head whose body is still arriving
        self.need = 0  # that body's length
        self.discard = 0  # bytes of an oversized body still to read and drop before the 413
        self.started: Optional[float] = None  # when the first byte of the request in progress came
        self.active = now  # last progress either way: for the idle and slow-reader deadlines
        self.closing = False  # close once `out` is sent
        self.linger_until: Optional[float] = None
        self.events = selectors.EVENT_READ


Respond = Callable[[Request, bytes], Union[Reply, Handoff]]
Screen = Callable[[Request], Optional[Reply]]  # a refusal decided on the head alone, or None


class HttpLoop:
    def __init__(self, port: int, respond: Respond, timeout: float, screen: Screen = lambda request: None) -> None:
        self.respond = respond
        self.screen = screen
        self.timeout = timeout
        self.listener = socket.create_server(("127.0.0.1", port), backlog=1024)  # the kernel caps it at somaxconn
        self.listener.setblocking(False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, None)
        self.accepting = True
        self.conns: Dict[int, Connection] = {}  # by id(), so a closed socket never aliases a new one
        self.streams = threading.BoundedSemaphore(MAX_STREAMS)
        self.open_streams = 0  # written by stream threads too
        self.lock = threading.Lock()
        self.next_sweep = 0.0

    @property
    def port(self) -> int:
        return int(self.listener.getsockname()[1])

    def serve_forever(self) -> None:
        while True:
            for key, mask in self.selector.select(SWEEP_SECS):
                now = time.monotonic()
                if key.data is None:
                    try:
                        self.accept(now)
                    except OSError as e:  # accept() pauses itself on the usual ones; anything else: log, go on
                        print(f"http: accept failed: {e!r}", file=sys.stderr, flush=True)
                    continue
                conn: Connection = key.data
                try:
                    if mask & selectors.EVENT_WRITE:
                        self.flush(conn, now)
                        if not conn.out and conn.inbuf and id(conn) in self.conns:
                            self.process(conn, now)  # it was paused behind its unread answers
                    if mask & selectors.EVENT_READ and id(conn) in self.conns:
                        self.read(conn, now)
                except Exception as e:  # one client's trouble never stops the loop
                    if not isinstance(e, QUIET_ERRORS):
                        print(f"http: connection error: {e!r}", file=sys.stderr, flush=True)
                    self.close(conn)
            now = time.monotonic()
            if now >= self.next_sweep:
                self.sweep(now)
                self.next_sweep = now + SWEEP_SECS

    def accept(self, now: float) -> None:
        for _ in range(64):  # a burst of connects is taken in one go, then the others get a turn
            if len(self.conns) + self.open_streams >= MAX_CONNECTIONS:
                return self.pause_accepting()
            try:
                sock, addr = self.listener.accept()
            except BlockingIOError:
                return
            except OSError as e:  # out of file descriptors, most likely: retry at the next sweep
                print(f"http: accept failed: {e!r}", file=sys.stderr, flush=True)
                return self.pause_accepting()
            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = Connection(sock, now, str(addr[0]))
            self.conns[id(conn)] = conn
            self.selector.register(sock, selectors.EVENT_READ, conn)

    def pause_accepting(self) -> None:
        if self.accepting:
            self.selector.unregister(self.listener)
            self.accepting = False

    def read(self, conn: Connection, now: float) -> None:
        try:
            data = conn.sock.recv(1 << 16)
        except (BlockingIOError, InterruptedError):
            return
        if not data:  # the client left (or half-closed: it will not read an answer either way)
            return self.close(conn)
        if conn.linger_until is not None:
            return  # only drained, so that the close is not a reset
        conn.active = now
        if conn.started is None:
            conn.started = now
        if conn.discard:
            conn.discard -= min(conn.discard, len(data))
            if not conn.discard:
                self.send(conn, Reply(413, close=True), now)
            return
        conn.inbuf += data
        self.process(conn, now)

    def process(self, conn: Connection, now: float) -> None:
        """Answers every whole request in the buffer (pipelined ones in order)."""
        while not conn.closing and len(conn.out) < MAX_QUEUED_OUT:
            if conn.head is None:
                end = conn.inbuf.find(b"\r\n\r\n")
                if end < 0 or end > MAX_HEAD:
                    if end > MAX_HEAD or len(conn.inbuf) > MAX_HEAD:
                        self.send(conn, Reply(431, close=True), now)
                    break
                parsed = parse_head(bytes(conn.inbuf[:end]))
                del conn.inbuf[:end + 4]
                if isinstance(parsed, Reply):
                    self.send(conn, parsed, now)
                    break
                parsed.peer = conn.peer
                if not self.frame(conn, parsed, now):
                    break
            if len(conn.inbuf) < conn.need:
                break
            request, body = conn.head, bytes(conn.inbuf[:conn.need])
            if request is None:
                break  # not reached: frame() set the head
            del conn.inbuf[:conn.need]
            conn.head, conn.need = None, 0
            conn.started = now if conn.inbuf else None
            try:
                answer = self.respond(request, body)
            except Exception as e:  # never leave a request without an answer
                print(f"request failed: {e!r}", file=sys.stderr, flush=True)
                answer = Reply(500, close=True)
            if isinstance(answer, Handoff):
                if self.hand_off(conn, answer):
                    return
                answer = answer.busy
            self.send(conn, answer if request.keep_alive else answer._replace(close=True), now)
        self.flush(conn, now)

    def frame(self, conn: Connection, request: Request, now: float) -> bool:
        """Where the body ends. False when the request was answered already (and the connection closes)."""
        refusal = self.screen(request)
        if refusal is not None:  # refused on its head: the body is never read (the lingering close drains it)
            self.send(conn, refusal._replace(close=True), now)
            return False
        if request.header("transfer-encoding") is not None:
            self.send(conn, Reply(411, close=True), now)  # chunked uploads are not read: say so, then close
            return False
        lengths = {v for k, v in request.headers if k.lower() == "content-length"}
        length = lengths.pop() if len(lengths) == 1 else "0" if not lengths else "x"
        if not length.isdigit():
            self.send(conn, Reply(400, close=True), now)  # the body's end is unknown: the connection cannot be reused
            return False
        expect = (request.header("expect") or "").lower() == "100-continue"
        if int(length) > MAX_BODY:
            if expect:  # the client waits for our word before uploading: it can have the 413 now
                self.send(conn, Reply(413, close=True), now)
            else:
                # Read the upload (keeping nothing) before answering: closing mid-upload makes
                # clients see a reset, not the 413. The request deadline still applies.
                conn.discard = int(length) - min(int(length), len(conn.inbuf))
                conn.inbuf.clear()
                if not conn.discard:
                    self.send(conn, Reply(413, close=True), now)
            return False
        conn.head, conn.need = request, int(length)
        if expect and len(conn.inbuf) < conn.need:
            conn.out += b"HTTP/1.1 100 Continue\r\n\r\n"
        return True

    def send(self, conn: Connection, reply: Reply, now: float) -> None:
        conn.out += encode_reply(reply, reply.close)
        if reply.close:
            conn.closing = True
            conn.inbuf.clear()
        self.flush(conn, now)

    def flush(self, conn: Connection, now: float) -> None:
        if conn.out:
            try:
                sent = conn.sock.send(conn.out)
            except (BlockingIOError, InterruptedError):
                sent = 0
            if sent:
                del conn.out[:sent]
                conn.active = now
        if not conn.out and conn.closing and conn.linger_until is None:
            try:
                conn.sock.shutdown(socket.SHUT_WR)  # stop writing; read what is left; then close
            except OSError:
                return self.close(conn)
            conn.linger_until = now + LINGER_SECS
            conn.discard = 0
        events = selectors.EVENT_READ if len(conn.out) < MAX_QUEUED_OUT else 0
        if conn.out:
            events |= selectors.EVENT_WRITE
        if events != conn.events:
            self.selector.modify(conn.sock, events, conn)
            conn.events = events

    def sweep(self, now: float) -> None:
        if not self.accepting and len(self.conns) + self.open_streams < MAX_CONNECTIONS:
            self.selector.register(self.listener, selectors.EVENT_READ, None)
            self.accepting = True
        for conn in list(self.conns.values()):
            try:
                self.expire(conn, now)
            except OSError:  # the client is gone as we answer it
                self.close(conn)

    def expire(self, conn: Connection, now: float) -> None:
        if conn.linger_until is not None:
            if now >= conn.linger_until:
                self.close(conn)
        elif conn.started is not None and not conn.closing and now - conn.started >= self.timeout:
            # Too slow in all (a slow drip, or a half request left hanging). An oversized
            # upload still gets its 413, as it would have at its end.
            self.send(conn, Reply(413 if conn.discard else 408, close=True), now)
        elif now - conn.active >= self.timeout:
            self.close(conn)  # idle keep-alive, or a client not reading its answer

    def close(self, conn: Connection) -> None:
        if self.conns.pop(id(conn), None) is None:
            return
        try:
            self.selector.unregister(conn.sock)
        except (KeyError, ValueError):
            pass
        conn.sock.close()

    def hand_off(self, conn: Connection, job: Handoff) -> bool:
        """False when MAX_STREAMS are running: the caller answers `job.busy` instead."""
        if not self.streams.acquire(blocking=False):
            return False
        # The connection leaves the loop: what is still buffered in `out` goes first, then the
        # thread writes with blocking sends; any pipelined input after this request is dropped,
        # as the stream ends with a close.
        self.conns.pop(id(conn), None)
        self.selector.unregister(conn.sock)
        with self.lock:
            self.open_streams += 1
        sock, pending = conn.sock, bytes(conn.out)
        lock = threading.Lock()

        def send(data: bytes) -> None:
            with lock:  # a cancellation may be written from another request's thread
                try:
                    sock.sendall(data)
                except OSError:
                    pass  # the client dropped the stream: not a cancellation; the flow times out

        def run() -> None:
            try:
                sock.settimeout(self.timeout)  # blocking, but never forever
                send(pending)
                job.run(send)
            except Exception as e:
                print(f"http: stream failed: {e!r}", file=sys.stderr, flush=True)
            finally:
                with lock:
                    linger_close(sock)
                with self.lock:
                    self.open_streams -= 1
                self.streams.release()

        threading.Thread(target=run, daemon=True).start()
        return True


def linger_close(sock: socket.socket) -> None:
    """The blocking form of the loop's lingering close, for a handed-off connection."""
    deadline = time.monotonic() + LINGER_SECS
    try:
        sock.shutdown(socket.SHUT_WR)
        while (remaining := deadline - time.monotonic()) > 0:
            sock.settimeout(remaining)
            if not sock.recv(1 << 16):
                break
    except OSError:
        pass
    sock.close()


# --- MCP over HTTP: a parsed request in, a reply out (no sockets below this line) ---


def http_answer(engines: Callable[[], Engine], request: Request, body: bytes) -> Union[Reply, Handoff]:
    path = request.path.split("?")[0]
    sid = request.header("mcp-session-id")
    if request.method == "POST" and path == "/mcp":
        # 2025-era sessions: an `initialize` handshake or an Mcp-Session-Id header.
        # Everything else goes on to the 2026 per-request path below.
        if sid is not None or b'"initialize"' in body:
            answer = legacy_http(engines, request, sid, body)
            if answer is not None:
                return answer
        # The request-metadata header rules (-32020, HTTP 400) are snodo's: every
        # occurrence of every header goes in, so a repeated one is caught.
        mismatch = mrtr.check_http_headers(request.headers, body)
        if mismatch is not None:
            return Reply(mismatch.http_status, mismatch.to_json())
        if any(mark in body for mark in EFFECT_MARKS) and b"requestState" in body:
            return effect_round(engines, body, request.principal())
        out = handle(engines(), body, request.principal())
        return Reply(*out) if out else Reply(202)
    if path != "/mcp":
        return Reply(404)
    if sid is not None:  # GET or DELETE of a session: its owner's only
        ls, refusal = owned(sid, request)
        if ls is None:
            return refusal
        if request.method == "DELETE":
            if SESSIONS.remove(sid) is not None:
                ls.close()  # its pending flows end without writing
            return Reply(200)
    return Reply(405, headers={"Allow": "POST"})  # no server-initiated (GET) stream


def session_not_found() -> Reply:
    """The answer for a session id that names no session: the same bytes as
    Session.check_principal's refusal, so that another user's session id cannot be told
    apart from one that does not exist."""
    refusal = mrtr.unknown_session()
    return Reply(refusal.http_status, refusal.to_json())


def owned(sid: str, request: Request) -> Tuple[Optional[LegacySession], Reply]:
    """The session `sid` if it exists and the request's principal opened it (then touched),
    else (None, the refusal to send). Checked before anything reads or changes the session."""
    ls = SESSIONS.get(sid)
    if ls is None:
        return None, session_not_found()
    refusal = ls.session.check_principal(request.principal())
    if refusal is not None:
        return None, Reply(refusal.http_status, refusal.to_json())
    ls.touched = time.monotonic()
    return ls, Reply(200)


def legacy_http(engines: Callable[[], Engine], request: Request, sid: Optional[str],
                body: bytes) -> Optional[Union[Reply, Handoff]]:
    """A POST on the 2025-era path; None when it belongs to the 2026 path."""
    ls: Optional[LegacySession] = None
    if sid is not None:
        ls, refusal = owned(sid, request)
        if ls is None:
            return refusal
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None if sid is None else Reply(400, rpc_error(None, -32700, "Parse error"))  # 2026 answers its own
    if ls is None:
        if not legacy_handshake(message):
            return None
        opened, answer = open_legacy_session(engines(), message, uuid.uuid4().hex, request.principal(),
                                             request.client())
        if opened is None:
            return Reply(200, answer)
        full = SESSIONS.add(opened)
        if full == "client":
            return Reply(429, rpc_error(message.get("id"), -32000,
                                        "Too many sessions for this client; close one or try again later"))
        if full is not None:
            return Reply(503, rpc_error(message.get("id"), -32000, "Too many sessions; try again later"))
        return Reply(200, answer, {"Mcp-Session-Id": opened.session.id})
    version = request.header("mcp-protocol-version")
    if version is not None and version != ls.session.protocol_version:
        return Reply(400, rpc_error(None, -32000, f"Bad MCP-Protocol-Version: {version}"))
    if isinstance(message, dict) and "method" in message and "id" in message:
        if message.get("method") in mrtr.MRTR_METHODS:
            return sse_stream(engines, ls, body, message, request.principal())
        out: List[str] = []  # ping, tools/list, ...: nothing to wait for
        serve_legacy_request(engines, ls, body, message, request.principal(), out.append)
        return Reply(200, out[-1] if out else None, {"Mcp-Session-Id": ls.session.id})
    why = legacy_message(engines, ls, body, message, request.principal())
    return Reply(202) if why is None else Reply(400, rpc_error(None, -32600, why))


def sse_stream(engines: Callable[[], Engine], ls: LegacySession, body: bytes, message: Dict[str, Any],
               principal: Optional[str]) -> Handoff:
    """A request that may ask the user: its answer is an SSE stream carrying the server's
    requests, then the response; the stream (and the connection) ends with it."""
    head = ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
            f"Mcp-Session-Id: {ls.session.id}\r\n"
            "Connection: close\r\n\r\n").encode("iso-8859-1")  # no length known: the end of the stream is the close

    def run(send: Callable[[bytes], None]) -> None:
        send(head)  # the client sees the stream open before the first event
        serve_legacy_request(engines, ls, body, message, principal,
                             lambda text: send(f"event: message\ndata: {text}\n\n".encode("utf-8")))

    busy = rpc_error(message.get("id"), -32000, "Too many open streams; try again later")
    return Handoff(run, Reply(503, busy, {"Mcp-Session-Id": ls.session.id}))


def effect_round(engines: Callable[[], Engine], body: bytes, principal: Optional[str]) -> Handoff:
    """A request that may be the final round of an effectful tool (a byte test: a false match
    only costs a thread). run_once may wait there, for Redis or for another process finishing
    the same flow (up to its `wait`), and the loop must never wait: the request is answered
    from a thread of its own, like an SSE stream, and its connection closes after the reply."""

    def run(send: Callable[[bytes], None]) -> None:
        out = handle(engines(), body, principal)
        send(encode_reply(Reply(*out) if out else Reply(202), True))

    return Handoff(run, Reply(503, rpc_error(None, -32000, "Too many requests in progress; try again later")))


# --- the HTTP edge: which pages and host names may reach the server (docs/operations.md) ---
#
# A web page can make a browser POST to 127.0.0.1 (its own Origin goes along), or resolve a name
# of its own to 127.0.0.1 (DNS rebinding: its name goes along as Host). snodo's check_http_origin
# refuses both on the request head, before the body is read, for every method and both eras:
# 421 for a Host not allowed, 403 for a foreign or `null` Origin. A request without Origin (a
# client, curl, another server) and a same-origin page pass. SNODO_ALLOWED_HOSTS and
# SNODO_ALLOWED_ORIGINS (comma-separated) list what a proxy forwards and which web apps may call;
# neither set: loopback only (localhost, 127.0.0.1, [::1] on any port).


def env_list(name: str) -> Optional[List[str]]:
    raw = os.environ.get(name, "").strip()
    return [entry.strip() for entry in raw.split(",") if entry.strip()] if raw else None


def edge_policy() -> mrtr.OriginPolicy:
    """The Origin/Host policy the environment names (one list set: the other is empty)."""
    try:
        return mrtr.OriginPolicy(env_list("SNODO_ALLOWED_HOSTS"), env_list("SNODO_ALLOWED_ORIGINS"))
    except mrtr.ConfigError as e:
        fail(f"SNODO_ALLOWED_HOSTS / SNODO_ALLOWED_ORIGINS: {e}")


def env_limit(name: str, default: int) -> int:
    value = env_int(name)
    if value is None:
        return default
    if value < 1:
        fail(f"{name}: {value} is not a positive integer")
    return value


def serve_http(engines: Callable[[], Engine], port: int) -> None:
    timeout = float(env_int("SNODO_HTTP_TIMEOUT_SECS") or 10)  # a whole request; an idle keep-alive connection
    policy = edge_policy()
    SESSIONS.total = env_limit("SNODO_MAX_SESSIONS", MAX_SESSIONS)
    SESSIONS.per_client = env_limit("SNODO_MAX_SESSIONS_PER_CLIENT", MAX_SESSIONS_PER_CLIENT)
    SESSIONS.idle_secs = env_limit("SNODO_SESSION_IDLE_SECS", SESSION_IDLE_SECS)

    def screen(request: Request) -> Optional[Reply]:
        refusal = mrtr.check_http_origin(policy, request.headers)  # every occurrence: a repeat is refused
        return None if refusal is None else Reply(refusal.http_status, refusal.to_json())

    loop = HttpLoop(port, lambda request, body: http_answer(engines, request, body), timeout, screen)
    print(f"listening on http://127.0.0.1:{loop.port}/mcp", file=sys.stderr, flush=True)
    try:
        loop.serve_forever()
    except KeyboardInterrupt:
        pass


def env_int(name: str) -> Optional[int]:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        fail(f"{name}: {raw!r} is not an integer")


def load_engine() -> Callable[[], Engine]:
    """The engine to use for each request (always the same one)."""
    spec = os.environ.get("SNODO_KEYS", "").strip()
    if not spec:
        print("warning: SNODO_KEYS is not set; using a random key for this process only "
              "(tokens will not survive a restart or work across instances)", file=sys.stderr, flush=True)
        dev = Engine.development()
        return lambda: dev
    ttl = env_int("SNODO_TTL_SECS")  # token lifetime; unset = snodo's default (300 s)
    try:  # the core's SNODO_KEYS loader: its ConfigError names a bad entry, never its bytes
        engine = Engine.from_env(server_info=SERVER_INFO, ttl_secs=ttl)
    except (mrtr.SnodoError, ValueError, TypeError) as e:
        fail(f"configuration: {e}")  # a key error names SNODO_KEYS and the entry
    return lambda: engine


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
    check_effects()
    start_tasks(engines())
    if args.stdio:
        serve_stdio(engines)
    else:
        serve_http(engines, args.http)


if __name__ == "__main__":
    main()
