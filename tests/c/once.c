/* Issue 17 in C: the call's flow id, token id, expiry and answers digest;
 * the in-memory consume-once store (single thread and raced by threads);
 * the Redis key builders and scripts.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

#define NOW 1800000000u

/* base64url(SHA-256(canonical JSON)), computed outside snodo (Python
 * hashlib) so that the C reader is checked against the definition. */
#define DIGEST_EMPTY "RBNvo1WzZ4oRRq0W9-hknpT7T8If536DEMBg9hyq_4o"
#define DIGEST_ADA "wqmp0kb1QdrPbmSfCdQyWbpBIH4VhA2VCoyR8HetSSc"


/* The requestState of a decided input_required response; malloc'd. */
static char *request_state(snodo_response *resp) {
    char *body = NULL, *out = NULL;
    if (!resp || snodo_response_body(resp, &body, NULL) != SNODO_STATUS_OK) return NULL;
    jval *v = json_parse(body, strlen(body));
    const jval *s = json_get(json_get(v, "result"), "requestState");
    if (s && s->type == J_STR) out = strdup(s->text);
    json_free(v);
    snodo_string_free(body);
    return out;
}

/* A retry carrying `answers` (JSON object text) and `state`. */
static snodo_call *retry(snodo_engine *e, int id, const char *answers, const char *state) {
    sbuf r = {0};
    char head[160];
    snprintf(head, sizeof head, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"book\",", id);
    sb_str(&r, head);
    sb_str(&r, "\"arguments\":{\"n\":2}," META(CAPS_ALL) ",\"inputResponses\":");
    sb_str(&r, answers);
    sb_str(&r, ",\"requestState\":\"");
    sb_str(&r, state ? state : "");
    sb_str(&r, "\"}}");
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    CHECK_OK(snodo_engine_begin(e, (const uint8_t *)r.p, r.n, S("alice"), &call, &resp));
    CHECK(call && !resp, "retry is a call: %s", r.p);
    snodo_response_free(resp);
    sb_free(&r);
    return call;
}

/* Decides `call` with the name question again; returns the new state. */
static char *ask_name(snodo_engine *e, snodo_call *call) {
    snodo_response *resp = NULL;
    char *form = NULL;
    CHECK_OK(snodo_elicit_form(S("Your name?"),
                               S("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
                                 "\"required\":[\"name\"]}"),
                               &form, NULL));
    sbuf o = {0};
    sb_str(&o, "{\"type\":\"input_required\",\"inputRequests\":{\"name\":");
    sb_str(&o, form ? form : "null");
    sb_str(&o, "}}");
    CHECK_OK(snodo_engine_decide(e, call, (const uint8_t *)o.p, o.n, &resp));
    sb_free(&o);
    snodo_string_free(form);
    char *state = request_state(resp);
    CHECK(state != NULL, "input_required carries a requestState");
    snodo_response_free(resp);
    return state;
}

static void test_call_readers(void) {
    case_begin();
    snodo_engine *e = test_engine(NOW);
    uint64_t now = 0;
    CHECK_OK(snodo_engine_now(e, &now));
    CHECK(now == NOW, "engine now %llu", (unsigned long long)now);

    /* Round 1: no token, so no ids and no expiry; the digest of {}. */
    snodo_call *c1 = NULL;
    snodo_response *resp = NULL;
    CHECK_OK(snodo_engine_begin(e, S(TOOL_CALL("1")), S("alice"), &c1, &resp));
    char *flow = (char *)1, *tid = (char *)1, *digest = NULL;
    size_t flow_len = 99, tid_len = 99, digest_len = 0;
    uint64_t exp = 99;
    CHECK_OK(snodo_call_flow_id(c1, &flow, &flow_len));
    CHECK_OK(snodo_call_token_id(c1, &tid, &tid_len));
    CHECK_OK(snodo_call_token_expires_at(c1, &exp));
    CHECK_OK(snodo_call_answers_digest(c1, &digest, &digest_len));
    CHECK(flow == NULL && flow_len == 0 && tid == NULL && tid_len == 0 && exp == 0, "round 1 has no ids");
    CHECK(digest && digest_len == 43 && strcmp(digest, DIGEST_EMPTY) == 0, "digest of {} %s", digest);
    snodo_string_free(digest);
    char *s1 = ask_name(e, c1);
    snodo_call_free(c1);

    /* Round 2: a token opened; the digest is SHA-256 of the answers. */
    snodo_call *c2 = retry(e, 2, "{ \"name\" : {\"content\":{\"name\":\"Ada\"},\"action\":\"accept\"}}", s1);
    char *flow2 = NULL, *tid2 = NULL;
    digest = NULL;
    CHECK_OK(snodo_call_flow_id(c2, &flow2, &flow_len));
    CHECK_OK(snodo_call_token_id(c2, &tid2, &tid_len));
    CHECK_OK(snodo_call_token_expires_at(c2, &exp));
    CHECK_OK(snodo_call_answers_digest(c2, &digest, NULL));
    CHECK(flow2 && flow_len == 22 && strlen(flow2) == 22, "flow id %s", flow2 ? flow2 : "(null)");
    CHECK(tid2 && tid_len == 22 && strlen(tid2) == 22, "token id %s", tid2 ? tid2 : "(null)");
    CHECK(exp == NOW + 300, "expires %llu (now + the default ttl)", (unsigned long long)exp);
    CHECK(digest && strcmp(digest, DIGEST_ADA) == 0, "digest %s (key order and spacing do not count)", digest);
    snodo_string_free(digest);
    char *s2 = ask_name(e, c2);
    snodo_call_free(c2);

    /* Round 3: the same flow id, a new token id. */
    snodo_call *c3 = retry(e, 3, "{\"name\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}}", s2);
    char *flow3 = NULL, *tid3 = NULL;
    CHECK_OK(snodo_call_flow_id(c3, &flow3, NULL));
    CHECK_OK(snodo_call_token_id(c3, &tid3, NULL));
    CHECK(flow2 && flow3 && strcmp(flow2, flow3) == 0, "flow id kept: %s vs %s", flow2, flow3);
    CHECK(tid2 && tid3 && strcmp(tid2, tid3) != 0, "token id changes: %s", tid3);
    snodo_string_free(flow3);
    snodo_string_free(tid3);
    snodo_call_free(c3);

    /* NULLs are statuses, and the outs stay untouched. */
    CHECK(snodo_call_flow_id(NULL, &flow3, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL call");
    CHECK(snodo_call_answers_digest(NULL, &flow3, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL call");
    CHECK(snodo_call_token_expires_at(NULL, &exp) == SNODO_STATUS_NULL_ARGUMENT, "NULL call");
    CHECK(snodo_engine_now(e, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    snodo_string_free(flow2);
    snodo_string_free(tid2);
    free(s1);
    free(s2);
    snodo_engine_free(e);
    case_end("call flow id, token id, expiry and answers digest over three rounds");
}

#define FLOW "Rfvm_AVFZKB5NC9QevN7_w"
#define TOKEN_A "-7wd-v3MYXNA6UHvQgtC3Q"
#define TOKEN_B "cPlopYuV1NcLk-XzvkGO2w"

static void test_memory_store(void) {
    case_begin();
    snodo_once_memory *m = NULL;
    CHECK_OK(snodo_once_memory_new(0, 0, &m));
    bool first = false;
    CHECK_OK(snodo_once_consume(m, S(TOKEN_A), NOW + 360, NOW, &first));
    CHECK(first, "first consume");
    CHECK_OK(snodo_once_consume(m, S(TOKEN_A), NOW + 360, NOW + 10, &first));
    CHECK(!first, "second consume");
    CHECK_OK(snodo_once_consume(m, S(TOKEN_A), NOW + 360, NOW + 361, &first));
    CHECK(first, "consumed ids expire");

    snodo_claim claim = SNODO_CLAIM_DONE;
    char *text = (char *)1;
    size_t text_len = 99;
    CHECK_OK(snodo_once_claim(m, S(FLOW), S(DIGEST_ADA), NOW + 360, NOW, &claim, &text, &text_len));
    CHECK(claim == SNODO_CLAIM_WON && text == NULL && text_len == 0, "won %d", (int)claim);
    CHECK_OK(snodo_once_claim(m, S(FLOW), S(DIGEST_ADA), NOW + 360, NOW, &claim, NULL, NULL));
    CHECK(claim == SNODO_CLAIM_PENDING, "pending %d", (int)claim);
    /* Another digest of the same flow is another key. */
    CHECK_OK(snodo_once_claim(m, S(FLOW), S(DIGEST_EMPTY), NOW + 360, NOW, &claim, NULL, NULL));
    CHECK(claim == SNODO_CLAIM_WON, "other digest %d", (int)claim);
    CHECK_OK(snodo_once_release(m, S(FLOW), S(DIGEST_EMPTY)));
    CHECK_OK(snodo_once_claim(m, S(FLOW), S(DIGEST_EMPTY), NOW + 360, NOW, &claim, NULL, NULL));
    CHECK(claim == SNODO_CLAIM_WON, "released claims can be won again %d", (int)claim);

    CHECK_OK(snodo_once_complete(m, S(FLOW), S(DIGEST_ADA), S("{\"booked\":1}"), NOW + 360, NOW));
    CHECK_OK(snodo_once_complete(m, S(FLOW), S(DIGEST_ADA), S("{\"booked\":2}"), NOW + 360, NOW));
    CHECK_OK(snodo_once_release(m, S(FLOW), S(DIGEST_ADA))); /* done: left alone */
    CHECK_OK(snodo_once_claim(m, S(FLOW), S(DIGEST_ADA), NOW + 360, NOW + 5, &claim, &text, &text_len));
    CHECK(claim == SNODO_CLAIM_DONE && text && text_len == 12 && strcmp(text, "{\"booked\":1}") == 0,
          "done with the first result: %d %s", (int)claim, text ? text : "(null)");
    snodo_string_free(text);

    /* After a failed effect: the claim and the token id this attempt
     * consumed go back together, only while the claim is pending. */
    CHECK_OK(snodo_once_consume(m, S(TOKEN_B), NOW + 360, NOW, &first));
    CHECK(first, "token B consumed");
    CHECK_OK(snodo_once_release_token(m, S(FLOW), S(DIGEST_ADA), S(TOKEN_B))); /* done: nothing given back */
    CHECK_OK(snodo_once_consume(m, S(TOKEN_B), NOW + 360, NOW, &first));
    CHECK(!first, "a done claim keeps its token consumed");
    CHECK_OK(snodo_once_claim(m, S(FLOW), S(DIGEST_EMPTY), NOW + 360, NOW, &claim, NULL, NULL));
    CHECK(claim == SNODO_CLAIM_PENDING, "still held %d", (int)claim);
    CHECK_OK(snodo_once_release_token(m, S(FLOW), S(DIGEST_EMPTY), S(TOKEN_B)));
    CHECK_OK(snodo_once_consume(m, S(TOKEN_B), NOW + 360, NOW, &first));
    CHECK(first, "a pending claim's release gave the token back");
    CHECK_OK(snodo_once_claim(m, S(FLOW), S(DIGEST_EMPTY), NOW + 360, NOW, &claim, NULL, NULL));
    CHECK(claim == SNODO_CLAIM_WON, "and the claim %d", (int)claim);
    CHECK(snodo_once_release_token(m, S(FLOW), S(DIGEST_EMPTY), S("a:b")) == SNODO_STATUS_ARGUMENT, "bad token id");
    CHECK(snodo_once_release_token(m, S(FLOW), S(DIGEST_EMPTY), NULL, 0) == SNODO_STATUS_NULL_ARGUMENT, "NULL token");
    CHECK_OK(snodo_once_claim(m, S(FLOW), S(DIGEST_EMPTY), NOW + 360, NOW, &claim, NULL, NULL));
    CHECK(claim == SNODO_CLAIM_PENDING, "an error released nothing %d", (int)claim);
    CHECK_OK(snodo_once_consume(m, S(TOKEN_B), NOW + 360, NOW, &first));
    CHECK(!first, "an error gave nothing back");

    /* Bad ids and NULLs: clear statuses, outs untouched. */
    first = true;
    CHECK(snodo_once_consume(m, S(""), NOW, NOW, &first) == SNODO_STATUS_ARGUMENT, "empty id");
    CHECK(snodo_once_consume(m, S("a:b"), NOW, NOW, &first) == SNODO_STATUS_ARGUMENT, "colon");
    CHECK(strstr(last_error_text(), "ARGUMENT: once store: token id") != NULL, "%s", last_error_text());
    CHECK(snodo_once_consume(m, S("\xff"), NOW, NOW, &first) == SNODO_STATUS_INVALID_UTF8, "utf8");
    CHECK(snodo_once_consume(NULL, S(TOKEN_B), NOW, NOW, &first) == SNODO_STATUS_NULL_ARGUMENT, "NULL store");
    CHECK(snodo_once_consume(m, S(TOKEN_B), NOW, NOW, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    CHECK(snodo_once_claim(m, NULL, 0, S(DIGEST_ADA), NOW, NOW, &claim, NULL, NULL) == SNODO_STATUS_NULL_ARGUMENT,
          "NULL flow");
    CHECK(snodo_once_complete(m, S(FLOW), S(DIGEST_ADA), NULL, 0, NOW, NOW) == SNODO_STATUS_NULL_ARGUMENT,
          "NULL result");
    CHECK(first, "out untouched on errors");
    snodo_once_memory_free(m);
    snodo_once_memory_free(NULL);

    /* Full of live entries: STORE, never a forgotten entry. */
    CHECK_OK(snodo_once_memory_new(1, 5, &m));
    CHECK_OK(snodo_once_consume(m, S(TOKEN_A), NOW + 60, NOW, &first));
    CHECK(snodo_once_consume(m, S(TOKEN_B), NOW + 60, NOW, &first) == SNODO_STATUS_STORE, "full");
    CHECK(strstr(last_error_text(), "STORE: once store: store full") != NULL, "%s", last_error_text());
    CHECK_OK(snodo_once_consume(m, S(TOKEN_B), NOW + 120, NOW + 61, &first)); /* the first one expired */
    CHECK(first, "room after expiry");
    /* The lease: a won claim lapses after 5 s. */
    snodo_once_memory_free(m);
    CHECK_OK(snodo_once_memory_new(10, 5, &m));
    CHECK_OK(snodo_once_claim(m, S(FLOW), S(DIGEST_ADA), NOW + 360, NOW, &claim, NULL, NULL));
    CHECK_OK(snodo_once_claim(m, S(FLOW), S(DIGEST_ADA), NOW + 360, NOW + 4, &claim, NULL, NULL));
    CHECK(claim == SNODO_CLAIM_PENDING, "within the lease %d", (int)claim);
    CHECK_OK(snodo_once_claim(m, S(FLOW), S(DIGEST_ADA), NOW + 360, NOW + 5, &claim, NULL, NULL));
    CHECK(claim == SNODO_CLAIM_WON, "after the lease %d", (int)claim);
    snodo_once_memory_free(m);
    CHECK(snodo_once_memory_new(0, 0, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    case_end("in-memory store: consume, claim, complete, release, bounds, lease, misuse");
}

#define RACERS 8
struct racer {
    snodo_once_memory *m;
    int won, consumed, errors;
};

static void *race(void *arg) {
    struct racer *r = arg;
    snodo_claim claim;
    bool first = false;
    if (snodo_once_claim(r->m, S(FLOW), S(DIGEST_ADA), NOW + 360, NOW, &claim, NULL, NULL) != SNODO_STATUS_OK)
        r->errors++;
    else if (claim == SNODO_CLAIM_WON)
        r->won++;
    if (snodo_once_consume(r->m, S(TOKEN_A), NOW + 360, NOW, &first) != SNODO_STATUS_OK)
        r->errors++;
    else if (first)
        r->consumed++;
    return NULL;
}

static void test_memory_store_threads(void) {
    case_begin();
    for (int round = 0; round < 50; round++) {
        snodo_once_memory *m = NULL;
        CHECK_OK(snodo_once_memory_new(0, 0, &m));
        struct racer rs[RACERS];
        pthread_t th[RACERS];
        for (int k = 0; k < RACERS; k++) {
            rs[k] = (struct racer){m, 0, 0, 0};
            pthread_create(&th[k], NULL, race, &rs[k]);
        }
        int won = 0, consumed = 0, errors = 0;
        for (int k = 0; k < RACERS; k++) {
            pthread_join(th[k], NULL);
            won += rs[k].won;
            consumed += rs[k].consumed;
            errors += rs[k].errors;
        }
        CHECK(won == 1 && consumed == 1 && errors == 0, "round %d: won %d consumed %d errors %d", round, won,
              consumed, errors);
        snodo_once_memory_free(m);
    }
    case_end("in-memory store shared by 8 threads: exactly one wins, one consumes");
}

static void test_keys_and_scripts(void) {
    case_begin();
    char *k = NULL;
    size_t n = 0;
    CHECK_OK(snodo_once_token_key(NULL, 0, S(TOKEN_A), &k, &n));
    CHECK(k && strcmp(k, SNODO_ONCE_DEFAULT_PREFIX "token:" TOKEN_A) == 0 && n == strlen(k), "%s", k);
    snodo_string_free(k);
    CHECK_OK(snodo_once_result_key(S("app:"), S(FLOW), S(DIGEST_ADA), &k, NULL));
    CHECK(k && strcmp(k, "app:result:" FLOW ":" DIGEST_ADA) == 0, "%s", k);
    snodo_string_free(k);
    CHECK_OK(snodo_once_token_key(S(""), S(TOKEN_A), &k, NULL));
    CHECK(k && strcmp(k, "token:" TOKEN_A) == 0, "empty prefix %s", k);
    snodo_string_free(k);
    k = NULL;
    CHECK(snodo_once_token_key(S("a b"), S(TOKEN_A), &k, NULL) == SNODO_STATUS_CONFIG, "space in prefix");
    CHECK(snodo_once_result_key(NULL, 0, S("f:1"), S(DIGEST_ADA), &k, NULL) == SNODO_STATUS_ARGUMENT, "colon");
    CHECK(snodo_once_result_key(NULL, 0, S(FLOW), S(DIGEST_ADA), NULL, NULL) == SNODO_STATUS_NULL_ARGUMENT, "out");
    CHECK(k == NULL, "out untouched");

    /* The scripts are static and the documented protocol. */
#define CLAIM_HEAD "if redis.call('SET', KEYS[1], 'pending', 'NX', 'PX', ARGV[1]) then\n"
    CHECK(strncmp(snodo_once_claim_script(), CLAIM_HEAD, sizeof CLAIM_HEAD - 1) == 0,
          "%s", snodo_once_claim_script());
    CHECK(strstr(snodo_once_complete_script(), "'done:' .. ARGV[1]") != NULL, "%s", snodo_once_complete_script());
    CHECK(strstr(snodo_once_release_script(), "'DEL', unpack(KEYS)") != NULL, "%s", snodo_once_release_script());
    CHECK(snodo_once_claim_script() == snodo_once_claim_script(), "static");
    CHECK(strcmp(SNODO_ONCE_PENDING, "pending") == 0 && strcmp(SNODO_ONCE_DONE_PREFIX, "done:") == 0 &&
              strcmp(SNODO_ONCE_WON, "won") == 0 && strcmp(SNODO_ONCE_CONSUMED, "1") == 0,
          "values");
    case_end("once keys, values and Lua scripts");
}

void run_once_tests(void) {
    test_call_readers();
    test_memory_store();
    test_memory_store_threads();
    test_keys_and_scripts();
}
