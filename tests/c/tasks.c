/* The Tasks extension in C: the core's task machine driven through
 * snodo_engine_task_step / snodo_task_step_finish over the in-memory task
 * store. A task started, its run parked on a question, tasks/get showing
 * the minted key, tasks/update resuming the handler, its end completing the
 * task; a run reading its own task to learn of its cancellation; the same
 * handler inline for a client that did not declare the extension; the
 * gates; a failed store; and misuse.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "check.h"

#define NOW 1800000000u
#define TASKS_EXT "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}"
#define CAPS_TASKS "{\"elicitation\":{\"form\":{}}," TASKS_EXT "}"
#define CAPS_FORM "{\"elicitation\":{\"form\":{}}}"
#define TOOL(caps) \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"book\",\"arguments\":{}," META(caps) "}}"
#define SCHEMA "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}"
#define ASK_NAME                                                                                      \
    "{\"type\":\"input_required\",\"state\":{\"stage\":2},\"inputRequests\":{\"name\":{\"method\":" \
    "\"elicitation/create\",\"params\":{\"mode\":\"form\",\"message\":\"Your name?\",\"requestedSchema\":" SCHEMA "}}}}"
/* A literal as a char pointer and its length (S() is for uint8_t). */
#define LIT(s) s, sizeof s - 1
#define COMPLETE "{\"type\":\"complete\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"booked\"}]}}"

/* A begun request (a call, never a response). */
static snodo_call *begin(snodo_engine *e, const char *request) {
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    CHECK_OK(snodo_engine_begin(e, SZ(request), S("alice"), &call, &resp));
    CHECK(call && !resp, "a call: %s", request);
    snodo_response_free(resp);
    return call;
}

/* A tasks/<method> request for `task_id` with `extra` params members
 * (NULL: none) and capabilities `caps`; malloc'd. */
static char *tasks_request(const char *method, const char *task_id, const char *extra, const char *caps) {
    sbuf r = {0};
    char head[256];
    snprintf(head, sizeof head, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tasks/%s\",\"params\":{\"taskId\":\"%s\",",
             method, task_id);
    sb_str(&r, head);
    if (extra) sb_str(&r, extra);
    sb_str(&r, "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
               "\"io.modelcontextprotocol/clientCapabilities\":");
    sb_str(&r, caps);
    sb_str(&r, "}}}");
    return r.p;
}

/* One step: `call` with `outcome` (NULL for a tasks/ request), its command run on
 * `store` (`op`, 16 bytes, gets its op name, "" when none), the reply fed to finish. */
static snodo_status step(snodo_engine *e, snodo_memory_task_store *store, const snodo_call *call,
                         const char *outcome, char *op, snodo_response **resp, snodo_call **leg) {
    snodo_task_step *s = NULL;
    const snodo_task_command *cmd = NULL;
    char *reply = NULL;
    size_t reply_len = 0;
    op[0] = '\0';
    snodo_status st = snodo_engine_task_step(e, call, (const uint8_t *)outcome, outcome ? strlen(outcome) : 0, &s);
    if (st != SNODO_STATUS_OK) return st;
    CHECK_OK(snodo_task_step_command(s, &cmd));
    if (cmd) {
        const char *name = NULL;
        CHECK_OK(snodo_task_command_op(cmd, &name, NULL));
        snprintf(op, 16, "%s", name ? name : "?");
        CHECK_OK(snodo_memory_task_store_execute(store, cmd, &reply, &reply_len));
    }
    st = snodo_task_step_finish(s, (const uint8_t *)reply, reply_len, resp, leg);
    snodo_string_free(reply);
    return st;
}

/* The body of a response, parsed (json_free it); NULL for no response. */
static jval *body_of(const snodo_response *resp) {
    char *body = NULL;
    size_t len = 0;
    if (!resp || snodo_response_body(resp, &body, &len) != SNODO_STATUS_OK) return NULL;
    jval *v = json_parse(body, len);
    snodo_string_free(body);
    return v;
}

static char *call_text(snodo_status (*reader)(const snodo_call *, char **, size_t *), const snodo_call *c) {
    char *s = NULL;
    CHECK_OK(reader(c, &s, NULL));
    char *out = s ? strdup(s) : NULL;
    snodo_string_free(s);
    return out;
}

/* Checks that `resp` is a JSON-RPC error with `code`. */
static void check_error(snodo_response *resp, const char *code, const char *what) {
    jval *v = body_of(resp);
    const jval *c = json_get(json_get(v, "error"), "code");
    CHECK(c && c->type == J_NUM && strcmp(c->text, code) == 0, "%s: code %s", what, c ? c->text : "(none)");
    json_free(v);
}

static void test_task_flow(void) {
    case_begin();
    snodo_engine *e = test_engine(NOW);
    snodo_memory_task_store *store = NULL;
    CHECK_OK(snodo_memory_task_store_new(0, &store));
    snodo_response *resp = NULL;
    snodo_call *leg = NULL, *next = NULL;
    char op[16] = "";

    /* The handler hands itself on: the task is stored, the CreateTaskResult
     * answers the request, and the first run comes back as a leg. */
    snodo_call *request = begin(e, TOOL(CAPS_TASKS));
    CHECK_OK(step(e, store, request, "{\"type\":\"task\",\"state\":{\"stage\":1}}", op, &resp, &leg));
    CHECK(strcmp(op, "create") == 0, "create, got %s", op);
    jval *created = body_of(resp);
    const jval *result = json_get(created, "result");
    const jval *id = json_get(result, "taskId");
    char *task_id = id && id->type == J_STR ? strdup(id->text) : NULL;
    CHECK(task_id && json_is(json_get(result, "resultType"), "task") && json_is(json_get(result, "status"), "working"),
          "a CreateTaskResult");
    json_free(created);
    snodo_response_free(resp);
    CHECK(leg != NULL, "the first run");
    char *leg_id = leg ? call_text(snodo_call_task_id, leg) : NULL;
    char *state = leg ? call_text(snodo_call_state, leg) : NULL;
    CHECK(leg_id && task_id && strcmp(leg_id, task_id) == 0, "the leg's task id %s", leg_id ? leg_id : "(null)");
    CHECK(state && same_json(state, strlen(state), LIT("{\"stage\":1}")), "the leg reads the state");
    free(leg_id);
    free(state);
    char *request_task = call_text(snodo_call_task_id, request);
    CHECK(request_task == NULL, "the request itself is no task run");
    free(request_task);
    snodo_call_free(request);

    /* The run asks a question: the task parks; nobody waits for a response. */
    resp = (snodo_response *)1;
    CHECK_OK(step(e, store, leg, ASK_NAME, op, &resp, &next));
    CHECK(strcmp(op, "park") == 0 && resp == NULL && next == NULL, "park: op %s", op);
    snodo_call_free(leg);

    /* tasks/get shows the question under its minted key. */
    char *get = tasks_request("get", task_id ? task_id : "", NULL, CAPS_TASKS);
    snodo_call *c = begin(e, get);
    CHECK_OK(step(e, store, c, NULL, op, &resp, &next));
    CHECK(strcmp(op, "get") == 0 && next == NULL, "get: op %s", op);
    jval *got = body_of(resp);
    result = json_get(got, "result");
    CHECK(json_is(json_get(result, "status"), "input_required"), "the task waits");
    const jval *asks = json_get(result, "inputRequests");
    CHECK(asks && asks->type == J_OBJ && asks->n == 1 && strcmp(asks->keys[0], "name@1") == 0,
          "one input request under the minted key name@1");
    json_free(got);
    snodo_response_free(resp);
    snodo_call_free(c);

    /* tasks/update answers it: acknowledged, and the next run reads the
     * answer under the handler's own key, pinned to the question asked. */
    char *update = tasks_request("update", task_id ? task_id : "",
                                 "\"inputResponses\":{\"name@1\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}},",
                                 CAPS_TASKS);
    c = begin(e, update);
    CHECK_OK(step(e, store, c, NULL, op, &resp, &leg));
    CHECK(strcmp(op, "answer") == 0, "answer: op %s", op);
    jval *ack = body_of(resp);
    CHECK(json_is(json_get(json_get(ack, "result"), "resultType"), "complete"), "tasks/update acknowledged");
    json_free(ack);
    snodo_response_free(resp);
    snodo_call_free(c);
    CHECK(leg != NULL, "the last answer resumes the handler");
    snodo_question *form = NULL;
    CHECK_OK(snodo_elicit_form(S("Your name?"), S(SCHEMA), &form));
    snodo_answer_kind kind = SNODO_ANSWER_KIND_MISSING;
    char *value = NULL;
    if (leg) CHECK_OK(snodo_call_response(leg, S("name"), form, &kind, &value, NULL));
    CHECK(kind == SNODO_ANSWER_KIND_ACCEPTED && value && same_json(value, strlen(value), LIT("{\"name\":\"Ada\"}")),
          "the answer under the handler's key: kind %d", (int)kind);
    snodo_string_free(value);
    snodo_question_free(form);
    state = leg ? call_text(snodo_call_state, leg) : NULL;
    CHECK(state && same_json(state, strlen(state), LIT("{\"stage\":2}")), "the run reads the parked state");
    free(state);

    /* The run ends: the task completes, and tasks/get shows the result. */
    resp = (snodo_response *)1;
    if (leg) CHECK_OK(step(e, store, leg, COMPLETE, op, &resp, &next));
    CHECK(strcmp(op, "finish") == 0 && resp == NULL && next == NULL, "finish: op %s", op);
    snodo_call_free(leg);
    c = begin(e, get);
    CHECK_OK(step(e, store, c, NULL, op, &resp, &next));
    got = body_of(resp);
    result = json_get(got, "result");
    CHECK(json_is(json_get(result, "status"), "completed") && json_get(result, "inputRequests") == NULL,
          "the task completed");
    const jval *content = json_get(json_get(result, "result"), "content");
    CHECK(content && content->type == J_ARR && content->n == 1 && json_is(json_get(content->items[0], "text"), "booked"),
          "with its result");
    json_free(got);
    snodo_response_free(resp);
    snodo_call_free(c);

    /* Another principal sees no such task (-32602). */
    snodo_call *bob = NULL;
    CHECK_OK(snodo_engine_begin(e, SZ(get), S("bob"), &bob, &resp));
    CHECK_OK(step(e, store, bob, NULL, op, &resp, &next));
    check_error(resp, "-32602", "another principal's task");
    snodo_response_free(resp);
    snodo_call_free(bob);

    free(get);
    free(update);
    free(task_id);
    snodo_memory_task_store_free(store);
    snodo_engine_free(e);
    case_end("task: created, parked, read with its minted key, resumed by tasks/update, completed");
}

/* The status of a tasks/get-shaped response (malloc'd; NULL when none). */
static char *status_of(const snodo_response *resp) {
    jval *v = body_of(resp);
    const jval *st = json_get(json_get(v, "result"), "status");
    char *out = st && st->type == J_STR ? strdup(st->text) : NULL;
    json_free(v);
    return out;
}

/* A run with no outcome reads its own task: it learns of a tasks/cancel
 * (cancellation is cooperative), and its late end changes nothing. */
static void test_run_reads_its_task(void) {
    case_begin();
    snodo_engine *e = test_engine(NOW);
    snodo_memory_task_store *store = NULL;
    CHECK_OK(snodo_memory_task_store_new(0, &store));
    snodo_response *resp = NULL;
    snodo_call *leg = NULL, *next = NULL;
    char op[16] = "";
    snodo_call *c = begin(e, TOOL(CAPS_TASKS));
    CHECK_OK(step(e, store, c, "{\"type\":\"task\"}", op, &resp, &leg));
    snodo_response_free(resp);
    snodo_call_free(c);
    char *task_id = leg ? call_text(snodo_call_task_id, leg) : NULL;
    CHECK(task_id != NULL, "a task run");

    if (leg) CHECK_OK(step(e, store, leg, NULL, op, &resp, &next));
    char *status = status_of(resp);
    CHECK(strcmp(op, "get") == 0 && next == NULL && status && strcmp(status, "working") == 0,
          "the run reads its task: op %s, status %s", op, status ? status : "(none)");
    free(status);
    snodo_response_free(resp);

    char *cancel = tasks_request("cancel", task_id ? task_id : "", NULL, CAPS_TASKS);
    c = begin(e, cancel);
    CHECK_OK(step(e, store, c, NULL, op, &resp, &next));
    CHECK(strcmp(op, "cancel") == 0, "cancel: op %s", op);
    snodo_response_free(resp);
    snodo_call_free(c);
    free(cancel);

    if (leg) CHECK_OK(step(e, store, leg, NULL, op, &resp, &next));
    status = status_of(resp);
    CHECK(status && strcmp(status, "cancelled") == 0, "the run learns it was cancelled: %s", status ? status : "(none)");
    free(status);
    snodo_response_free(resp);
    resp = (snodo_response *)1;
    if (leg) CHECK_OK(step(e, store, leg, COMPLETE, op, &resp, &next));
    CHECK(strcmp(op, "finish") == 0 && resp == NULL && next == NULL, "a late end is ignored: op %s", op);
    char *get = tasks_request("get", task_id ? task_id : "", NULL, CAPS_TASKS);
    c = begin(e, get);
    CHECK_OK(step(e, store, c, NULL, op, &resp, &next));
    status = status_of(resp);
    CHECK(status && strcmp(status, "cancelled") == 0, "still cancelled: %s", status ? status : "(none)");
    free(status);
    snodo_response_free(resp);
    snodo_call_free(c);
    free(get);
    snodo_call_free(leg);
    free(task_id);
    snodo_memory_task_store_free(store);
    snodo_engine_free(e);
    case_end("task: a run with no outcome reads its own task and learns of its cancellation");
}

static void test_gates_and_inline(void) {
    case_begin();
    snodo_engine *e = test_engine(NOW);
    snodo_memory_task_store *store = NULL;
    CHECK_OK(snodo_memory_task_store_new(1, &store));
    snodo_response *resp = NULL;
    snodo_call *leg = NULL;
    char op[16] = "";

    /* tasks/get without the extension declared on the request: -32021. */
    char *get = tasks_request("get", "t1", NULL, CAPS_FORM);
    snodo_call *c = begin(e, get);
    CHECK_OK(step(e, store, c, NULL, op, &resp, &leg));
    CHECK(strcmp(op, "") == 0 && leg == NULL, "no command, no leg");
    check_error(resp, "-32021", "undeclared tasks/get");
    snodo_response_free(resp);
    snodo_call_free(c);
    free(get);
    /* A task that never existed: -32602. */
    get = tasks_request("get", "nope", NULL, CAPS_TASKS);
    c = begin(e, get);
    CHECK_OK(step(e, store, c, NULL, op, &resp, &leg));
    check_error(resp, "-32602", "unknown task");
    snodo_response_free(resp);
    snodo_call_free(c);
    free(get);

    /* A client that did not declare the extension: the same handler goes on
     * inline, no task stored, and its end answers the request. */
    c = begin(e, TOOL(CAPS_FORM));
    CHECK_OK(step(e, store, c, "{\"type\":\"task\"}", op, &resp, &leg));
    CHECK(strcmp(op, "") == 0 && resp == NULL && leg != NULL, "an inline continuation");
    char *leg_id = (char *)1;
    if (leg) CHECK_OK(snodo_call_task_id(leg, &leg_id, NULL));
    CHECK(leg_id == NULL, "an inline continuation belongs to no task");
    snodo_call *none = NULL;
    if (leg) CHECK_OK(step(e, store, leg, COMPLETE, op, &resp, &none));
    CHECK(strcmp(op, "") == 0 && none == NULL, "the continuation's end needs no store");
    jval *v = body_of(resp);
    CHECK(json_get(json_get(v, "result"), "content") != NULL, "the request's result");
    json_free(v);
    snodo_response_free(resp);
    snodo_call_free(leg);
    /* The request was decided: a second step on it is ALREADY_DECIDED. */
    snodo_task_step *s = NULL;
    CHECK(snodo_engine_task_step(e, c, S(COMPLETE), &s) == SNODO_STATUS_ALREADY_DECIDED && s == NULL,
          "decided once: %s", last_error_text());
    snodo_call_free(c);

    /* A store that fails (here: full at one task): finishing with a NULL
     * reply answers -32603 and hands no leg. */
    c = begin(e, TOOL(CAPS_TASKS));
    CHECK_OK(step(e, store, c, "{\"type\":\"task\"}", op, &resp, &leg));
    snodo_response_free(resp);
    snodo_call_free(leg);
    snodo_call_free(c);
    c = begin(e, TOOL(CAPS_TASKS));
    CHECK_OK(snodo_engine_task_step(e, c, S("{\"type\":\"task\"}"), &s));
    const snodo_task_command *cmd = NULL;
    char *reply = (char *)1;
    if (s) CHECK_OK(snodo_task_step_command(s, &cmd));
    CHECK(snodo_memory_task_store_execute(store, cmd, &reply, NULL) == SNODO_STATUS_STORE && reply == (char *)1,
          "a full store is STORE: %s", last_error_text());
    leg = (snodo_call *)1;
    if (s) CHECK_OK(snodo_task_step_finish(s, NULL, 0, &resp, &leg));
    CHECK(leg == NULL, "no leg after a failed store");
    check_error(resp, "-32603", "store unavailable");
    snodo_response_free(resp);
    snodo_call_free(c);

    snodo_memory_task_store_free(store);
    snodo_engine_free(e);
    case_end("task: -32021 undeclared, -32602 unknown, inline for an undeclared client, a failed store");
}

static void test_task_misuse(void) {
    case_begin();
    snodo_engine *e = test_engine(NOW);
    snodo_memory_task_store *store = NULL;
    CHECK_OK(snodo_memory_task_store_new(0, &store));
    snodo_call *c = begin(e, TOOL(CAPS_TASKS));
    snodo_task_step *s = (snodo_task_step *)1;

    /* NULL arguments and garbage outcomes: statuses, the out untouched. */
    CHECK(snodo_engine_task_step(NULL, c, S(COMPLETE), &s) == SNODO_STATUS_NULL_ARGUMENT, "NULL engine");
    CHECK(snodo_engine_task_step(e, NULL, S(COMPLETE), &s) == SNODO_STATUS_NULL_ARGUMENT, "NULL call");
    CHECK(snodo_engine_task_step(e, c, S(COMPLETE), NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    CHECK(snodo_engine_task_step(e, c, S("{\"type\":"), &s) == SNODO_STATUS_JSON, "truncated JSON");
    CHECK(snodo_engine_task_step(e, c, S("{\"type\":\"nope\"}"), &s) == SNODO_STATUS_ARGUMENT, "unknown type");
    CHECK(snodo_engine_task_step(e, c, S("\xff"), &s) == SNODO_STATUS_INVALID_UTF8, "invalid UTF-8");
    CHECK(snodo_engine_task_step(e, c, NULL, 0, &s) == SNODO_STATUS_ARGUMENT, "a handler run needs its outcome");
    CHECK(strstr(last_error_text(), "outcome") != NULL, "the error says why: %s", last_error_text());
    CHECK(s == (snodo_task_step *)1, "the out stays untouched");

    /* The readers refuse NULLs; an argument past the end is ARGUMENT. */
    s = NULL;
    CHECK_OK(snodo_engine_task_step(e, c, S("{\"type\":\"task\"}"), &s));
    const snodo_task_command *cmd = NULL;
    const char *text = NULL;
    size_t n = 0, len = 0;
    CHECK(snodo_task_step_command(NULL, &cmd) == SNODO_STATUS_NULL_ARGUMENT, "NULL step");
    CHECK(snodo_task_step_command(s, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    CHECK_OK(snodo_task_step_command(s, &cmd));
    CHECK(snodo_task_command_key(NULL, &text, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL command");
    CHECK(snodo_task_command_op(cmd, NULL, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    CHECK_OK(snodo_task_command_key(cmd, &text, &len));
    CHECK(text && strncmp(text, "snodo:task:{", 12) == 0 && strlen(text) == len, "the key %s", text);
    CHECK_OK(snodo_task_command_script(cmd, &text, &len));
    CHECK(text && len > 0 && strlen(text) == len, "the script");
    CHECK_OK(snodo_task_command_arg_count(cmd, &n));
    CHECK(n > 0, "create takes arguments");
    CHECK_OK(snodo_task_command_arg(cmd, n - 1, &text, NULL));
    CHECK(snodo_task_command_arg(cmd, n, &text, &len) == SNODO_STATUS_ARGUMENT, "argument %zu of %zu", n, n);
    CHECK(strstr(last_error_text(), "no argument") != NULL, "%s", last_error_text());
    CHECK(snodo_memory_task_store_execute(NULL, cmd, (char **)&text, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL store");
    CHECK(snodo_memory_task_store_execute(store, NULL, (char **)&text, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL cmd");
    CHECK(snodo_memory_task_store_new(0, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");

    /* finish refuses NULL outs and bad text before touching the step... */
    snodo_response *resp = NULL;
    snodo_call *leg = NULL;
    CHECK(snodo_task_step_finish(NULL, S("created"), &resp, &leg) == SNODO_STATUS_NULL_ARGUMENT, "NULL step");
    CHECK(snodo_task_step_finish(s, S("created"), NULL, &leg) == SNODO_STATUS_NULL_ARGUMENT, "NULL out_response");
    CHECK(snodo_task_step_finish(s, S("created"), &resp, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out_leg");
    CHECK(snodo_task_step_finish(s, S("cre\xff"), &resp, &leg) == SNODO_STATUS_INVALID_UTF8, "invalid UTF-8");
    CHECK_OK(snodo_task_step_command(s, &cmd)); /* still the caller's */
    /* ...and consumes it on a reply snodo does not write: STORE. */
    CHECK(snodo_task_step_finish(s, S("bogus"), &resp, &leg) == SNODO_STATUS_STORE, "garbage reply");
    CHECK(strstr(last_error_text(), "unexpected reply") != NULL, "%s", last_error_text());
    CHECK(resp == NULL && leg == NULL, "no outputs on failure");

    /* The free functions take NULL; a step never finished is freed. */
    snodo_task_step_free(NULL);
    snodo_memory_task_store_free(NULL);
    snodo_call *c2 = begin(e, TOOL(CAPS_TASKS));
    s = NULL;
    CHECK_OK(snodo_engine_task_step(e, c2, S("{\"type\":\"task\"}"), &s));
    snodo_task_step_free(s);
    CHECK(snodo_call_task_id(NULL, (char **)&text, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL call");
    snodo_call_free(c2);
    snodo_call_free(c);
    snodo_memory_task_store_free(store);
    snodo_engine_free(e);
    case_end("task: NULL and garbage arguments are statuses; finish consumes the step only once it runs");
}

void run_task_tests(void) {
    test_task_flow();
    test_run_reads_its_task();
    test_gates_and_inline();
    test_task_misuse();
}
