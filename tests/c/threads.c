/* One shared engine hammered from 8 threads: every thread must produce
 * exactly the responses a single thread produced.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>

#include "check.h"

#define THREADS 8
#define ITERATIONS 40

typedef struct {
    snodo_engine *engine;
    char *reference;
    int mismatches, errors;
} job;

/* Round 1 (ask) and round 2 (answer, complete); returns both bodies. */
static char *one_flow(snodo_engine *e, int *errors) {
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    char *b1 = NULL, *b2 = NULL, *form = NULL, *out = NULL;
    sbuf o = {0}, r2 = {0};
    if (snodo_elicit_form(S("Pick"), S("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}"), &form,
                          NULL) != SNODO_STATUS_OK ||
        snodo_engine_begin(e, S(TOOL_CALL("1")), S("bob"), &call, &resp) != SNODO_STATUS_OK || !call)
        goto fail;
    sb_str(&o, "{\"type\":\"input_required\",\"inputRequests\":{\"n\":");
    sb_str(&o, form);
    sb_str(&o, "},\"state\":[1,2.0,\"x\"]}");
    if (snodo_engine_decide(e, call, (const uint8_t *)o.p, o.n, &resp) != SNODO_STATUS_OK ||
        snodo_response_body(resp, &b1, NULL) != SNODO_STATUS_OK)
        goto fail;
    snodo_call_free(call);
    snodo_response_free(resp);
    call = NULL;
    resp = NULL;
    const char *tok = strstr(b1, "\"requestState\":\"");
    if (!tok) goto fail;
    tok += 16;
    sb_str(&r2, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"book\","
                "\"arguments\":{\"n\":2}," META(CAPS_ALL) ",\"inputResponses\":{\"n\":{\"action\":\"accept\","
                "\"content\":{\"n\":7}}},\"requestState\":\"");
    sb_add(&r2, tok, (size_t)(strchr(tok, '"') - tok));
    sb_str(&r2, "\"}}");
    if (snodo_engine_begin(e, (const uint8_t *)r2.p, r2.n, S("bob"), &call, &resp) != SNODO_STATUS_OK || !call)
        goto fail;
    snodo_answer_kind kind;
    char *value = NULL;
    if (snodo_call_response(call, S("n"), SZ(form), &kind, &value, NULL) != SNODO_STATUS_OK) goto fail;
    sbuf o2 = {0};
    sb_str(&o2, "{\"type\":\"complete\",\"result\":{\"content\":[],\"structuredContent\":");
    sb_str(&o2, value);
    sb_str(&o2, "}}");
    snodo_string_free(value);
    snodo_status st = snodo_engine_decide(e, call, (const uint8_t *)o2.p, o2.n, &resp);
    sb_free(&o2);
    if (st != SNODO_STATUS_OK || snodo_response_body(resp, &b2, NULL) != SNODO_STATUS_OK) goto fail;
    sbuf all = {0};
    sb_str(&all, b1);
    sb_str(&all, "\n");
    sb_str(&all, b2);
    out = all.p;
    goto done;
fail:
    (*errors)++;
done:
    sb_free(&o);
    sb_free(&r2);
    snodo_string_free(form);
    snodo_string_free(b1);
    snodo_string_free(b2);
    snodo_call_free(call);
    snodo_response_free(resp);
    return out;
}

static void *worker(void *arg) {
    job *j = arg;
    for (int k = 0; k < ITERATIONS; k++) {
        char *got = one_flow(j->engine, &j->errors);
        if (!got || strcmp(got, j->reference) != 0) j->mismatches++;
        free(got);
    }
    return NULL;
}

void run_thread_tests(void) {
    case_begin();
    snodo_engine *e = test_engine(1800000000);
    int errors = 0;
    char *reference = one_flow(e, &errors);
    CHECK(reference && errors == 0, "reference flow");
    CHECK(reference && strstr(reference, "\"structuredContent\":{\"n\":7}"), "%s", reference ? reference : "");
    pthread_t th[THREADS];
    job jobs[THREADS];
    for (int k = 0; k < THREADS && reference; k++) {
        jobs[k] = (job){e, reference, 0, 0};
        CHECK(pthread_create(&th[k], NULL, worker, &jobs[k]) == 0, "pthread_create");
    }
    for (int k = 0; k < THREADS && reference; k++) {
        pthread_join(th[k], NULL);
        CHECK(jobs[k].mismatches == 0 && jobs[k].errors == 0, "thread %d: %d mismatches, %d errors", k,
              jobs[k].mismatches, jobs[k].errors);
    }
    free(reference);
    snodo_engine_free(e);
    case_end("one engine shared by 8 threads gives identical results");
}
