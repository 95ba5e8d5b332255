#!/usr/bin/env python3
"""Writes the inputs and hand-written checks of the issue-13 wire-correctness
vectors: `wire.json` (begin + decide, same format as flows.json) and
`wire-builders.json` (builders, same format as builders.json).

Kept apart from generate.py so the issue-13 work merges without renumbering
existing vectors. Run from the repository root, then fill in the outputs:

    python3 tests/vectors/generate_wire.py && SNODO_REGEN_VECTORS=1 cargo test -p snodo --test vectors
"""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# Reuse the helpers of generate.py without re-running it: load only its
# definitions (everything above the first vector) into a namespace.
with open(os.path.join(HERE, "generate.py"), encoding="utf-8") as f:
    src = f.read()
helpers, _, _ = src.partition("flows = []")
writer = src[src.index("def write("):src.index('write("flows.json"')]
g = {"__file__": os.path.join(HERE, "generate.py")}
exec(compile(helpers + writer, "generate.py (helpers)", "exec"), g)
req, step, err, ir, done, meta, dumps = (g[k] for k in ("req", "step", "err", "ir", "done", "meta", "dumps"))
COLOR, URLQ, CONFIG, NOW, V, write = g["COLOR"], g["URLQ"], g["CONFIG"], g["NOW"], g["V"], g["write"]

flows = []


def flow(comment, flags, steps, result="valid", principal="alice", config=None):
    t = {"tcId": len(flows) + 1, "comment": comment, "flags": flags, "result": result, "now": NOW,
         "principal": principal, "steps": steps}
    if config:
        t["config"] = config
    flows.append(t)


def app_error(code, data=None, message="x"):
    o = {"type": "error", "code": code, "message": message}
    if data is not None:
        o["data"] = data
    return o


# --- item 5: version first
flow("unknown version and no clientCapabilities: -32022 first (version checked before anything else)",
     ["meta", "version"],
     [step(req(version="2099-01-01", drop=["io.modelcontextprotocol/clientCapabilities"]),
           check={**err(-32022, 400), "/error/data/requested": "2099-01-01", "/error/data/supported/0": V})],
     result="invalid")
flow("unknown version with malformed clientCapabilities: still -32022", ["meta", "version"],
     [step(req(version="2099-01-01", caps={"elicitation": True}),
           check={**err(-32022, 400), "/error/data/requested": "2099-01-01"})], result="invalid")

# --- item 5: requiredCapabilities admits every request once declared
flow("form + url on bare elicitation: form made explicit beside url", ["capabilities"],
     [step(req(caps={"elicitation": {}}), ir({"c": COLOR, "u": URLQ}),
           {**err(-32021, 400), "/error/data/requiredCapabilities": {"elicitation": {"form": {}, "url": {}}}})],
     result="invalid")
flow("declaring exactly the listed set admits both", ["capabilities"],
     [step(req(caps={"elicitation": {"form": {}, "url": {}}}), ir({"c": COLOR, "u": URLQ}),
           {"/result/resultType": "input_required"})])

# --- item 5: handler error codes
flow("-32002 (retired resource not found) is sent as -32602", ["error"],
     [step(req("resources/read", {"uri": "x://none"}), app_error(-32002, {"uri": "x://none"}, "Resource not found"),
           {**err(-32602, 200), "/error/data/uri": "x://none", "/error/message": "Resource not found"})],
     result="invalid")
for code in [-32000, -32019, -32100, -32099]:
    flow(f"legacy or reserved code {code} becomes -32603", ["error"],
         [step(req(), app_error(code), err(-32603, 200))], result="invalid")
flow("-32021 without data.requiredCapabilities: -32603", ["error", "capabilities"],
     [step(req(), app_error(-32021), err(-32603, 200))], result="invalid")
flow("-32021 with requiredCapabilities a string: -32603", ["error", "capabilities"],
     [step(req(), app_error(-32021, {"requiredCapabilities": "elicitation"}), err(-32603, 200))], result="invalid")
flow("-32022 without data: snodo fills supported and requested", ["error", "version"],
     [step(req(), app_error(-32022, message="Unsupported protocol version"),
           {**err(-32022, 400), "/error/data/supported/0": V, "/error/data/requested": V})], result="invalid")
flow("-32022 with malformed data: -32603", ["error", "version"],
     [step(req(), app_error(-32022, {"supported": V}), err(-32603, 200))], result="invalid")
flow("application code outside the reserved range passes", ["error"],
     [step(req(), app_error(-31000, {"k": 1}), {**err(-31000, 200), "/error/data/k": 1})], result="invalid")

# --- item 5: uniqueItems only when present
MULTI = {"method": "elicitation/create", "params": {"mode": "form", "message": "Pick", "requestedSchema": {
    "type": "object", "properties": {"m": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}}}}}
MULTI_U = {"method": "elicitation/create", "params": {"mode": "form", "message": "Pick", "requestedSchema": {
    "type": "object", "properties": {"m": {"type": "array", "uniqueItems": True,
                                           "items": {"type": "string", "enum": ["a", "b"]}}}}}}
flow("repeated multi-select value: valid without uniqueItems, invalid with it", ["answers", "schema"],
     [step(req(), ir({"m": MULTI, "u": MULTI_U}), {"/result/resultType": "input_required"}),
      step(req(id=2, retry={"inputResponses": {"m": {"action": "accept", "content": {"m": ["a", "a"]}},
                                               "u": {"action": "accept", "content": {"m": ["a", "a"]}}},
                            "requestState": "{{state:1}}"}), done(), {"/result/resultType": "complete"},
           answers=[{"key": "m", "request": MULTI, "expected": {"kind": "accepted", "value": {"m": ["a", "a"]}}},
                    {"key": "u", "request": MULTI_U, "expected": {"kind": "invalid"}}])])

# --- item 1: final results checked per method (diagnostic names the field)
def bad_result(comment, method, params, result, diag, raw=False):
    outcome = {"type": "raw" if raw else "complete", "result": result}
    flow(comment, ["result"], [step(req(method, params), outcome, err(-32603, 200), diagnostic=diag)],
         result="invalid")


TOOL = ("tools/call", {"name": "pick", "arguments": {}})
RES = ("resources/read", {"uri": "prefs://color"})
PROMPT = ("prompts/get", {"name": "p", "arguments": {}})
bad_result("complete result carrying requestState and inputRequests", *TOOL,
           {"content": [], "requestState": "forged", "inputRequests": {}}, "invalid tools/call result: /inputRequests")
bad_result("tools/call content not an array", *TOOL, {"content": 5}, "invalid tools/call result: /content: must be an array")
bad_result("tools/call without content", *TOOL, {}, "invalid tools/call result: /content: required")
bad_result("text block whose text is an object", *TOOL, {"content": [{"type": "text", "text": {"a": 1}}]},
           "invalid tools/call result: /content/0/text")
bad_result("unknown content block type", *TOOL, {"content": [{"type": "video", "url": "x"}]},
           "invalid tools/call result: /content/0/type")
bad_result("isError not a boolean", *TOOL, {"content": [], "isError": "true"}, "invalid tools/call result: /isError")
bad_result("image block without mimeType", *TOOL, {"content": [{"type": "image", "data": "AA=="}]},
           "invalid tools/call result: /content/0/mimeType")
bad_result("resource_link without name", *TOOL, {"content": [{"type": "resource_link", "uri": "file:///a"}]},
           "invalid tools/call result: /content/0/name")
bad_result("raw complete result is checked the same way", *TOOL, {"resultType": "complete", "content": "x"},
           "invalid tools/call result: /content", raw=True)
bad_result("resources/read without ttlMs", *RES, {"contents": [], "cacheScope": "private"},
           "invalid resources/read result: /ttlMs")
bad_result("resources/read ttlMs negative", *RES, {"contents": [], "ttlMs": -1, "cacheScope": "private"},
           "invalid resources/read result: /ttlMs")
bad_result("resources/read cacheScope shared", *RES, {"contents": [], "ttlMs": 0, "cacheScope": "shared"},
           "invalid resources/read result: /cacheScope")
bad_result("resources/read item with both text and blob", *RES,
           {"contents": [{"uri": "a://b", "text": "x", "blob": "AA=="}], "ttlMs": 0, "cacheScope": "private"},
           "invalid resources/read result: /contents/0")
bad_result("resources/read item without uri", *RES,
           {"contents": [{"text": "x"}], "ttlMs": 0, "cacheScope": "private"}, "invalid resources/read result: /contents/0/uri")
bad_result("prompts/get message with role system", *PROMPT,
           {"messages": [{"role": "system", "content": {"type": "text", "text": "x"}}]},
           "invalid prompts/get result: /messages/0/role")
bad_result("prompts/get without messages", *PROMPT, {"description": "d"}, "invalid prompts/get result: /messages")
flow("valid results of each method pass, every content block kind", ["result"],
     [step(req(*TOOL), {"type": "complete", "result": {"content": [
         {"type": "text", "text": "t", "annotations": {"audience": ["user"], "priority": 1}},
         {"type": "image", "data": "AA==", "mimeType": "image/png"},
         {"type": "audio", "data": "AA==", "mimeType": "audio/wav"},
         {"type": "resource_link", "uri": "file:///a", "name": "a"},
         {"type": "resource", "resource": {"uri": "file:///a", "text": "x"}}],
         "structuredContent": ["any", "JSON", "value"], "isError": False}}, {"/result/resultType": "complete"}),
      step(req(*RES, id=2), {"type": "complete", "result": {
          "contents": [{"uri": "prefs://color", "blob": "AA=="}], "ttlMs": 0, "cacheScope": "public"}},
          {"/result/resultType": "complete"}),
      step(req(*PROMPT, id=3), {"type": "complete", "result": {
          "messages": [{"role": "assistant", "content": {"type": "text", "text": "x"}}]}},
          {"/result/resultType": "complete"})])
flow("cache hints are not required before 2026-07-28", ["result", "version"],
     [step(req(*RES, version="2025-11-25"), {"type": "complete", "result": {"contents": []}},
           {"/result/resultType": "complete"})], config={**CONFIG, "supportedVersions": [V, "2025-11-25"]})

# --- item 4: answers on a call without state
ANS = {"color": {"action": "accept", "content": {"color": "green"}}}
flow("answer without requestState counts for the question the handler asks", ["answers", "stateless"],
     [step(req(retry={"inputResponses": {**ANS, "unknown_extra_key": {"action": "accept"}}}), done("green"),
           {"/result/resultType": "complete"},
           answers=[{"key": "color", "request": COLOR, "expected": {"kind": "accepted", "value": {"color": "green"}}},
                    {"key": "unknown_extra_key", "request": COLOR, "expected": {"kind": "invalid"}}],
           rawAnswers=[{"key": "color", "expected": None}])])
flow("answer without requestState is validated against the question's schema", ["answers", "stateless"],
     [step(req(retry={"inputResponses": {"color": {"action": "accept", "content": {"color": "purple"}}}}),
           ir({"color": COLOR}), {"/result/resultType": "input_required"},
           answers=[{"key": "color", "request": COLOR, "expected": {"kind": "invalid"}}])])
flow("decline without requestState reaches the handler", ["answers", "stateless"],
     [step(req(retry={"inputResponses": {"color": {"action": "decline"}}}), done("declined"),
           {"/result/resultType": "complete"},
           answers=[{"key": "color", "request": COLOR, "expected": {"kind": "declined"}}])])
flow("strictAnswers: an answer without requestState is ignored", ["answers", "stateless", "config"],
     [step(req(retry={"inputResponses": ANS}), ir({"color": COLOR}), {"/result/resultType": "input_required"},
           answers=[{"key": "color", "request": COLOR, "expected": {"kind": "missing"}}])],
     config={**CONFIG, "strictAnswers": True})
flow("with a verified token only pinned questions count, even for keys answered without asking", ["answers", "pinning"],
     [step(req(), ir({"name": g["NAME"]}), {"/result/resultType": "input_required"}),
      step(req(id=2, retry={"inputResponses": {**ANS, "name": {"action": "accept", "content": {"name": "Ada"}}},
                            "requestState": "{{state:1}}"}), done(), {"/result/resultType": "complete"},
           answers=[{"key": "color", "request": COLOR, "expected": {"kind": "missing"}},
                    {"key": "name", "request": g["NAME"], "expected": {"kind": "accepted", "value": {"name": "Ada"}}}])])

# --- item 6: Tasks extension
TASKS_CAPS = {"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}
TASK = {"resultType": "task", "taskId": "786512e2-9e0d-44bd-8f29-789f320fe840", "status": "working",
        "statusMessage": "The operation is now in progress.", "createdAt": "2025-11-25T10:30:00Z",
        "lastUpdatedAt": "2025-11-25T10:40:00Z", "ttlMs": 60000, "pollIntervalMs": 5000}
flow("task result on tools/call to a client declaring the tasks extension", ["tasks"],
     [step(req(caps=TASKS_CAPS), {"type": "raw", "result": TASK},
           {"/result/resultType": "task", "/result/taskId": TASK["taskId"], "#httpStatus": 200})])
flow("task result through complete() is routed the same way", ["tasks"],
     [step(req(caps=TASKS_CAPS), {"type": "complete", "result": TASK}, {"/result/resultType": "task"})])
flow("task result without the extension declared: -32021 naming it", ["tasks", "capabilities"],
     [step(req(), {"type": "raw", "result": TASK},
           {**err(-32021, 400), "/error/data/requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}})],
     result="invalid")
flow("task result on prompts/get: -32603 (tools/call only)", ["tasks", "placement"],
     [step(req("prompts/get", {"name": "p"}, caps=TASKS_CAPS), {"type": "raw", "result": TASK}, err(-32603, 200),
           diagnostic="a task result is not allowed on prompts/get")], result="invalid")
flow("malformed task (bad status): -32603 naming the field", ["tasks", "result"],
     [step(req(caps=TASKS_CAPS), {"type": "raw", "result": {**TASK, "status": "done"}}, err(-32603, 200),
           diagnostic="invalid task result: /status")], result="invalid")
flow("task result carrying requestState: -32603", ["tasks", "result"],
     [step(req(caps=TASKS_CAPS), {"type": "raw", "result": {**TASK, "requestState": "x"}}, err(-32603, 200),
           diagnostic="invalid task result: /requestState")], result="invalid")
flow("a task as the outcome of the last MRTR round", ["tasks", "flow"],
     [step(req(caps=TASKS_CAPS), ir({"color": COLOR}), {"/result/resultType": "input_required"}),
      step(req(id=2, caps=TASKS_CAPS, retry={"inputResponses": ANS, "requestState": "{{state:1}}"}),
           {"type": "raw", "result": TASK}, {"/result/resultType": "task"},
           answers=[{"key": "color", "request": COLOR, "expected": {"kind": "accepted", "value": {"color": "green"}}}])])
flow("tasks/update: inputResponses reach the handler, validated against the question", ["tasks", "answers"],
     [step(req("tasks/update", {"taskId": "t1", "inputResponses": {
         "color": {"action": "accept", "content": {"color": "green"}},
         "bad": {"action": "accept", "content": {"color": "purple"}}}}, caps=TASKS_CAPS),
           {"type": "complete", "result": {}}, {"/result/resultType": "complete"},
           answers=[{"key": "color", "request": COLOR, "expected": {"kind": "accepted", "value": {"color": "green"}}},
                    {"key": "bad", "request": COLOR, "expected": {"kind": "invalid"}},
                    {"key": "other", "request": COLOR, "expected": {"kind": "missing"}}])])
flow("tasks/update answers count under strictAnswers too (no token exists for a task)", ["tasks", "answers", "config"],
     [step(req("tasks/update", {"taskId": "t1", "inputResponses": ANS}, caps=TASKS_CAPS),
           {"type": "complete", "result": {}}, {"/result/resultType": "complete"},
           answers=[{"key": "color", "request": COLOR, "expected": {"kind": "accepted", "value": {"color": "green"}}}])],
     config={**CONFIG, "strictAnswers": True})
flow("tasks/update with a malformed inputResponses: -32602", ["tasks", "envelope"],
     [step(req("tasks/update", {"taskId": "t1", "inputResponses": {"color": 5}}, caps=TASKS_CAPS),
           check=err(-32602, 200))], result="invalid")

# --- item 7: audience and changed questions
A1 = {"inputResponses": {"color": {"action": "accept", "content": {"color": "green"}}}, "requestState": "{{state:1}}"}
AUD_A = {**CONFIG, "audience": "https://a.example/mcp"}
AUD_B = {**CONFIG, "audience": "https://b.example/mcp"}
flow("audience: a token opens at the same audience", ["token", "audience"],
     [step(req(), ir({"color": COLOR}), {"/result/resultType": "input_required"}, config=AUD_A),
      step(req(id=2, retry=A1), done("green"), {"/result/resultType": "complete"}, config=AUD_A,
           answers=[{"key": "color", "request": COLOR, "expected": {"kind": "accepted", "value": {"color": "green"}}}])])
flow("audience: a token from another audience sharing the key is refused (reason request)", ["token", "audience"],
     [step(req(), ir({"color": COLOR}), {"/result/resultType": "input_required"}, config=AUD_A),
      step(req(id=2, retry=A1), check=g["bad_state"]("request"), config=AUD_B)], result="invalid")
flow("audience: a token sealed without audience does not open where one is set", ["token", "audience"],
     [step(req(), ir({"color": COLOR}), {"/result/resultType": "input_required"}),
      step(req(id=2, retry=A1), check=g["bad_state"]("request"), config=AUD_A)], result="invalid")
flow("changed question with no answer sent reads as missing", ["answers", "pinning"],
     [step(req(), ir({"color": COLOR}), {"/result/resultType": "input_required"}),
      step(req(id=2, retry={"requestState": "{{state:1}}"}), ir({"color": g["NAME"]}), {"/result/resultType": "input_required"},
           answers=[{"key": "color", "request": g["NAME"], "expected": {"kind": "missing"}}])])

# --- builders
builders = []


def b(op, expected_kind, comment, **kw):
    t = {"tcId": len(builders) + 1, "comment": comment, "op": op, **kw}
    t["result"] = "valid" if expected_kind == "ok" else "invalid"
    if expected_kind != "ok":
        t["expected"] = {"error": expected_kind}
    builders.append(t)


PROP = {"x": {"type": "string"}}
b("elicit_form", "SCHEMA", "$schema draft-07 is an unsupported dialect", message="m",
  schema={"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": PROP})
b("elicit_form", "SCHEMA", "$schema of an unknown dialect", message="m",
  schema={"$schema": "https://example.com/my-dialect", "type": "object", "properties": PROP})
b("elicit_form", "ok", "$schema 2020-12 with a trailing #", message="m",
  schema={"$schema": "https://json-schema.org/draft/2020-12/schema#", "type": "object", "properties": PROP})
b("elicit_form", "ok", "multi-select with uniqueItems", message="m",
  schema={"type": "object", "properties": {"m": {"type": "array", "uniqueItems": True,
                                                 "items": {"type": "string", "enum": ["a"]}}}})
b("elicit_form", "SCHEMA", "uniqueItems not a boolean", message="m",
  schema={"type": "object", "properties": {"m": {"type": "array", "uniqueItems": 1,
                                                 "items": {"type": "string", "enum": ["a"]}}}})
b("sampling", "SAMPLING", "conversation ending on an assistant tool_use without tool_result", params={"messages": [
    {"role": "user", "content": {"type": "text", "text": "Weather?"}},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": "w", "input": {}}]}],
    "maxTokens": 10, "tools": [{"name": "w", "inputSchema": {"type": "object"}}]})
for comment, reqs, caps in [
    ("form + url on bare elicitation lists both explicitly", {"c": COLOR, "u": URLQ}, {"elicitation": {}}),
    ("form + url with form declared lists both", {"c": COLOR, "u": URLQ}, {"elicitation": {"form": {}}}),
]:
    builders.append({"tcId": len(builders) + 1, "comment": comment, "op": "missing_capabilities", "requests": reqs,
                     "capabilities": caps, "result": "valid"})

# --- item 3: Streamable HTTP request-metadata headers (headers.json)
headers = []
PV, MM, MN = "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"


def hv(comment, hdrs, request, mismatch=None):
    """mismatch: None (passes) or the start of the -32020 message after 'Header mismatch: '."""
    t = {"tcId": len(headers) + 1, "comment": comment, "op": "check_http_headers", "headers": hdrs,
         "request": request, "result": "invalid" if mismatch else "valid"}
    if mismatch:
        t["check"] = {"#httpStatus": 400, "/error/code": -32020}
        t["messageStartsWith"] = "Header mismatch: " + mismatch
    headers.append(t)


TC = req("tools/call", {"name": "get_weather", "arguments": {}})
GOOD = [[PV, V], [MM, "tools/call"], [MN, "get_weather"]]
hv("all three headers match", GOOD, TC)
hv("header names in any case, optional whitespace around values",
   [["mcp-protocol-version", " " + V], ["MCP-METHOD", "tools/call\t"], ["mcp-name", "get_weather"]], TC)
hv("protocol version header missing", GOOD[1:], TC, "MCP-Protocol-Version header missing")
hv("protocol version header differs from _meta", [[PV, "2025-11-25"], GOOD[1], GOOD[2]], TC,
   "MCP-Protocol-Version header value")
hv("method header missing", [GOOD[0], GOOD[2]], TC, "Mcp-Method header missing")
hv("method header differs (values are case-sensitive)", [GOOD[0], [MM, "Tools/Call"], GOOD[2]], TC,
   "Mcp-Method header value")
hv("name header missing on tools/call", GOOD[:2], TC, "Mcp-Name header missing")
hv("name header differs", [GOOD[0], GOOD[1], [MN, "other"]], TC, "Mcp-Name header value")
hv("name header sent twice", GOOD + [[MN.lower(), "get_weather"]], TC, "Mcp-Name header sent more than once")
hv("non-ASCII name in base64 form", [GOOD[0], GOOD[1], [MN, "=?base64?SGVsbG8sIOS4lueVjA==?="]],
   req("tools/call", {"name": "Hello, 世界"}))
hv("invalid base64 form", [GOOD[0], GOOD[1], [MN, "=?base64?***?="]], TC, "Mcp-Name header is not valid")
hv("upper-case markers are not the base64 form", [GOOD[0], GOOD[1], [MN, "=?BASE64?Z2V0X3dlYXRoZXI=?="]], TC,
   "Mcp-Name header value")
hv("a name that looks like the sentinel travels encoded", [GOOD[0], GOOD[1], [MN, "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="]],
   req("tools/call", {"name": "=?base64?literal?="}))
hv("raw non-ASCII in a header value", [GOOD[0], GOOD[1], [MN, "Hello, 世界"]], req("tools/call", {"name": "Hello, 世界"}),
   "Mcp-Name header contains invalid characters")
hv("resources/read compares the uri", [[PV, V], [MM, "resources/read"], [MN, "file:///projects/a.json"]],
   req("resources/read", {"uri": "file:///projects/a.json"}))
hv("prompts/get compares the name", [[PV, V], [MM, "prompts/get"], [MN, "other"]],
   req("prompts/get", {"name": "p"}), "Mcp-Name header value")
hv("tools/list needs no Mcp-Name", [[PV, V], [MM, "tools/list"]], req("tools/list", {}))
hv("no name in the body: Mcp-Name not expected", GOOD[:2], req("tools/call", {}))
hv("_meta protocolVersion missing: comparison skipped (begin answers -32602)", GOOD, req("tools/call", {"name": "get_weather"},
   drop=["io.modelcontextprotocol/protocolVersion"]))
hv("not JSON: left to begin (-32700)", [], '{"jsonrpc":')
hv("a notification: left to the application (no response)", [], dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
hv("a string id is echoed", GOOD[:2], req("tools/call", {"name": "get_weather"}, id="abc"), "Mcp-Name header missing")
# The Tasks extension routes tasks/get, tasks/update and tasks/cancel by Mcp-Name = params.taskId.
TASK_ID = "dGFzay0xMjM0NTY3ODkwMTI"
hv("tasks/get: Mcp-Name is the task id", [[PV, V], [MM, "tasks/get"], [MN, TASK_ID]], req("tasks/get", {"taskId": TASK_ID}))
hv("tasks/update: Mcp-Name names another task", [[PV, V], [MM, "tasks/update"], [MN, "other-task"]],
   req("tasks/update", {"taskId": TASK_ID, "inputResponses": {}}), "Mcp-Name header value")
hv("tasks/cancel: Mcp-Name names another task", [[PV, V], [MM, "tasks/cancel"], [MN, "other-task"]],
   req("tasks/cancel", {"taskId": TASK_ID}), "Mcp-Name header value")
hv("tasks/get: Mcp-Name missing", [[PV, V], [MM, "tasks/get"]], req("tasks/get", {"taskId": TASK_ID}),
   "Mcp-Name header missing")

# --- item 7: elicitation safety heuristics in the builders, with opt-outs
for name in ["password", "api_key", "accessToken", "card_number", "cvv"]:
    b("elicit_form", "SCHEMA", f"form field {name!r} looks like a secret: use URL mode", message="m",
      schema={"type": "object", "properties": {name: {"type": "string"}}})
b("elicit_form", "SCHEMA", "form field titled Password", message="m",
  schema={"type": "object", "properties": {"x": {"type": "string", "title": "Password"}}})
b("elicit_form", "SCHEMA", "clickable URL in a form message", message="Details at https://evil.example/",
  schema={"type": "object", "properties": {"x": {"type": "string"}}})
b("elicit_form_without_lint", "ok", "opt-out: a field named token that is not a secret", message="m",
  schema={"type": "object", "properties": {"token": {"type": "string", "title": "Word to tokenize"}}})
b("elicit_url", "URL", "URL with an access token in the query",
  message="m", url="https://auth.example.com/cb?access_token=abc")
b("elicit_url", "URL", "URL with an e-mail address in the query",
  message="m", url="https://auth.example.com/cb?user=alice%40example.com")
b("elicit_url", "ok", "URL with an opaque id in the query", message="m", url="https://auth.example.com/cb?flow=7f3a")
b("elicit_url_without_lint", "ok", "opt-out: a parameter named session that is public", message="m",
  url="https://talks.example.com/?session=keynote")

WAITING = {**{k: v for k, v in TASK.items() if k != "resultType"}, "status": "input_required",
           "inputRequests": {"color": COLOR, "u": URLQ}}
for comment, task, caps, kind in [
    ("input_required task whose requests the client can receive", WAITING, {"elicitation": {"form": {}, "url": {}}}, "ok"),
    ("input_required task asking url of a form-only client", WAITING, {"elicitation": {}}, "ok"),
    ("working task carries no input requests", {k: v for k, v in TASK.items() if k != "resultType"}, {}, "ok"),
    ("input_required task without inputRequests", {**WAITING, "inputRequests": {}}, {}, "INVALID_TASK"),
    ("working task with inputRequests", {**WAITING, "status": "working"}, {}, "INVALID_TASK"),
    ("input request that is not one", {**WAITING, "inputRequests": {"p": {"method": "ping"}}}, {}, "INVALID_TASK"),
]:
    t = {"tcId": len(builders) + 1, "comment": comment, "op": "task_input_requests", "task": task,
         "capabilities": caps, "result": "valid" if kind == "ok" else "invalid"}
    if kind != "ok":
        t["expected"] = {"error": kind}
    builders.append(t)

write("wire.json", "issue 13 wire correctness: begin + decide on whole request messages", flows)
write("wire-builders.json", "issue 13 wire correctness: builders and capability admission", builders)
write("headers.json", "issue 13: Streamable HTTP request-metadata headers (-32020, HTTP 400)", headers)
print(f"{len(headers)} headers, {len(flows)} wire flows, {len(builders)} wire builders")
