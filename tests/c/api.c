/* The C API beyond the vectors: version, statuses, a three-round flow and
 * misuse (NULLs, zero lengths, huge and invalid inputs, use after decide).
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

#ifndef CARGO_VERSION
#error "compile with -DCARGO_VERSION=\"x.y.z\" (the version in Cargo.toml)"
#endif

#define SENTINEL_OPENED ((char *)0x5a5a)
#define SENTINEL_POLICY ((snodo_origin_policy *)0x5a5a)
#define SENTINEL_RESPONSE ((snodo_response *)0x5a5a)

static const uint8_t KEY[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

snodo_engine *test_engine(uint64_t now) {
    snodo_config *c = NULL;
    snodo_engine *e = NULL;
    CHECK_OK(snodo_config_new(&c));
    CHECK_OK(snodo_config_add_key(c, S("k1"), KEY, sizeof KEY));
    CHECK_OK(snodo_config_set_fixed_time(c, now));
    /* Token ids are random; tests pin them like the clock. */
    CHECK_OK(snodo_config_set_limit(c, S("test_random_seed"), 1));
    CHECK_OK(snodo_engine_new(c, &e));
    snodo_config_free(c);
    return e;
}

/* Extracts a string member at path a/b (depth 2) of a JSON text; malloc'd. */
static char *string_at(const char *json, const char *a, const char *b) {
    jval *v = json_parse(json, strlen(json));
    const jval *s = json_get(json_get(v, a), b);
    char *out = s && s->type == J_STR ? strdup(s->text) : NULL;
    json_free(v);
    return out;
}

static void test_version(void) {
    case_begin();
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", SNODO_VERSION_MAJOR, SNODO_VERSION_MINOR, SNODO_VERSION_PATCH);
    CHECK(strcmp(want, CARGO_VERSION) == 0, "header macros %s vs Cargo.toml %s", want, CARGO_VERSION);
    CHECK(strcmp(snodo_version(), CARGO_VERSION) == 0, "snodo_version() %s", snodo_version());
    CHECK(snodo_abi_version() == SNODO_ABI_VERSION, "abi %u", snodo_abi_version());
    case_end("version macros and functions match Cargo.toml");
}

static void test_statuses(void) {
    case_begin();
    /* The core error list, numbers and names (mirrors core ErrorCode::ALL). */
    static const struct { int value; const char *name; } all[] = {
        {SNODO_STATUS_OK, "OK"}, {SNODO_STATUS_CONFIG, "CONFIG"}, {SNODO_STATUS_SCHEMA, "SCHEMA"},
        {SNODO_STATUS_URL, "URL"}, {SNODO_STATUS_SAMPLING, "SAMPLING"},
        {SNODO_STATUS_INPUT_REQUEST, "INPUT_REQUEST"}, {SNODO_STATUS_JSON, "JSON"},
        {SNODO_STATUS_STATE_TOO_LARGE, "STATE_TOO_LARGE"}, {SNODO_STATUS_TOKEN, "TOKEN"},
        {SNODO_STATUS_NOT_A_REQUEST, "NOT_A_REQUEST"}, {SNODO_STATUS_ARGUMENT, "ARGUMENT"},
        {SNODO_STATUS_NULL_ARGUMENT, "NULL_ARGUMENT"}, {SNODO_STATUS_INVALID_UTF8, "INVALID_UTF8"},
        {SNODO_STATUS_PANIC, "PANIC"}, {SNODO_STATUS_ALREADY_DECIDED, "ALREADY_DECIDED"},
        {SNODO_STATUS_STORE, "STORE"}};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        CHECK(k > 10 || all[k].value == (int)k, "core statuses are numbered 0..10");
        CHECK(strcmp(snodo_status_name(all[k].value), all[k].name) == 0, "%s", all[k].name);
        CHECK(strlen(snodo_status_message(all[k].value)) > 0, "%s message", all[k].name);
    }
    static const int bad[] = {-1, 13, 99, 103, 104, 1000000, INT32_MIN};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        CHECK(strcmp(snodo_status_message(bad[k]), "unknown status") == 0, "%d", bad[k]);
        CHECK(strcmp(snodo_status_name(bad[k]), "UNKNOWN") == 0, "%d", bad[k]);
    }
    case_end("status numbers, names and messages");
}

/* Round 1 asks a form question (an outcome built from questions), round 2
 * reads it and asks a URL question (the outcome as JSON text holding the
 * question's JSON), round 3 reads both and completes. The questions are
 * built once and used on every round. */
static void test_three_rounds(void) {
    case_begin();
    snodo_engine *e = test_engine(1800000000);
    snodo_question *form = NULL, *url = NULL;
    char *body = NULL, *url_json = NULL;
    CHECK_OK(snodo_elicit_form(S("Your name?"),
                               S("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
                                 "\"required\":[\"name\"]}"),
                               &form));
    CHECK_OK(snodo_elicit_url(S("Pay here"), S("https://pay.example.com/x"), &url));
    if (!form || !url) goto done;
    CHECK_OK(snodo_question_to_json(url, &url_json, NULL));

    /* Round 1. */
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    CHECK_OK(snodo_engine_begin(e, S(TOOL_CALL("1")), S("alice"), &call, &resp));
    CHECK(call && !resp, "round 1 is a call");
    uint32_t round = 0;
    bool retry = true, mrtr = false;
    CHECK_OK(snodo_call_round(call, &round));
    CHECK_OK(snodo_call_is_retry(call, &retry));
    CHECK_OK(snodo_call_mrtr_allowed(call, &mrtr));
    CHECK(round == 1 && !retry && mrtr, "round %u", round);
    char *meta = NULL;
    CHECK_OK(snodo_call_meta(call, &meta, NULL));
    CHECK(meta && strcmp(meta, "{}") == 0, "meta %s", meta ? meta : "(null)");
    snodo_string_free(meta);
    snodo_input_request ask_name[] = {{S("name"), form}};
    CHECK_OK(snodo_engine_decide_input_required(e, call, ask_name, 1, S("{\"step\":1}"), &resp));
    CHECK_OK(snodo_response_body(resp, &body, NULL));
    char *state1 = body ? string_at(body, "result", "requestState") : NULL;
    CHECK(state1 != NULL, "round 1 body %s", body ? body : "(none)");
    snodo_string_free(body);
    snodo_response_free(resp);
    snodo_call_free(call);

    /* Round 2: the answer to "name" plus the token. */
    sbuf r2 = {0};
    sb_str(&r2, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"book\","
                "\"arguments\":{\"n\":2}," META(CAPS_ALL) ",\"inputResponses\":{\"name\":{\"action\":\"accept\","
                "\"content\":{\"name\":\"Ada\"}}},\"requestState\":\"");
    sb_str(&r2, state1 ? state1 : "");
    sb_str(&r2, "\"}}");
    call = NULL;
    resp = NULL;
    CHECK_OK(snodo_engine_begin(e, (const uint8_t *)r2.p, r2.n, S("alice"), &call, &resp));
    CHECK(call && !resp, "round 2 is a call: %s", r2.p);
    sb_free(&r2);
    if (call) {
        snodo_answer_kind kind = SNODO_ANSWER_KIND_MISSING;
        char *value = NULL, *state = NULL;
        CHECK_OK(snodo_call_round(call, &round));
        CHECK(round == 2, "round %u", round);
        CHECK_OK(snodo_call_response(call, S("name"), form, &kind, &value, NULL));
        CHECK(kind == SNODO_ANSWER_KIND_ACCEPTED && value && same_json(value, strlen(value), "{\"name\":\"Ada\"}", 14),
              "kind %d", (int)kind);
        /* The same question rebuilt from its JSON is the same question. */
        char *form_json = NULL;
        snodo_question *again = NULL;
        CHECK_OK(snodo_question_to_json(form, &form_json, NULL));
        CHECK_OK(snodo_question_from_json(SZ(form_json ? form_json : ""), &again));
        CHECK_OK(snodo_call_response(call, S("name"), again, &kind, NULL, NULL));
        CHECK(kind == SNODO_ANSWER_KIND_ACCEPTED, "rebuilt question: kind %d", (int)kind);
        /* A question that differs from the one asked is CHANGED. */
        CHECK_OK(snodo_call_response(call, S("name"), url, &kind, NULL, NULL));
        CHECK(kind == SNODO_ANSWER_KIND_CHANGED, "another question: kind %d", (int)kind);
        snodo_question_free(again);
        snodo_string_free(form_json);
        CHECK_OK(snodo_call_state(call, &state, NULL));
        CHECK(state && strcmp(state, "{\"step\":1}") == 0, "state %s", state ? state : "(none)");
        snodo_string_free(value);
        snodo_string_free(state);
        sbuf o2 = {0};
        sb_str(&o2, "{\"type\":\"input_required\",\"inputRequests\":{\"pay\":");
        sb_str(&o2, url_json);
        sb_str(&o2, "},\"state\":{\"step\":2,\"name\":\"Ada\"}}");
        CHECK_OK(snodo_engine_decide(e, call, (const uint8_t *)o2.p, o2.n, &resp));
        sb_free(&o2);
    }
    body = NULL;
    if (resp) CHECK_OK(snodo_response_body(resp, &body, NULL));
    char *state2 = body ? string_at(body, "result", "requestState") : NULL;
    CHECK(state2 != NULL, "round 2 body %s", body ? body : "(none)");
    snodo_string_free(body);
    snodo_response_free(resp);
    snodo_call_free(call);

    /* Round 3: accept the URL (consent) and complete. */
    sbuf r3 = {0};
    sb_str(&r3, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"book\","
                "\"arguments\":{\"n\":2}," META(CAPS_ALL) ",\"inputResponses\":{\"pay\":{\"action\":\"accept\"}},"
                "\"requestState\":\"");
    sb_str(&r3, state2 ? state2 : "");
    sb_str(&r3, "\"}}");
    call = NULL;
    resp = NULL;
    CHECK_OK(snodo_engine_begin(e, (const uint8_t *)r3.p, r3.n, S("alice"), &call, &resp));
    sb_free(&r3);
    CHECK(call != NULL, "round 3 is a call");
    if (call) {
        snodo_answer_kind kind = SNODO_ANSWER_KIND_MISSING;
        char *asked = NULL;
        CHECK_OK(snodo_call_round(call, &round));
        CHECK(round == 3, "round %u", round);
        CHECK_OK(snodo_call_response(call, S("pay"), url, &kind, NULL, NULL));
        CHECK(kind == SNODO_ANSWER_KIND_ACCEPTED, "kind %d", (int)kind);
        CHECK_OK(snodo_call_response(call, S("name"), form, &kind, NULL, NULL));
        CHECK(kind == SNODO_ANSWER_KIND_MISSING, "round-1 key is not asked in round 2: %d", (int)kind);
        CHECK_OK(snodo_call_asked_keys(call, &asked, NULL));
        CHECK(asked && strcmp(asked, "[\"pay\"]") == 0, "asked %s", asked ? asked : "");
        snodo_string_free(asked);
        CHECK_OK(snodo_engine_decide(e, call, S("{\"type\":\"complete\",\"result\":{\"content\":[]}}"), &resp));
    }
    body = NULL;
    uint16_t http = 0;
    if (resp) {
        CHECK_OK(snodo_response_body(resp, &body, NULL));
        CHECK_OK(snodo_response_http_status(resp, &http));
    }
    CHECK(body && strstr(body, "\"resultType\":\"complete\"") && strstr(body, "\"id\":3") && http == 200, "%s",
          body ? body : "(none)");
    snodo_string_free(body);
    snodo_response_free(resp);
    snodo_call_free(call);
    free(state1);
    free(state2);
done:
    snodo_string_free(url_json);
    snodo_question_free(form);
    snodo_question_free(url);
    snodo_engine_free(e);
    case_end("three-round flow through begin/decide");
}

/* The response to `outcome` (JSON text) or, with `outcome` NULL, to the
 * questions `asks` and `state`, on a fresh first round of a pinned engine. */
static char *first_round_body(const char *outcome, const snodo_input_request *asks, size_t n, const char *state) {
    snodo_engine *e = test_engine(1800000000);
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    char *body = NULL;
    CHECK_OK(snodo_engine_begin(e, S(TOOL_CALL("7")), S("alice"), &call, &resp));
    if (outcome) CHECK_OK(snodo_engine_decide(e, call, SZ(outcome), &resp));
    else CHECK_OK(snodo_engine_decide_input_required(e, call, asks, n, (const uint8_t *)state, state ? strlen(state) : 0, &resp));
    if (resp) CHECK_OK(snodo_response_body(resp, &body, NULL));
    snodo_response_free(resp);
    snodo_call_free(call);
    snodo_engine_free(e);
    return body;
}

/* Questions as values: readers, kinds, JSON round trip, refusals, and the
 * two ways of asking (questions, or the outcome as JSON text) giving the
 * same bytes. */
static void test_questions(void) {
    case_begin();
    snodo_question *form = NULL, *url = NULL, *hand = NULL, *bad = (snodo_question *)0x5a5a;
    snodo_request_kind kind = SNODO_REQUEST_KIND_ROOTS;
    char *text = NULL;
    CHECK_OK(snodo_elicit_form(S("Seat?"), S("{\"properties\":{\"seat\":{\"type\":\"string\"}},\"type\":\"object\"}"),
                               &form));
    CHECK_OK(snodo_elicit_url(S("Pay"), S("https://pay.example.com/x"), &url));
    CHECK_OK(snodo_question_kind(form, &kind));
    CHECK(kind == SNODO_REQUEST_KIND_FORM, "form kind %d", (int)kind);
    CHECK_OK(snodo_question_kind(url, &kind));
    CHECK(kind == SNODO_REQUEST_KIND_URL, "url kind %d", (int)kind);
    /* The JSON text is canonical: keys sorted, "mode" stamped. */
    size_t len = 0;
    CHECK_OK(snodo_question_to_json(form, &text, &len));
    static const char want[] = "{\"method\":\"elicitation/create\",\"params\":{\"message\":\"Seat?\",\"mode\":\"form\","
                               "\"requestedSchema\":{\"properties\":{\"seat\":{\"type\":\"string\"}},\"type\":\"object\"}}}";
    CHECK(text && strcmp(text, want) == 0 && len == strlen(want), "form JSON %s", text ? text : "NULL");
    snodo_string_free(text);
    /* A request written by hand in another key order is the same question. */
    CHECK_OK(snodo_question_from_json(
        S("{\"params\":{\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"seat\":{\"type\":\"string\"}}},"
          "\"mode\":\"form\",\"message\":\"Seat?\"},\"method\":\"elicitation/create\"}"),
        &hand));
    text = NULL;
    if (hand) CHECK_OK(snodo_question_to_json(hand, &text, NULL));
    CHECK(text && strcmp(text, want) == 0, "hand-written %s", text ? text : "NULL");
    snodo_string_free(text);
    /* Refusals leave the out alone and name the problem. */
    CHECK(snodo_question_from_json(S("{\"method\":"), &bad) == SNODO_STATUS_JSON, "bad JSON");
    CHECK(strncmp(last_error_text(), "JSON: question:", 15) == 0, "%s", last_error_text());
    CHECK(snodo_question_from_json(S("{\"method\":\"a\",\"method\":\"b\"}"), &bad) == SNODO_STATUS_JSON, "dup key");
    CHECK(snodo_question_from_json(S("\"\xff\""), &bad) == SNODO_STATUS_JSON, "bad UTF-8");
    CHECK(snodo_question_from_json(S("{\"method\":\"tools/list\"}"), &bad) == SNODO_STATUS_INPUT_REQUEST,
          "not an input request: %s", last_error_text());
    CHECK(snodo_question_from_json(
              S("{\"method\":\"elicitation/create\",\"params\":{\"mode\":\"url\",\"message\":\"m\",\"url\":\"javascript:x\"}}"),
              &bad) == SNODO_STATUS_URL,
          "bad URL: %s", last_error_text());
    CHECK(bad == (snodo_question *)0x5a5a, "out written on error");
    CHECK(snodo_question_to_json(NULL, &text, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL question");
    CHECK(snodo_question_kind(form, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");

    /* Asking with questions and asking with the same JSON text: one response. */
    snodo_input_request asks[] = {{S("seat"), form}, {S("pay"), url}};
    char *form_json = NULL, *url_json = NULL;
    CHECK_OK(snodo_question_to_json(form, &form_json, NULL));
    CHECK_OK(snodo_question_to_json(url, &url_json, NULL));
    sbuf o = {0};
    sb_str(&o, "{\"type\":\"input_required\",\"inputRequests\":{\"seat\":");
    sb_str(&o, form_json ? form_json : "null");
    sb_str(&o, ",\"pay\":");
    sb_str(&o, url_json ? url_json : "null");
    sb_str(&o, "},\"state\":{\"n\":[1,1.0]}}");
    char *by_text = first_round_body(o.p, NULL, 0, NULL);
    char *by_questions = first_round_body(NULL, asks, 2, "{\"n\":[1,1.0]}");
    CHECK(by_text && by_questions && strcmp(by_text, by_questions) == 0 && strstr(by_text, "\"requestState\""),
          "text %s\n  questions %s", by_text ? by_text : "NULL", by_questions ? by_questions : "NULL");
    snodo_string_free(by_text);
    snodo_string_free(by_questions);
    sb_free(&o);
    /* No question and no state: a handler bug, a -32603 response. */
    char *neither = first_round_body(NULL, NULL, 0, NULL);
    CHECK(neither && strstr(neither, "-32603"), "empty input_required: %s", neither ? neither : "NULL");
    snodo_string_free(neither);
    /* An invalid question inside outcome text is a -32603 too, not a status. */
    char *invalid = first_round_body("{\"type\":\"input_required\",\"inputRequests\":{\"k\":{\"method\":\"tools/list\"}}}",
                                     NULL, 0, NULL);
    CHECK(invalid && strstr(invalid, "-32603"), "invalid question in text: %s", invalid ? invalid : "NULL");
    snodo_string_free(invalid);
    /* A NULL question in the array, or a NULL array with a count, is
     * NULL_ARGUMENT and decides nothing. */
    snodo_engine *e = test_engine(1800000000);
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    CHECK_OK(snodo_engine_begin(e, S(TOOL_CALL("8")), S("alice"), &call, &resp));
    snodo_input_request null_q[] = {{S("seat"), NULL}};
    CHECK(snodo_engine_decide_input_required(e, call, null_q, 1, NULL, 0, &resp) == SNODO_STATUS_NULL_ARGUMENT,
          "NULL question");
    CHECK(snodo_engine_decide_input_required(e, call, NULL, 1, NULL, 0, &resp) == SNODO_STATUS_NULL_ARGUMENT,
          "NULL array");
    CHECK(snodo_engine_decide_input_required(e, call, asks, 1, S("{"), &resp) == SNODO_STATUS_JSON, "bad state");
    CHECK_OK(snodo_engine_decide_input_required(e, call, asks, 1, NULL, 0, &resp));
    snodo_response_free(resp);
    resp = NULL;
    CHECK(snodo_engine_decide_input_required(e, call, asks, 1, NULL, 0, &resp) == SNODO_STATUS_ALREADY_DECIDED,
          "decided once");
    snodo_call_free(call);
    snodo_engine_free(e);
    snodo_string_free(form_json);
    snodo_string_free(url_json);
    snodo_question_free(form);
    snodo_question_free(url);
    snodo_question_free(hand);
    snodo_question_free(NULL);
    case_end("questions: handles, JSON, kinds, refusals, and asking them two ways");
}

/* Beyond the vectors: limits by name, the answer and audience options,
 * input_responses, header-check argument handling, Tasks. */
static void test_config_and_helpers(void) {
    case_begin();
    snodo_config *c = NULL;
    snodo_engine *e = NULL;
    CHECK_OK(snodo_config_new(&c));
    CHECK_OK(snodo_config_add_key(c, S("k1"), KEY, sizeof KEY));
    /* Limits by name go through the core's table: an unknown name is CONFIG,
     * a range error is CONFIG from engine_new naming the snake_case field. */
    CHECK(snodo_config_set_limit(c, S("ttl_seconds"), 5) == SNODO_STATUS_CONFIG, "unknown limit");
    CHECK(strstr(last_error_text(), "ttl_seconds: unknown configuration limit") != NULL, "%s", last_error_text());
    CHECK(snodo_config_set_limit(c, S("max_rounds"), (uint64_t)UINT32_MAX + 1) == SNODO_STATUS_CONFIG, "u32 overflow");
    CHECK_OK(snodo_config_set_limit(c, S("ttl_secs"), 901));
    CHECK(snodo_engine_new(c, &e) == SNODO_STATUS_CONFIG, "ttl out of range");
    CHECK(strcmp(last_error_text(), "CONFIG: ttl_secs: 901 is outside 1..=900") == 0, "%s", last_error_text());
    CHECK_OK(snodo_config_set_ttl_secs(c, 300));
    /* Audience: empty is CONFIG at engine_new; NULL removes it. */
    CHECK_OK(snodo_config_set_audience(c, (const uint8_t *)"", 0));
    CHECK(snodo_engine_new(c, &e) == SNODO_STATUS_CONFIG, "empty audience");
    CHECK(strstr(last_error_text(), "audience:") != NULL, "%s", last_error_text());
    CHECK_OK(snodo_config_set_audience(c, NULL, 0));
    CHECK_OK(snodo_config_set_strict_answers(c, true));
    CHECK_OK(snodo_config_set_fixed_time(c, 1800000000));
    CHECK_OK(snodo_engine_new(c, &e));
    snodo_config_free(c);

    /* input_responses: the whole map as sent, even under strict answers. */
    const char *req = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"," META(
        "{}") ",\"inputResponses\":{\"k\":{\"action\":\"decline\"}}}}";
    snodo_call *call = NULL;
    snodo_response *r = NULL;
    char *text = NULL;
    CHECK_OK(snodo_engine_begin(e, SZ(req), NULL, 0, &call, &r));
    CHECK(call && !r, "a call");
    if (call) {
        CHECK_OK(snodo_call_input_responses(call, &text, NULL));
        CHECK(text && strcmp(text, "{\"k\":{\"action\":\"decline\"}}") == 0, "%s", text ? text : "NULL");
        snodo_string_free(text);
    }
    snodo_call_free(call);
    snodo_engine_free(e);

    /* Header check: no headers at all is a mismatch (the protocol version
     * header is required), NULL with a non-zero count is NULL_ARGUMENT. */
    CHECK_OK(snodo_check_http_headers(NULL, 0, SZ(req), &r));
    uint16_t http = 0;
    CHECK(r != NULL, "missing headers are a mismatch");
    if (r) CHECK_OK(snodo_response_http_status(r, &http));
    CHECK(http == 400, "HTTP %u", (unsigned)http);
    snodo_response_free(r);
    r = NULL;
    CHECK(snodo_check_http_headers(NULL, 1, SZ(req), &r) == SNODO_STATUS_NULL_ARGUMENT, "NULL headers");
    /* A value that is not UTF-8 is read as Latin-1: here a mismatch. */
    snodo_header bad[] = {{(const uint8_t *)"MCP-Protocol-Version", 20, (const uint8_t *)"2026-07-28", 10},
                          {(const uint8_t *)"Mcp-Method", 10, (const uint8_t *)"tools/call\xff", 11},
                          {(const uint8_t *)"Mcp-Name", 8, (const uint8_t *)"t", 1}};
    CHECK_OK(snodo_check_http_headers(bad, 3, SZ(req), &r));
    char *body = NULL;
    if (r) CHECK_OK(snodo_response_body(r, &body, NULL));
    CHECK(body && strstr(body, "-32020") && strstr(body, "Mcp-Method"), "Latin-1 value mismatch: %s", body ? body : "NULL");
    snodo_string_free(body);
    snodo_response_free(r);
    r = NULL;
    bad[1].value_len = 10; /* the same headers without the stray byte pass */
    CHECK_OK(snodo_check_http_headers(bad, 3, SZ(req), &r));
    CHECK(r == NULL, "matching headers");
    /* A body that is not JSON is left to begin (-32700 there). */
    snodo_header pv = {(const uint8_t *)"MCP-Protocol-Version", 20, (const uint8_t *)"2026-07-28", 10};
    CHECK_OK(snodo_check_http_headers(&pv, 1, S("{not json"), &r));
    CHECK(r == NULL, "non-JSON body left to begin");

    /* The token reason accessor is empty unless the last failure was a
     * token that failed to open. */
    char *reason = NULL;
    CHECK_OK(snodo_last_token_reason(&reason, NULL));
    CHECK(reason && strcmp(reason, "") == 0, "no token reason after a header failure");
    snodo_string_free(reason);
    CHECK(snodo_last_token_reason(NULL, NULL) == SNODO_STATUS_NULL_ARGUMENT, "reason out NULL");

    /* A malformed task is INPUT_REQUEST naming the field. */
    CHECK(snodo_check_task_input_requests(S("[]"), S("{}"), &text, NULL) == SNODO_STATUS_INPUT_REQUEST, "task array");
    CHECK(strcmp(last_error_text(), "INPUT_REQUEST: task: must be an object") == 0, "%s", last_error_text());
    bool declared = true;
    CHECK_OK(snodo_declares_tasks(S("{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}"), &declared));
    CHECK(declared, "tasks declared");
    CHECK_OK(snodo_declares_tasks(S("{\"extensions\":{\"io.modelcontextprotocol/tasks\":true}}"), &declared));
    CHECK(!declared, "tasks: true is not a declaration");
    case_end("C API: limits by name, audience, strict answers, input_responses, headers, tasks");
}

/* An engine with the fixed test key and clock sealing `version` tokens and
 * opening from `min` up; NULL (and the last error) when refused. */
static snodo_engine *versioned_engine(uint64_t version, uint64_t min) {
    snodo_config *c = NULL;
    snodo_engine *e = NULL;
    CHECK_OK(snodo_config_new(&c));
    CHECK_OK(snodo_config_add_key(c, S("k1"), KEY, sizeof KEY));
    CHECK_OK(snodo_config_set_fixed_time(c, 1800000000));
    CHECK_OK(snodo_config_set_limit(c, S("token_version"), version));
    CHECK_OK(snodo_config_set_limit(c, S("min_token_version"), min));
    snodo_engine_new(c, &e);
    snodo_config_free(c);
    return e;
}

/* min_token_version: a row of the core's LIMITS, set by name; 2 refuses
 * v1 tokens (reason "version"), and it may not exceed token_version. */
static void test_min_token_version(void) {
    case_begin();
    CHECK(versioned_engine(1, 2) == NULL, "min above token_version");
    CHECK(strstr(last_error_text(), "CONFIG: min_token_version: 2 is newer than token_version (1)") ==
              last_error_text(), "%s", last_error_text());
    CHECK(versioned_engine(2, 3) == NULL, "min out of range");
    CHECK(strcmp(last_error_text(), "CONFIG: min_token_version: 3 is outside 1..=2") == 0, "%s", last_error_text());
    snodo_engine *v1 = versioned_engine(1, 1), *both = versioned_engine(2, 1), *only_v2 = versioned_engine(2, 2);
    CHECK(v1 && both && only_v2, "engines");
    if (v1 && both && only_v2) {
        uint8_t binding[SNODO_BINDING_LEN];
        memset(binding, 9, sizeof binding);
        char *t1 = NULL, *t2 = NULL, *opened = SENTINEL_OPENED;
        size_t n1 = 0, n2 = 0;
        CHECK_OK(snodo_engine_seal(v1, S("alice"), binding, 1, 1800000000, NULL, 0, NULL, 0, &t1, &n1));
        CHECK_OK(snodo_engine_seal(both, S("alice"), binding, 1, 1800000000, NULL, 0, NULL, 0, &t2, &n2));
        CHECK(t1 && strncmp(t1, "v1.", 3) == 0 && t2 && strncmp(t2, "v2.", 3) == 0, "%s / %s", t1, t2);
        CHECK_OK(snodo_engine_open(both, (const uint8_t *)t1, n1, S("alice"), binding, &opened, NULL));
        snodo_string_free(opened);
        opened = SENTINEL_OPENED;
        CHECK(snodo_engine_open(only_v2, (const uint8_t *)t1, n1, S("alice"), binding, &opened, NULL) ==
                  SNODO_STATUS_TOKEN, "v1 refused");
        char *reason = NULL;
        CHECK_OK(snodo_last_token_reason(&reason, NULL));
        CHECK(reason && strcmp(reason, "version") == 0, "reason %s", reason);
        snodo_string_free(reason);
        CHECK(opened == SENTINEL_OPENED, "out written on TOKEN");
        CHECK_OK(snodo_engine_open(only_v2, (const uint8_t *)t2, n2, S("alice"), binding, &opened, NULL));
        snodo_string_free(opened);
        snodo_string_free(t1);
        snodo_string_free(t2);
    }
    snodo_engine_free(v1);
    snodo_engine_free(both);
    snodo_engine_free(only_v2);
    case_end("min_token_version: v1 tokens refused at 2, never above token_version");
}

/* The Origin/Host edge check beyond origin.json: policy arguments, the
 * shared header conversion, NULLs and outs. */
static void test_origin(void) {
    case_begin();
    snodo_origin_policy *loop = NULL, *lists = NULL, *p = SENTINEL_POLICY;
    CHECK_OK(snodo_origin_policy_loopback(&loop));
    CHECK_OK(snodo_origin_policy_new(S("[\"mcp.example.com\",\"10.0.0.5:8443\"]"), S("[\"https://app.example.com\"]"),
                                     &lists));
    /* Bad lists: CONFIG naming the list or quoting the entry; no out. */
    CHECK(snodo_origin_policy_new(S("{}"), S("[]"), &p) == SNODO_STATUS_CONFIG, "hosts not an array");
    CHECK(strcmp(last_error_text(), "CONFIG: hosts: must be a JSON array of strings") == 0, "%s",
          last_error_text());
    CHECK(snodo_origin_policy_new(S("[]"), S("[1]"), &p) == SNODO_STATUS_CONFIG, "origins not strings");
    CHECK(snodo_origin_policy_new(S("[\"a b\"]"), S("[]"), &p) == SNODO_STATUS_CONFIG, "bad host");
    CHECK(strstr(last_error_text(), "host entry \"a b\" is not valid"), "%s", last_error_text());
    CHECK(snodo_origin_policy_new(S("[]"), S("[\"null\"]"), &p) == SNODO_STATUS_CONFIG, "null origin");
    CHECK(snodo_origin_policy_new(S("[]"), S("[\"http://x/path\"]"), &p) == SNODO_STATUS_CONFIG, "origin with a path");
    CHECK(snodo_origin_policy_new(S("["), S("[]"), &p) == SNODO_STATUS_JSON, "not JSON");
    CHECK(snodo_origin_policy_new(NULL, 0, S("[]"), &p) == SNODO_STATUS_NULL_ARGUMENT, "NULL hosts");
    CHECK(snodo_origin_policy_new(S("[]"), S("[]"), NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    CHECK(snodo_origin_policy_loopback(NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    CHECK(p == SENTINEL_POLICY, "out written on error");
    CHECK_OK(snodo_origin_policy_new(S("[]"), S("[]"), &p));
    snodo_origin_policy_free(p);

    snodo_header same[] = {{(const uint8_t *)"Host", 4, (const uint8_t *)"127.0.0.1:8080", 14},
                           {(const uint8_t *)"Origin", 6, (const uint8_t *)"http://127.0.0.1:8080", 21}};
    snodo_response *r = SENTINEL_RESPONSE;
    CHECK_OK(snodo_check_http_origin(loop, same, 2, &r));
    CHECK(r == NULL, "same-origin on loopback");
    CHECK_OK(snodo_check_http_origin(lists, same, 2, &r));
    char *body = NULL;
    uint16_t http = 0;
    if (r) {
        CHECK_OK(snodo_response_http_status(r, &http));
        CHECK_OK(snodo_response_body(r, &body, NULL));
    }
    CHECK(http == 421 && body && strstr(body, "\"reason\":\"host\"") && strstr(body, "\"id\":null"),
          "loopback not implied by lists: %u %s", (unsigned)http, body);
    snodo_string_free(body);
    snodo_response_free(r);
    /* No headers: no Host, 421; NULL with a count is NULL_ARGUMENT. */
    r = NULL;
    CHECK_OK(snodo_check_http_origin(loop, NULL, 0, &r));
    http = 0;
    if (r) CHECK_OK(snodo_response_http_status(r, &http));
    CHECK(http == 421, "no Host: %u", (unsigned)http);
    snodo_response_free(r);
    r = SENTINEL_RESPONSE;
    CHECK(snodo_check_http_origin(loop, NULL, 1, &r) == SNODO_STATUS_NULL_ARGUMENT, "NULL headers");
    CHECK(snodo_check_http_origin(NULL, same, 2, &r) == SNODO_STATUS_NULL_ARGUMENT, "NULL policy");
    CHECK(snodo_check_http_origin(loop, same, 2, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    snodo_header null_value = {(const uint8_t *)"Host", 4, NULL, 0};
    CHECK(snodo_check_http_origin(loop, &null_value, 1, &r) == SNODO_STATUS_NULL_ARGUMENT, "NULL value");
    CHECK(snodo_check_http_origin(loop, same, SIZE_MAX, &r) == SNODO_STATUS_ARGUMENT, "huge count");
    CHECK(r == SENTINEL_RESPONSE, "out written on error");
    /* A Host or Origin that is not UTF-8 (read as Latin-1) never matches. */
    snodo_header latin1[] = {{(const uint8_t *)"Host", 4, (const uint8_t *)"localhost\xff:1", 12}};
    r = NULL;
    CHECK_OK(snodo_check_http_origin(loop, latin1, 1, &r));
    http = 0;
    if (r) CHECK_OK(snodo_response_http_status(r, &http));
    CHECK(http == 421, "non-UTF-8 Host: %u", (unsigned)http);
    snodo_response_free(r);
    snodo_header origin_latin1[] = {{(const uint8_t *)"Host", 4, (const uint8_t *)"localhost:1", 11},
                                    {(const uint8_t *)"Origin", 6, (const uint8_t *)"http://localhost\xff:1", 19}};
    r = NULL;
    CHECK_OK(snodo_check_http_origin(loop, origin_latin1, 2, &r));
    http = 0;
    if (r) CHECK_OK(snodo_response_http_status(r, &http));
    CHECK(http == 403, "non-UTF-8 Origin: %u", (unsigned)http);
    snodo_response_free(r);
    snodo_origin_policy_free(loop);
    snodo_origin_policy_free(lists);
    snodo_origin_policy_free(NULL);
    case_end("origin: policies, refusals, NULLs and outs");
}

/* Keys from SNODO_KEYS (or another variable): the core's
 * one loader; every error names the entry and never echoes key bytes. */
static void test_keys_from_env(void) {
    case_begin();
    static const char HEX[] = "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";
    char spec[200];
    snodo_config *c = NULL;
    snodo_engine *e = NULL;
    CHECK_OK(snodo_config_new(&c));
    CHECK_OK(snodo_config_add_key(c, S("old"), KEY, sizeof KEY));
    unsetenv("SNODO_KEYS_TEST_C");
    CHECK(snodo_config_set_keys_from_env(c, S("SNODO_KEYS_TEST_C")) == SNODO_STATUS_CONFIG, "unset");
    CHECK(strcmp(last_error_text(), "CONFIG: SNODO_KEYS_TEST_C is not set: `snodo-mrtr keygen` prints an entry") == 0,
          "%s", last_error_text());
    struct { const char *value; const char *message; } bad[] = {
        {"k1:%s,", "CONFIG: SNODO_KEYS_TEST_C entry 2 is empty (a stray comma?)"},
        {"k1:%s,k2", "CONFIG: SNODO_KEYS_TEST_C entry 2: expected id:hex or id:base64"},
        {"k1:%s,k2:00ff", "CONFIG: SNODO_KEYS_TEST_C entry 2: key \"k2\": 2 bytes is too short, at least 32 required"},
        {"k1:%s,k1:%s", "CONFIG: SNODO_KEYS_TEST_C entry 2: key \"k1\" repeats entry 1; ids must differ"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(spec, sizeof spec, bad[i].value, HEX, HEX);
        setenv("SNODO_KEYS_TEST_C", spec, 1);
        CHECK(snodo_config_set_keys_from_env(c, S("SNODO_KEYS_TEST_C")) == SNODO_STATUS_CONFIG, "%s", spec);
        CHECK(strcmp(last_error_text(), bad[i].message) == 0, "%s", last_error_text());
        CHECK(strstr(last_error_text(), HEX) == NULL, "key bytes echoed");
    }
    /* NULL reads SNODO_KEYS itself; the failures above left "old" in place. */
    snprintf(spec, sizeof spec, "k2:%s,k1:%s", HEX, HEX);
    setenv("SNODO_KEYS", spec, 1);
    CHECK_OK(snodo_config_set_keys_from_env(c, NULL, 0));
    unsetenv("SNODO_KEYS");
    CHECK_OK(snodo_engine_new(c, &e));
    /* The first entry signs: the token names k2. */
    uint8_t binding[32] = {0};
    char *t = NULL;
    size_t n = 0;
    CHECK_OK(snodo_engine_seal(e, S("alice"), binding, 1, (uint64_t)time(NULL), NULL, 0, NULL, 0, &t, &n));
    CHECK(t != NULL && strncmp(t, "v1.k2.", 6) == 0, "%s", t ? t : "(null)");
    snodo_string_free(t);
    snodo_engine_free(e);
    CHECK(snodo_config_set_keys_from_env(c, NULL, 0) == SNODO_STATUS_CONFIG, "unset SNODO_KEYS");
    CHECK(strcmp(last_error_text(), "CONFIG: SNODO_KEYS is not set: `snodo-mrtr keygen` prints an entry") == 0,
          "%s", last_error_text());
    CHECK(snodo_config_set_keys_from_env(c, S("SNODO\xffKEYS")) == SNODO_STATUS_INVALID_UTF8, "name");
    CHECK(snodo_config_set_keys_from_env(NULL, NULL, 0) == SNODO_STATUS_NULL_ARGUMENT, "NULL config");
    snodo_config_free(c);
    case_end("keys from SNODO_KEYS");
}

void run_api_tests(void) {
    test_version();
    test_statuses();
    test_three_rounds();
    test_questions();
    test_config_and_helpers();
    test_keys_from_env();
    test_min_token_version();
    test_origin();
    run_misuse_tests();
}
