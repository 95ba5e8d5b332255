/* Misuse of the C API: every case must answer with a status (or a
 * protocol response), never crash, leak or write an out-param on failure.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

#define SENTINEL ((void *)0x5a5a)

static void test_nulls(void) {
    case_begin();
    snodo_engine *e = test_engine(1800000000);
    char *s = SENTINEL;
    size_t n = 77;
    snodo_call *call = SENTINEL;
    snodo_response *resp = SENTINEL;
    uint8_t d[SNODO_BINDING_LEN];

    CHECK(snodo_config_new(NULL) == SNODO_STATUS_NULL_ARGUMENT, "config_new");
    CHECK(snodo_engine_new(NULL, (snodo_engine **)&s) == SNODO_STATUS_NULL_ARGUMENT, "engine_new");
    CHECK(s == SENTINEL, "out untouched");
    CHECK(strstr(last_error_text(), "NULL_ARGUMENT: config") != NULL, "%s", last_error_text());
    CHECK(snodo_engine_development(NULL) == SNODO_STATUS_NULL_ARGUMENT, "development");
    CHECK(snodo_config_add_key(NULL, S("k"), (const uint8_t *)"x", 1) == SNODO_STATUS_NULL_ARGUMENT, "add_key");
    CHECK(snodo_config_set_ttl_secs(NULL, 1) == SNODO_STATUS_NULL_ARGUMENT, "setter");
    CHECK(snodo_engine_begin(NULL, S("{}"), NULL, 0, &call, &resp) == SNODO_STATUS_NULL_ARGUMENT, "begin engine");
    CHECK(snodo_engine_begin(e, NULL, 0, NULL, 0, &call, &resp) == SNODO_STATUS_NULL_ARGUMENT, "begin request");
    CHECK(snodo_engine_begin(e, S(TOOL_CALL("1")), NULL, 0, NULL, &resp) == SNODO_STATUS_NULL_ARGUMENT, "out_call");
    CHECK(snodo_engine_begin(e, S(TOOL_CALL("1")), NULL, 0, &call, NULL) == SNODO_STATUS_NULL_ARGUMENT, "out_resp");
    CHECK(call == SENTINEL && resp == SENTINEL, "outs untouched");
    CHECK(snodo_engine_decide(e, NULL, S("{}"), &resp) == SNODO_STATUS_NULL_ARGUMENT, "decide call");
    CHECK(snodo_call_method(NULL, &s, &n) == SNODO_STATUS_NULL_ARGUMENT, "call_method");
    CHECK(snodo_call_round(NULL, NULL) == SNODO_STATUS_NULL_ARGUMENT, "call_round");
    CHECK(snodo_response_body(NULL, &s, &n) == SNODO_STATUS_NULL_ARGUMENT, "response_body");
    CHECK(snodo_response_http_status(NULL, NULL) == SNODO_STATUS_NULL_ARGUMENT, "http_status");
    snodo_question *q = SENTINEL;
    CHECK(snodo_elicit_form(NULL, 0, S("{}"), &q) == SNODO_STATUS_NULL_ARGUMENT, "elicit_form");
    CHECK(snodo_elicit_url(S("m"), S("https://a.example"), NULL) == SNODO_STATUS_NULL_ARGUMENT, "elicit_url out");
    CHECK(snodo_question_from_json(NULL, 0, &q) == SNODO_STATUS_NULL_ARGUMENT, "question_from_json");
    CHECK(snodo_call_response(NULL, S("k"), NULL, NULL, NULL, NULL) == SNODO_STATUS_NULL_ARGUMENT, "response");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* roots: deprecated, still tested */
    CHECK(snodo_list_roots(NULL) == SNODO_STATUS_NULL_ARGUMENT, "list_roots");
#pragma GCC diagnostic pop
    CHECK(q == SENTINEL, "question out untouched");
    CHECK(snodo_canonicalize(NULL, 5, &s, &n) == SNODO_STATUS_NULL_ARGUMENT, "canonicalize");
    CHECK(snodo_binding_digest(S("m"), S("{}"), NULL) == SNODO_STATUS_NULL_ARGUMENT, "binding out");
    CHECK(snodo_engine_seal(e, NULL, 0, NULL, 1, 1, NULL, 0, NULL, 0, &s, &n) == SNODO_STATUS_NULL_ARGUMENT, "seal");
    CHECK(snodo_engine_open(e, S("v1.x"), NULL, 0, d, NULL, NULL) == SNODO_STATUS_NULL_ARGUMENT, "open out");
    CHECK(snodo_last_error(NULL, NULL) == SNODO_STATUS_NULL_ARGUMENT, "last_error");
    CHECK(s == SENTINEL && n == 77, "string outs untouched");
    /* Every free accepts NULL. */
    snodo_config_free(NULL);
    snodo_engine_free(NULL);
    snodo_call_free(NULL);
    snodo_response_free(NULL);
    snodo_question_free(NULL);
    snodo_string_free(NULL);
    snodo_engine_free(e);
    case_end("NULL arguments are NULL_ARGUMENT and outs stay untouched");
}

static void test_lengths_and_invalid_input(void) {
    case_begin();
    snodo_engine *e = test_engine(1800000000);
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    char *s = NULL, *body = NULL;
    uint16_t http = 0;

    /* Zero-length request: a protocol parse error, not a status. */
    CHECK_OK(snodo_engine_begin(e, (const uint8_t *)"", 0, NULL, 0, &call, &resp));
    CHECK(!call && resp, "empty request gives a response");
    CHECK_OK(snodo_response_body(resp, &body, NULL));
    CHECK(body && strstr(body, "-32700"), "%s", body ? body : "");
    snodo_string_free(body);
    snodo_response_free(resp);
    resp = NULL;

    /* Invalid UTF-8 in the request: parse error response. */
    CHECK_OK(snodo_engine_begin(e, S("{\"a\":\"\xff\"}"), NULL, 0, &call, &resp));
    CHECK(resp != NULL, "invalid UTF-8 request");
    snodo_response_free(resp);
    resp = NULL;

    /* Over max_request_bytes (4 MiB default): -32602, HTTP 400. */
    size_t big = (size_t)5 << 20;
    char *huge = malloc(big);
    memset(huge, ' ', big);
    huge[0] = '{';
    huge[big - 1] = '}';
    CHECK_OK(snodo_engine_begin(e, (const uint8_t *)huge, big, NULL, 0, &call, &resp));
    CHECK_OK(snodo_response_http_status(resp, &http));
    CHECK(http == 400, "huge request http %u", http);
    snodo_response_free(resp);
    resp = NULL;
    /* Huge JSON argument to a builder: JSON, bounded by the 64 MiB cap, and
     * a length above PTRDIFF_MAX is refused before it is ever read. */
    CHECK(snodo_canonicalize((const uint8_t *)huge, SIZE_MAX, &s, NULL) == SNODO_STATUS_ARGUMENT, "SIZE_MAX");
    CHECK(snodo_engine_begin(e, (const uint8_t *)huge, SIZE_MAX, NULL, 0, &call, &resp) == SNODO_STATUS_ARGUMENT,
          "begin SIZE_MAX");
    free(huge);

    /* Principal: empty is ARGUMENT, invalid UTF-8 is INVALID_UTF8. */
    CHECK(snodo_engine_begin(e, S(TOOL_CALL("1")), (const uint8_t *)"", 0, &call, &resp) == SNODO_STATUS_ARGUMENT,
          "empty principal");
    CHECK(strstr(last_error_text(), "principal") != NULL, "%s", last_error_text());
    CHECK(snodo_engine_begin(e, S(TOOL_CALL("1")), S("\xc3\x28"), &call, &resp) == SNODO_STATUS_INVALID_UTF8,
          "bad principal");
    /* Notifications and responses are not requests. */
    CHECK(snodo_engine_begin(e, S("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"), NULL, 0, &call,
                             &resp) == SNODO_STATUS_NOT_A_REQUEST,
          "notification");

    /* JSON arguments: syntax, duplicate keys, wrong shapes. */
    CHECK(snodo_canonicalize(S("{\"a\":1,\"a\":2}"), &s, NULL) == SNODO_STATUS_JSON, "duplicate key");
    CHECK(snodo_canonicalize(S("[1,"), &s, NULL) == SNODO_STATUS_JSON, "truncated");
    /* canonicalize reads bytes: invalid UTF-8 is JSON, as in every language. */
    CHECK(snodo_canonicalize(S("\"\xff\""), &s, NULL) == SNODO_STATUS_JSON, "utf8");
    snodo_question *q = NULL;
    CHECK(snodo_elicit_form(S("m"), S("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\","
                                      "\"pattern\":\"x\"}}}"),
                            &q) == SNODO_STATUS_SCHEMA,
          "schema keyword");
    CHECK(strstr(last_error_text(), "SCHEMA: ") == last_error_text(), "%s", last_error_text());
    CHECK(snodo_elicit_form(S(""), S("{\"type\":\"object\",\"properties\":{}}"), &q) == SNODO_STATUS_INPUT_REQUEST,
          "empty message");
    CHECK(snodo_elicit_form(S("m"), S("{\"type\":"), &q) == SNODO_STATUS_JSON, "schema JSON");
    CHECK(snodo_elicit_form(S("\xff"), S("{}"), &q) == SNODO_STATUS_INVALID_UTF8, "message UTF-8");
    CHECK(snodo_elicit_url(S("m"), S("javascript:alert(1)"), &q) == SNODO_STATUS_URL, "url scheme");
    CHECK(q == NULL, "no question written on failure");
    CHECK(snodo_missing_capabilities(S("42"), S("{}"), &s, NULL) == SNODO_STATUS_ARGUMENT, "requests shape");
    CHECK(snodo_binding_digest(S("m"), S("[]"), (uint8_t[32]){0}) == SNODO_STATUS_ARGUMENT, "params shape");
    CHECK(s == NULL, "no string written on failure");
    /* A successful call clears the last error. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* roots: deprecated, still tested */
    CHECK_OK(snodo_list_roots(&q));
#pragma GCC diagnostic pop
    CHECK(strcmp(last_error_text(), "") == 0, "cleared: %s", last_error_text());
    snodo_request_kind kind = SNODO_REQUEST_KIND_FORM;
    CHECK_OK(snodo_question_kind(q, &kind));
    CHECK(kind == SNODO_REQUEST_KIND_ROOTS, "roots kind %d", (int)kind);
    snodo_question_free(q);
    /* Zero-length but non-NULL strings are fine where the core allows them. */
    CHECK_OK(snodo_canonicalize(S("\"\""), &s, NULL));
    snodo_string_free(s);
    s = NULL;

    /* Config validation. */
    snodo_config *c = NULL;
    snodo_engine *e2 = NULL;
    CHECK_OK(snodo_config_new(&c));
    CHECK(snodo_engine_new(c, &e2) == SNODO_STATUS_CONFIG, "no keys");
    CHECK(snodo_config_add_key(c, S("k1"), (const uint8_t *)"short", 5) == SNODO_STATUS_CONFIG, "short key");
    CHECK(snodo_config_add_key(c, (const uint8_t *)"", 0, (const uint8_t *)TOOL_CALL("1"), 40) == SNODO_STATUS_CONFIG,
          "empty id");
    CHECK_OK(snodo_config_add_key(c, S("k1"), (const uint8_t *)TOOL_CALL("1"), 40));
    CHECK_OK(snodo_config_set_ttl_secs(c, 901));
    CHECK(snodo_engine_new(c, &e2) == SNODO_STATUS_CONFIG, "ttl 901");
    CHECK(strstr(last_error_text(), "ttl_secs") != NULL, "%s", last_error_text());
    CHECK_OK(snodo_config_set_ttl_secs(c, 300));
    CHECK_OK(snodo_config_add_supported_version(c, S("latest")));
    CHECK(snodo_engine_new(c, &e2) == SNODO_STATUS_CONFIG, "bad version");
    CHECK(e2 == NULL, "no engine on failure");
    snodo_config_free(c);

    /* Low-level open of garbage: TOKEN with a stable reason. */
    uint8_t d[SNODO_BINDING_LEN];
    CHECK_OK(snodo_binding_digest(S("tools/call"), S("{\"name\":\"x\"}"), d));
    CHECK(snodo_engine_open(e, S("v1.garbage"), NULL, 0, d, &s, NULL) == SNODO_STATUS_TOKEN, "garbage token");
    CHECK(strcmp(last_error_text(), "TOKEN: Invalid or expired requestState (malformed)") == 0, "%s", last_error_text());
    snodo_engine_free(e);
    case_end("zero lengths, huge and invalid inputs");
}

static void test_decide_misuse(void) {
    case_begin();
    snodo_engine *e = test_engine(1800000000);
    snodo_call *call = NULL;
    snodo_response *resp = NULL, *again = SENTINEL;
    char *s = NULL;
    CHECK_OK(snodo_engine_begin(e, S(TOOL_CALL("\"x\"")), NULL, 0, &call, &resp));
    if (!call) goto out;
    CHECK(snodo_engine_decide(e, call, S("{\"type\":\"nope\"}"), &resp) == SNODO_STATUS_ARGUMENT, "unknown type");
    CHECK(snodo_engine_decide(e, call, S("{\"type\":"), &resp) == SNODO_STATUS_JSON, "bad JSON");
    CHECK(snodo_engine_decide(e, call, S("[]"), &resp) == SNODO_STATUS_ARGUMENT, "not an object");
    CHECK(snodo_engine_decide(e, call, S("{}"), NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    /* Unknown and unasked keys read as MISSING; raw answers as null. */
    snodo_answer_kind kind = SNODO_ANSWER_KIND_INVALID;
    snodo_question *roots = NULL;
    CHECK_OK(snodo_question_from_json(S("{\"method\":\"roots/list\"}"), &roots));
    CHECK_OK(snodo_call_response(call, S("nobody"), roots, &kind, &s, NULL));
    CHECK(kind == SNODO_ANSWER_KIND_MISSING && s && strcmp(s, "null") == 0, "missing");
    snodo_string_free(s);
    s = NULL;
    CHECK(snodo_call_response(call, S("k"), NULL, &kind, NULL, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL question");
    CHECK(snodo_call_response(call, S("\xff"), roots, &kind, NULL, NULL) == SNODO_STATUS_INVALID_UTF8, "key UTF-8");
    snodo_question_free(roots);
    /* A handler bug is a -32603 response with a diagnostic, not a status. */
    CHECK_OK(snodo_engine_decide(e, call, S("{\"type\":\"input_required\"}"), &resp));
    char *diag = NULL;
    CHECK_OK(snodo_response_diagnostic(resp, &diag, NULL));
    CHECK(diag != NULL, "diagnostic present");
    snodo_string_free(diag);
    /* Use after decide: readers still work, deciding again is refused. */
    CHECK(snodo_engine_decide(e, call, S("{\"type\":\"complete\",\"result\":{}}"), &again) ==
              SNODO_STATUS_ALREADY_DECIDED,
          "second decide");
    CHECK(again == SENTINEL, "out untouched");
    CHECK_OK(snodo_call_id(call, &s, NULL));
    CHECK(s && strcmp(s, "\"x\"") == 0, "id %s", s ? s : "");
    snodo_string_free(s);
    s = NULL;
    snodo_response_free(resp);
    resp = NULL;
    /* A diagnostic is NULL for a good response. */
    snodo_call_free(call);
    call = NULL;
    CHECK_OK(snodo_engine_begin(e, S(TOOL_CALL("2")), NULL, 0, &call, &resp));
    CHECK_OK(snodo_engine_decide(e, call, S("{\"type\":\"tool_error\",\"message\":\"nope\"}"), &resp));
    diag = SENTINEL;
    CHECK_OK(snodo_response_diagnostic(resp, &diag, NULL));
    CHECK(diag == NULL, "no diagnostic");
    bool is_error = true;
    CHECK_OK(snodo_response_is_error(resp, &is_error));
    CHECK(!is_error, "tool errors are results");
    snodo_response_free(resp);
    snodo_call_free(call);
out:
    snodo_engine_free(e);
    case_end("decide misuse and use after decide");
}

void run_misuse_tests(void) {
    test_nulls();
    test_lengths_and_invalid_input();
    test_decide_misuse();
}
