/* The two-round flow that bench.c times and rss.c repeats for memory, and
 * the engine it runs on: a fixed key on the real clock (the installed
 * libsnodo has no other), a tools/call that asks one form question (built
 * once, as a server builds its questions at start-up) carrying the state
 * from the payload file, and the retry that answers it. Shared so the two
 * benches measure the same work.
 *
 * Each program defines BENCH_NAME (the prefix of its error messages)
 * before including this file, and includes it once.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#ifndef SNODO_BENCH_FLOW_H
#define SNODO_BENCH_FLOW_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snodo.h"

static const char META[] =
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{\"form\":{}}}}";
static const char QUESTION[] =
    "{\"method\":\"elicitation/create\",\"params\":{\"mode\":\"form\",\"message\":\"Which seat?\","
    "\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"seat\":{\"type\":\"string\"}},"
    "\"required\":[\"seat\"]}}}";
static const char DONE[] =
    "{\"type\":\"complete\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"booked\"}]}}";
/* Both rounds' requests start with this; it ends with a comma. */
static const char HEAD[] = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"book_flight\","
                           "\"arguments\":{\"query\":\"flights to LIS\",\"limit\":10},";

static snodo_engine *engine;
/* The handler's question, built once (set by setup, as a server does at
 * start-up), round 1's request and the state it carries. */
static snodo_question *question;
static char *r1, *r1_state;
static size_t r1_len, r1_state_len;

static void die(const char *what, snodo_status s) {
    fprintf(stderr, BENCH_NAME ": %s failed: %s\n", what, snodo_status_name(s));
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

/* The engine, the question, round 1's request and the state `st`. */
static void setup(const char *st) {
    snodo_config *cfg = NULL;
    snodo_status s = snodo_config_new(&cfg);
    if (s != SNODO_STATUS_OK) die("config_new", s);
    uint8_t key[32];
    for (int i = 0; i < 32; i++) key[i] = (uint8_t)i;
    if ((s = snodo_config_add_key(cfg, (const uint8_t *)"k1", 2, key, 32)) != SNODO_STATUS_OK) die("add_key", s);
    if ((s = snodo_engine_new(cfg, &engine)) != SNODO_STATUS_OK) die("engine_new", s);
    snodo_config_free(cfg);

    if ((s = snodo_question_from_json((const uint8_t *)QUESTION, strlen(QUESTION), &question)) != SNODO_STATUS_OK)
        die("question", s);
    r1 = concat(HEAD, META, "}}", "", "");
    r1_len = strlen(r1);
    r1_state = concat(st, "", "", "", "");
    r1_state_len = strlen(r1_state);
}

/* Frees what setup made. */
static void teardown(void) {
    snodo_question_free(question);
    snodo_engine_free(engine);
    free(r1);
    free(r1_state);
}

static snodo_call *begin(const char *req, size_t len) {
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    snodo_status s = snodo_engine_begin(engine, (const uint8_t *)req, len, (const uint8_t *)"alice", 5, &call, &resp);
    if (s != SNODO_STATUS_OK) die("begin", s);
    if (!call) {
        fprintf(stderr, BENCH_NAME ": begin answered an error response\n");
        exit(1);
    }
    return call;
}

/* Round 1: begin and ask one question, which seals the state into a
 * token. Returns the response (free it with snodo_response_free). */
static snodo_response *round1(void) {
    snodo_call *c1 = begin(r1, r1_len);
    snodo_response *a1 = NULL;
    const snodo_input_request ask[] = {{(const uint8_t *)"seat", 4, question}};
    snodo_status s =
        snodo_engine_decide_input_required(engine, c1, ask, 1, (const uint8_t *)r1_state, r1_state_len, &a1);
    if (s != SNODO_STATUS_OK) die("decide", s);
    snodo_call_free(c1);
    return a1;
}

/* The retry of round 1 as a client sends it: the answer and the token of
 * `a1`. A new string: free it. */
static char *retry_request(const snodo_response *a1) {
    char *body = NULL;
    size_t body_len = 0;
    snodo_status s = snodo_response_body(a1, &body, &body_len);
    if (s != SNODO_STATUS_OK) die("body", s);
    const char *marker = "\"requestState\":\"";
    char *tok = strstr(body, marker);
    if (!tok) {
        fprintf(stderr, BENCH_NAME ": no token in %s\n", body);
        exit(1);
    }
    tok += strlen(marker);
    *strchr(tok, '"') = 0;
    char *answer = concat(HEAD,
                          "\"inputResponses\":{\"seat\":{\"action\":\"accept\",\"content\":{\"seat\":\"12A\"}}},"
                          "\"requestState\":\"",
                          tok, "\",", META);
    char *r2 = concat(answer, "}}", "", "", "");
    free(answer);
    snodo_string_free(body);
    return r2;
}

/* Round 2: open the token, read the answer, complete. */
static void round2(const char *r2, size_t r2_len) {
    snodo_call *c2 = begin(r2, r2_len);
    snodo_answer_kind kind;
    snodo_status s = snodo_call_response(c2, (const uint8_t *)"seat", 4, question, &kind, NULL, NULL);
    if (s != SNODO_STATUS_OK || kind != SNODO_ANSWER_KIND_ACCEPTED) die("response", s);
    snodo_response *a2 = NULL;
    s = snodo_engine_decide(engine, c2, (const uint8_t *)DONE, strlen(DONE), &a2);
    if (s != SNODO_STATUS_OK) die("decide", s);
    snodo_response_free(a2);
    snodo_call_free(c2);
}

#endif
