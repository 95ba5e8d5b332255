/* The final round of an effectful flow, booked at most once per flow across
 * a fleet, with Redis (hiredis): the recipe of ffi/README.md, "At most
 * once".
 *
 * A "book" tool asks how many seats (round 1), then books them (the final
 * round: the effect). libsnodo's once machine holds every rule; this file
 * only runs the machine's commands on Redis and feeds the replies back,
 * as every snodo binding does:
 *
 *   run = snodo_once_run_new(call, prefix, lease, wait); step = start
 *   COMMAND  EVALSHA (EVAL on NOSCRIPT) of the command's script, KEYS[1] =
 *            its key, ARGV = its arguments; feed the reply text. A Redis
 *            error: "once store unavailable", and the effect never runs.
 *   SLEEP    pause, then resume (another process holds the claim).
 *   EFFECT   run the effect (with its fence and a lease to extend);
 *            effect_done(result), or effect_failed() if it did nothing.
 *   DONE     the result: this run's, or the one remembered for these
 *            answers. RELEASED: the effect's own error.
 *   TOKEN    (from feed) the flow completed with other answers: -32602.
 *
 * Every retry of the tool first looks (snodo_once_lookup_new): a result
 * remembered for these answers is answered at once; other answers get the
 * replay error before anything is asked again.
 *
 * Build (hiredis from Debian's libhiredis-dev):
 *   cc -std=c11 once_redis.c $(pkg-config --cflags --libs snodo hiredis)
 * Run: SNODO_REDIS_URL=redis://127.0.0.1:6379/ ./once_redis
 *
 * The key is fixed here; a real server loads its keys from its secret
 * store. scripts/test-c.sh diffs the output against once_redis.expected
 * (with the requestState tokens masked: they differ on every run) and
 * fails on any broken promise; keys get a per-process prefix so that
 * reruns against the same Redis do not see earlier flows.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>
#include <snodo.h>

#define TIMEOUT_MS 2000 /* per Redis connect and command */

/* ---- The store: one Redis connection ----------------------------------- */

typedef struct {
    const char *host;
    int port;
    char prefix[64];
    redisContext *c;
    char sha[5][41]; /* SCRIPT LOAD's answer, by snodo_once_op */
} redis_store;

static void say(char *err, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

/* One command, (re)connecting first if needed. NULL with `err` set on a
 * connection error or an error reply (its text, e.g. "NOSCRIPT ..."). */
static redisReply *command(redis_store *s, int argc, const char **argv, const size_t *lens, char *err, size_t n) {
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
        say(err, n, "%s", s->c->errstr);
        return NULL;
    }
    if (r->type == REDIS_REPLY_ERROR) {
        say(err, n, "%s", r->str);
        freeReplyObject(r);
        return NULL;
    }
    return r;
}

/* Runs one machine command: EVALSHA of its script (loaded on first use),
 * EVAL when Redis lost its script cache. On success `*reply` is the reply
 * text (malloc'd). */
static bool execute(redis_store *s, const snodo_once_command *cmd, char **reply, size_t *reply_len, char *err,
                    size_t n) {
    snodo_once_op op = SNODO_ONCE_OP_LOOKUP;
    const char *argv[8];
    size_t lens[8], argc = 0;
    if (snodo_once_command_op(cmd, &op) != SNODO_STATUS_OK ||
        snodo_once_command_script(cmd, &argv[1], &lens[1]) != SNODO_STATUS_OK ||
        snodo_once_command_key(cmd, &argv[3], &lens[3]) != SNODO_STATUS_OK ||
        snodo_once_command_arg_count(cmd, &argc) != SNODO_STATUS_OK || argc > 4) {
        say(err, n, "not a once command");
        return false;
    }
    for (size_t i = 0; i < argc; i++) snodo_once_command_arg(cmd, i, &argv[4 + i], &lens[4 + i]);
    argv[2] = "1", lens[2] = 1;
    if (!s->sha[op][0]) {
        const char *load[] = {"SCRIPT", "LOAD", argv[1]};
        size_t load_lens[] = {6, 4, lens[1]};
        redisReply *r = command(s, 3, load, load_lens, err, n);
        if (!r) return false;
        if (r->type == REDIS_REPLY_STRING && r->len == 40) memcpy(s->sha[op], r->str, 41);
        freeReplyObject(r);
    }
    const char *script = argv[1];
    size_t script_len = lens[1];
    argv[0] = "EVALSHA", lens[0] = 7, argv[1] = s->sha[op], lens[1] = 40;
    redisReply *r = command(s, (int)(4 + argc), argv, lens, err, n);
    if (!r && strncmp(err, "NOSCRIPT", 8) == 0) {
        argv[0] = "EVAL", lens[0] = 4, argv[1] = script, lens[1] = script_len;
        r = command(s, (int)(4 + argc), argv, lens, err, n);
    }
    if (!r) return false;
    bool ok = r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS;
    if (ok) {
        *reply = malloc(r->len + 1);
        memcpy(*reply, r->str, r->len + 1);
        *reply_len = r->len;
    } else {
        say(err, n, "a reply that is not text (type %d)", r->type);
    }
    freeReplyObject(r);
    return ok;
}

/* At start-up: Redis must never evict a live flow record. */
static bool check_eviction_policy(redis_store *s, char *err, size_t n) {
    const char *argv[] = {"CONFIG", "GET", "maxmemory-policy"};
    size_t lens[] = {6, 3, 16};
    redisReply *r = command(s, 3, argv, lens, err, n);
    if (!r) return false;
    bool ok = false;
    if (r->type == REDIS_REPLY_ARRAY && r->elements == 2 && r->element[1]->type == REDIS_REPLY_STRING) {
        ok = snodo_once_check_eviction_policy((const uint8_t *)r->element[1]->str, r->element[1]->len) ==
             SNODO_STATUS_OK;
        if (!ok) {
            char *detail = NULL;
            snodo_last_error(&detail, NULL);
            say(err, n, "%s", detail ? detail : "");
            snodo_string_free(detail);
        }
    } else {
        say(err, n, "CONFIG GET maxmemory-policy: an unexpected reply");
    }
    freeReplyObject(r);
    return ok;
}

/* ---- The driver -------------------------------------------------------- */

typedef enum { ONCE_OK, ONCE_STORE_ERROR, ONCE_REPLAYED, ONCE_EFFECT_FAILED, ONCE_MISUSE } once_status;

/* What the effect gets: its fencing number, and its lease to extend. */
typedef struct {
    uint64_t fence;
    redis_store *store;
    const snodo_once_step *step;
} once_lease;

/* 1: the lease runs a full lease from now; 0: it is lost (stop, write
 * nothing); -1: Redis failed. */
static int lease_extend(once_lease *l) {
    const snodo_once_command *cmd = NULL;
    char *reply = NULL, err[128];
    size_t len = 0;
    bool extended = false;
    if (snodo_once_step_extend_command(l->step, &cmd) != SNODO_STATUS_OK ||
        !execute(l->store, cmd, &reply, &len, err, sizeof err))
        return -1;
    snodo_status st = snodo_once_step_extended(l->step, (const uint8_t *)reply, len, &extended);
    free(reply);
    return st == SNODO_STATUS_OK && extended ? 1 : 0;
}

/* The effect: returns the result JSON text (malloc'd), or NULL if it
 * failed BEFORE doing anything (`err` says why): its claim is released and
 * the client's retry of the same final round runs it. */
typedef char *(*effect_fn)(void *ctx, once_lease *lease, char *err, size_t n);

/* The status of a failed libsnodo call, its detail without "NAME: ". */
static once_status failed(snodo_status st, char *err, size_t n) {
    char *detail = NULL;
    snodo_last_error(&detail, NULL);
    const char *colon = detail ? strstr(detail, ": ") : NULL;
    say(err, n, "%s", colon ? colon + 2 : "");
    snodo_string_free(detail);
    return st == SNODO_STATUS_TOKEN ? ONCE_REPLAYED : st == SNODO_STATUS_STORE ? ONCE_STORE_ERROR : ONCE_MISUSE;
}

/* Drives `run` to its end. A run (`effect` set) ends DONE (`*result`) or
 * RELEASED; a lookup (`effect` NULL) ends DONE or OPEN (`*result` NULL). */
static once_status drive(redis_store *s, snodo_once_run *run, effect_fn effect, void *ctx, char **result, char *err,
                         size_t n) {
    snodo_once_step *step = NULL, *next = NULL;
    char why[256] = "";
    once_status out = ONCE_OK;
    snodo_status st = snodo_once_run_start(run, &step);
    *result = NULL;
    while (st == SNODO_STATUS_OK) {
        snodo_once_step_kind kind = SNODO_ONCE_STEP_KIND_OPEN;
        snodo_once_step_get_kind(step, &kind);
        if (kind == SNODO_ONCE_STEP_KIND_COMMAND) {
            const snodo_once_command *cmd = NULL;
            char *reply = NULL, detail[192];
            size_t len = 0;
            snodo_once_step_command(step, &cmd);
            if (!execute(s, cmd, &reply, &len, detail, sizeof detail)) {
                say(err, n, why[0] ? "%s (after the effect failed: %s)" : "%s", detail, why);
                out = ONCE_STORE_ERROR;
                break;
            }
            st = snodo_once_run_feed(run, (const uint8_t *)reply, len, &next);
            free(reply);
        } else if (kind == SNODO_ONCE_STEP_KIND_SLEEP) {
            uint64_t ms = 0;
            snodo_once_step_sleep_ms(step, &ms);
            struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
            st = snodo_once_run_resume(run, &next);
        } else if (kind == SNODO_ONCE_STEP_KIND_EFFECT && effect) {
            once_lease lease = {0, s, step};
            snodo_once_step_fence(step, &lease.fence);
            char *text = effect(ctx, &lease, why, sizeof why);
            if (text) {
                st = snodo_once_run_effect_done(run, (const uint8_t *)text, strlen(text), &next);
                free(text);
            } else {
                st = snodo_once_run_effect_failed(run, &next);
            }
        } else if (kind == SNODO_ONCE_STEP_KIND_DONE) {
            char *text = NULL;
            snodo_once_step_text(step, &text, NULL);
            *result = text ? strdup(text) : NULL;
            snodo_string_free(text);
            break;
        } else if (kind == SNODO_ONCE_STEP_KIND_OPEN) {
            break;
        } else { /* RELEASED */
            say(err, n, "%s", why);
            out = ONCE_EFFECT_FAILED;
            break;
        }
        if (st == SNODO_STATUS_OK) {
            snodo_once_step_free(step);
            step = next;
        }
    }
    if (st != SNODO_STATUS_OK) out = failed(st, err, n);
    snodo_once_step_free(step);
    return out;
}

/* Runs `effect` at most once for the flow of the final round `call`. */
static once_status run_once(redis_store *s, const snodo_call *call, effect_fn effect, void *ctx, char **result,
                            char *err, size_t n) {
    snodo_once_run *run = NULL;
    snodo_status st = snodo_once_run_new(call, (const uint8_t *)s->prefix, strlen(s->prefix), 0, 0, &run);
    if (st != SNODO_STATUS_OK) return failed(st, err, n);
    once_status out = drive(s, run, effect, ctx, result, err, n);
    snodo_once_run_free(run);
    return out;
}

/* Looks before asking: `*result` the remembered result, or NULL. */
static once_status check_once(redis_store *s, const snodo_call *call, char **result, char *err, size_t n) {
    snodo_once_run *run = NULL;
    snodo_status st = snodo_once_lookup_new(call, (const uint8_t *)s->prefix, strlen(s->prefix), &run);
    if (st != SNODO_STATUS_OK) return failed(st, err, n);
    once_status out = drive(s, run, NULL, NULL, result, err, n);
    snodo_once_run_free(run);
    return out;
}

/* ---- The tool ------------------------------------------------------------ */

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

static char *book(void *ctx, once_lease *lease, char *err, size_t n) {
    const char *seats = ctx;
    if (g_ledger_down) {
        say(err, n, "the ledger is unavailable, nothing was booked");
        return NULL;
    }
    /* A long booking extends its lease; a lost lease means stop. */
    if (lease_extend(lease) != 1) {
        say(err, n, "the claim was lost before booking");
        return NULL;
    }
    g_bookings++;
    char *out = malloc(200);
    if (!out) exit(1);
    snprintf(out, 200,
             "{\"content\":[{\"type\":\"text\",\"text\":\"Booked\"}],\"structuredContent\":{\"answer\":%s,"
             "\"fence\":%llu}}",
             seats, (unsigned long long)lease->fence);
    return out;
}

static const char SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{\"seats\":{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"seats\"]}";

/* The outcome for a once status that is not ONCE_OK. */
static void refusal(char *outcome, size_t size, once_status st, const char *err) {
    if (st == ONCE_REPLAYED)
        snprintf(outcome, size,
                 "{\"type\":\"error\",\"code\":-32602,\"message\":\"Invalid or expired requestState\","
                 "\"data\":{\"reason\":\"replayed\"}}");
    else if (st == ONCE_EFFECT_FAILED) /* nothing booked, claim released: retry */
        snprintf(outcome, size, "{\"type\":\"error\",\"code\":-32603,\"message\":\"booking failed, retry: %s\"}",
                 err);
    else if (st == ONCE_STORE_ERROR) /* no effect happened: the client may retry */
        snprintf(outcome, size, "{\"type\":\"error\",\"code\":-32603,\"message\":\"once store unavailable: %s\"}",
                 err);
    else
        snprintf(outcome, size, "{\"type\":\"error\",\"code\":-32603,\"message\":\"%s\"}", err);
}

/* The tool's question, built once at start-up and asked on every round. */
static snodo_question *question;

/* begin + handler + decide for one message; prints and returns the body. */
static char *serve(const snodo_engine *engine, redis_store *store, const char *request) {
    snodo_call *call = NULL;
    snodo_response *response = NULL;
    char *seats = NULL, *body = NULL, *result = NULL, err[512] = "", outcome[1024] = "";
    bool retry = false;
    snodo_answer_kind kind;
    check(snodo_engine_begin(engine, (const uint8_t *)request, strlen(request), (const uint8_t *)"alice", 5, &call,
                             &response),
          "begin");
    if (call) {
        check(snodo_call_is_retry(call, &retry), "is_retry");
        once_status st = retry ? check_once(store, call, &result, err, sizeof err) : ONCE_OK;
        if (st != ONCE_OK) {
            refusal(outcome, sizeof outcome, st, err);
        } else if (result) { /* remembered for these answers: no effect */
            snprintf(outcome, sizeof outcome, "{\"type\":\"complete\",\"result\":%s}", result);
        } else {
            check(snodo_call_response(call, (const uint8_t *)"seats", 5, question, &kind, &seats, NULL),
                  "call_response");
            if (kind != SNODO_ANSWER_KIND_ACCEPTED) { /* ask (again) */
                const snodo_input_request ask[] = {{(const uint8_t *)"seats", 5, question}};
                check(snodo_engine_decide_input_required(engine, call, ask, 1, NULL, 0, &response), "decide");
            } else if ((st = run_once(store, call, book, seats, &result, err, sizeof err)) == ONCE_OK) {
                snprintf(outcome, sizeof outcome, "{\"type\":\"complete\",\"result\":%s}", result);
            } else {
                refusal(outcome, sizeof outcome, st, err);
            }
        }
        if (!response) /* not asked: the outcome text (complete, or an error) */
            check(snodo_engine_decide(engine, call, (const uint8_t *)outcome, strlen(outcome), &response), "decide");
    }
    check(snodo_response_body(response, &body, NULL), "body");
    printf("%s\n", body);
    free(result);
    snodo_string_free(seats);
    snodo_response_free(response);
    snodo_call_free(call);
    return body;
}

#define META                                                              \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}"

/* Round 1 of the flow of table `table`. */
static void first_round(char *buf, size_t n, int id, int table) {
    snprintf(buf, n,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"book\"," META
             ",\"arguments\":{\"table\":%d}}}",
             id, table);
}

/* The final round: the same arguments (the token is bound to them), the
 * seats answered, the token of round 1's answer. */
static void final_round(char *buf, size_t n, int id, int table, int seats, const char *round1_body) {
    const char *tok = strstr(round1_body, "\"requestState\":\"");
    if (!tok) exit(1);
    tok += strlen("\"requestState\":\"");
    snprintf(buf, n,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"book\"," META
             ",\"arguments\":{\"table\":%d},\"inputResponses\":{\"seats\":{\"action\":\"accept\",\"content\":"
             "{\"seats\":%d}}},\"requestState\":\"%.*s\"}}",
             id, table, seats, (int)(strchr(tok, '"') - tok), tok);
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

/* Plays "another process is running the effect, then crashed": it wins the
 * claim of `request`'s flow with a lease of `lease_ms` and never feeds the
 * machine again, so the claim stays pending until the lease lapses. */
static void hold_claim(const snodo_engine *engine, redis_store *s, const char *request, uint64_t lease_ms) {
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    snodo_once_run *run = NULL;
    snodo_once_step *step = NULL, *next = NULL;
    const snodo_once_command *cmd = NULL;
    char *reply = NULL, err[128];
    size_t len = 0;
    check(snodo_engine_begin(engine, (const uint8_t *)request, strlen(request), (const uint8_t *)"alice", 5, &call,
                             &resp),
          "begin");
    check(snodo_once_run_new(call, (const uint8_t *)s->prefix, strlen(s->prefix), lease_ms, 0, &run), "run_new");
    check(snodo_once_run_start(run, &step), "start");
    check(snodo_once_step_command(step, &cmd), "command");
    if (!execute(s, cmd, &reply, &len, err, sizeof err)) {
        fprintf(stderr, "hold_claim: %s\n", err);
        exit(1);
    }
    check(snodo_once_run_feed(run, (const uint8_t *)reply, len, &next), "feed");
    free(reply);
    snodo_once_step_free(next);
    snodo_once_step_free(step);
    snodo_once_run_free(run); /* the "crash": nothing is fed */
    snodo_response_free(resp);
    snodo_call_free(call);
}

int main(void) {
    const char *url = getenv("SNODO_REDIS_URL");
    char host[64], err[512];
    int port = 0;
    if (!url || sscanf(url, "redis://%63[^:/]:%d", host, &port) != 2) {
        fprintf(stderr, "set SNODO_REDIS_URL=redis://<host>:<port>/\n");
        return 2;
    }
    if (snodo_abi_version() != SNODO_ABI_VERSION) return 1;
    redis_store store = {.host = host, .port = port};
    snprintf(store.prefix, sizeof store.prefix, "%sexample:%ld:", SNODO_ONCE_DEFAULT_PREFIX, (long)getpid());
    /* Nothing listens on port 1 of the loopback: the "Redis down" store. */
    redis_store down = {.host = "127.0.0.1", .port = 1};
    snprintf(down.prefix, sizeof down.prefix, "%s", store.prefix);

    printf("-- start-up: Redis must not evict flow records\n");
    if (!check_eviction_policy(&store, err, sizeof err)) {
        fprintf(stderr, "refusing to start: %s\n", err);
        return 1;
    }
    expect(1, "maxmemory-policy is " SNODO_ONCE_SAFE_EVICTION_POLICY);

    static const uint8_t key[32] = "example-only-key-0123456789abcde";
    snodo_config *config = NULL;
    snodo_engine *engine = NULL;
    check(snodo_config_new(&config), "config_new");
    check(snodo_config_add_key(config, (const uint8_t *)"k1", 2, key, sizeof key), "add_key");
    check(snodo_engine_new(config, &engine), "engine_new");
    snodo_config_free(config);
    check(snodo_elicit_form((const uint8_t *)"How many seats?", 15, (const uint8_t *)SCHEMA, strlen(SCHEMA), &question),
          "elicit_form");

    char req[4096];
    printf("-- round 1 asks; the final round books\n");
    first_round(req, sizeof req, 1, 1);
    char *r1 = serve(engine, &store, req);
    final_round(req, sizeof req, 2, 1, 2, r1);
    char *done = serve(engine, &store, req);
    expect(g_bookings == 1 && strstr(done, "{\"seats\":2}"), "the final round ran the effect once");

    printf("-- the response was lost: the client retries the same final round\n");
    final_round(req, sizeof req, 3, 1, 2, r1);
    char *again = serve(engine, &store, req);
    expect(g_bookings == 1 && strcmp(after_id(done), after_id(again)) == 0,
           "the retry got the remembered result, identical but for the id, without the effect");

    printf("-- the same flow with other answers\n");
    final_round(req, sizeof req, 4, 1, 3, r1);
    char *replay = serve(engine, &store, req);
    expect(g_bookings == 1 && strstr(replay, "\"code\":-32602") && strstr(replay, "\"reason\":\"replayed\""),
           "refused as a replay, no effect");

    printf("-- Redis unreachable: a new flow's final round\n");
    first_round(req, sizeof req, 5, 7);
    char *r2 = serve(engine, &store, req);
    final_round(req, sizeof req, 6, 7, 4, r2);
    char *unavailable = serve(engine, &down, req);
    expect(g_bookings == 1 && strstr(unavailable, "\"code\":-32603") &&
               strstr(unavailable, "once store unavailable") && !strstr(unavailable, "redis://"),
           "a clear error and no effect (fail closed)");
    printf("-- Redis is back: the client retries the same request\n");
    char *resumed = serve(engine, &store, req);
    expect(g_bookings == 2 && strstr(resumed, "{\"seats\":4}"), "the retry books once");

    printf("-- another process won the claim and died (its lease lapses in 200 ms)\n");
    first_round(req, sizeof req, 7, 9);
    char *r3 = serve(engine, &store, req);
    final_round(req, sizeof req, 8, 9, 1, r3);
    hold_claim(engine, &store, req, 200);
    char *waited = serve(engine, &store, req);
    expect(g_bookings == 3 && strstr(waited, "{\"seats\":1}") && strstr(waited, "\"fence\":2"),
           "the final round waited, took the claim over with a greater fence, booked once");

    printf("-- the ledger is briefly unavailable: the effect fails before booking\n");
    first_round(req, sizeof req, 9, 11);
    char *r4 = serve(engine, &store, req);
    final_round(req, sizeof req, 10, 11, 5, r4);
    g_ledger_down = 1;
    char *unbooked = serve(engine, &store, req);
    g_ledger_down = 0;
    expect(g_bookings == 3 && strstr(unbooked, "\"code\":-32603") && strstr(unbooked, "booking failed, retry"),
           "a clear error, nothing booked, the claim released");
    printf("-- the client retries the same final round\n");
    final_round(req, sizeof req, 11, 11, 5, r4);
    char *rebooked = serve(engine, &store, req);
    expect(g_bookings == 4 && strstr(rebooked, "{\"seats\":5}") && strstr(rebooked, "\"fence\":2"),
           "the retry books once, with the next fence");
    printf("-- then other answers are a replay\n");
    final_round(req, sizeof req, 12, 11, 6, r4);
    char *replay2 = serve(engine, &store, req);
    expect(g_bookings == 4 && strstr(replay2, "\"reason\":\"replayed\""), "refused as a replay, no effect");

    printf("-- misuse: run_once on a first round\n");
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    char *result = NULL;
    first_round(req, sizeof req, 13, 1);
    check(snodo_engine_begin(engine, (const uint8_t *)req, strlen(req), (const uint8_t *)"alice", 5, &call, &resp),
          "begin");
    expect(run_once(&store, call, book, "{}", &result, err, sizeof err) == ONCE_MISUSE && g_bookings == 4, err);
    snodo_call_free(call);

    char *bodies[] = {r1, done, again, replay, r2, unavailable, resumed, r3, waited, r4, unbooked, rebooked, replay2};
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) snodo_string_free(bodies[i]);
    if (store.c) redisFree(store.c);
    if (down.c) redisFree(down.c);
    snodo_question_free(question);
    snodo_engine_free(engine);
    printf("%d effect(s), %d broken promise(s)\n", g_bookings, g_broken);
    return g_broken == 0 ? 0 : 1;
}
