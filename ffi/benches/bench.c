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
 *
 * In-window core samples: with BENCH_CORE_SAMPLER
 * set to the path of the core's round sampler (core/examples/round_sampler.rs,
 * built by scripts/bench.sh; BENCH_CORE_BATCH is its decide batch), every
 * repeat also takes one sample of the core's begin+decide right before or
 * after (alternating) the 1-thread sample, so C's per-call time divides by
 * a core timed in the same seconds, not by criterion's minutes earlier. The
 * JSON then holds a row of group "core-in-window", and the 1-thread row its
 * per-repeat times in repeat order (`samples_ns`) to pair with it.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* The core's round sampler as a child process: one `sample <ms>` line in,
 * one JSON line out (core/examples/round_sampler.rs). */
typedef struct {
    pid_t pid;
    FILE *to, *from;
} core_sampler;

/* The sampler's next line, or exit with its error. */
static void sampler_line(core_sampler *s, char *line, size_t size) {
    if (!fgets(line, (int)size, s->from)) {
        fprintf(stderr, BENCH_NAME ": round_sampler ended\n");
        exit(1);
    }
    if (strstr(line, "\"error\"")) {
        fprintf(stderr, BENCH_NAME ": round_sampler: %s", line);
        exit(1);
    }
}

static void sampler_start(core_sampler *s, const char *path, const char *batch) {
    int to[2], from[2];
    if (pipe(to) || pipe(from)) {
        perror(BENCH_NAME ": pipe");
        exit(1);
    }
    s->pid = fork();
    if (s->pid < 0) {
        perror(BENCH_NAME ": fork");
        exit(1);
    }
    if (s->pid == 0) {
        dup2(to[0], 0);
        dup2(from[1], 1);
        close(to[0]);
        close(to[1]);
        close(from[0]);
        close(from[1]);
        char *const args[] = {(char *)path, (char *)batch, NULL};
        execv(path, args);
        perror(path);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    s->to = fdopen(to[1], "w");
    s->from = fdopen(from[0], "r");
    if (!s->to || !s->from) {
        perror(BENCH_NAME ": fdopen");
        exit(1);
    }
    char line[512];
    sampler_line(s, line, sizeof line);
    if (!strstr(line, "\"ready\":true")) {
        fprintf(stderr, BENCH_NAME ": round_sampler did not say ready: %s", line);
        exit(1);
    }
}

/* A number field of the sampler's reply. */
static double field(const char *line, const char *name) {
    char key[32];
    snprintf(key, sizeof key, "\"%s\":", name);
    const char *at = strstr(line, key);
    if (!at) {
        fprintf(stderr, BENCH_NAME ": round_sampler's reply has no %s: %s", name, line);
        exit(1);
    }
    return strtod(at + strlen(key), NULL);
}

/* One core sample of about `ms`: begin+decide, begin, decide, and the mean
 * of the two warm rounds (for comparison only), in ns. */
static void sampler_sample(core_sampler *s, int ms, double *ns, double *begin_ns, double *decide_ns,
                           double *rounds_ns) {
    fprintf(s->to, "sample %d\n", ms);
    fflush(s->to);
    char line[512];
    sampler_line(s, line, sizeof line);
    *ns = field(line, "ns");
    *begin_ns = field(line, "begin_ns");
    *decide_ns = field(line, "decide_ns");
    *rounds_ns = field(line, "rounds_ns");
}

static void sampler_stop(core_sampler *s) {
    fputs("quit\n", s->to);
    fclose(s->to);
    fclose(s->from);
    waitpid(s->pid, NULL, 0);
}

/* A JSON array of `n` numbers. */
static void json_array(FILE *out, const double *x, int n) {
    fputc('[', out);
    for (int i = 0; i < n; i++) fprintf(out, "%s%.1f", i ? "," : "", x[i]);
    fputc(']', out);
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

    /* The retry: round 1's token with the answer, the same on every flow
     * (it stays valid for the ttl, 300 s, far longer than a run). */
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
    const char *sampler_path = getenv("BENCH_CORE_SAMPLER");
    core_sampler sampler;
    const char *batch = getenv("BENCH_CORE_BATCH");
    if (batch && !*batch) batch = NULL; /* empty: the sampler's default */
    if (sampler_path) sampler_start(&sampler, sampler_path, batch);
    int core_ms = (int)(sample_s * 1000 + 0.5) > 0 ? (int)(sample_s * 1000 + 0.5) : 1;
    double rate[2][101], lat[2][101], lat1[101], core[101], core_begin[101], core_decide[101], core_rounds[101];
    for (int r = 0; r < repeats; r++) {
        /* Alternate which thread count goes first, so drift hits both alike;
         * the core's sample goes next to the 1-thread one, before it in even
         * repeats (1 thread first) and after it in odd ones (1 thread last). */
        if (sampler_path && r % 2 == 0)
            sampler_sample(&sampler, core_ms, &core[r], &core_begin[r], &core_decide[r], &core_rounds[r]);
        for (int k = 0; k < 2; k++) {
            int threads = ((r + k) % 2) + 1;
            sample(threads, &rate[threads - 1][r], &lat[threads - 1][r]);
        }
        if (sampler_path && r % 2 == 1)
            sampler_sample(&sampler, core_ms, &core[r], &core_begin[r], &core_decide[r], &core_rounds[r]);
        lat1[r] = lat[0][r] * 1000;
    }
    if (sampler_path) sampler_stop(&sampler);
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
                "\"median_ns\":%.1f,\"min_ns\":%.1f,\"max_ns\":%.1f,\"repeats\":%d",
                th, th > 1 ? "s" : "", th, med, x[0], x[repeats - 1], lmed * 1000, l[0] * 1000,
                l[repeats - 1] * 1000, repeats);
        if (th == 1) {
            fprintf(out, ",\"samples_ns\":");
            json_array(out, lat1, repeats);
        }
        fprintf(out, "}%s\n", th == 1 || sampler_path ? "," : "");
    }
    if (sampler_path) {
        fprintf(out, "{\"lang\":\"c\",\"op\":\"core begin+decide (round_sampler, beside the 1-thread calls)\","
                     "\"size\":256,\"group\":\"core-in-window\",\"repeats\":%d,\"samples_ns\":",
                repeats);
        json_array(out, core, repeats);
        fprintf(out, ",\"begin_ns\":");
        json_array(out, core_begin, repeats);
        fprintf(out, ",\"decide_ns\":");
        json_array(out, core_decide, repeats);
        fprintf(out, ",\"rounds_ns\":");
        json_array(out, core_rounds, repeats);
        double sorted[101];
        memcpy(sorted, core, sizeof(double) * (size_t)repeats);
        qsort(sorted, (size_t)repeats, sizeof *sorted, cmp);
        double cmed = repeats % 2 ? sorted[repeats / 2] : (sorted[repeats / 2 - 1] + sorted[repeats / 2]) / 2;
        fprintf(out, ",\"median_ns\":%.1f,\"min_ns\":%.1f,\"max_ns\":%.1f}\n", cmed, sorted[0],
                sorted[repeats - 1]);
        printf("c       core begin+decide, in window (round_sampler): %.2f µs (%.2f–%.2f)\n", cmed / 1000,
               sorted[0] / 1000, sorted[repeats - 1] / 1000);
    }
    fprintf(out, "]\n");
    fclose(out);
    teardown();
    free(r2);
    free(state);
    return 0;
}
