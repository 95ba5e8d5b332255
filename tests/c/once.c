/* At most once per flow in C: the call's readers, and the core's once
 * machine driven step by step over the in-memory store (eight threads on
 * one flow, a completed flow asked again through a new token, lookups, a
 * failed effect released and rebooked, a lease that lapses on a clock the
 * test controls, and misuse).
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

#define NOW 1800000000u
/* The memory store's clock in the tests that control it: the engine's. */
#define NOW_MS ((uint64_t)NOW * 1000)

/* base64url(SHA-256(canonical JSON)), computed outside snodo (Python
 * hashlib) so that the C reader is checked against the definition. */
#define DIGEST_EMPTY "RBNvo1WzZ4oRRq0W9-hknpT7T8If536DEMBg9hyq_4o"
#define DIGEST_ADA "wqmp0kb1QdrPbmSfCdQyWbpBIH4VhA2VCoyR8HetSSc"

#define ANSWER(name) "{\"name\":{\"action\":\"accept\",\"content\":{\"name\":\"" name "\"}}}"

/* ---- Flows ------------------------------------------------------------ */

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

/* A request for the tool with arguments {"n":<n>} (another n is another
 * flow: the engine's seeded ids derive from the request), carrying
 * `answers` (JSON object text, NULL = none) and `state` (NULL = none). */
static snodo_call *request_n(snodo_engine *e, int id, int n, const char *answers, const char *state) {
    sbuf r = {0};
    char head[200];
    snprintf(head, sizeof head,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"book\",\"arguments\":{\"n\":%d},",
             id, n);
    sb_str(&r, head);
    sb_str(&r, META(CAPS_ALL));
    if (answers) {
        sb_str(&r, ",\"inputResponses\":");
        sb_str(&r, answers);
    }
    if (state) {
        sb_str(&r, ",\"requestState\":\"");
        sb_str(&r, state);
        sb_str(&r, "\"");
    }
    sb_str(&r, "}}");
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    CHECK_OK(snodo_engine_begin(e, (const uint8_t *)r.p, r.n, S("alice"), &call, &resp));
    CHECK(call && !resp, "a call: %s", r.p);
    snodo_response_free(resp);
    sb_free(&r);
    return call;
}

/* A retry of the flow of {"n":2}. */
static snodo_call *retry(snodo_engine *e, int id, const char *answers, const char *state) {
    return request_n(e, id, 2, answers, state);
}

/* Decides `call` with the name question; returns the new state. */
static char *ask_name(snodo_engine *e, snodo_call *call) {
    snodo_response *resp = NULL;
    snodo_question *form = NULL;
    CHECK_OK(snodo_elicit_form(S("Your name?"),
                               S("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
                                 "\"required\":[\"name\"]}"),
                               &form));
    snodo_input_request ask[] = {{S("name"), form}};
    CHECK_OK(snodo_engine_decide_input_required(e, call, ask, 1, NULL, 0, &resp));
    snodo_question_free(form);
    char *state = request_state(resp);
    CHECK(state != NULL, "input_required carries a requestState");
    snodo_response_free(resp);
    return state;
}

/* The round-1 token of the flow of {"n":<n>} (round 1 asks the name);
 * malloc'd. */
static char *new_flow_n(snodo_engine *e, int n) {
    snodo_call *c1 = request_n(e, 1, n, NULL, NULL);
    char *state = c1 ? ask_name(e, c1) : NULL;
    snodo_call_free(c1);
    return state;
}

static char *new_flow(snodo_engine *e) { return new_flow_n(e, 2); }

/* ---- A driver of the machine over the memory store -------------------- */

static snodo_once_step_kind kind_of(const snodo_once_step *step) {
    snodo_once_step_kind k = (snodo_once_step_kind)-1;
    CHECK_OK(snodo_once_step_get_kind(step, &k));
    return k;
}

/* Runs a COMMAND step's command on `m` at `now_ms` (0 = system clock) and
 * feeds the reply; returns feed's status, the next step in `*next`. */
static snodo_status exec_feed(snodo_once_memory *m, snodo_once_run *run, const snodo_once_step *step,
                              uint64_t now_ms, snodo_once_step **next) {
    const snodo_once_command *cmd = NULL;
    char *reply = NULL;
    size_t len = 0;
    snodo_status st = snodo_once_step_command(step, &cmd);
    if (st == SNODO_STATUS_OK) st = snodo_once_memory_execute(m, cmd, now_ms, &reply, &len);
    if (st == SNODO_STATUS_OK) st = snodo_once_run_feed(run, (const uint8_t *)reply, len, next);
    snodo_string_free(reply);
    return st;
}

/* One step of `run` replaced by the next. */
static void advance_to(snodo_once_step **step, snodo_once_step *next) {
    snodo_once_step_free(*step);
    *step = next;
}

static atomic_int g_effects;

typedef struct {
    int fail;          /* the effect fails before doing anything */
    const char *text;  /* what it answers (NULL: "entry <n>") */
    uint64_t fence;    /* the fence it was handed */
} effect;

/* The whole driver, as every binding writes it, on the memory store.
 * `now_ms` 0 is the system clock and real pauses; otherwise a virtual
 * clock that SLEEP steps move on. On OK `*text` is the result (malloc'd);
 * on RELEASED the status is ARGUMENT with `*released` set. No CHECK here:
 * threads call it. */
static snodo_status drive(snodo_once_memory *m, const snodo_call *call, uint64_t now_ms, uint64_t wait_ms,
                          effect *fx, char **text, int *released) {
    snodo_once_run *run = NULL;
    snodo_once_step *step = NULL, *next = NULL;
    snodo_status st = snodo_once_run_new(call, NULL, 0, 0, wait_ms, &run);
    if (st == SNODO_STATUS_OK) st = snodo_once_run_start(run, &step);
    while (st == SNODO_STATUS_OK) {
        snodo_once_step_kind k = SNODO_ONCE_STEP_KIND_OPEN;
        snodo_once_step_get_kind(step, &k);
        if (k == SNODO_ONCE_STEP_KIND_COMMAND) {
            st = exec_feed(m, run, step, now_ms, &next);
        } else if (k == SNODO_ONCE_STEP_KIND_SLEEP) {
            uint64_t ms = 0;
            snodo_once_step_sleep_ms(step, &ms);
            if (now_ms) {
                now_ms += ms;
            } else {
                struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
                nanosleep(&ts, NULL);
            }
            st = snodo_once_run_resume(run, &next);
        } else if (k == SNODO_ONCE_STEP_KIND_EFFECT) {
            snodo_once_step_fence(step, &fx->fence);
            if (fx->fail) {
                st = snodo_once_run_effect_failed(run, &next);
            } else {
                char own[32];
                snprintf(own, sizeof own, "entry %d", atomic_fetch_add(&g_effects, 1) + 1);
                const char *t = fx->text ? fx->text : own;
                st = snodo_once_run_effect_done(run, (const uint8_t *)t, strlen(t), &next);
            }
        } else if (k == SNODO_ONCE_STEP_KIND_DONE) {
            char *s = NULL;
            st = snodo_once_step_text(step, &s, NULL);
            if (st == SNODO_STATUS_OK) *text = strdup(s);
            snodo_string_free(s);
            break;
        } else {
            *released = k == SNODO_ONCE_STEP_KIND_RELEASED;
            st = SNODO_STATUS_ARGUMENT;
            break;
        }
        if (st == SNODO_STATUS_OK) advance_to(&step, next);
    }
    snodo_once_step_free(step);
    snodo_once_run_free(run);
    return st;
}

/* A lookup of `call`'s flow: DONE (`*text` malloc'd), OPEN (`*text`
 * NULL), or a failure status. */
static snodo_status lookup(snodo_once_memory *m, const snodo_call *call, char **text) {
    snodo_once_run *run = NULL;
    snodo_once_step *step = NULL, *next = NULL;
    *text = NULL;
    snodo_status st = snodo_once_lookup_new(call, NULL, 0, &run);
    if (st == SNODO_STATUS_OK) st = snodo_once_run_start(run, &step);
    if (st == SNODO_STATUS_OK) st = exec_feed(m, run, step, 0, &next);
    if (st == SNODO_STATUS_OK && kind_of(next) == SNODO_ONCE_STEP_KIND_DONE) {
        char *s = NULL;
        CHECK_OK(snodo_once_step_text(next, &s, NULL));
        *text = s ? strdup(s) : NULL;
        snodo_string_free(s);
    } else if (st == SNODO_STATUS_OK) {
        CHECK(kind_of(next) == SNODO_ONCE_STEP_KIND_OPEN, "a lookup ends DONE or OPEN");
    }
    snodo_once_step_free(next);
    snodo_once_step_free(step);
    snodo_once_run_free(run);
    return st;
}

/* ---- Tests ------------------------------------------------------------- */

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
    uint64_t exp = 99, flow_exp = 99;
    CHECK_OK(snodo_call_flow_id(c1, &flow, &flow_len));
    CHECK_OK(snodo_call_token_id(c1, &tid, &tid_len));
    CHECK_OK(snodo_call_token_expires_at(c1, &exp));
    CHECK_OK(snodo_call_flow_expires_at(c1, &flow_exp));
    CHECK_OK(snodo_call_answers_digest(c1, &digest, &digest_len));
    CHECK(flow == NULL && flow_len == 0 && tid == NULL && tid_len == 0 && exp == 0 && flow_exp == 0,
          "round 1 has no ids");
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
    CHECK_OK(snodo_call_flow_expires_at(c2, &flow_exp));
    CHECK_OK(snodo_call_answers_digest(c2, &digest, NULL));
    CHECK(flow2 && flow_len == 22 && strlen(flow2) == 22, "flow id %s", flow2 ? flow2 : "(null)");
    CHECK(tid2 && tid_len == 22 && strlen(tid2) == 22, "token id %s", tid2 ? tid2 : "(null)");
    CHECK(exp == NOW + 300, "expires %llu (now + the default ttl)", (unsigned long long)exp);
    /* Flow start + the default max flow age (3600) + clock skew (60). */
    CHECK(flow_exp == NOW + 3600 + 60, "flow expires %llu", (unsigned long long)flow_exp);
    CHECK(digest && strcmp(digest, DIGEST_ADA) == 0, "digest %s (key order and spacing do not count)", digest);
    snodo_string_free(digest);
    char *s2 = ask_name(e, c2);
    snodo_call_free(c2);

    /* Round 3: the same flow id, a new token id. */
    snodo_call *c3 = retry(e, 3, ANSWER("Ada"), s2);
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
    CHECK(snodo_call_flow_expires_at(NULL, &exp) == SNODO_STATUS_NULL_ARGUMENT, "NULL call");
    CHECK(snodo_engine_now(e, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    snodo_string_free(flow2);
    snodo_string_free(tid2);
    free(s1);
    free(s2);
    snodo_engine_free(e);
    case_end("call flow id, token id, expiries and answers digest over three rounds");
}

#define RACERS 8
struct racer {
    snodo_once_memory *m;
    snodo_call *call;
    snodo_status status;
    char *text;
    char *detail;
};

static void *race(void *arg) {
    struct racer *r = arg;
    effect fx = {0, NULL, 0};
    int released = 0;
    r->status = drive(r->m, r->call, 0, 0, &fx, &r->text, &released);
    if (r->status != SNODO_STATUS_OK) {
        snodo_last_error(&r->detail, NULL); /* this thread's own last error */
    }
    return NULL;
}

/* Eight threads, each with its own call of one flow: half answer Ada, half
 * Bob. Exactly one effect runs; the threads with the winner's answers get
 * its text, the others the replay (TOKEN). */
static void test_eight_threads_one_flow(void) {
    case_begin();
    snodo_engine *e = test_engine(NOW);
    char *state = new_flow(e);
    for (int round = 0; round < 20 && state; round++) {
        snodo_once_memory *m = NULL;
        CHECK_OK(snodo_once_memory_new(0, 0, &m));
        atomic_store(&g_effects, 0);
        struct racer rs[RACERS];
        pthread_t th[RACERS];
        for (int k = 0; k < RACERS; k++) {
            rs[k] = (struct racer){m, retry(e, 10 + k, k % 2 ? ANSWER("Bob") : ANSWER("Ada"), state), 0, NULL, NULL};
        }
        for (int k = 0; k < RACERS; k++) pthread_create(&th[k], NULL, race, &rs[k]);
        for (int k = 0; k < RACERS; k++) pthread_join(th[k], NULL);
        int winner = -1, done = 0, replayed = 0;
        for (int k = 0; k < RACERS; k++) {
            if (rs[k].status == SNODO_STATUS_OK && rs[k].text && strcmp(rs[k].text, "entry 1") == 0) {
                done++;
                if (winner < 0) winner = k % 2;
                CHECK(winner == k % 2, "round %d: thread %d got the text with the other answers", round, k);
            } else if (rs[k].status == SNODO_STATUS_TOKEN) {
                replayed++;
                CHECK(rs[k].detail && strstr(rs[k].detail, SNODO_ONCE_REPLAYED_MESSAGE), "replay detail %s",
                      rs[k].detail ? rs[k].detail : "(none)");
            } else {
                CHECK(0, "round %d: thread %d: status %d %s", round, k, (int)rs[k].status,
                      rs[k].detail ? rs[k].detail : "");
            }
        }
        CHECK(atomic_load(&g_effects) == 1 && done == RACERS / 2 && replayed == RACERS / 2,
              "round %d: %d effects, %d done, %d replayed", round, atomic_load(&g_effects), done, replayed);
        for (int k = 0; k < RACERS; k++) {
            free(rs[k].text);
            snodo_string_free(rs[k].detail);
            snodo_call_free(rs[k].call);
        }
        snodo_once_memory_free(m);
    }
    free(state);
    snodo_engine_free(e);
    case_end("eight threads on one flow with two answers: one effect, its text, the others replayed");
}

/* The attack: a booked flow's token sent again without answers, the
 * handler asks again, and the new token carries other answers. */
static void test_completed_flow_through_a_new_token(void) {
    case_begin();
    snodo_engine *e = test_engine(NOW);
    snodo_once_memory *m = NULL;
    CHECK_OK(snodo_once_memory_new(0, 0, &m));
    atomic_store(&g_effects, 0);
    char *t1 = new_flow(e);
    char *text = NULL;
    int released = 0;
    effect fx = {0, NULL, 0};

    /* A fresh flow: the lookup finds nothing (OPEN). */
    snodo_call *booked = retry(e, 2, ANSWER("Ada"), t1);
    CHECK_OK(lookup(m, booked, &text));
    CHECK(text == NULL, "nothing remembered yet: %s", text);
    CHECK_OK(drive(m, booked, 0, 0, &fx, &text, &released));
    CHECK(text && strcmp(text, "entry 1") == 0 && fx.fence == 1, "booked: %s fence %llu", text,
          (unsigned long long)fx.fence);
    free(text);
    text = NULL;
    CHECK_OK(lookup(m, booked, &text));
    CHECK(text && strcmp(text, "entry 1") == 0, "the lookup finds the result: %s", text);
    free(text);
    text = NULL;

    /* The booked token again without answers: the lookup refuses it. */
    snodo_call *again = retry(e, 3, NULL, t1);
    CHECK(lookup(m, again, &text) == SNODO_STATUS_TOKEN, "asked again: replayed");
    CHECK(strstr(last_error_text(), "TOKEN: " SNODO_ONCE_REPLAYED_MESSAGE) != NULL, "%s", last_error_text());
    /* A server that asks anyway: the new token's other answers are refused. */
    char *t2 = ask_name(e, again);
    snodo_call *other = retry(e, 4, ANSWER("Bob"), t2);
    CHECK(drive(m, other, 0, 0, &fx, &text, &released) == SNODO_STATUS_TOKEN && !text, "other answers: replayed");
    /* The same answers through the new token: the remembered result. */
    snodo_call *same = retry(e, 5, ANSWER("Ada"), t2);
    CHECK_OK(drive(m, same, 0, 0, &fx, &text, &released));
    CHECK(text && strcmp(text, "entry 1") == 0, "remembered: %s", text);
    CHECK(atomic_load(&g_effects) == 1, "one effect in all: %d", atomic_load(&g_effects));
    free(text);
    snodo_call_free(booked);
    snodo_call_free(again);
    snodo_call_free(other);
    snodo_call_free(same);
    free(t1);
    free(t2);
    snodo_once_memory_free(m);
    snodo_engine_free(e);
    case_end("a completed flow asked again through a new token: other answers refused, lookups");
}

static void test_failed_effect_releases(void) {
    case_begin();
    snodo_engine *e = test_engine(NOW);
    snodo_once_memory *m = NULL;
    CHECK_OK(snodo_once_memory_new(0, 0, &m));
    atomic_store(&g_effects, 0);
    char *t1 = new_flow(e);
    snodo_call *call = retry(e, 2, ANSWER("Ada"), t1);
    char *text = NULL;
    int released = 0;
    effect fx = {1, NULL, 0};
    CHECK(drive(m, call, 0, 0, &fx, &text, &released) == SNODO_STATUS_ARGUMENT && released && fx.fence == 1,
          "the failed effect's claim is released (fence %llu)", (unsigned long long)fx.fence);
    CHECK_OK(lookup(m, call, &text));
    CHECK(text == NULL, "nothing remembered after a release");
    fx = (effect){0, "rebooked", 0};
    CHECK_OK(drive(m, call, 0, 0, &fx, &text, &released));
    CHECK(text && strcmp(text, "rebooked") == 0 && fx.fence == 2, "rebooked with fence %llu",
          (unsigned long long)fx.fence);
    free(text);
    snodo_call_free(call);
    free(t1);
    snodo_once_memory_free(m);
    snodo_engine_free(e);
    case_end("a failed effect is released and the retry books with a greater fence");
}

/* Two runs of one flow on the store's clock the test controls: the first
 * owner extends, lapses, is taken over, and can then change nothing. */
static void test_lease_lapse(void) {
    case_begin();
    snodo_engine *e = test_engine(NOW);
    snodo_once_memory *m = NULL;
    CHECK_OK(snodo_once_memory_new(0, 0, &m));
    char *t1 = new_flow(e);
    snodo_call *call = retry(e, 2, ANSWER("Ada"), t1);
    snodo_once_run *a = NULL, *b = NULL;
    snodo_once_step *sa = NULL, *sb = NULL, *next = NULL;
    /* A 1000 ms lease; B waits up to 5 s. */
    CHECK_OK(snodo_once_run_new(call, NULL, 0, 1000, 0, &a));
    CHECK_OK(snodo_once_run_new(call, NULL, 0, 1000, 5000, &b));
    if (!a || !b) goto out;
    CHECK_OK(snodo_once_run_start(a, &sa));
    CHECK_OK(exec_feed(m, a, sa, NOW_MS, &next));
    advance_to(&sa, next);
    CHECK(kind_of(sa) == SNODO_ONCE_STEP_KIND_EFFECT, "A holds the claim");

    /* A extends at +900: its lease now runs to +1900. */
    const snodo_once_command *ext = NULL;
    char *reply = NULL;
    size_t len = 0;
    bool extended = false;
    CHECK_OK(snodo_once_step_extend_command(sa, &ext));
    CHECK_OK(snodo_once_memory_execute(m, ext, NOW_MS + 900, &reply, &len));
    CHECK_OK(snodo_once_step_extended(sa, (const uint8_t *)reply, len, &extended));
    CHECK(extended, "extended: %s", reply);
    snodo_string_free(reply);

    /* B at +1001 finds A's live claim and pauses. */
    CHECK_OK(snodo_once_run_start(b, &sb));
    CHECK_OK(exec_feed(m, b, sb, NOW_MS + 1001, &next));
    advance_to(&sb, next);
    uint64_t ms = 0;
    CHECK(kind_of(sb) == SNODO_ONCE_STEP_KIND_SLEEP, "B sleeps");
    CHECK_OK(snodo_once_step_sleep_ms(sb, &ms));
    CHECK(ms == 5, "the first pause is 5 ms: %llu", (unsigned long long)ms);
    /* After A's extended lease lapses, B takes over with fence 2. */
    CHECK_OK(snodo_once_run_resume(b, &next));
    advance_to(&sb, next);
    CHECK_OK(exec_feed(m, b, sb, NOW_MS + 1901, &next));
    advance_to(&sb, next);
    uint64_t fence = 0;
    CHECK(kind_of(sb) == SNODO_ONCE_STEP_KIND_EFFECT, "B took over");
    CHECK_OK(snodo_once_step_fence(sb, &fence));
    CHECK(fence == 2, "B's fence %llu", (unsigned long long)fence);

    /* A, too late: its extension is lost, and so is its completion. */
    CHECK_OK(snodo_once_memory_execute(m, ext, NOW_MS + 1902, &reply, &len));
    CHECK_OK(snodo_once_step_extended(sa, (const uint8_t *)reply, len, &extended));
    CHECK(!extended, "A's lease is gone: %s", reply);
    snodo_string_free(reply);
    CHECK_OK(snodo_once_run_effect_done(a, S("A's result"), &next));
    advance_to(&sa, next);
    CHECK(exec_feed(m, a, sa, NOW_MS + 1903, &next) == SNODO_STATUS_STORE, "A's completion is refused");
    CHECK(strstr(last_error_text(), "taken over") != NULL, "%s", last_error_text());
    /* B completes; a lookup answers B's result. */
    CHECK_OK(snodo_once_run_effect_done(b, S("B's result"), &next));
    advance_to(&sb, next);
    CHECK_OK(exec_feed(m, b, sb, NOW_MS + 1904, &next));
    advance_to(&sb, next);
    char *text = NULL;
    CHECK(kind_of(sb) == SNODO_ONCE_STEP_KIND_DONE, "B done");
    CHECK_OK(snodo_once_step_text(sb, &text, &len));
    CHECK(text && len == 10 && strcmp(text, "B's result") == 0, "B's text %s", text);
    snodo_string_free(text);
    CHECK_OK(lookup(m, call, &reply));
    CHECK(reply && strcmp(reply, "B's result") == 0, "remembered %s", reply);
    free(reply);
out:
    snodo_once_step_free(sa);
    snodo_once_step_free(sb);
    snodo_once_run_free(a);
    snodo_once_run_free(b);
    snodo_call_free(call);
    free(t1);
    snodo_once_memory_free(m);
    snodo_engine_free(e);
    case_end("a lease extended, then lapsed: taken over with a greater fence; the former owner changes nothing");
}

/* A claim that stays live past the wait: STORE "still running". */
static void test_wait_runs_out(void) {
    case_begin();
    snodo_engine *e = test_engine(NOW);
    snodo_once_memory *m = NULL;
    CHECK_OK(snodo_once_memory_new(0, 0, &m));
    char *t1 = new_flow(e);
    snodo_call *call = retry(e, 2, ANSWER("Ada"), t1);
    snodo_once_run *holder = NULL;
    snodo_once_step *step = NULL, *next = NULL;
    CHECK_OK(snodo_once_run_new(call, NULL, 0, 0, 0, &holder));
    if (holder) {
        CHECK_OK(snodo_once_run_start(holder, &step));
        CHECK_OK(exec_feed(m, holder, step, NOW_MS, &next));
        CHECK(kind_of(next) == SNODO_ONCE_STEP_KIND_EFFECT, "the holder won");
    }
    char *text = NULL;
    int released = 0;
    effect fx = {0, NULL, 0};
    atomic_store(&g_effects, 0);
    /* 20 ms of virtual pauses (5 + 10 + 5) within the 30 s lease. */
    CHECK(drive(m, call, NOW_MS + 1, 20, &fx, &text, &released) == SNODO_STATUS_STORE, "still running");
    CHECK(strstr(last_error_text(), "still running") && strstr(last_error_text(), "after 20 ms"), "%s",
          last_error_text());
    CHECK(atomic_load(&g_effects) == 0 && !text, "no effect while the claim is held");
    snodo_once_step_free(next);
    snodo_once_step_free(step);
    snodo_once_run_free(holder);
    snodo_call_free(call);
    free(t1);
    snodo_once_memory_free(m);
    snodo_engine_free(e);
    case_end("a claim held past the wait: STORE still running, no effect");
}

static void test_misuse(void) {
    case_begin();
    snodo_engine *e = test_engine(NOW);
    snodo_once_memory *m = NULL;
    CHECK_OK(snodo_once_memory_new(0, 0, &m));
    snodo_once_run *run = NULL, *sentinel_run = (snodo_once_run *)1;
    snodo_once_step *step = NULL, *next = NULL, *sentinel = (snodo_once_step *)1;

    /* Not a retry: no flow to key on. */
    snodo_call *first = NULL;
    snodo_response *resp = NULL;
    CHECK_OK(snodo_engine_begin(e, S(TOOL_CALL("1")), S("alice"), &first, &resp));
    snodo_response_free(resp);
    resp = NULL;
    run = sentinel_run;
    CHECK(snodo_once_run_new(first, NULL, 0, 0, 0, &run) == SNODO_STATUS_ARGUMENT, "first round");
    CHECK(strstr(last_error_text(), "not a retry") != NULL, "%s", last_error_text());
    CHECK(snodo_once_lookup_new(first, NULL, 0, &run) == SNODO_STATUS_ARGUMENT, "first round lookup");
    CHECK(run == sentinel_run, "out untouched");

    char *t1 = first ? ask_name(e, first) : NULL;
    snodo_call *call = retry(e, 2, ANSWER("Ada"), t1);
    /* Bad arguments: NULLs, a bad prefix, a prefix that is not UTF-8. */
    CHECK(snodo_once_run_new(NULL, NULL, 0, 0, 0, &run) == SNODO_STATUS_NULL_ARGUMENT, "NULL call");
    CHECK(snodo_once_run_new(call, NULL, 0, 0, 0, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    CHECK(snodo_once_run_new(call, S("a b"), 0, 0, &run) == SNODO_STATUS_CONFIG, "space in prefix");
    CHECK(snodo_once_run_new(call, S("{tag}"), 0, 0, &run) == SNODO_STATUS_CONFIG, "braces in prefix");
    CHECK(snodo_once_run_new(call, S("\xff"), 0, 0, &run) == SNODO_STATUS_INVALID_UTF8, "prefix UTF-8");
    CHECK(snodo_once_lookup_new(call, S("\xc3"), &run) == SNODO_STATUS_INVALID_UTF8, "lookup prefix UTF-8");
    CHECK(run == sentinel_run, "out untouched");

    /* Out of order. */
    CHECK_OK(snodo_once_run_new(call, S("app:"), 0, 0, &run));
    next = sentinel;
    CHECK(snodo_once_run_feed(run, S("won 1"), &next) == SNODO_STATUS_ARGUMENT, "feed before start");
    CHECK(strstr(last_error_text(), "out of order") != NULL, "%s", last_error_text());
    CHECK(snodo_once_run_resume(run, &next) == SNODO_STATUS_ARGUMENT, "resume before start");
    CHECK(snodo_once_run_effect_done(run, S("x"), &next) == SNODO_STATUS_ARGUMENT, "done before start");
    CHECK(snodo_once_run_effect_failed(run, &next) == SNODO_STATUS_ARGUMENT, "failed before start");
    CHECK(next == sentinel, "out untouched");
    CHECK(snodo_once_run_start(run, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    CHECK(snodo_once_run_start(NULL, &step) == SNODO_STATUS_NULL_ARGUMENT, "NULL run");
    CHECK_OK(snodo_once_run_start(run, &step)); /* the NULLs above changed nothing */
    CHECK(snodo_once_run_start(run, &next) == SNODO_STATUS_ARGUMENT, "started twice");

    /* The command lent by the claim step. */
    const snodo_once_command *cmd = NULL;
    const char *p = NULL;
    size_t n = 0, count = 0;
    snodo_once_op op = SNODO_ONCE_OP_LOOKUP;
    CHECK_OK(snodo_once_step_command(step, &cmd));
    CHECK_OK(snodo_once_command_op(cmd, &op));
    CHECK(op == SNODO_ONCE_OP_CLAIM, "op %d", (int)op);
    CHECK_OK(snodo_once_command_key(cmd, &p, &n));
    CHECK(p && n == strlen("app:flow:{}") + 22 && strncmp(p, "app:flow:{", 10) == 0 && p[n] == '\0', "key %s", p);
    CHECK_OK(snodo_once_command_script(cmd, &p, &n));
    CHECK(p == snodo_once_claim_script() && n == strlen(p), "the claim script, static");
    CHECK_OK(snodo_once_command_arg_count(cmd, &count));
    CHECK(count == 4, "claim args %zu", count);
    CHECK_OK(snodo_once_command_arg(cmd, 0, &p, &n));
    CHECK(p && n == 43 && strcmp(p, DIGEST_ADA) == 0, "ARGV[1] is the answers digest: %s", p);
    CHECK_OK(snodo_once_command_arg(cmd, 2, &p, NULL));
    CHECK(p && strcmp(p, "30000") == 0, "ARGV[3] is the default lease: %s", p);
    p = NULL;
    CHECK(snodo_once_command_arg(cmd, 4, &p, &n) == SNODO_STATUS_ARGUMENT && p == NULL, "no ARGV[5]");
    CHECK(snodo_once_command_key(NULL, &p, &n) == SNODO_STATUS_NULL_ARGUMENT, "NULL command");
    CHECK(snodo_once_command_key(cmd, NULL, &n) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");

    /* Readers of other kinds refuse a COMMAND step. */
    uint64_t u = 7;
    char *s = NULL;
    bool b = false;
    CHECK(snodo_once_step_sleep_ms(step, &u) == SNODO_STATUS_ARGUMENT, "not SLEEP");
    CHECK(snodo_once_step_fence(step, &u) == SNODO_STATUS_ARGUMENT, "not EFFECT");
    CHECK(strstr(last_error_text(), "not an EFFECT step (it is COMMAND)") != NULL, "%s", last_error_text());
    CHECK(snodo_once_step_extend_command(step, &cmd) == SNODO_STATUS_ARGUMENT, "not EFFECT");
    CHECK(snodo_once_step_extended(step, S("extended 1"), &b) == SNODO_STATUS_ARGUMENT, "not EFFECT");
    CHECK(snodo_once_step_text(step, &s, NULL) == SNODO_STATUS_ARGUMENT && s == NULL, "not DONE");
    CHECK(u == 7, "out untouched");
    CHECK(snodo_once_step_get_kind(NULL, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL step");

    /* A reply that is not UTF-8, or NULL, changes nothing; one that snodo
     * does not write is STORE and ends the run. */
    CHECK(snodo_once_run_feed(run, S("won \xff"), &next) == SNODO_STATUS_INVALID_UTF8, "reply UTF-8");
    CHECK(snodo_once_run_feed(run, NULL, 0, &next) == SNODO_STATUS_NULL_ARGUMENT, "NULL reply");
    CHECK(snodo_once_run_feed(run, S("won 1"), NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    CHECK(snodo_once_run_feed(run, S("maybe"), &next) == SNODO_STATUS_STORE, "a reply snodo does not write");
    CHECK(strstr(last_error_text(), "unexpected reply to claim") != NULL, "%s", last_error_text());
    CHECK(snodo_once_run_feed(run, S("won 1"), &next) == SNODO_STATUS_ARGUMENT, "the run ended");
    CHECK(next == sentinel, "out untouched");
    snodo_once_run_free(run);
    run = NULL;

    /* The same NULL and UTF-8 misuse mid-run leaves a live run usable. */
    CHECK_OK(snodo_once_run_new(call, NULL, 0, 0, 0, &run));
    snodo_once_step_free(step);
    step = NULL;
    CHECK_OK(snodo_once_run_start(run, &step));
    CHECK(snodo_once_run_feed(run, S("\xe2\x82"), &next) == SNODO_STATUS_INVALID_UTF8, "reply UTF-8");
    CHECK_OK(exec_feed(m, run, step, 0, &next));
    advance_to(&step, next);
    CHECK(kind_of(step) == SNODO_ONCE_STEP_KIND_EFFECT, "won after the refused reply");
    CHECK_OK(snodo_once_step_extend_command(step, &cmd));
    CHECK_OK(snodo_once_command_op(cmd, &op));
    CHECK(op == SNODO_ONCE_OP_EXTEND, "extend op %d", (int)op);
    CHECK(snodo_once_step_extended(step, S("garbage"), &b) == SNODO_STATUS_STORE, "an extend reply snodo does not write");
    CHECK(snodo_once_step_extended(step, S("\xff"), &b) == SNODO_STATUS_INVALID_UTF8, "extend reply UTF-8");
    CHECK(snodo_once_run_feed(run, S("completed"), &next) == SNODO_STATUS_ARGUMENT, "feed during the effect");
    CHECK(snodo_once_run_resume(run, &next) == SNODO_STATUS_ARGUMENT, "resume during the effect");
    CHECK(snodo_once_run_effect_done(run, S("\xff"), &next) == SNODO_STATUS_INVALID_UTF8, "text UTF-8");
    CHECK(snodo_once_run_effect_done(run, NULL, 0, &next) == SNODO_STATUS_NULL_ARGUMENT, "NULL text");
    /* The refused texts left the run at EFFECT; an empty text is a text. */
    CHECK_OK(snodo_once_run_effect_done(run, S(""), &next));
    advance_to(&step, next);
    CHECK(snodo_once_run_effect_failed(run, &next) == SNODO_STATUS_ARGUMENT, "failed after done");
    CHECK_OK(exec_feed(m, run, step, 0, &next));
    advance_to(&step, next);
    CHECK_OK(snodo_once_step_text(step, &s, &n));
    CHECK(s && n == 0 && s[0] == '\0', "an empty result text");
    snodo_string_free(s);
    u = 0;
    CHECK_OK(snodo_once_run_fence(run, &u));
    CHECK(u == 1, "fence %llu", (unsigned long long)u);
    CHECK(snodo_once_run_fence(NULL, &u) == SNODO_STATUS_NULL_ARGUMENT, "NULL run");

    /* The memory store: bounds, NULLs; a full store refuses a new claim. */
    snodo_once_memory *small = NULL;
    CHECK(snodo_once_memory_new(100, 0, &small) == SNODO_STATUS_CONFIG, "max_bytes below 1024");
    CHECK(snodo_once_memory_new(4096, 8192, &small) == SNODO_STATUS_CONFIG, "share above the budget");
    CHECK(snodo_once_memory_new(4096, 0, &small) == SNODO_STATUS_CONFIG, "default share above the budget");
    CHECK(snodo_once_memory_new(0, 0, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    CHECK_OK(snodo_once_memory_new(1024, 1024, &small));
    snodo_once_run_free(run);
    run = NULL;
    CHECK_OK(snodo_once_run_new(call, NULL, 0, 0, 0, &run));
    snodo_once_step_free(step);
    step = NULL;
    CHECK_OK(snodo_once_run_start(run, &step));
    CHECK_OK(snodo_once_step_command(step, &cmd));
    char *reply = NULL;
    CHECK_OK(snodo_once_memory_execute(small, cmd, 0, &reply, NULL));
    CHECK(reply && strcmp(reply, "won 1") == 0, "one record fits: %s", reply);
    snodo_string_free(reply);
    reply = NULL;
    /* New flows until the 1 KiB budget refuses one (a record takes a few
     * hundred bytes): STORE, and the records already there stay. */
    int fitted = 1;
    snodo_status full = SNODO_STATUS_OK;
    for (int k = 0; k < 8 && full == SNODO_STATUS_OK; k++) {
        char *t2 = new_flow_n(e, 100 + k);
        snodo_call *c2 = request_n(e, 10 + k, 100 + k, ANSWER("Ada"), t2);
        snodo_once_run *r2 = NULL;
        snodo_once_step *s2 = NULL;
        CHECK_OK(snodo_once_run_new(c2, NULL, 0, 0, 0, &r2));
        CHECK_OK(snodo_once_run_start(r2, &s2));
        full = exec_feed(small, r2, s2, 0, &next);
        if (full == SNODO_STATUS_OK) {
            fitted++;
            snodo_once_step_free(next);
        } else {
            CHECK(strstr(last_error_text(), "STORE: once store: store full") != NULL, "%s", last_error_text());
        }
        snodo_once_step_free(s2);
        snodo_once_run_free(r2);
        snodo_call_free(c2);
        free(t2);
    }
    CHECK(full == SNODO_STATUS_STORE && fitted >= 2 && fitted <= 4, "full after %d records: %d", fitted, (int)full);
    CHECK_OK(snodo_once_memory_execute(small, cmd, 0, &reply, NULL));
    CHECK(reply && strncmp(reply, "pending 1", 9) == 0, "the first record stayed: %s", reply);
    snodo_string_free(reply);
    reply = NULL;
    CHECK(snodo_once_memory_execute(NULL, cmd, 0, &reply, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL store");
    CHECK(snodo_once_memory_execute(m, NULL, 0, &reply, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL command");
    CHECK(snodo_once_memory_execute(m, cmd, 0, NULL, NULL) == SNODO_STATUS_NULL_ARGUMENT, "NULL out");
    CHECK(reply == NULL, "out untouched");

    /* The eviction policy check and the five scripts. */
    CHECK_OK(snodo_once_check_eviction_policy(S(SNODO_ONCE_SAFE_EVICTION_POLICY)));
    CHECK(snodo_once_check_eviction_policy(S("allkeys-lru")) == SNODO_STATUS_STORE, "an evicting policy");
    CHECK(strstr(last_error_text(), "allkeys-lru") != NULL, "%s", last_error_text());
    CHECK(snodo_once_check_eviction_policy(NULL, 0) == SNODO_STATUS_NULL_ARGUMENT, "NULL policy");
    CHECK(snodo_once_check_eviction_policy(S("\xff")) == SNODO_STATUS_INVALID_UTF8, "policy UTF-8");
    const char *scripts[] = {snodo_once_claim_script(), snodo_once_complete_script(), snodo_once_release_script(),
                             snodo_once_extend_script(), snodo_once_lookup_script()};
    for (int k = 0; k < 5; k++) {
        CHECK(scripts[k] && strstr(scripts[k], "KEYS[1]") && !strstr(scripts[k], "KEYS[2]"), "script %d", k);
    }
    CHECK(strcmp(SNODO_ONCE_DEFAULT_PREFIX, "snodo:once:") == 0, "default prefix");

    /* Every free takes NULL. */
    snodo_once_run_free(NULL);
    snodo_once_step_free(NULL);
    snodo_once_memory_free(NULL);
    snodo_once_memory_free(small);
    snodo_once_step_free(step);
    snodo_once_run_free(run);
    snodo_call_free(call);
    snodo_call_free(first);
    free(t1);
    snodo_once_memory_free(m);
    snodo_engine_free(e);
    case_end("once misuse: not a retry, NULLs, UTF-8, out of order, wrong kinds, bounds, policy");
}

void run_once_tests(void) {
    test_call_readers();
    test_eight_threads_one_flow();
    test_completed_flow_through_a_new_token();
    test_failed_effect_releases();
    test_lease_lapse();
    test_wait_runs_out();
    test_misuse();
}
