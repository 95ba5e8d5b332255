/* Throughput of libsnodo from C: begin + decide of a typical tools/call,
 * with 1 and 2 threads sharing one engine.
 *
 * One "call" is a begin and a decide. A flow is two calls: round 1 asks one
 * form question and carries the 256 B state (seals a token); round 2 is the
 * retry with the answer (opens the token, reads the answer, completes). The
 * result is calls per second over all threads, and microseconds per call as
 * one thread sees it.
 *
 * Usage: bench PAYLOAD_DIR OUT.json   (BENCH_SAMPLE_MS, BENCH_REPEATS)
 * Built and run by scripts/bench.sh (`make bench`).
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "snodo.h"

#define NOW 1800000000ULL
#define MAX_THREADS 2

static const char META[] =
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{\"form\":{}}}}";
static const char QUESTION[] =
    "{\"method\":\"elicitation/create\",\"params\":{\"mode\":\"form\",\"message\":\"Which seat?\","
    "\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"seat\":{\"type\":\"string\"}},"
    "\"required\":[\"seat\"]}}}";
static const char DONE[] =
    "{\"type\":\"complete\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"booked\"}]}}";

static snodo_engine *engine;
static char *r1, *r2, *ask;
static size_t r1_len, r2_len, ask_len;

static void die(const char *what, snodo_status s) {
    fprintf(stderr, "bench: %s failed: %s\n", what, snodo_status_name(s));
    exit(1);
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strdup(buf);
}

static char *concat(const char *a, const char *b, const char *c, const char *d, const char *e) {
    size_t n = strlen(a) + strlen(b) + strlen(c) + strlen(d) + strlen(e) + 1;
    char *s = malloc(n);
    if (!s) exit(1);
    snprintf(s, n, "%s%s%s%s%s", a, b, c, d, e);
    return s;
}

static snodo_call *begin(const char *req, size_t len) {
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    snodo_status s = snodo_engine_begin(engine, (const uint8_t *)req, len, (const uint8_t *)"alice", 5, &call, &resp);
    if (s != SNODO_STATUS_OK) die("begin", s);
    if (!call) {
        fprintf(stderr, "bench: begin answered an error response\n");
        exit(1);
    }
    return call;
}

/* One flow: two calls. */
static void flow(void) {
    snodo_call *c1 = begin(r1, r1_len);
    snodo_response *a1 = NULL;
    snodo_status s = snodo_engine_decide(engine, c1, (const uint8_t *)ask, ask_len, &a1);
    if (s != SNODO_STATUS_OK) die("decide", s);
    snodo_response_free(a1);
    snodo_call_free(c1);

    snodo_call *c2 = begin(r2, r2_len);
    snodo_answer_kind kind;
    s = snodo_call_response(c2, (const uint8_t *)"seat", 4, (const uint8_t *)QUESTION, strlen(QUESTION), &kind,
                            NULL, NULL);
    if (s != SNODO_STATUS_OK || kind != SNODO_ANSWER_KIND_ACCEPTED) die("response", s);
    snodo_response *a2 = NULL;
    s = snodo_engine_decide(engine, c2, (const uint8_t *)DONE, strlen(DONE), &a2);
    if (s != SNODO_STATUS_OK) die("decide", s);
    snodo_response_free(a2);
    snodo_call_free(c2);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef struct {
    long flows;
    double seconds;
} job;

static long flows_per_sample;

static void *worker(void *arg) {
    job *j = arg;
    double t0 = now_s();
    for (long i = 0; i < flows_per_sample; i++) flow();
    j->seconds = now_s() - t0;
    j->flows = flows_per_sample;
    return NULL;
}

/* Calls per second with `threads` threads, and µs per call per thread. */
static void sample(int threads, double *calls_per_s, double *us_per_call) {
    pthread_t t[MAX_THREADS];
    job jobs[MAX_THREADS];
    double t0 = now_s();
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, &jobs[i]);
    double per_thread = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        per_thread += jobs[i].seconds / (double)(2 * jobs[i].flows);
    }
    double wall = now_s() - t0;
    *calls_per_s = (double)(2 * flows_per_sample * threads) / wall;
    *us_per_call = per_thread / threads * 1e6;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bench PAYLOAD_DIR OUT.json\n");
        return 2;
    }
    const char *env_ms = getenv("BENCH_SAMPLE_MS"), *env_rep = getenv("BENCH_REPEATS");
    double sample_s = (env_ms ? atof(env_ms) : 50) / 1000;
    int repeats = env_rep ? atoi(env_rep) : 11;
    if (repeats < 1 || repeats > 101) repeats = 11;

    char path[4096];
    snprintf(path, sizeof path, "%s/state-256.json", argv[1]);
    char *state = read_file(path);

    snodo_config *cfg = NULL;
    snodo_status s = snodo_config_new(&cfg);
    if (s != SNODO_STATUS_OK) die("config_new", s);
    uint8_t key[32];
    for (int i = 0; i < 32; i++) key[i] = (uint8_t)i;
    if ((s = snodo_config_add_key(cfg, (const uint8_t *)"k1", 2, key, 32)) != SNODO_STATUS_OK) die("add_key", s);
    if ((s = snodo_config_set_fixed_time(cfg, NOW)) != SNODO_STATUS_OK) die("fixed_time", s);
    if ((s = snodo_engine_new(cfg, &engine)) != SNODO_STATUS_OK) die("engine_new", s);
    snodo_config_free(cfg);

    const char *head = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"book_flight\","
                       "\"arguments\":{\"query\":\"flights to LIS\",\"limit\":10},";
    r1 = concat(head, META, "}}", "", "");
    r1_len = strlen(r1);
    ask = concat("{\"type\":\"input_required\",\"inputRequests\":{\"seat\":", QUESTION, "},\"state\":", state, "}");
    ask_len = strlen(ask);

    /* The retry: round 1's token with the answer. The clock is fixed, so the
     * token is the same on every flow. */
    snodo_call *c1 = begin(r1, r1_len);
    snodo_response *a1 = NULL;
    if ((s = snodo_engine_decide(engine, c1, (const uint8_t *)ask, ask_len, &a1)) != SNODO_STATUS_OK) die("decide", s);
    char *body = NULL;
    size_t body_len = 0;
    if ((s = snodo_response_body(a1, &body, &body_len)) != SNODO_STATUS_OK) die("body", s);
    const char *marker = "\"requestState\":\"";
    char *tok = strstr(body, marker);
    if (!tok) {
        fprintf(stderr, "bench: no token in %s\n", body);
        return 1;
    }
    tok += strlen(marker);
    *strchr(tok, '"') = 0;
    char *retry = concat(",\"inputResponses\":{\"seat\":{\"action\":\"accept\",\"content\":{\"seat\":\"12A\"}}},"
                         "\"requestState\":\"",
                         tok, "\",", META, "}}");
    r2 = concat(head, retry + 1, "", "", ""); /* drop the leading comma: head ends with one */
    r2_len = strlen(r2);
    snodo_string_free(body);
    snodo_response_free(a1);
    snodo_call_free(c1);

    /* Calibrate one thread's flows per sample to the sample time. */
    flows_per_sample = 16;
    for (;;) {
        double t0 = now_s();
        for (long i = 0; i < flows_per_sample; i++) flow();
        double el = now_s() - t0;
        if (el >= sample_s / 4) {
            flows_per_sample = (long)((double)flows_per_sample * sample_s / el) + 1;
            break;
        }
        flows_per_sample *= 4;
    }

    FILE *out = fopen(argv[2], "w");
    if (!out) {
        perror(argv[2]);
        return 1;
    }
    fprintf(out, "[\n");
    double rate[2][101], lat[2][101];
    for (int r = 0; r < repeats; r++) {
        /* Alternate which thread count goes first, so drift hits both alike. */
        for (int k = 0; k < 2; k++) {
            int threads = ((r + k) % 2) + 1;
            sample(threads, &rate[threads - 1][r], &lat[threads - 1][r]);
        }
    }
    for (int th = 1; th <= 2; th++) {
        double *x = rate[th - 1], *l = lat[th - 1];
        qsort(x, (size_t)repeats, sizeof *x, cmp);
        qsort(l, (size_t)repeats, sizeof *l, cmp);
        double med = repeats % 2 ? x[repeats / 2] : (x[repeats / 2 - 1] + x[repeats / 2]) / 2;
        double lmed = repeats % 2 ? l[repeats / 2] : (l[repeats / 2 - 1] + l[repeats / 2]) / 2;
        printf("c       begin+decide, %d thread%s: %10.0f calls/s (%.0f–%.0f); %.2f µs per call per thread\n", th,
               th > 1 ? "s" : " ", med, x[0], x[repeats - 1], lmed);
        fprintf(out,
                "{\"lang\":\"c\",\"op\":\"begin+decide calls/s, %d thread%s\",\"size\":256,\"threads\":%d,"
                "\"calls_per_s\":%.1f,\"min_calls_per_s\":%.1f,\"max_calls_per_s\":%.1f,"
                "\"median_ns\":%.1f,\"min_ns\":%.1f,\"max_ns\":%.1f,\"repeats\":%d}%s\n",
                th, th > 1 ? "s" : "", th, med, x[0], x[repeats - 1], lmed * 1000, l[0] * 1000,
                l[repeats - 1] * 1000, repeats, th == 1 ? "," : "");
    }
    fprintf(out, "]\n");
    fclose(out);
    snodo_engine_free(engine);
    free(r1);
    free(r2);
    free(ask);
    free(retry);
    free(state);
    return 0;
}
