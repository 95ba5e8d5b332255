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
#include <time.h>

#define BENCH_NAME "bench"
#include "flow.h"

#define MAX_THREADS 2

/* Round 2's request, the same on every flow (see main). */
static char *r2;
static size_t r2_len;

/* One flow: two calls. */
static void flow(void) {
    snodo_response_free(round1());
    round2(r2, r2_len);
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
    setup(state);

    /* The retry: round 1's token with the answer. The clock is fixed, so the
     * token is the same on every flow. */
    snodo_response *a1 = round1();
    r2 = retry_request(a1);
    r2_len = strlen(r2);
    snodo_response_free(a1);

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
    teardown();
    free(r2);
    free(state);
    return 0;
}
