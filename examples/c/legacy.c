/* One handler, both protocol eras: the greet tool of hello.c
 * served to a 2025-era client that opened with `initialize`. The handler
 * decides with the legacy decide functions (on a 2026 call they are the
 * plain ones); the transport sends the resulting elicitation/create on the
 * session and feeds the client's response back to the pending flow, which
 * resumes the same handler with the answer. A duplicate response is refused
 * and changes nothing.
 *
 * The session belongs to the user who opened it: every later message on
 * it is checked against that principal first (another user gets the
 * answer to a session that does not exist), and answers are fed with it.
 *
 * Build against an installed libsnodo:
 *   cc -std=c11 legacy.c $(pkg-config --cflags --libs snodo) -o legacy
 *
 * The key and the session id are fixed here. The request ids the bridge
 * sends hold a tag that differs on every run (a MAC over the flow, at the
 * real clock): the test suite masks it before diffing the output against
 * legacy.expected.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <snodo.h>

#define TEXT(s) (const uint8_t *)(s), strlen(s)

static void check(snodo_status st, const char *what) {
    if (st == SNODO_STATUS_OK) return;
    char *detail = NULL;
    snodo_last_error(&detail, NULL);
    fprintf(stderr, "%s: %s (%s)\n", what, snodo_status_message((int)st), detail ? detail : "");
    snodo_string_free(detail);
    exit(1);
}

/* The tool's question, built once at start-up and asked on every round. */
static snodo_question *who;

/* The tool handler, era-blind: it decides `call` with the legacy decide
 * functions, which on a 2026 call are exactly the plain ones. */
static snodo_bridge_kind greet(const snodo_engine *engine, const snodo_call *call, snodo_response **response,
                               snodo_pending_flow **pending, snodo_call **next) {
    char *value = NULL, outcome[1024];
    snodo_answer_kind answer;
    snodo_bridge_kind kind;
    check(snodo_call_response(call, TEXT("who"), who, &answer, &value, NULL), "call_response");
    if (answer == SNODO_ANSWER_KIND_ACCEPTED || answer == SNODO_ANSWER_KIND_DECLINED ||
        answer == SNODO_ANSWER_KIND_CANCELLED) {
        if (answer == SNODO_ANSWER_KIND_ACCEPTED)
            snprintf(outcome, sizeof outcome, "{\"type\":\"complete\",\"result\":{\"content\":[{\"type\":\"text\","
                     "\"text\":\"Hello!\"}],\"structuredContent\":%s}}", value);
        else
            snprintf(outcome, sizeof outcome, "{\"type\":\"tool_error\",\"message\":\"No name given\"}");
        check(snodo_engine_decide_legacy(engine, call, TEXT(outcome), &kind, response, pending, next), "decide_legacy");
    } else {
        const snodo_input_request ask[] = {{TEXT("who"), who}}; /* missing, invalid or changed: ask */
        check(snodo_engine_decide_legacy_input_required(engine, call, ask, 1, NULL, 0, &kind, response, pending, next),
              "decide_legacy");
    }
    snodo_string_free(value);
    return kind;
}

static void print_response(const char *label, const snodo_response *r) {
    char *body = NULL;
    check(snodo_response_body(r, &body, NULL), "body");
    printf("%s %s\n", label, body);
    snodo_string_free(body);
}

/* Runs the handler on `call` (it decides the call the legacy way); returns
 * the pending flow when the handler asked something, else NULL. Consumes
 * `call`. */
static snodo_pending_flow *run(const snodo_engine *engine, snodo_call *call) {
    while (call) {
        snodo_response *response = NULL;
        snodo_pending_flow *pending = NULL;
        snodo_call *next = NULL;
        snodo_bridge_kind kind = greet(engine, call, &response, &pending, &next);
        snodo_call_free(call);
        call = next; /* RESUME: a state-only round, run the handler again */
        if (kind == SNODO_BRIDGE_KIND_RESPOND) {
            print_response("server -> client:", response);
            snodo_response_free(response);
        } else if (kind == SNODO_BRIDGE_KIND_SEND) {
            char *requests = NULL;
            check(snodo_pending_flow_requests(pending, &requests, NULL), "requests");
            printf("server -> client (on the session): %s\n", requests);
            snodo_string_free(requests);
            return pending;
        }
    }
    return NULL;
}

int main(void) {
    static const uint8_t key[32] = "example-only-key-0123456789abcde";
    snodo_config *config = NULL;
    snodo_engine *engine = NULL;
    check(snodo_config_new(&config), "config_new");
    check(snodo_config_add_key(config, (const uint8_t *)"k1", 2, key, sizeof key), "add_key");
    check(snodo_engine_new(config, &engine), "engine_new");
    snodo_config_free(config);
    check(snodo_elicit_form(TEXT("Who should we greet?"),
                            TEXT("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
                                 "\"required\":[\"name\"]}"),
                            &who),
          "elicit_form");

    /* initialize: answer the version snodo picks and record the session,
     * with the verified user of the initialize request (the Bearer token's
     * subject; NULL for the anonymous principal). */
    const char *init = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                       "\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},\"clientInfo\":{\"name\":\"demo\","
                       "\"version\":\"1\"}}}";
    char *version = NULL;
    check(snodo_engine_legacy_version_for(engine, TEXT("2025-11-25"), &version, NULL), "version_for");
    if (!version) return 1; /* legacy serving disabled */
    snodo_session *session = NULL;
    check(snodo_session_from_initialize(TEXT(init), TEXT(version), TEXT("alice"), &session), "from_initialize");
    check(snodo_session_with_id(session, TEXT("stdio-1")), "with_id"); /* HTTP: the Mcp-Session-Id */
    printf("initialize: protocolVersion %s\n", version);
    snodo_string_free(version);

    /* A tools/call on that session: same handler as the 2026 path. */
    const char *request = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"greet\"}}";
    snodo_call *call = NULL;
    snodo_response *ready = NULL;
    check(snodo_engine_begin_legacy(engine, TEXT(request), session, TEXT("alice"), &call, &ready), "begin_legacy");
    if (ready) { print_response("server -> client:", ready); return 1; }
    snodo_pending_flow *pending = run(engine, call);
    if (!pending) return 1;

    /* Another user who learnt the session id: refused as if there were no
     * such session, before the session is touched. */
    snodo_response *refusal = NULL;
    check(snodo_session_check_principal(session, TEXT("mallory"), &refusal), "check_principal");
    if (refusal) print_response("mallory on the session:", refusal);
    snodo_response_free(refusal);

    /* The client answers the elicitation/create; route by id. */
    char *ids = NULL, answer[512];
    check(snodo_pending_flow_request_ids(pending, &ids, NULL), "request_ids");
    snprintf(answer, sizeof answer, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"result\":{\"action\":\"accept\","
             "\"content\":{\"name\":\"Ada\"}}}", (int)(strchr(ids + 2, '"') - ids), ids + 1);
    snodo_string_free(ids);
    printf("client -> server: %s\n", answer);
    snodo_feed_kind kind;
    snodo_response *response = NULL;
    char *cancellations = NULL;
    check(snodo_session_check_principal(session, TEXT("alice"), &refusal), "check_principal");
    if (refusal) return 1; /* the opener is admitted */
    check(snodo_engine_feed(engine, pending, TEXT(answer), TEXT("alice"), &kind, &call, &response, &cancellations, NULL),
          "feed");
    snodo_string_free(cancellations);
    if (kind == SNODO_FEED_KIND_RESUME) {
        snodo_pending_flow *again = run(engine, call);
        snodo_pending_flow_free(again);
    } else if (response) {
        print_response("server -> client:", response);
        snodo_response_free(response);
    }

    /* The same response again: refused with a clear status, nothing sent. */
    snodo_status st =
        snodo_engine_feed(engine, pending, TEXT(answer), TEXT("alice"), &kind, &call, &response, &cancellations, NULL);
    char *detail = NULL;
    snodo_last_error(&detail, NULL);
    printf("duplicate: %s (%s)\n", snodo_status_name((int)st), detail ? detail : "");
    snodo_string_free(detail);

    snodo_pending_flow_free(pending); /* also what a disconnect does */
    snodo_session_free(session);
    snodo_question_free(who);
    snodo_engine_free(engine);
    return 0;
}
