/* One shared engine and one shared question hammered from 8 threads: every
 * thread must produce, for every input, exactly the bytes a single thread
 * produced.
 *
 * Operation count (an operation is one begin, one decide, one seal or one
 * open): a flow is begin + decide (round 1, issues a token), begin + decide
 * (round 2, opens it and completes), then a low-level seal + open = 6
 * operations. The full run is 8 threads x 2084 flows x 6 = 100 032
 * operations (>= 100 000, as the concurrency requirement asks).
 *
 * Under AddressSanitizer and valgrind that many flows take minutes, so
 * scripts/test-c.sh sets SNODO_TEST_THREAD_FLOWS to a smaller per-thread
 * count for those two runs; the plain .so and .a runs use the full count.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

#define THREADS 8
#define OPS_PER_FLOW 6
#define FULL_FLOWS_PER_THREAD 2084 /* 8 * 2084 * 6 = 100 032 operations */
/* Distinct inputs (request id, arguments, principal, state) cycled through,
 * so "identical" is checked per input rather than for one repeated input. */
#define VARIANTS 5

static const char *const PRINCIPALS[VARIANTS] = {"bob", "alice", "carol", "bob", "dave"};

typedef struct {
    snodo_engine *engine;
    char **reference; /* VARIANTS texts from the single-threaded run */
    int flows, mismatches, errors, ops;
    int first_bad; /* first mismatching iteration, -1 if none */
} job;

static const char FORM_SCHEMA[] = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}";

/* The question every thread asks and reads: built once, shared by all (a
 * question is immutable and shareable), and its JSON text for the variants
 * that ask with the outcome as text. */
static snodo_question *g_form;
static char *g_form_json;

/* The JSON-RPC request of variant `v` (round 1 when `token` is NULL). */
static void build_request(sbuf *b, int v, const char *token, size_t token_len) {
    char head[160];
    snprintf(head, sizeof head,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"book\","
             "\"arguments\":{\"n\":%d,\"x\":1.0},",
             10 + v, v);
    sb_str(b, head);
    sb_str(b, META(CAPS_ALL));
    if (token) {
        char answer[96];
        snprintf(answer, sizeof answer,
                 ",\"inputResponses\":{\"n\":{\"action\":\"accept\",\"content\":{\"n\":%d}}},\"requestState\":\"",
                 100 + v);
        sb_str(b, answer);
        sb_add(b, token, token_len);
        sb_str(b, "\"");
    }
    sb_str(b, "}}");
}

/* One flow of variant `v`: returns every output (both response bodies, the
 * low-level token and what opening it gives) joined by newlines, malloc'd;
 * NULL and (*errors)++ on any failure. Adds the operations done to *ops. */
static char *one_flow(snodo_engine *e, int v, int *errors, int *ops) {
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    char *b1 = NULL, *b2 = NULL, *value = NULL, *sealed = NULL, *opened = NULL, *out = NULL;
    sbuf req = {0}, o = {0}, o2 = {0}, all = {0};
    const uint8_t *who = (const uint8_t *)PRINCIPALS[v];
    size_t who_len = strlen(PRINCIPALS[v]);
    char state[48];
    snprintf(state, sizeof state, "{\"v\":%d,\"f\":2.50}", v);

    build_request(&req, v, NULL, 0);
    (*ops)++;
    if (snodo_engine_begin(e, (const uint8_t *)req.p, req.n, who, who_len, &call, &resp) != SNODO_STATUS_OK || !call)
        goto fail;
    /* Odd variants ask with the shared question, even ones with its JSON. */
    snodo_status st;
    if (v % 2) {
        snodo_input_request ask[] = {{S("n"), g_form}};
        st = snodo_engine_decide_input_required(e, call, ask, 1, SZ(state), &resp);
    } else {
        sb_str(&o, "{\"type\":\"input_required\",\"inputRequests\":{\"n\":");
        sb_str(&o, g_form_json);
        sb_str(&o, "},\"state\":");
        sb_str(&o, state);
        sb_str(&o, "}");
        st = snodo_engine_decide(e, call, (const uint8_t *)o.p, o.n, &resp);
    }
    (*ops)++;
    if (st != SNODO_STATUS_OK || snodo_response_body(resp, &b1, NULL) != SNODO_STATUS_OK) goto fail;
    snodo_call_free(call);
    snodo_response_free(resp);
    call = NULL;
    resp = NULL;

    const char *tok = strstr(b1, "\"requestState\":\"");
    if (!tok) goto fail;
    tok += 16;
    const char *tok_end = strchr(tok, '"');
    if (!tok_end) goto fail;
    sb_free(&req);
    build_request(&req, v, tok, (size_t)(tok_end - tok));
    (*ops)++;
    if (snodo_engine_begin(e, (const uint8_t *)req.p, req.n, who, who_len, &call, &resp) != SNODO_STATUS_OK || !call)
        goto fail;
    snodo_answer_kind kind;
    if (snodo_call_response(call, S("n"), g_form, &kind, &value, NULL) != SNODO_STATUS_OK ||
        kind != SNODO_ANSWER_KIND_ACCEPTED)
        goto fail;
    sb_str(&o2, "{\"type\":\"complete\",\"result\":{\"content\":[],\"structuredContent\":");
    sb_str(&o2, value);
    sb_str(&o2, "}}");
    (*ops)++;
    if (snodo_engine_decide(e, call, (const uint8_t *)o2.p, o2.n, &resp) != SNODO_STATUS_OK ||
        snodo_response_body(resp, &b2, NULL) != SNODO_STATUS_OK)
        goto fail;

    /* Low level: seal a token for this variant's request, then open it. */
    uint8_t binding[SNODO_BINDING_LEN];
    char params[96];
    snprintf(params, sizeof params, "{\"name\":\"book\",\"arguments\":{\"n\":%d}}", v);
    if (snodo_binding_digest(S("tools/call"), SZ(params), binding) != SNODO_STATUS_OK) goto fail;
    (*ops)++;
    if (snodo_engine_seal(e, who, who_len, binding, 1, 1800000000 - (uint64_t)v, S("{\"n\":{\"method\":\"roots/list\"}}"),
                          SZ(state), &sealed, NULL) != SNODO_STATUS_OK)
        goto fail;
    (*ops)++;
    if (snodo_engine_open(e, SZ(sealed), who, who_len, binding, &opened, NULL) != SNODO_STATUS_OK) goto fail;

    sb_str(&all, b1);
    sb_str(&all, "\n");
    sb_str(&all, b2);
    sb_str(&all, "\n");
    sb_str(&all, sealed);
    sb_str(&all, "\n");
    sb_str(&all, opened);
    out = all.p;
    goto done;
fail:
    (*errors)++;
    sb_free(&all);
done:
    sb_free(&req);
    sb_free(&o);
    sb_free(&o2);
    snodo_string_free(value);
    snodo_string_free(b1);
    snodo_string_free(b2);
    snodo_string_free(sealed);
    snodo_string_free(opened);
    snodo_call_free(call);
    snodo_response_free(resp);
    return out;
}

static void *worker(void *arg) {
    job *j = arg;
    for (int k = 0; k < j->flows; k++) {
        int v = k % VARIANTS;
        char *got = one_flow(j->engine, v, &j->errors, &j->ops);
        if (!got || strcmp(got, j->reference[v]) != 0) {
            if (j->first_bad < 0) j->first_bad = k;
            j->mismatches++;
        }
        free(got);
    }
    return NULL;
}

/* Flows per thread: SNODO_TEST_THREAD_FLOWS (set by scripts/test-c.sh for
 * the sanitizer and valgrind runs) or the full count. */
static int flows_per_thread(void) {
    const char *env = getenv("SNODO_TEST_THREAD_FLOWS");
    if (env && *env) {
        char *end = NULL;
        long n = strtol(env, &end, 10);
        if (*end == '\0' && n > 0 && n <= FULL_FLOWS_PER_THREAD) return (int)n;
        fprintf(stderr, "ignoring SNODO_TEST_THREAD_FLOWS=%s\n", env);
    }
    return FULL_FLOWS_PER_THREAD;
}

void run_thread_tests(void) {
    case_begin();
    snodo_engine *e = test_engine(1800000000);
    CHECK_OK(snodo_elicit_form(S("Pick"), S(FORM_SCHEMA), &g_form));
    CHECK_OK(snodo_question_to_json(g_form, &g_form_json, NULL));
    int flows = flows_per_thread();
    int errors = 0, ref_ops = 0;
    char *reference[VARIANTS] = {0};
    int have_reference = 1;
    for (int v = 0; v < VARIANTS; v++) {
        reference[v] = one_flow(e, v, &errors, &ref_ops);
        if (!reference[v]) have_reference = 0;
    }
    CHECK(have_reference && errors == 0, "reference flows: %d errors, last error %s", errors, last_error_text());
    for (int v = 0; v < VARIANTS && have_reference; v++) {
        char want[64];
        snprintf(want, sizeof want, "\"structuredContent\":{\"n\":%d}", 100 + v);
        CHECK(strstr(reference[v], want), "variant %d: %s", v, reference[v]);
        /* Distinct inputs give distinct outputs, so a thread cannot pass by
         * returning another input's result. */
        for (int w = 0; w < v; w++) CHECK(strcmp(reference[v], reference[w]) != 0, "variants %d and %d", w, v);
    }
    pthread_t th[THREADS];
    job jobs[THREADS];
    int started = 0;
    for (int k = 0; k < THREADS && have_reference; k++) {
        jobs[k] = (job){e, reference, flows, 0, 0, 0, -1};
        if (pthread_create(&th[k], NULL, worker, &jobs[k]) != 0) {
            CHECK(0, "pthread_create %d", k);
            break;
        }
        started++;
    }
    long total_ops = 0;
    for (int k = 0; k < started; k++) {
        pthread_join(th[k], NULL);
        total_ops += jobs[k].ops;
        CHECK(jobs[k].mismatches == 0 && jobs[k].errors == 0, "thread %d: %d mismatches (first at flow %d), %d errors",
              k, jobs[k].mismatches, jobs[k].first_bad, jobs[k].errors);
    }
    CHECK(started == 0 || total_ops == (long)THREADS * flows * OPS_PER_FLOW, "%ld operations", total_ops);
    if (flows == FULL_FLOWS_PER_THREAD) CHECK(total_ops >= 100000, "%ld operations", total_ops);
    printf("threads: %d threads x %d flows x %d = %ld operations on one engine\n", THREADS, flows, OPS_PER_FLOW,
           total_ops);
    for (int v = 0; v < VARIANTS; v++) free(reference[v]);
    snodo_string_free(g_form_json);
    snodo_question_free(g_form);
    snodo_engine_free(e);
    case_end("one engine shared by 8 threads gives identical results");
}
