/* Tiny test harness for the libsnodo C suite.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#ifndef SNODO_TEST_CHECK_H
#define SNODO_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

#include "snodo.h"
#include "json.h"

/* Failed checks in the current test case; a case passes when it stays 0. */
extern int g_case_failures;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            g_case_failures++;                                             \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

#define CHECK_OK(expr) CHECK((expr) == SNODO_STATUS_OK, "status %s", last_error_text())

/* Starts a test case. */
void case_begin(void);
/* Ends a test case and records it as passed or failed. */
void case_end(const char *name);

/* The last error of this thread (static buffer, for messages). */
const char *last_error_text(void);

/* Helpers around libsnodo strings. */
#define S(lit) (const uint8_t *)(lit), (sizeof(lit) - 1)
#define SZ(str) (const uint8_t *)(str), strlen(str)

/* Canonical forms of two JSON texts are equal (both must parse). */
int same_json(const char *a, size_t alen, const char *b, size_t blen);

/* Test requests. */
#define CAPS_ALL "{\"elicitation\":{\"form\":{},\"url\":{}}}"
#define META(caps)                                                                                  \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                        \
    "\"io.modelcontextprotocol/clientCapabilities\":" caps "}"
#define TOOL_CALL(id) \
    "{\"jsonrpc\":\"2.0\",\"id\":" id ",\"method\":\"tools/call\",\"params\":{\"name\":\"book\",\"arguments\":{\"n\":2}," META(CAPS_ALL) "}}"

/* An engine with a fixed key and a fixed clock at `now`. */
snodo_engine *test_engine(uint64_t now);

/* Entry points of the parts of the suite. */
void run_vectors(const char *dir);
void run_api_tests(void);
void run_thread_tests(void);
void run_misuse_tests(void);
void run_legacy_tests(void);
void run_once_tests(void);
void run_task_tests(void);

#endif
