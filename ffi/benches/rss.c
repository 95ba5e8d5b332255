/* Memory of libsnodo from C (issue 16): peak RSS over 100 000 two-round
 * flows in a loop, which must stay flat after warm-up.
 *
 * A flow is the one bench.c times, with the 4 KiB state: round 1 begins
 * and asks one form question (seals the state into a token); round 2 is
 * the retry with the answer (opens the token, reads the answer, completes).
 * Every handle is freed as an application would. The program prints VmHWM
 * (peak resident set) and VmRSS after 10k, 25k, 50k, 75k and 100k flows,
 * writes them to OUT.json and exits 1 if the peak grew by more than 1 MiB
 * after the first 10k flows (a leak or unbounded cache).
 *
 * Usage: rss PAYLOAD_DIR OUT.json   Built and run by scripts/bench.sh.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snodo.h"

#define NOW 1800000000ULL
#define FLOWS 100000L
#define BOUND_KIB 1024L

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

static void die(const char *what, snodo_status s) {
    fprintf(stderr, "rss: %s failed: %s\n", what, snodo_status_name(s));
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

static snodo_call *begin(const char *req) {
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    snodo_status s =
        snodo_engine_begin(engine, (const uint8_t *)req, strlen(req), (const uint8_t *)"alice", 5, &call, &resp);
    if (s != SNODO_STATUS_OK) die("begin", s);
    if (!call) {
        fprintf(stderr, "rss: begin answered an error response\n");
        exit(1);
    }
    return call;
}

/* A line of /proc/self/status ("VmHWM:", "VmRSS:") in KiB. */
static long status_kib(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kib = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, field, n) == 0) {
            kib = strtol(line + n, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kib;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: rss PAYLOAD_DIR OUT.json\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/state-4096.json", argv[1]);
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
    char *r1 = concat(head, META, "}}", "", "");
    char *ask = concat("{\"type\":\"input_required\",\"inputRequests\":{\"seat\":", QUESTION, "},\"state\":", state, "}");
    size_t ask_len = strlen(ask);

    long marks[] = {10000, 25000, 50000, 75000, 100000};
    long hwm[5], rss[5];
    int next = 0;
    for (long i = 1; i <= FLOWS; i++) {
        /* Round 1: ask, seal the state. The retry is built from this
         * round's own token, as a client would. */
        snodo_call *c1 = begin(r1);
        snodo_response *a1 = NULL;
        if ((s = snodo_engine_decide(engine, c1, (const uint8_t *)ask, ask_len, &a1)) != SNODO_STATUS_OK)
            die("decide", s);
        char *body = NULL;
        size_t body_len = 0;
        if ((s = snodo_response_body(a1, &body, &body_len)) != SNODO_STATUS_OK) die("body", s);
        const char *marker = "\"requestState\":\"";
        char *tok = strstr(body, marker);
        if (!tok) {
            fprintf(stderr, "rss: no token in %s\n", body);
            return 1;
        }
        tok += strlen(marker);
        *strchr(tok, '"') = 0;
        char *r2 = concat(head,
                          "\"inputResponses\":{\"seat\":{\"action\":\"accept\",\"content\":{\"seat\":\"12A\"}}},"
                          "\"requestState\":\"",
                          tok, "\",", META);
        char *r2full = concat(r2, "}}", "", "", "");
        snodo_string_free(body);
        snodo_response_free(a1);
        snodo_call_free(c1);

        /* Round 2: open, read the answer, complete. */
        snodo_call *c2 = begin(r2full);
        snodo_answer_kind kind;
        s = snodo_call_response(c2, (const uint8_t *)"seat", 4, (const uint8_t *)QUESTION, strlen(QUESTION), &kind,
                                NULL, NULL);
        if (s != SNODO_STATUS_OK || kind != SNODO_ANSWER_KIND_ACCEPTED) die("response", s);
        snodo_response *a2 = NULL;
        if ((s = snodo_engine_decide(engine, c2, (const uint8_t *)DONE, strlen(DONE), &a2)) != SNODO_STATUS_OK)
            die("decide", s);
        snodo_response_free(a2);
        snodo_call_free(c2);
        free(r2);
        free(r2full);

        if (next < 5 && i == marks[next]) {
            hwm[next] = status_kib("VmHWM:");
            rss[next] = status_kib("VmRSS:");
            printf("c  rss  %6ld flows  VmHWM %7ld KiB  VmRSS %7ld KiB\n", i, hwm[next], rss[next]);
            fflush(stdout);
            next++;
        }
    }
    /* The kernel folds the current RSS into VmHWM lazily: the peak so far
     * is the larger of the two readings. */
    long peak[5];
    for (int k = 0; k < 5; k++) peak[k] = hwm[k] > rss[k] ? hwm[k] : rss[k];
    long growth = peak[4] - peak[0];
    int ok = peak[0] > 0 && growth <= BOUND_KIB;
    FILE *out = fopen(argv[2], "w");
    if (!out) {
        perror(argv[2]);
        return 1;
    }
    fprintf(out, "{\"lang\":\"c\",\"flows\":%ld,\"state_bytes\":%zu,\"bound_kib\":%ld,\"ok\":%s,\"readings\":[", FLOWS,
            strlen(state), BOUND_KIB, ok ? "true" : "false");
    for (int k = 0; k < 5; k++)
        fprintf(out, "%s{\"flows\":%ld,\"hwm_kib\":%ld,\"rss_kib\":%ld,\"peak_kib\":%ld}", k ? "," : "", marks[k],
                hwm[k], rss[k], peak[k]);
    fprintf(out, "]}\n");
    fclose(out);
    printf("c  rss  peak grew %ld KiB after 10k flows (bound %ld KiB): %s\n", growth, BOUND_KIB, ok ? "flat" : "GREW");
    snodo_engine_free(engine);
    free(r1);
    free(ask);
    free(state);
    return ok ? 0 : 1;
}
