/* The legacy bridge through the C ABI: a 2025-era session end to end, every bad
 * client response (malformed, unknown id, duplicate, late, another
 * principal's) refused with a clear status while the pending flow stays
 * exactly as it was, and a session that only its opener can use.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

#define SENTINEL ((void *)0x5a5a)
#define NOW 1800000000u

#define INITIALIZE                                                                                     \
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"," \
    "\"capabilities\":{\"elicitation\":{\"form\":{},\"url\":{}}},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}"
#define LEGACY_CALL "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"paint\",\"arguments\":{}}}"
#define FORM(msg)                                                                                          \
    "{\"method\":\"elicitation/create\",\"params\":{\"mode\":\"form\",\"message\":\"" msg "\","          \
    "\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"c\":{\"type\":\"string\"}},\"required\":[\"c\"]}}}"
#define TWO_QUESTIONS "{\"type\":\"input_required\",\"inputRequests\":{\"a\":" FORM("A?") ",\"b\":" FORM("B?") "}}"

/* A session opened by `who` (NULL: the anonymous principal). */
static snodo_session *session_2025(const char *who) {
    snodo_session *s = NULL;
    CHECK_OK(snodo_session_from_initialize(S(INITIALIZE), S("2025-11-25"), (const uint8_t *)who, who ? strlen(who) : 0,
                                           &s));
    CHECK_OK(snodo_session_with_id(s, S("sess-c")));
    return s;
}

/* The request id at `index` of the flow (malloc'd), or NULL. */
static char *leg_id(const snodo_pending_flow *p, size_t index) {
    char *ids = NULL;
    CHECK_OK(snodo_pending_flow_request_ids(p, &ids, NULL));
    jval *v = ids ? json_parse(ids, strlen(ids)) : NULL;
    char *out = v && v->type == J_ARR && index < v->n ? strdup(v->items[index]->text) : NULL;
    json_free(v);
    snodo_string_free(ids);
    return out;
}

static char *outstanding(const snodo_pending_flow *p) {
    char *s = NULL;
    CHECK_OK(snodo_pending_flow_outstanding(p, &s, NULL));
    return s;
}

static char *answer(const char *id, const char *c) {
    char *buf = malloc(256);
    snprintf(buf, 256, "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":{\"action\":\"accept\",\"content\":{\"c\":\"%s\"}}}",
             id, c);
    return buf;
}

/* Feeds `text` as `who` (NULL: anonymous), expecting a refusal with
 * `status` whose message contains `why`; checks that no out was written
 * and the flow is unchanged. */
static void refused_from(snodo_engine *e, snodo_pending_flow *p, const char *who, const char *text,
                         snodo_status status, const char *why) {
    char *before = outstanding(p);
    bool ended_before = false, ended_after = false;
    CHECK_OK(snodo_pending_flow_is_ended(p, &ended_before));
    snodo_feed_kind kind = (snodo_feed_kind)77;
    snodo_call *call = SENTINEL;
    snodo_response *resp = SENTINEL;
    char *cancels = SENTINEL;
    snodo_status st = snodo_engine_feed(e, p, SZ(text), (const uint8_t *)who, who ? strlen(who) : 0, &kind, &call,
                                        &resp, &cancels, NULL);
    CHECK(st == status, "feed %s: status %s, want %s", text, snodo_status_name((int)st), snodo_status_name((int)status));
    CHECK(strstr(last_error_text(), why) != NULL, "feed %s: error %s, want ...%s...", text, last_error_text(), why);
    CHECK((int)kind == 77 && call == SENTINEL && resp == SENTINEL && cancels == SENTINEL, "outs written on refusal");
    char *after = outstanding(p);
    CHECK(before && after && strcmp(before, after) == 0, "flow changed: %s -> %s", before, after);
    CHECK_OK(snodo_pending_flow_is_ended(p, &ended_after));
    CHECK(ended_before == ended_after, "ended changed");
    snodo_string_free(before);
    snodo_string_free(after);
}

/* The flow's own principal in these tests: alice. */
static void refused(snodo_engine *e, snodo_pending_flow *p, const char *text, snodo_status status, const char *why) {
    refused_from(e, p, "alice", text, status, why);
}

static void test_flow_and_bad_responses(void) {
    case_begin();
    snodo_engine *e = test_engine(NOW);
    snodo_session *s = session_2025("alice");
    char *version = NULL;
    CHECK_OK(snodo_engine_legacy_version_for(e, S("2025-06-18"), &version, NULL));
    CHECK(version && strcmp(version, "2025-06-18") == 0, "version_for %s", version);
    snodo_string_free(version);
    CHECK_OK(snodo_engine_legacy_version_for(e, S("2024-11-05"), &version, NULL));
    CHECK(version && strcmp(version, "2025-11-25") == 0, "counter-offer %s", version);
    snodo_string_free(version);

    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    CHECK_OK(snodo_engine_begin_legacy(e, S(LEGACY_CALL), s, S("alice"), &call, &resp));
    CHECK(call && !resp, "begin_legacy gives a call");
    bool legacy = false, mrtr = true;
    CHECK_OK(snodo_call_is_legacy(call, &legacy));
    CHECK_OK(snodo_call_mrtr_allowed(call, &mrtr));
    CHECK(legacy && !mrtr, "legacy %d mrtr %d", legacy, mrtr);

    snodo_bridge_kind bk = SNODO_BRIDGE_KIND_RESPOND;
    snodo_pending_flow *p = NULL;
    snodo_call *next = NULL;
    CHECK_OK(snodo_engine_decide_legacy(e, call, S(TWO_QUESTIONS), &bk, &resp, &p, &next));
    CHECK(bk == SNODO_BRIDGE_KIND_SEND && p && !resp && !next, "send");
    /* One request, one decision: a second decide of the same call. */
    snodo_pending_flow *p2 = SENTINEL;
    CHECK(snodo_engine_decide_legacy(e, call, S(TWO_QUESTIONS), &bk, &resp, &p2, &next) ==
              SNODO_STATUS_ALREADY_DECIDED, "decide twice");
    CHECK(p2 == SENTINEL, "out written on ALREADY_DECIDED");
    snodo_call_free(call);
    call = NULL;
    if (!p) { snodo_session_free(s); snodo_engine_free(e); case_end("legacy: flow"); return; }

    char *requests = NULL, *method = NULL, *id = NULL;
    CHECK_OK(snodo_pending_flow_requests(p, &requests, NULL));
    CHECK(requests && strstr(requests, "\"method\":\"elicitation/create\"") && strstr(requests, "\"id\":\"snodo-"),
          "requests %s", requests);
    CHECK_OK(snodo_pending_flow_method(p, &method, NULL));
    CHECK(method && strcmp(method, "tools/call") == 0, "method %s", method);
    CHECK_OK(snodo_pending_flow_id(p, &id, NULL));
    CHECK(id && strcmp(id, "7") == 0, "id %s", id);
    snodo_string_free(requests);
    snodo_string_free(method);
    snodo_string_free(id);
    uint64_t deadline = 0, start = 0;
    uint32_t round = 0;
    CHECK_OK(snodo_pending_flow_deadline(p, &deadline));
    CHECK_OK(snodo_pending_flow_flow_start(p, &start));
    CHECK_OK(snodo_pending_flow_round(p, &round));
    CHECK(deadline == NOW + 300 && start == NOW && round == 1, "deadline %llu start %llu round %u",
          (unsigned long long)deadline, (unsigned long long)start, round);

    char *a = leg_id(p, 0), *b = leg_id(p, 1);
    CHECK(a && b && strcmp(a, b) != 0, "two distinct ids");
    if (!a || !b) goto out;
    char quoted[160];
    bool awaits = false;
    snprintf(quoted, sizeof quoted, "\"%s\"", a);
    CHECK_OK(snodo_pending_flow_awaits(p, SZ(quoted), &awaits));
    CHECK(awaits, "awaits %s", quoted);
    CHECK_OK(snodo_pending_flow_awaits(p, S("7"), &awaits));
    CHECK(!awaits, "a number id is never a leg");
    CHECK(snodo_pending_flow_awaits(p, S("\"x"), &awaits) == SNODO_STATUS_JSON, "awaits bad JSON");

    /* Refused, nothing changes. */
    char bad[256];
    snprintf(bad, sizeof bad, "{\"jsonrpc\":\"2.0\",\"id\":\"%s\"", a);
    refused(e, p, bad, SNODO_STATUS_JSON, "not valid JSON");
    refused(e, p, "{\"jsonrpc\":\"2.0\",\"id\":\"snodo-nope\",\"result\":{\"action\":\"accept\"}}", SNODO_STATUS_ARGUMENT,
            "not a request of this flow");
    refused(e, p, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}", SNODO_STATUS_ARGUMENT, "not a request of this flow");
    snprintf(bad, sizeof bad, "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":[]}", a);
    refused(e, p, bad, SNODO_STATUS_ARGUMENT, "result must be an object");
    snprintf(bad, sizeof bad, "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"x\"}", a);
    refused(e, p, bad, SNODO_STATUS_ARGUMENT, "not a response");
    snprintf(bad, sizeof bad, "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"id\":\"%s\",\"result\":{}}", a, a);
    refused(e, p, bad, SNODO_STATUS_JSON, "duplicate object key");
    refused(e, p, "", SNODO_STATUS_JSON, "not valid JSON");

    /* The right answer from anyone but the flow's principal (alice): another
     * user, the anonymous principal, an empty or non-UTF-8 name. */
    char *ans = answer(a, "red");
    refused_from(e, p, "mallory", ans, SNODO_STATUS_ARGUMENT, "from another principal than the flow's");
    refused_from(e, p, NULL, ans, SNODO_STATUS_ARGUMENT, "from another principal than the flow's");
    refused_from(e, p, "", ans, SNODO_STATUS_ARGUMENT, "principal");
    refused_from(e, p, "alic\xff", ans, SNODO_STATUS_INVALID_UTF8, "principal");

    /* A NULL out is NULL_ARGUMENT before anything is fed. */
    snodo_feed_kind kind = SNODO_FEED_KIND_WAITING;
    snodo_response *r = NULL;
    char *cancels = NULL;
    CHECK(snodo_engine_feed(e, p, SZ(ans), S("alice"), &kind, &next, &r, NULL, NULL) == SNODO_STATUS_NULL_ARGUMENT,
          "NULL out");
    CHECK(snodo_engine_feed(e, NULL, SZ(ans), S("alice"), &kind, &next, &r, &cancels, NULL) ==
              SNODO_STATUS_NULL_ARGUMENT,
          "NULL flow");
    CHECK_OK(snodo_pending_flow_awaits(p, SZ(quoted), &awaits));
    CHECK(awaits, "a refused NULL out consumed the answer");

    /* First answer: waiting. The same answer again: a duplicate. */
    CHECK_OK(snodo_engine_feed(e, p, SZ(ans), S("alice"), &kind, &next, &r, &cancels, NULL));
    CHECK(kind == SNODO_FEED_KIND_WAITING && !next && !r && cancels && strcmp(cancels, "[]") == 0, "waiting");
    snodo_string_free(cancels);
    cancels = NULL;
    refused(e, p, ans, SNODO_STATUS_ARGUMENT, "already answered");
    free(ans);

    /* Second answer: the handler's next round. */
    ans = answer(b, "blue");
    CHECK_OK(snodo_engine_feed(e, p, SZ(ans), S("alice"), &kind, &next, &r, &cancels, NULL));
    CHECK(kind == SNODO_FEED_KIND_RESUME && next && !r, "resume");
    snodo_string_free(cancels);
    cancels = NULL;
    bool ended = false;
    CHECK_OK(snodo_pending_flow_is_ended(p, &ended));
    CHECK(ended, "ended after resume");
    refused(e, p, ans, SNODO_STATUS_ARGUMENT, "arrived after the flow ended");
    free(ans);
    CHECK(snodo_engine_timeout(e, p, &kind, &call, &r, &cancels, NULL) == SNODO_STATUS_ARGUMENT, "timeout after end");
    CHECK_OK(snodo_pending_flow_cancel(p, NULL, 0, &cancels, NULL));
    CHECK(cancels && strcmp(cancels, "[]") == 0, "cancel after end: %s", cancels);
    snodo_string_free(cancels);

    if (next) {
        uint32_t r2 = 0;
        snodo_answer_kind ak = SNODO_ANSWER_KIND_MISSING;
        char *value = NULL;
        CHECK_OK(snodo_call_round(next, &r2));
        CHECK(r2 == 2, "round %u", r2);
        snodo_question *qb = NULL;
        CHECK_OK(snodo_question_from_json(S(FORM("B?")), &qb));
        CHECK_OK(snodo_call_response(next, S("b"), qb, &ak, &value, NULL));
        snodo_question_free(qb);
        CHECK(ak == SNODO_ANSWER_KIND_ACCEPTED && value && strcmp(value, "{\"c\":\"blue\"}") == 0, "answer b %s",
              value);
        snodo_string_free(value);
        CHECK_OK(snodo_engine_decide_legacy(e, next, S("{\"type\":\"complete\",\"result\":{\"content\":[]}}"), &bk,
                                            &r, &p2, &call));
        CHECK(bk == SNODO_BRIDGE_KIND_RESPOND && r, "final response");
        char *body = NULL;
        uint16_t http = 0;
        CHECK_OK(snodo_response_body(r, &body, NULL));
        CHECK_OK(snodo_response_http_status(r, &http));
        CHECK(body && strstr(body, "\"id\":7") && !strstr(body, "resultType") && http == 200, "final %s", body);
        snodo_string_free(body);
        snodo_response_free(r);
        snodo_call_free(next);
    }
out:
    free(a);
    free(b);
    snodo_pending_flow_free(p);
    snodo_session_free(s);
    snodo_engine_free(e);
    case_end("legacy: flow and refused responses");
}

/* The requests a legacy call's input_required sends, asked as questions or
 * as the outcome's JSON text (a fresh pinned engine each: the same ids). */
static char *legacy_requests(const snodo_input_request *asks, size_t n) {
    snodo_engine *e = test_engine(NOW);
    snodo_session *s = session_2025("alice");
    snodo_call *call = NULL, *next = NULL;
    snodo_response *resp = NULL;
    snodo_pending_flow *p = NULL;
    snodo_bridge_kind bk = SNODO_BRIDGE_KIND_RESPOND;
    char *requests = NULL;
    CHECK_OK(snodo_engine_begin_legacy(e, S(LEGACY_CALL), s, S("alice"), &call, &resp));
    if (asks) CHECK_OK(snodo_engine_decide_legacy_input_required(e, call, asks, n, NULL, 0, &bk, &resp, &p, &next));
    else CHECK_OK(snodo_engine_decide_legacy(e, call, S(TWO_QUESTIONS), &bk, &resp, &p, &next));
    CHECK(bk == SNODO_BRIDGE_KIND_SEND && p && !resp && !next, "send");
    if (p) CHECK_OK(snodo_pending_flow_requests(p, &requests, NULL));
    snodo_pending_flow_free(p);
    snodo_call_free(call);
    snodo_session_free(s);
    snodo_engine_free(e);
    return requests;
}

static void test_questions_on_legacy(void) {
    case_begin();
    snodo_question *qa = NULL, *qb = NULL;
    CHECK_OK(snodo_question_from_json(S(FORM("A?")), &qa));
    CHECK_OK(snodo_question_from_json(S(FORM("B?")), &qb));
    snodo_input_request asks[] = {{S("a"), qa}, {S("b"), qb}};
    char *by_text = legacy_requests(NULL, 0), *by_questions = legacy_requests(asks, 2);
    CHECK(by_text && by_questions && strcmp(by_text, by_questions) == 0, "text %s\n  questions %s",
          by_text ? by_text : "NULL", by_questions ? by_questions : "NULL");
    snodo_string_free(by_text);
    snodo_string_free(by_questions);
    snodo_question_free(qa);
    snodo_question_free(qb);
    case_end("legacy: asking questions or their JSON text sends the same requests");
}

static void test_timeout_and_cancel(void) {
    case_begin();
    snodo_engine *e = test_engine(NOW);
    snodo_session *s = session_2025(NULL);
    for (int mode = 0; mode < 2; mode++) {
        snodo_call *call = NULL, *next = NULL;
        snodo_response *resp = NULL;
        snodo_pending_flow *p = NULL;
        snodo_bridge_kind bk;
        CHECK_OK(snodo_engine_begin_legacy(e, S(LEGACY_CALL), s, NULL, 0, &call, &resp));
        CHECK_OK(snodo_engine_decide_legacy(e, call, S(TWO_QUESTIONS), &bk, &resp, &p, &next));
        snodo_call_free(call);
        if (!p) continue;
        char *cancels = NULL;
        if (mode == 0) {
            snodo_feed_kind kind;
            CHECK_OK(snodo_engine_timeout(e, p, &kind, &next, &resp, &cancels, NULL));
            CHECK(kind == SNODO_FEED_KIND_RESPOND && resp && !next, "timeout responds");
            char *body = NULL;
            if (resp) CHECK_OK(snodo_response_body(resp, &body, NULL));
            CHECK(body && strstr(body, "\"isError\":true"), "timeout body %s", body);
            snodo_string_free(body);
            snodo_response_free(resp);
        } else {
            CHECK_OK(snodo_pending_flow_cancel(p, S("user aborted"), &cancels, NULL));
        }
        jval *v = cancels ? json_parse(cancels, strlen(cancels)) : NULL;
        CHECK(v && v->type == J_ARR && v->n == 2, "two cancellations: %s", cancels);
        CHECK(cancels && strstr(cancels, "notifications/cancelled"), "%s", cancels);
        json_free(v);
        snodo_string_free(cancels);
        char *left = outstanding(p);
        CHECK(left && strcmp(left, "[]") == 0, "outstanding after end %s", left);
        snodo_string_free(left);
        snodo_pending_flow_free(p);
    }
    snodo_session_free(s);
    snodo_engine_free(e);
    case_end("legacy: timeout and cancel");
}

static void test_sessions_and_config(void) {
    case_begin();
    snodo_session *s = SENTINEL;
    CHECK(snodo_session_new(S("2025-11-25"), S("{\"elicitation\":"), NULL, 0, NULL, 0, &s) == SNODO_STATUS_JSON,
          "bad JSON");
    CHECK(snodo_session_new(S("2025-11-25"), S("[]"), NULL, 0, NULL, 0, &s) == SNODO_STATUS_ARGUMENT,
          "caps not an object");
    CHECK(strstr(last_error_text(), "capabilities must be an object") != NULL, "%s", last_error_text());
    CHECK(snodo_session_new(S(""), S("{}"), NULL, 0, NULL, 0, &s) == SNODO_STATUS_ARGUMENT, "empty version");
    CHECK(snodo_session_from_initialize(S("{\"method\":\"tools/call\"}"), S("2025-11-25"), NULL, 0, &s) ==
              SNODO_STATUS_ARGUMENT, "not initialize");
    CHECK(snodo_session_new(S("2025-11-25"), S("{}"), NULL, 0, S(""), &s) == SNODO_STATUS_ARGUMENT, "empty principal");
    CHECK(snodo_session_from_initialize(S(INITIALIZE), S("2025-11-25"), S("\xff"), &s) == SNODO_STATUS_INVALID_UTF8,
          "principal not UTF-8");
    CHECK(s == SENTINEL, "out written on error");
    CHECK(snodo_session_new(S("2025-11-25"), S("{}"), NULL, 0, NULL, 0, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");

    s = NULL;
    CHECK_OK(snodo_session_new(S("2025-11-25"), S("{\"elicitation\":{}}"), S("{\"name\":\"x\"}"), NULL, 0, &s));
    char *id = NULL, *caps = NULL, *info = NULL, *note = SENTINEL;
    CHECK(snodo_session_with_id(s, S("a b")) == SNODO_STATUS_ARGUMENT, "id with a space");
    CHECK_OK(snodo_session_id(s, &id, NULL));
    CHECK(id && strlen(id) == 32, "random id kept: %s", id);
    snodo_string_free(id);
    CHECK_OK(snodo_session_with_id(s, S("s-1")));
    CHECK_OK(snodo_session_id(s, &id, NULL));
    CHECK(id && strcmp(id, "s-1") == 0, "id %s", id);
    CHECK_OK(snodo_session_usable_capabilities(s, &caps, NULL));
    CHECK(caps && strcmp(caps, "{\"elicitation\":{}}") == 0, "caps %s", caps);
    CHECK_OK(snodo_session_client_info(s, &info, NULL));
    CHECK(info && strcmp(info, "{\"name\":\"x\"}") == 0, "info %s", info);
    CHECK(snodo_session_elicitation_complete(s, S("e1"), &note, NULL) == SNODO_STATUS_ARGUMENT, "form-only session");
    CHECK(note == SENTINEL, "out written on error");
    snodo_string_free(id);
    snodo_string_free(caps);
    snodo_string_free(info);
    snodo_session_free(s);

    /* 2025-06-18 cannot carry URL mode: usable capabilities drop it. */
    s = NULL;
    CHECK_OK(snodo_session_new(S("2025-06-18"), S("{\"elicitation\":{\"form\":{},\"url\":{}}}"), NULL, 0, NULL, 0, &s));
    CHECK_OK(snodo_session_usable_capabilities(s, &caps, NULL));
    CHECK(caps && strcmp(caps, "{\"elicitation\":{\"form\":{}}}") == 0, "caps %s", caps);
    snodo_string_free(caps);
    snodo_session_free(s);

    /* legacy_versions: [] disables legacy serving; a non-array is CONFIG. */
    snodo_config *c = NULL;
    snodo_engine *e = NULL;
    uint8_t key[32];
    memset(key, 7, sizeof key);
    CHECK_OK(snodo_config_new(&c));
    CHECK_OK(snodo_config_add_key(c, S("k1"), key, sizeof key));
    CHECK(snodo_config_set_legacy_versions(c, S("[1]")) == SNODO_STATUS_CONFIG, "not strings");
    CHECK(snodo_config_set_legacy_versions(c, S("[")) == SNODO_STATUS_JSON, "not JSON");
    CHECK_OK(snodo_config_set_legacy_versions(c, S("[]")));
    CHECK_OK(snodo_engine_new(c, &e));
    char *version = SENTINEL;
    CHECK_OK(snodo_engine_legacy_version_for(e, S("2025-11-25"), &version, NULL));
    CHECK(version == NULL, "disabled: no version");
    s = session_2025(NULL);
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    CHECK_OK(snodo_engine_begin_legacy(e, S(LEGACY_CALL), s, NULL, 0, &call, &resp));
    char *body = NULL;
    if (resp) CHECK_OK(snodo_response_body(resp, &body, NULL));
    CHECK(!call && body && strstr(body, "Unsupported protocol version"), "disabled: %s", body);
    snodo_string_free(body);
    snodo_response_free(resp);
    snodo_engine_free(e);
    CHECK_OK(snodo_config_set_legacy_versions(c, S("[\"2026-08-01\"]")));
    CHECK(snodo_engine_new(c, &e) == SNODO_STATUS_CONFIG, "a 2026 date is no legacy revision");
    snodo_config_free(c);

    /* A response on the request path is NOT_A_REQUEST (it goes to feed). */
    e = test_engine(NOW);
    CHECK(snodo_engine_begin_legacy(e, S("{\"jsonrpc\":\"2.0\",\"id\":\"snodo-x\",\"result\":{}}"), s, NULL, 0, &call,
                                    &resp) == SNODO_STATUS_NOT_A_REQUEST, "response to begin_legacy");
    CHECK(snodo_engine_begin_legacy(e, S(LEGACY_CALL), NULL, NULL, 0, &call, &resp) == SNODO_STATUS_NULL_ARGUMENT,
          "NULL session");
    snodo_session_free(s);
    snodo_engine_free(e);
    case_end("legacy: sessions and config");
}

/* The refusal of a message on someone else's session: what a session that
 * does not exist gets (HTTP 404, -32001, the given id). */
static void not_found(const snodo_response *r, const char *id, const char *what) {
    char *body = NULL;
    uint16_t http = 0;
    CHECK(r != NULL, "%s: no refusal", what);
    if (!r) return;
    CHECK_OK(snodo_response_body(r, &body, NULL));
    CHECK_OK(snodo_response_http_status(r, &http));
    char want[160];
    snprintf(want, sizeof want, "{\"error\":{\"code\":-32001,\"message\":\"Session not found\"},\"id\":%s,\"jsonrpc\":\"2.0\"}",
             id);
    CHECK(http == 404 && body && strcmp(body, want) == 0, "%s: HTTP %u %s", what, (unsigned)http, body);
    snodo_string_free(body);
}

/* A session belongs to the principal that opened it. */
static void test_session_principal(void) {
    case_begin();
    snodo_session *alice = session_2025("alice"), *anon = session_2025(NULL);
    char *name = SENTINEL;
    size_t len = 99;
    CHECK_OK(snodo_session_principal(alice, &name, &len));
    CHECK(name && len == 5 && strcmp(name, "alice") == 0, "principal %s", name);
    snodo_string_free(name);
    CHECK_OK(snodo_session_principal(anon, &name, &len));
    CHECK(name == NULL && len == 0, "anonymous: NULL, 0");
    CHECK(snodo_session_principal(NULL, &name, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL session");
    CHECK(snodo_session_principal(alice, NULL, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");

    /* check_principal: NULL to go on, else the 404 to send. */
    snodo_response *r = SENTINEL;
    CHECK_OK(snodo_session_check_principal(alice, S("alice"), &r));
    CHECK(r == NULL, "the opener goes on");
    CHECK_OK(snodo_session_check_principal(alice, S("bob"), &r));
    not_found(r, "null", "another user");
    snodo_response_free(r);
    CHECK_OK(snodo_session_check_principal(alice, NULL, 0, &r));
    not_found(r, "null", "anonymous on alice's session");
    snodo_response_free(r);
    CHECK_OK(snodo_session_check_principal(anon, NULL, 0, &r));
    CHECK(r == NULL, "anonymous on an anonymous session");
    CHECK_OK(snodo_session_check_principal(anon, S("alice"), &r));
    not_found(r, "null", "a user on an anonymous session");
    snodo_response_free(r);
    r = SENTINEL;
    CHECK(snodo_session_check_principal(alice, S(""), &r) == SNODO_STATUS_ARGUMENT, "empty principal");
    CHECK(snodo_session_check_principal(NULL, S("alice"), &r) == SNODO_STATUS_NULL_ARGUMENT, "NULL session");
    CHECK(snodo_session_check_principal(alice, S("alice"), NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    CHECK(r == SENTINEL, "out written on error");

    /* An unknown session id gets the same bytes as another user's session. */
    snodo_response *unknown = NULL;
    CHECK_OK(snodo_unknown_session(&unknown));
    not_found(unknown, "null", "unknown session");
    snodo_response_free(unknown);
    CHECK(snodo_unknown_session(NULL) == SNODO_STATUS_NULL_ARGUMENT, "unknown_session: NULL out");

    /* begin_legacy applies it itself, with the request's id. */
    snodo_engine *e = test_engine(NOW);
    snodo_call *call = SENTINEL;
    r = NULL;
    CHECK_OK(snodo_engine_begin_legacy(e, S(LEGACY_CALL), alice, S("bob"), &call, &r));
    CHECK(call == NULL, "no call on another's session");
    not_found(r, "7", "begin_legacy by another user");
    snodo_response_free(r);
    r = NULL;
    CHECK_OK(snodo_engine_begin_legacy(e, S(LEGACY_CALL), alice, S("alice"), &call, &r));
    CHECK(call != NULL && r == NULL, "the opener's call");
    snodo_call_free(call);
    snodo_engine_free(e);
    snodo_session_free(alice);
    snodo_session_free(anon);
    case_end("legacy: a session belongs to its principal");
}

/* A flood is bounded: one round never sends more than max_input_responses. */
static void test_flood_bounded(void) {
    case_begin();
    snodo_config *c = NULL;
    snodo_engine *e = NULL;
    uint8_t key[32];
    memset(key, 7, sizeof key);
    CHECK_OK(snodo_config_new(&c));
    CHECK_OK(snodo_config_add_key(c, S("k1"), key, sizeof key));
    CHECK_OK(snodo_config_set_max_input_responses(c, 1));
    CHECK_OK(snodo_config_set_fixed_time(c, NOW));
    CHECK_OK(snodo_engine_new(c, &e));
    snodo_config_free(c);
    snodo_session *s = session_2025(NULL);
    snodo_call *call = NULL, *next = NULL;
    snodo_response *resp = NULL;
    snodo_pending_flow *p = NULL;
    snodo_bridge_kind bk = SNODO_BRIDGE_KIND_SEND;
    CHECK_OK(snodo_engine_begin_legacy(e, S(LEGACY_CALL), s, NULL, 0, &call, &resp));
    CHECK_OK(snodo_engine_decide_legacy(e, call, S(TWO_QUESTIONS), &bk, &resp, &p, &next));
    CHECK(bk == SNODO_BRIDGE_KIND_RESPOND && resp && !p, "two requests over a cap of one are not sent");
    char *diag = NULL;
    if (resp) CHECK_OK(snodo_response_diagnostic(resp, &diag, NULL));
    CHECK(diag && strstr(diag, "max_input_responses"), "diagnostic %s", diag);
    snodo_string_free(diag);
    snodo_response_free(resp);
    snodo_pending_flow_free(p);
    snodo_call_free(call);
    snodo_session_free(s);
    snodo_engine_free(e);
    case_end("legacy: a round is bounded");
}

void run_legacy_tests(void) {
    test_questions_on_legacy();
    test_flow_and_bad_responses();
    test_timeout_and_cancel();
    test_sessions_and_config();
    test_session_principal();
    test_flood_bounded();
}
