/* Memory of libsnodo from C: peak RSS over 100 000 two-round
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
 * Usage: rss PAYLOAD_DIR OUT.json [FLOWS]   Built and run by scripts/bench.sh
 * with the default 100 000 flows; scripts/test-c.sh runs it with a few
 * thousand so the program is built and exercised on every `make test`. The
 * readings are then taken at the same fractions of FLOWS (1/10, 1/4, 1/2,
 * 3/4, all), and growth is measured after the first tenth.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>

#define BENCH_NAME "rss"
#include "flow.h"

#define DEFAULT_FLOWS 100000L
/* Below this the five readings would not be distinct flow counts. */
#define MIN_FLOWS 40L
#define BOUND_KIB 1024L

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
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: rss PAYLOAD_DIR OUT.json [FLOWS]\n");
        return 2;
    }
    long flows = DEFAULT_FLOWS;
    if (argc == 4) {
        char *end = NULL;
        errno = 0;
        flows = strtol(argv[3], &end, 10);
        if (errno || end == argv[3] || *end || flows < MIN_FLOWS || flows > 100000000L) {
            fprintf(stderr, "rss: FLOWS must be a whole number from %ld to 100000000, not '%s'\n", MIN_FLOWS,
                    argv[3]);
            return 2;
        }
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/state-4096.json", argv[1]);
    char *state = read_file(path);

    setup(state);

    /* 10k, 25k, 50k, 75k and 100k flows at the default. */
    long marks[] = {flows / 10, flows / 4, flows / 2, flows * 3 / 4, flows};
    long hwm[5], rss[5];
    int next = 0;
    for (long i = 1; i <= flows; i++) {
        /* Round 1: ask, seal the state. The retry is built from this
         * round's own token, as a client would. */
        snodo_response *a1 = round1();
        char *r2 = retry_request(a1);
        snodo_response_free(a1);

        /* Round 2: open, read the answer, complete. */
        round2(r2, strlen(r2));
        free(r2);

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
    fprintf(out, "{\"lang\":\"c\",\"flows\":%ld,\"state_bytes\":%zu,\"bound_kib\":%ld,\"ok\":%s,\"readings\":[", flows,
            strlen(state), BOUND_KIB, ok ? "true" : "false");
    for (int k = 0; k < 5; k++)
        fprintf(out, "%s{\"flows\":%ld,\"hwm_kib\":%ld,\"rss_kib\":%ld,\"peak_kib\":%ld}", k ? "," : "", marks[k],
                hwm[k], rss[k], peak[k]);
    fprintf(out, "]}\n");
    fclose(out);
    /* "10k" at the default: a short label for the printed line. */
    char first[32];
    if (marks[0] % 1000 == 0)
        snprintf(first, sizeof first, "%ldk", marks[0] / 1000);
    else
        snprintf(first, sizeof first, "%ld", marks[0]);
    printf("c  rss  peak grew %ld KiB after %s flows (bound %ld KiB): %s\n", growth, first, BOUND_KIB,
           ok ? "flat" : "GREW");
    teardown();
    free(state);
    return ok ? 0 : 1;
}
