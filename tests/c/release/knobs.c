/* The libsnodo users install (`make install`, built without the cargo
 * feature test-knobs): the test-only settings are refused with CONFIG and
 * a message that says why, and an engine built without them works on the
 * real clock with random token ids. scripts/test-c.sh links this program
 * against the installed library, and checks that it fails against the
 * test suites' build (which accepts the settings).
 *
 * Usage: knobs. Prints "N passed, M failed"; exits 0 only if all passed.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <snodo.h>

static int g_passed, g_failed;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (cond) {                                                               \
            g_passed++;                                                           \
        } else {                                                                  \
            g_failed++;                                                           \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);       \
            fprintf(stderr, __VA_ARGS__);                                         \
            fputc('\n', stderr);                                                  \
        }                                                                         \
    } while (0)
#define S(lit) (const uint8_t *)(lit), (sizeof(lit) - 1)
#define SZ(str) (const uint8_t *)(str), strlen(str)

static const char *last_error(void) {
    static char buf[512];
    char *s = NULL;
    buf[0] = '\0';
    if (snodo_last_error(&s, NULL) == SNODO_STATUS_OK) snprintf(buf, sizeof buf, "%s", s);
    snodo_string_free(s);
    return buf;
}

#define TEST_ONLY "a test-only setting, absent from this build (libsnodo was built without the cargo feature test-knobs)"
#define META                                                                  \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}"
#define QUESTION                                                                                         \
    "{\"method\":\"elicitation/create\",\"params\":{\"mode\":\"form\",\"message\":\"Name?\","           \
    "\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"string\"}},\"required\":[\"n\"]}}}"

/* Round 1 of a tools/call: begin and ask; returns the requestState (malloc'd). */
static char *ask(const snodo_engine *e) {
    const char *req = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"," META "}}";
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    char *body = NULL, *state = NULL;
    CHECK(snodo_engine_begin(e, SZ(req), S("alice"), &call, &resp) == SNODO_STATUS_OK && call, "begin: %s",
          last_error());
    if (!call) return NULL;
    CHECK(snodo_engine_decide(e, call, S("{\"type\":\"input_required\",\"inputRequests\":{\"n\":" QUESTION "}}"),
                              &resp) == SNODO_STATUS_OK,
          "decide: %s", last_error());
    if (resp && snodo_response_body(resp, &body, NULL) == SNODO_STATUS_OK) {
        const char *at = strstr(body, "\"requestState\":\"");
        if (at) {
            at += strlen("\"requestState\":\"");
            state = strndup(at, (size_t)(strchr(at, '"') - at));
        }
    }
    CHECK(state != NULL, "round 1 asked: %s", body ? body : "(no body)");
    snodo_string_free(body);
    snodo_response_free(resp);
    snodo_call_free(call);
    return state;
}

int main(void) {
    CHECK(snodo_abi_version() == SNODO_ABI_VERSION, "abi %u", snodo_abi_version());
    static const uint8_t key[32] = "release-test-key-0123456789abcde";
    snodo_config *c = NULL;
    snodo_engine *e = NULL;
    if (snodo_config_new(&c) != SNODO_STATUS_OK) return 1;
    CHECK(snodo_config_add_key(c, S("k1"), key, sizeof key) == SNODO_STATUS_OK, "add_key");

    /* The knobs: CONFIG, saying they are test-only, in every spelling. */
    CHECK(snodo_config_set_fixed_time(c, 1800000000) == SNODO_STATUS_CONFIG, "fixed_time accepted");
    CHECK(strcmp(last_error(), "CONFIG: fixed_time: " TEST_ONLY) == 0, "%s", last_error());
    CHECK(snodo_config_set_limit(c, S("test_random_seed"), 1) == SNODO_STATUS_CONFIG, "test_random_seed accepted");
    CHECK(strcmp(last_error(), "CONFIG: test_random_seed: " TEST_ONLY) == 0, "%s", last_error());
    CHECK(snodo_config_set_limit(c, S("testRandomSeed"), 1) == SNODO_STATUS_CONFIG, "testRandomSeed accepted");
    CHECK(strcmp(last_error(), "CONFIG: testRandomSeed: " TEST_ONLY) == 0, "%s", last_error());

    /* A deployment's limits still work, min_token_version included. */
    CHECK(snodo_config_set_limit(c, S("token_version"), 2) == SNODO_STATUS_OK, "%s", last_error());
    CHECK(snodo_config_set_limit(c, S("min_token_version"), 2) == SNODO_STATUS_OK, "%s", last_error());
    CHECK(snodo_config_set_ttl_secs(c, 120) == SNODO_STATUS_OK, "%s", last_error());
    CHECK(snodo_engine_new(c, &e) == SNODO_STATUS_OK, "engine_new: %s", last_error());
    snodo_config_free(c);
    if (!e) return 1;

    /* The real clock, not a fixed one. */
    uint64_t now = 0;
    time_t wall = time(NULL);
    CHECK(snodo_engine_now(e, &now) == SNODO_STATUS_OK, "now");
    CHECK(now + 5 >= (uint64_t)wall && now <= (uint64_t)wall + 5, "engine clock %llu, wall clock %lld",
          (unsigned long long)now, (long long)wall);

    /* The same round 1 twice: random token ids, so two different tokens. */
    char *s1 = ask(e), *s2 = ask(e);
    CHECK(s1 && s2 && strcmp(s1, s2) != 0, "two seals of one request are the same token");
    CHECK(s1 && strncmp(s1, "v2.", 3) == 0, "token %s", s1 ? s1 : "(none)");

    /* Round 2 opens the token on the real clock and completes. */
    if (s1) {
        char retry[8192];
        snodo_call *call = NULL;
        snodo_response *resp = NULL;
        snprintf(retry, sizeof retry,
                 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"," META
                 ",\"inputResponses\":{\"n\":{\"action\":\"accept\",\"content\":{\"n\":\"Ada\"}}},"
                 "\"requestState\":\"%s\"}}",
                 s1);
        CHECK(snodo_engine_begin(e, SZ(retry), S("alice"), &call, &resp) == SNODO_STATUS_OK && call && !resp,
              "round 2 begin: %s", last_error());
        if (call) {
            uint64_t expires = 0;
            snodo_answer_kind kind = SNODO_ANSWER_KIND_MISSING;
            char *value = NULL;
            CHECK(snodo_call_token_expires_at(call, &expires) == SNODO_STATUS_OK, "expires_at");
            CHECK(expires >= now + 115 && expires <= now + 125, "the token expires at %llu, now %llu + ttl 120",
                  (unsigned long long)expires, (unsigned long long)now);
            snodo_question *q = NULL;
            CHECK(snodo_question_from_json(S(QUESTION), &q) == SNODO_STATUS_OK, "question");
            CHECK(snodo_call_response(call, S("n"), q, &kind, &value, NULL) == SNODO_STATUS_OK, "response");
            snodo_question_free(q);
            CHECK(kind == SNODO_ANSWER_KIND_ACCEPTED && value && strcmp(value, "{\"n\":\"Ada\"}") == 0, "answer %s",
                  value ? value : "(none)");
            snodo_string_free(value);
            CHECK(snodo_engine_decide(e, call, S("{\"type\":\"complete\",\"result\":{\"content\":[]}}"), &resp) ==
                      SNODO_STATUS_OK,
                  "decide: %s", last_error());
        }
        snodo_response_free(resp);
        snodo_call_free(call);
    }
    free(s1);
    free(s2);
    snodo_engine_free(e);
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 && g_passed > 0 ? 0 : 1;
}
