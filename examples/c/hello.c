/* A minimal MCP tool handler on libsnodo: round 1 asks the user a form
 * question, round 2 reads the validated answer and completes; a declined
 * or cancelled answer ends the flow with a tool error (asking the same
 * question again would loop until the round limit).
 *
 * Build against an installed libsnodo:
 *   cc -std=c11 hello.c $(pkg-config --cflags --libs snodo) -o hello
 *
 * The key is fixed here; a real server loads its keys from its secret
 * store. The requestState differs on every run (the real clock, random
 * token ids): the test suite masks it before diffing the output against
 * hello.expected.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <snodo.h>

#define META                                                              \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}"

/* Prints the failing call's status and detail, then exits. */
static void check(snodo_status st, const char *what) {
    if (st == SNODO_STATUS_OK) return;
    char *detail = NULL;
    snodo_last_error(&detail, NULL);
    fprintf(stderr, "%s: %s (%s)\n", what, snodo_status_message((int)st), detail ? detail : "");
    snodo_string_free(detail);
    exit(1);
}

/* The tool's question: built once at start-up (validated, its canonical
 * form and digest computed once) and asked on every round. */
static snodo_question *who;

/* The tool handler: the same code runs on every round. */
static snodo_response *handle(const snodo_engine *engine, const snodo_call *call) {
    char *value = NULL;
    snodo_answer_kind kind;
    snodo_response *response = NULL;
    check(snodo_call_response(call, (const uint8_t *)"who", 3, who, &kind, &value, NULL), "call_response");
    if (kind == SNODO_ANSWER_KIND_ACCEPTED) {
        /* value is the validated content, e.g. {"name":"Ada"}. */
        char outcome[1024];
        snprintf(outcome, sizeof outcome,
                 "{\"type\":\"complete\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Hello!\"}],"
                 "\"structuredContent\":%s}}",
                 value);
        check(snodo_engine_decide(engine, call, (const uint8_t *)outcome, strlen(outcome), &response), "decide");
    } else if (kind == SNODO_ANSWER_KIND_DECLINED || kind == SNODO_ANSWER_KIND_CANCELLED) {
        /* The user said no: a final result, not the same question again. */
        static const char no[] = "{\"type\":\"tool_error\",\"message\":\"No name given\"}";
        check(snodo_engine_decide(engine, call, (const uint8_t *)no, strlen(no), &response), "decide");
    } else {
        /* missing, invalid or changed: ask (again). */
        const snodo_input_request ask[] = {{(const uint8_t *)"who", 3, who}};
        check(snodo_engine_decide_input_required(engine, call, ask, 1, NULL, 0, &response), "decide");
    }
    snodo_string_free(value);
    return response;
}

/* begin + handler + decide for one message; returns the body to send. */
static char *serve(const snodo_engine *engine, const snodo_origin_policy *policy, const char *request) {
    snodo_call *call = NULL;
    snodo_response *response = NULL;
    char *body = NULL;
    uint16_t http = 0;
    /* Over Streamable HTTP, check the request's headers first (here the
     * ones this example's client would send). Host and Origin, on every
     * request before reading the body: a page on another site, or a DNS
     * rebinding, gets a ready 403 or 421. Then the request-metadata
     * headers: a mismatch is a ready -32020 with HTTP 400. Pass repeated
     * headers separately. */
    static const snodo_header headers[] = {
        {(const uint8_t *)"Host", 4, (const uint8_t *)"127.0.0.1:8080", 14},
        {(const uint8_t *)"MCP-Protocol-Version", 20, (const uint8_t *)"2026-07-28", 10},
        {(const uint8_t *)"Mcp-Method", 10, (const uint8_t *)"tools/call", 10},
        {(const uint8_t *)"Mcp-Name", 8, (const uint8_t *)"greet", 5},
    };
    check(snodo_check_http_origin(policy, headers, 4, &response), "origin");
    if (!response)
        check(snodo_check_http_headers(headers, 4, (const uint8_t *)request, strlen(request), &response), "headers");
    if (!response)
        check(snodo_engine_begin(engine, (const uint8_t *)request, strlen(request), (const uint8_t *)"alice", 5, &call,
                                 &response),
              "begin");
    if (call) response = handle(engine, call);
    check(snodo_response_http_status(response, &http), "http_status");
    check(snodo_response_body(response, &body, NULL), "body");
    printf("HTTP %u %s\n", (unsigned)http, body);
    snodo_response_free(response);
    snodo_call_free(call);
    return body;
}

int main(void) {
    if (snodo_abi_version() != SNODO_ABI_VERSION) {
        fprintf(stderr, "libsnodo ABI %u, header ABI %u\n", snodo_abi_version(), SNODO_ABI_VERSION);
        return 1;
    }
    static const uint8_t key[32] = "example-only-key-0123456789abcde";
    snodo_config *config = NULL;
    snodo_engine *engine = NULL;
    snodo_origin_policy *policy = NULL;
    check(snodo_config_new(&config), "config_new");
    check(snodo_config_add_key(config, (const uint8_t *)"k1", 2, key, sizeof key), "add_key");
    check(snodo_engine_new(config, &engine), "engine_new");
    snodo_config_free(config);
    static const char message[] = "Who should we greet?";
    static const char schema[] =
        "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"maxLength\":40}},"
        "\"required\":[\"name\"]}";
    check(snodo_elicit_form((const uint8_t *)message, strlen(message), (const uint8_t *)schema, strlen(schema), &who),
          "elicit_form");
    /* A server bound to loopback; behind a proxy, snodo_origin_policy_new
     * with the public host names and the web apps' origins. */
    check(snodo_origin_policy_loopback(&policy), "origin_policy");

    const char *first = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"greet\","
                        META "}}";
    char *body = serve(engine, policy, first);

    /* The client retries with the user's answer and echoes requestState:
     * once accepted (the flow completes), once declined (it ends). */
    const char *tok = strstr(body, "\"requestState\":\"");
    if (!tok) return 1;
    tok += strlen("\"requestState\":\"");
    static const char *answers[] = {"{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}",
                                    "{\"action\":\"decline\"}"};
    for (int i = 0; i < 2; i++) {
        char retry[4096];
        snprintf(retry, sizeof retry,
                 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"greet\"," META
                 ",\"inputResponses\":{\"who\":%s},\"requestState\":\"%.*s\"}}",
                 i + 2, answers[i], (int)(strchr(tok, '"') - tok), tok);
        snodo_string_free(serve(engine, policy, retry));
    }
    snodo_string_free(body);
    snodo_origin_policy_free(policy);
    snodo_question_free(who);
    snodo_engine_free(engine);
    return 0;
}
