/* The final round of an effectful flow, made at most once across a fleet
 * with Redis (hiredis): the recipe of ffi/README.md, "Consume-once".
 *
 * A "book" tool asks how many seats (round 1), then books them (the final
 * round: the effect). run_once() below is the algorithm every snodo binding
 * runs (docs/once.md), on the same keys, values and Lua scripts as the
 * Rust, Python and Node stores, so C processes can share one Redis with
 * them:
 *
 *   1. the call must be a retry (it opened a token): else misuse;
 *   2. EVAL claim on <prefix>result:<flow id>:<answers digest>:
 *      "done:<text>" -> return the remembered result, no effect;
 *      "pending"     -> another process runs it: poll, 5 ms doubling to
 *                       250 ms, until done or `wait` (then STORE error);
 *      "won"         -> SET <prefix>token:<token id> 1 NX PX <ttl>:
 *                       nil (the token was already used with other
 *                       answers) -> release (the result key only: the
 *                       token is the other attempt's), replay error;
 *                       OK -> run the effect, EVAL complete with its
 *                       result, return it. An effect that failed before
 *                       doing anything -> EVAL release with the result
 *                       key AND the token key (one script: the retry of
 *                       the same final round may run it again).
 *   3. any Redis error -> STORE error and no effect (fail closed); a
 *      failed release leaves the token consumed (the safe side).
 *
 * Build (hiredis from Debian's libhiredis-dev):
 *   cc -std=c11 once_redis.c $(pkg-config --cflags --libs snodo hiredis)
 * Run: SNODO_REDIS_URL=redis://127.0.0.1:6379/ ./once_redis
 *
 * The key, clock and token-id seed are fixed so that the output is
 * reproducible (scripts/test-c.sh diffs it against once_redis.expected and
 * exits non-zero on any broken promise); keys get a per-process prefix so
 * that reruns against the same Redis do not see earlier results.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>
#include <snodo.h>

/* The engine's clock skew, set explicitly so that run_once knows it: a
 * store entry must outlive every retry the engine may still accept. */
#define CLOCK_SKEW_SECS 60
#define LEASE_MS 30000     /* a won claim lapses after this (core default) */
#define WAIT_MS 35000      /* longest wait for another process's claim */
#define TIMEOUT_MS 2000    /* per Redis connect and command */

/* ---- A consume-once store on one Redis connection -------------------- */

typedef struct {
    const char *host;
    int port;
    char prefix[64];
    redisContext *c;
} once_store;

typedef enum { ONCE_OK, ONCE_STORE_ERROR, ONCE_REPLAYED, ONCE_NOT_A_RETRY, ONCE_EFFECT_FAILED } once_status;

static void say(char *err, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

/* One command, (re)connecting first if needed. NULL (and `err` set) on a
 * connection or protocol error; an error reply is an error too. */
static redisReply *command(once_store *s, char *err, size_t n, int argc, const char **argv, const size_t *lens) {
    if (s->c && s->c->err) {
        redisFree(s->c); /* a failed context stays failed: start over */
        s->c = NULL;
    }
    if (!s->c) {
        struct timeval tv = {TIMEOUT_MS / 1000, (TIMEOUT_MS % 1000) * 1000};
        s->c = redisConnectWithTimeout(s->host, s->port, tv);
        if (!s->c || s->c->err) {
            say(err, n, "connect: %s", s->c ? s->c->errstr : "out of memory");
            return NULL;
        }
        redisSetTimeout(s->c, tv);
    }
    redisReply *r = redisCommandArgv(s->c, argc, argv, lens);
    if (!r) {
        say(err, n, "command: %s", s->c->errstr);
        return NULL;
    }
    if (r->type == REDIS_REPLY_ERROR) {
        say(err, n, "command: %s", r->str);
        freeReplyObject(r);
        return NULL;
    }
    return r;
}

/* EVAL <script> 1 <key> [args...] */
static redisReply *eval(once_store *s, const char *script, const char *key, const char *a1, size_t a1_len,
                        const char *a2, char *err, size_t n) {
    const char *argv[6] = {"EVAL", script, "1", key, a1, a2};
    size_t lens[6] = {4, strlen(script), 1, strlen(key), a1 ? a1_len : 0, a2 ? strlen(a2) : 0};
    return command(s, err, n, a2 ? 6 : a1 ? 5 : 4, argv, lens);
}

/* EVAL <release script> 2 <result key> <token key>: after a failed effect,
 * drops the claim and gives the consumed token id back, atomically. */
static redisReply *release_with_token(once_store *s, const char *result_key, const char *token_key, char *err,
                                      size_t n) {
    const char *script = snodo_once_release_script();
    const char *argv[5] = {"EVAL", script, "2", result_key, token_key};
    size_t lens[5] = {4, strlen(script), 1, strlen(result_key), strlen(token_key)};
    return command(s, err, n, 5, argv, lens);
}

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The effect: returns the final RESULT object as JSON text (malloc'd), or
 * NULL if it failed BEFORE doing anything (say why in `err`): then the
 * attempt is undone and the client may retry the same final round. */
typedef char *(*effect_fn)(void *ctx, char *err, size_t n);

/* Runs `effect` at most once for the final round `call`. On ONCE_OK,
 * `*result` is the result JSON (malloc'd): fresh, or the remembered one.
 * ONCE_EFFECT_FAILED: the effect failed before doing anything, its claim
 * and token were given back (`err` says why it failed). */
static once_status run_once(once_store *s, const snodo_engine *engine, const snodo_call *call, effect_fn effect,
                            void *ctx, char **result, char *err, size_t n) {
    once_status st = ONCE_STORE_ERROR;
    char *token_id = NULL, *flow_id = NULL, *digest = NULL, *token_key = NULL, *result_key = NULL;
    uint64_t expires = 0, now = 0;
    snodo_call_token_id(call, &token_id, NULL);
    if (!token_id) {
        say(err, n, "run_once needs a retry: a first round has no flow to key on");
        return ONCE_NOT_A_RETRY;
    }
    if (snodo_call_flow_id(call, &flow_id, NULL) != SNODO_STATUS_OK ||
        snodo_call_answers_digest(call, &digest, NULL) != SNODO_STATUS_OK ||
        snodo_call_token_expires_at(call, &expires) != SNODO_STATUS_OK ||
        snodo_engine_now(engine, &now) != SNODO_STATUS_OK ||
        snodo_once_token_key((const uint8_t *)s->prefix, strlen(s->prefix), (const uint8_t *)token_id,
                             strlen(token_id), &token_key, NULL) != SNODO_STATUS_OK ||
        snodo_once_result_key((const uint8_t *)s->prefix, strlen(s->prefix), (const uint8_t *)flow_id,
                              strlen(flow_id), (const uint8_t *)digest, strlen(digest), &result_key,
                              NULL) != SNODO_STATUS_OK) {
        say(err, n, "ids: %s", snodo_status_name((int)SNODO_STATUS_ARGUMENT));
        goto out;
    }
    /* Keep entries until the last instant a retry can still be accepted. */
    uint64_t until = expires + CLOCK_SKEW_SECS;
    char ttl_ms[32], lease_ms[32];
    snprintf(ttl_ms, sizeof ttl_ms, "%llu", (unsigned long long)((until > now ? until - now : 1) * 1000));
    snprintf(lease_ms, sizeof lease_ms, "%d", LEASE_MS);

    long long started = now_ms(), pause = 5;
    for (;;) {
        redisReply *r = eval(s, snodo_once_claim_script(), result_key, lease_ms, strlen(lease_ms), NULL, err, n);
        if (!r) goto out;
        if (r->type != REDIS_REPLY_STRING) {
            say(err, n, "claim: unexpected reply type %d", r->type);
            freeReplyObject(r);
            goto out;
        }
        size_t done_len = strlen(SNODO_ONCE_DONE_PREFIX);
        if (r->len >= done_len && memcmp(r->str, SNODO_ONCE_DONE_PREFIX, done_len) == 0) {
            *result = strndup(r->str + done_len, r->len - done_len); /* remembered: no effect */
            freeReplyObject(r);
            st = ONCE_OK;
            goto out;
        }
        int won = strcmp(r->str, SNODO_ONCE_WON) == 0, pending = strcmp(r->str, SNODO_ONCE_PENDING) == 0;
        freeReplyObject(r);
        if (won) break;
        if (!pending) {
            say(err, n, "claim: a result key holds a value snodo does not write");
            goto out;
        }
        long long waited = now_ms() - started;
        if (waited >= WAIT_MS) {
            say(err, n, "the result is still pending after %lld ms (another process is running the effect)", waited);
            goto out;
        }
        struct timespec ts = {pause / 1000, (pause % 1000) * 1000000};
        nanosleep(&ts, NULL);
        pause = pause * 2 > 250 ? 250 : pause * 2;
    }

    /* Won: consume the token id before the effect (SET NX answers nil if
     * another final round of this token, with other answers, came first). */
    const char *set[] = {"SET", token_key, SNODO_ONCE_CONSUMED, "NX", "PX", ttl_ms};
    size_t set_lens[] = {3, strlen(token_key), strlen(SNODO_ONCE_CONSUMED), 2, 2, strlen(ttl_ms)};
    redisReply *r = command(s, err, n, 6, set, set_lens);
    int first = r && r->type == REDIS_REPLY_STATUS;
    int used = r && r->type == REDIS_REPLY_NIL;
    if (r) freeReplyObject(r);
    if (!first) {
        char ignored[128]; /* nothing happened: let another caller try */
        redisReply *rel = eval(s, snodo_once_release_script(), result_key, NULL, 0, NULL, ignored, sizeof ignored);
        if (rel) freeReplyObject(rel);
        if (used) {
            say(err, n, "%s", SNODO_ONCE_REPLAYED_MESSAGE);
            st = ONCE_REPLAYED;
        } else if (r) {
            say(err, n, "consume: unexpected reply");
        }
        goto out;
    }
    char *text = effect(ctx, err, n);
    if (!text) {
        /* Nothing happened: release the claim and give the token id back in
         * one script. If that fails, report the store error; the token stays
         * consumed (fail closed: the user may have to start over). */
        char why[128];
        r = release_with_token(s, result_key, token_key, why, sizeof why);
        if (!r) {
            say(err, n, "%s", why);
            goto out;
        }
        freeReplyObject(r);
        st = ONCE_EFFECT_FAILED;
        goto out;
    }
    r = eval(s, snodo_once_complete_script(), result_key, text, strlen(text), ttl_ms, err, n);
    if (!r) {
        /* The effect ran but its result is not remembered: report it; the
         * claim stays pending until its lease lapses. */
        free(text);
        goto out;
    }
    freeReplyObject(r);
    *result = text;
    st = ONCE_OK;
out:
    snodo_string_free(token_id);
    snodo_string_free(flow_id);
    snodo_string_free(digest);
    snodo_string_free(token_key);
    snodo_string_free(result_key);
    return st;
}

/* ---- The tool --------------------------------------------------------- */

static void check(snodo_status st, const char *what) {
    if (st == SNODO_STATUS_OK) return;
    char *detail = NULL;
    snodo_last_error(&detail, NULL);
    fprintf(stderr, "%s: %s (%s)\n", what, snodo_status_message((int)st), detail ? detail : "");
    snodo_string_free(detail);
    exit(1);
}

static int g_bookings;    /* the ledger: how many times the effect ran */
static int g_ledger_down; /* the ledger briefly unavailable */

struct booking {
    const char *seats;
};

static char *book(void *ctx, char *err, size_t n) {
    const struct booking *b = ctx;
    if (g_ledger_down) {
        say(err, n, "the ledger is unavailable, nothing was booked");
        return NULL;
    }
    g_bookings++;
    char *out = malloc(160);
    if (!out) exit(1);
    snprintf(out, 160, "{\"content\":[{\"type\":\"text\",\"text\":\"Booked\"}],\"structuredContent\":%s}", b->seats);
    return out;
}

static const char SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{\"seats\":{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"seats\"]}";

/* begin + handler + decide for one message; prints and returns the body. */
static char *serve(const snodo_engine *engine, once_store *store, const char *request) {
    snodo_call *call = NULL;
    snodo_response *response = NULL;
    char *question = NULL, *seats = NULL, *body = NULL, *result = NULL, err[256] = "";
    char outcome[1024];
    snodo_answer_kind kind;
    check(snodo_engine_begin(engine, (const uint8_t *)request, strlen(request), (const uint8_t *)"alice", 5, &call,
                             &response),
          "begin");
    if (call) {
        check(snodo_elicit_form((const uint8_t *)"How many seats?", 15, (const uint8_t *)SCHEMA, strlen(SCHEMA),
                                &question, NULL),
              "elicit_form");
        check(snodo_call_response(call, (const uint8_t *)"seats", 5, (const uint8_t *)question, strlen(question),
                                  &kind, &seats, NULL),
              "call_response");
        if (kind != SNODO_ANSWER_KIND_ACCEPTED) {
            snprintf(outcome, sizeof outcome, "{\"type\":\"input_required\",\"inputRequests\":{\"seats\":%s}}",
                     question);
        } else {
            /* The final round: the effect, at most once. */
            struct booking b = {seats};
            switch (run_once(store, engine, call, book, &b, &result, err, sizeof err)) {
            case ONCE_OK:
                snprintf(outcome, sizeof outcome, "{\"type\":\"complete\",\"result\":%s}", result);
                break;
            case ONCE_REPLAYED:
                snprintf(outcome, sizeof outcome,
                         "{\"type\":\"error\",\"code\":-32602,\"message\":\"Invalid or expired requestState "
                         "(replayed)\"}");
                break;
            case ONCE_STORE_ERROR: /* no effect happened: the client may retry */
                snprintf(outcome, sizeof outcome,
                         "{\"type\":\"error\",\"code\":-32603,\"message\":\"consume-once store unavailable: %s\"}",
                         err);
                break;
            case ONCE_EFFECT_FAILED: /* nothing booked, token given back: retry */
                snprintf(outcome, sizeof outcome,
                         "{\"type\":\"error\",\"code\":-32603,\"message\":\"booking failed, retry: %s\"}", err);
                break;
            case ONCE_NOT_A_RETRY:
                snprintf(outcome, sizeof outcome, "{\"type\":\"error\",\"code\":-32603,\"message\":\"%s\"}", err);
                break;
            }
        }
        check(snodo_engine_decide(engine, call, (const uint8_t *)outcome, strlen(outcome), &response), "decide");
    }
    check(snodo_response_body(response, &body, NULL), "body");
    printf("%s\n", body);
    free(result);
    snodo_string_free(seats);
    snodo_string_free(question);
    snodo_response_free(response);
    snodo_call_free(call);
    return body;
}

#define META                                                              \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}"

/* The final round's request: id, the same arguments as round 1 (the token
 * is bound to them), the seats answered, the token. */
static void final_round(char *buf, size_t n, int id, const char *arguments, int seats, const char *state_body) {
    const char *tok = strstr(state_body, "\"requestState\":\"");
    if (!tok) exit(1);
    tok += strlen("\"requestState\":\"");
    snprintf(buf, n,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"book\"," META
             ",\"arguments\":%s,\"inputResponses\":{\"seats\":{\"action\":\"accept\",\"content\":{\"seats\":%d}}},"
             "\"requestState\":\"%.*s\"}}",
             id, arguments, seats, (int)(strchr(tok, '"') - tok), tok);
}

static int g_broken;
static void expect(int ok, const char *what) {
    printf("%s: %s\n", ok ? "ok" : "BROKEN", what);
    if (!ok) g_broken++;
}

/* The body without its "id" member, to compare two answers to retries. */
static const char *after_id(const char *body) {
    const char *p = strstr(body, ",\"jsonrpc\"");
    return p ? p : body;
}

/* Plays "another process is running the effect": sets the pending marker
 * of `request`'s final round, as the claim script would, with a lease of
 * `lease_ms`, so that run_once polls until it lapses. */
static void hold_claim(const snodo_engine *engine, once_store *s, const char *request, int lease_ms) {
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    char *flow = NULL, *digest = NULL, *key = NULL, ms[16], err[128];
    check(snodo_engine_begin(engine, (const uint8_t *)request, strlen(request), (const uint8_t *)"alice", 5, &call,
                             &resp),
          "begin");
    check(call ? snodo_call_flow_id(call, &flow, NULL) : SNODO_STATUS_ARGUMENT, "flow_id");
    check(snodo_call_answers_digest(call, &digest, NULL), "answers_digest");
    check(snodo_once_result_key((const uint8_t *)s->prefix, strlen(s->prefix), (const uint8_t *)flow, strlen(flow),
                                (const uint8_t *)digest, strlen(digest), &key, NULL),
          "result_key");
    snprintf(ms, sizeof ms, "%d", lease_ms);
    const char *argv[] = {"SET", key, SNODO_ONCE_PENDING, "PX", ms};
    size_t lens[] = {3, strlen(key), strlen(SNODO_ONCE_PENDING), 2, strlen(ms)};
    redisReply *r = command(s, err, sizeof err, 5, argv, lens);
    if (!r) {
        fprintf(stderr, "hold_claim: %s\n", err);
        exit(1);
    }
    freeReplyObject(r);
    snodo_string_free(flow);
    snodo_string_free(digest);
    snodo_string_free(key);
    snodo_response_free(resp);
    snodo_call_free(call);
}

int main(void) {
    const char *url = getenv("SNODO_REDIS_URL");
    char host[64];
    int port = 0;
    if (!url || sscanf(url, "redis://%63[^:/]:%d", host, &port) != 2) {
        fprintf(stderr, "set SNODO_REDIS_URL=redis://<host>:<port>/\n");
        return 2;
    }
    once_store store = {host, port, "", NULL};
    snprintf(store.prefix, sizeof store.prefix, "%sexample:%ld:", SNODO_ONCE_DEFAULT_PREFIX, (long)getpid());
    /* Nothing listens on port 1 of the loopback: the "Redis down" store. */
    once_store down = {"127.0.0.1", 1, "", NULL};
    snprintf(down.prefix, sizeof down.prefix, "%s", store.prefix);

    static const uint8_t key[32] = "example-only-key-0123456789abcde";
    snodo_config *config = NULL;
    snodo_engine *engine = NULL;
    check(snodo_config_new(&config), "config_new");
    check(snodo_config_add_key(config, (const uint8_t *)"k1", 2, key, sizeof key), "add_key");
    check(snodo_config_set_clock_skew_secs(config, CLOCK_SKEW_SECS), "clock_skew");
    check(snodo_config_set_fixed_time(config, 1800000000), "fixed_time");
    check(snodo_config_set_limit(config, (const uint8_t *)"test_random_seed", 16, 1), "test_random_seed");
    check(snodo_engine_new(config, &engine), "engine_new");
    snodo_config_free(config);

    const char *first = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"book\"," META
                        ",\"arguments\":{}}}";
    char req[4096];
    printf("-- round 1 asks; the final round books\n");
    char *r1 = serve(engine, &store, first);
    final_round(req, sizeof req, 2, "{}", 2, r1);
    char *done = serve(engine, &store, req);
    expect(g_bookings == 1 && strstr(done, "\"seats\":2"), "the final round ran the effect once");

    printf("-- the response was lost: the client retries the same final round\n");
    final_round(req, sizeof req, 3, "{}", 2, r1);
    char *again = serve(engine, &store, req);
    expect(g_bookings == 1 && strcmp(after_id(done), after_id(again)) == 0,
           "the retry got the remembered result, identical but for the id, without the effect");

    printf("-- a replay of the same token with other answers\n");
    final_round(req, sizeof req, 4, "{}", 3, r1);
    char *replay = serve(engine, &store, req);
    expect(g_bookings == 1 && strstr(replay, "\"code\":-32602") && strstr(replay, "(replayed)"),
           "refused as a replay, no effect");

    printf("-- Redis unreachable: a new flow's final round\n");
    const char *first2 = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"book\"," META
                         ",\"arguments\":{\"table\":7}}}";
    char *r2 = serve(engine, &store, first2);
    final_round(req, sizeof req, 6, "{\"table\":7}", 4, r2);
    char *failed = serve(engine, &down, req);
    expect(g_bookings == 1 && strstr(failed, "\"code\":-32603") && strstr(failed, "consume-once store unavailable"),
           "a clear error and no effect (fail closed)");
    printf("-- Redis is back: the client retries the same request\n");
    char *resumed = serve(engine, &store, req);
    expect(g_bookings == 2 && strstr(resumed, "\"seats\":4"), "the retry books once");

    printf("-- another process holds the claim (pending, its lease lapses in 200 ms)\n");
    const char *first3 = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"book\"," META
                         ",\"arguments\":{\"table\":9}}}";
    char *r3 = serve(engine, &store, first3);
    final_round(req, sizeof req, 8, "{\"table\":9}", 1, r3);
    hold_claim(engine, &store, req, 200);
    char *waited = serve(engine, &store, req);
    expect(g_bookings == 3 && strstr(waited, "\"seats\":1"), "the final round waited, then won and booked once");

    printf("-- the ledger is briefly unavailable: the effect fails before booking\n");
    const char *first4 = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"book\"," META
                         ",\"arguments\":{\"table\":11}}}";
    char *r4 = serve(engine, &store, first4);
    final_round(req, sizeof req, 10, "{\"table\":11}", 5, r4);
    g_ledger_down = 1;
    char *unbooked = serve(engine, &store, req);
    g_ledger_down = 0;
    expect(g_bookings == 3 && strstr(unbooked, "\"code\":-32603") && strstr(unbooked, "booking failed, retry"),
           "a clear error, nothing booked");
    printf("-- the client retries the same final round: the token was given back\n");
    final_round(req, sizeof req, 11, "{\"table\":11}", 5, r4);
    char *rebooked = serve(engine, &store, req);
    expect(g_bookings == 4 && strstr(rebooked, "\"seats\":5"), "the retry books once, not refused as a replay");
    printf("-- then the same token with other answers is still a replay\n");
    final_round(req, sizeof req, 12, "{\"table\":11}", 6, r4);
    char *replay2 = serve(engine, &store, req);
    expect(g_bookings == 4 && strstr(replay2, "(replayed)"), "refused as a replay, no effect");

    printf("-- misuse: run_once on a first round\n");
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    char *result = NULL, err[256] = "";
    check(snodo_engine_begin(engine, (const uint8_t *)first, strlen(first), (const uint8_t *)"alice", 5, &call, &resp),
          "begin");
    struct booking b = {"{}"};
    expect(run_once(&store, engine, call, book, &b, &result, err, sizeof err) == ONCE_NOT_A_RETRY && g_bookings == 4,
           err);
    snodo_call_free(call);

    snodo_string_free(r1);
    snodo_string_free(done);
    snodo_string_free(again);
    snodo_string_free(replay);
    snodo_string_free(r2);
    snodo_string_free(failed);
    snodo_string_free(resumed);
    snodo_string_free(r3);
    snodo_string_free(waited);
    snodo_string_free(r4);
    snodo_string_free(unbooked);
    snodo_string_free(rebooked);
    snodo_string_free(replay2);
    if (store.c) redisFree(store.c);
    if (down.c) redisFree(down.c);
    snodo_engine_free(engine);
    printf("%d effect(s), %d broken promise(s)\n", g_bookings, g_broken);
    return g_broken == 0 ? 0 : 1;
}
