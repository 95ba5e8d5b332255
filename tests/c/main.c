/* libsnodo C test suite: vectors, flows, misuse and threads.
 * Usage: snodo_test <tests/vectors dir>. Prints "N passed, M failed".
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#include <stdlib.h>

#include "check.h"

int g_case_failures;

/* tests/c/secrets.c: key bytes and principal never leak. */
void run_secret_tests(void);
static int g_passed, g_failed;

void case_begin(void) { g_case_failures = 0; }

void case_end(const char *name) {
    if (g_case_failures == 0) {
        g_passed++;
    } else {
        g_failed++;
        fprintf(stderr, "FAILED: %s\n", name);
    }
}

const char *last_error_text(void) {
    static char buf[512];
    char *s = NULL;
    buf[0] = '\0';
    if (snodo_last_error(&s, NULL) == SNODO_STATUS_OK) {
        snprintf(buf, sizeof buf, "%s", s);
        snodo_string_free(s);
    }
    return buf;
}

int same_json(const char *a, size_t alen, const char *b, size_t blen) {
    char *ca = NULL, *cb = NULL;
    size_t la = 0, lb = 0;
    int ok = snodo_canonicalize((const uint8_t *)a, alen, &ca, &la) == SNODO_STATUS_OK &&
             snodo_canonicalize((const uint8_t *)b, blen, &cb, &lb) == SNODO_STATUS_OK && la == lb &&
             memcmp(ca, cb, la) == 0;
    if (!ok) fprintf(stderr, "  got:      %.*s\n  expected: %.*s\n", (int)alen, a, (int)blen, b);
    snodo_string_free(ca);
    snodo_string_free(cb);
    return ok;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <vectors dir>\n", argv[0]);
        return 2;
    }
    run_vectors(argv[1]);
    run_api_tests();
    run_legacy_tests();
    run_once_tests();
    run_task_tests();
    run_thread_tests();
    run_secret_tests();
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 && g_passed > 0 ? 0 : 1;
}
