/* Runs every tests/vectors/NAME.json file through the C API (see
 * tests/vectors/README.md) and fails on any output that differs from the
 * expected one (compared as canonical JSON, so tokens byte for byte).
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdlib.h>

#include "check.h"

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    sbuf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) sb_add(&b, chunk, n);
    fclose(f);
    *len = b.n;
    return b.p;
}

static char *text_of(const jval *v) {
    sbuf b = {0};
    json_write(v, &b);
    return b.p;
}

/* Compares `got` (JSON text) with the JSON value `want`. */
static int matches(const char *got, const jval *want) {
    char *w = text_of(want);
    int ok = same_json(got, strlen(got), w, strlen(w));
    free(w);
    return ok;
}

static int hexval(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c - 'A' + 10;
}

/* Builds an engine from a vector config with a fixed clock; NULL on failure. */
static snodo_engine *make_engine(const jval *cfg, uint64_t now) {
    snodo_config *c = NULL;
    snodo_engine *e = NULL;
    if (snodo_config_new(&c) != SNODO_STATUS_OK) return NULL;
    const jval *keys = json_get(cfg, "keys");
    for (size_t k = 0; keys && k < keys->n; k++) {
        const jval *id = json_get(keys->items[k], "id"), *hex = json_get(keys->items[k], "hex");
        size_t n = hex->len / 2;
        uint8_t *bytes = malloc(n + 1);
        for (size_t i = 0; i < n; i++) bytes[i] = (uint8_t)(hexval(hex->text[2 * i]) << 4 | hexval(hex->text[2 * i + 1]));
        snodo_status st = snodo_config_add_key(c, (const uint8_t *)id->text, id->len, bytes, n);
        free(bytes);
        CHECK(st == SNODO_STATUS_OK, "add_key: %s", last_error_text());
    }
    const jval *v;
    if ((v = json_get(cfg, "ttlSecs"))) snodo_config_set_ttl_secs(c, json_u64(v));
    if ((v = json_get(cfg, "maxRounds"))) snodo_config_set_max_rounds(c, (uint32_t)json_u64(v));
    if ((v = json_get(cfg, "maxFlowAgeSecs"))) snodo_config_set_max_flow_age_secs(c, json_u64(v));
    if ((v = json_get(cfg, "maxTokenBytes"))) snodo_config_set_max_token_bytes(c, (size_t)json_u64(v));
    if ((v = json_get(cfg, "maxRequestBytes"))) snodo_config_set_max_request_bytes(c, (size_t)json_u64(v));
    if ((v = json_get(cfg, "maxInputResponses"))) snodo_config_set_max_input_responses(c, (size_t)json_u64(v));
    if ((v = json_get(cfg, "clockSkewSecs"))) snodo_config_set_clock_skew_secs(c, json_u64(v));
    /* Rows of the core's LIMITS, set by name. */
    if ((v = json_get(cfg, "tokenVersion"))) CHECK_OK(snodo_config_set_limit(c, S("token_version"), json_u64(v)));
    if ((v = json_get(cfg, "minTokenVersion"))) CHECK_OK(snodo_config_set_limit(c, S("min_token_version"), json_u64(v)));
    /* Tests only, not a row of LIMITS: a setting of the test build
     * (cargo feature test-knobs), which this suite links. */
    if ((v = json_get(cfg, "testRandomSeed"))) CHECK_OK(snodo_config_set_limit(c, S("test_random_seed"), json_u64(v)));
    if ((v = json_get(cfg, "strictAnswers"))) CHECK_OK(snodo_config_set_strict_answers(c, v->type == J_BOOL && v->boolean));
    if ((v = json_get(cfg, "audience"))) CHECK_OK(snodo_config_set_audience(c, (const uint8_t *)v->text, v->len));
    if ((v = json_get(cfg, "supportedVersions")))
        for (size_t k = 0; k < v->n; k++)
            snodo_config_add_supported_version(c, (const uint8_t *)v->items[k]->text, v->items[k]->len);
    if ((v = json_get(cfg, "serverInfo"))) {
        char *t = text_of(v);
        snodo_config_set_server_info(c, SZ(t));
        free(t);
    }
    CHECK_OK(snodo_config_set_fixed_time(c, now));
    snodo_status st = snodo_engine_new(c, &e);
    CHECK(st == SNODO_STATUS_OK, "engine_new: %s", last_error_text());
    snodo_config_free(c);
    return e;
}

/* A vector principal: a string, or null/absent for anonymous. */
static void principal_of(const jval *p, const uint8_t **ptr, size_t *len) {
    if (p && p->type == J_STR) { *ptr = (const uint8_t *)p->text; *len = p->len; }
    else { *ptr = NULL; *len = 0; }
}

static void error_out(sbuf *out, snodo_status st) {
    sb_str(out, "{\"error\":\"");
    sb_str(out, snodo_status_name((int)st));
    sb_str(out, "\"}");
}

static char *replace_all(const char *text, const char *pat, const char *with) {
    sbuf b = {0};
    size_t pl = strlen(pat);
    for (const char *p = text;;) {
        const char *hit = strstr(p, pat);
        if (!hit) { sb_str(&b, p); break; }
        sb_add(&b, p, (size_t)(hit - p));
        sb_str(&b, with);
        p = hit + pl;
    }
    if (!b.p) sb_add(&b, "", 0);
    return b.p;
}

/* Compares an optional string reader's output (NULL = JSON null) with `want`. */
static void same_id(const char *field, char *got, const jval *want) {
    sbuf b = {0};
    if (got) json_write_string(got, strlen(got), &b);
    else sb_str(&b, "null");
    CHECK(want && matches(b.p, want), "%s: got %s", field, b.p);
    sb_free(&b);
    snodo_string_free(got);
}

/* The call block's flowId, tokenId, tokenExpiresAt (0 from C on a
 * first round, null in the vectors) and answersDigest. The Rust runner
 * makes every call block carry all four. */
static void call_ids(const snodo_call *call, const jval *c) {
    char *flow = NULL, *token = NULL, *digest = NULL, num[32];
    uint64_t expires = 0;
    CHECK_OK(snodo_call_flow_id(call, &flow, NULL));
    same_id("flowId", flow, json_get(c, "flowId"));
    CHECK_OK(snodo_call_token_id(call, &token, NULL));
    same_id("tokenId", token, json_get(c, "tokenId"));
    CHECK_OK(snodo_call_answers_digest(call, &digest, NULL));
    same_id("answersDigest", digest, json_get(c, "answersDigest"));
    CHECK_OK(snodo_call_token_expires_at(call, &expires));
    if (expires) snprintf(num, sizeof num, "%llu", (unsigned long long)expires);
    else snprintf(num, sizeof num, "null");
    CHECK(json_get(c, "tokenExpiresAt") && matches(num, json_get(c, "tokenExpiresAt")), "tokenExpiresAt: got %s", num);
}

static void answers_and_readers(const snodo_call *call, const jval *s) {
    static const char *kinds[] = {"missing", "accepted", "declined", "cancelled", "invalid", "changed"};
    const jval *answers = json_get(s, "answers");
    for (size_t k = 0; answers && k < answers->n; k++) {
        const jval *a = answers->items[k], *key = json_get(a, "key"), *want = json_get(a, "expected");
        char *req = text_of(json_get(a, "request"));
        snodo_question *question = NULL;
        snodo_answer_kind kind = SNODO_ANSWER_KIND_MISSING;
        char *value = NULL;
        CHECK_OK(snodo_question_from_json(SZ(req), &question));
        CHECK_OK(snodo_call_response(call, (const uint8_t *)key->text, key->len, question, &kind, &value, NULL));
        snodo_question_free(question);
        free(req);
        if (!value) continue;
        if ((unsigned)kind > 5) { CHECK(0, "answer kind %d", (int)kind); snodo_string_free(value); continue; }
        if (json_is(json_get(want, "kind"), "invalid")) {
            CHECK(kind == SNODO_ANSWER_KIND_INVALID, "answer %s: kind %s", key->text, kinds[kind]);
        } else {
            sbuf got = {0};
            sb_str(&got, "{\"kind\":\"");
            sb_str(&got, kinds[kind]);
            sb_str(&got, "\"");
            if (kind == SNODO_ANSWER_KIND_ACCEPTED) { sb_str(&got, ",\"value\":"); sb_str(&got, value); }
            sb_str(&got, "}");
            CHECK(matches(got.p, want), "answer %s", key->text);
            sb_free(&got);
        }
        snodo_string_free(value);
    }
    const jval *raws = json_get(s, "rawAnswers");
    for (size_t k = 0; raws && k < raws->n; k++) {
        const jval *key = json_get(raws->items[k], "key");
        char *got = NULL;
        CHECK_OK(snodo_call_raw_response(call, (const uint8_t *)key->text, key->len, &got, NULL));
        if (got) CHECK(matches(got, json_get(raws->items[k], "expected")), "raw answer %s", key->text);
        snodo_string_free(got);
    }
    const jval *c = json_get(s, "call");
    if (c) {
        uint32_t round = 0;
        char *state = NULL, *asked = NULL, num[32];
        CHECK_OK(snodo_call_round(call, &round));
        snprintf(num, sizeof num, "%u", round);
        CHECK(matches(num, json_get(c, "round")), "round");
        CHECK_OK(snodo_call_state(call, &state, NULL));
        CHECK(matches(state ? state : "null", json_get(c, "state")), "state");
        CHECK_OK(snodo_call_asked_keys(call, &asked, NULL));
        if (asked) CHECK(matches(asked, json_get(c, "askedKeys")), "askedKeys");
        snodo_string_free(state);
        snodo_string_free(asked);
        call_ids(call, c);
    }
}

static void response_out(sbuf *out, const snodo_response *r) {
    uint16_t http = 0;
    char *body = NULL, num[16];
    CHECK_OK(snodo_response_http_status(r, &http));
    CHECK_OK(snodo_response_body(r, &body, NULL));
    snprintf(num, sizeof num, "%u", (unsigned)http);
    sb_str(out, "{\"httpStatus\":");
    sb_str(out, num);
    sb_str(out, ",\"body\":");
    sb_str(out, body ? body : "null");
    sb_str(out, "}");
    snodo_string_free(body);
}

static void run_flow(const jval *file_cfg, const jval *t) {
    const jval *test_cfg = json_get(t, "config") ? json_get(t, "config") : file_cfg;
    uint64_t now = json_u64(json_get(t, "now"));
    const jval *steps = json_get(t, "steps");
    char *states[64] = {0};
    int saw_error = 0;
    for (size_t si = 0; steps && si < steps->n && si < 64; si++) {
        const jval *s = steps->items[si];
        const jval *cfg = json_get(s, "config") ? json_get(s, "config") : test_cfg;
        snodo_engine *e = make_engine(cfg, json_get(s, "now") ? json_u64(json_get(s, "now")) : now);
        const uint8_t *who;
        size_t who_len;
        principal_of(json_get(s, "principal") ? json_get(s, "principal") : json_get(t, "principal"), &who, &who_len);
        char *text = strdup(json_get(s, "request")->text);
        for (size_t k = 0; k < si; k++) {
            if (!states[k]) continue;
            char pat[32];
            snprintf(pat, sizeof pat, "{{state:%zu}}", k + 1);
            char *next = replace_all(text, pat, states[k]);
            free(text);
            text = next;
        }
        snodo_call *call = NULL;
        snodo_response *resp = NULL;
        sbuf out = {0};
        snodo_status st = snodo_engine_begin(e, SZ(text), who, who_len, &call, &resp);
        if (st != SNODO_STATUS_OK) {
            saw_error = 1;
            error_out(&out, st);
        } else if (resp) {
            CHECK(call == NULL, "both outs set");
            response_out(&out, resp);
        } else {
            answers_and_readers(call, s);
            char *outcome = text_of(json_get(s, "outcome"));
            CHECK_OK(snodo_engine_decide(e, call, SZ(outcome), &resp));
            free(outcome);
            if (resp) response_out(&out, resp);
        }
        const jval *diag = json_get(s, "diagnostic");
        if (diag && resp) {
            /* wire.json: the start of the -32603 diagnostic snodo logs. */
            char *d = NULL;
            CHECK_OK(snodo_response_diagnostic(resp, &d, NULL));
            CHECK(d && strncmp(d, diag->text, diag->len) == 0, "diagnostic: got %s, want %s...", d ? d : "NULL",
                  diag->text);
            snodo_string_free(d);
        }
        jval *got = out.p ? json_parse(out.p, out.n) : NULL;
        const jval *body = json_get(got, "body");
        if (json_get(body, "error")) saw_error = 1;
        const jval *rs = json_get(json_get(body, "result"), "requestState");
        if (rs && rs->type == J_STR) states[si] = strdup(rs->text);
        CHECK(out.p && matches(out.p, json_get(s, "expected")), "step %zu", si + 1);
        json_free(got);
        sb_free(&out);
        free(text);
        snodo_response_free(resp);
        snodo_call_free(call);
        snodo_engine_free(e);
    }
    CHECK(saw_error == json_is(json_get(t, "result"), "invalid"), "result");
    for (size_t k = 0; k < 64; k++) free(states[k]);
}

/* Substitutes {{state:N}} in `text` (freed) with the states seen so far. */
static char *with_states(char *text, char *const *states, size_t n) {
    for (size_t k = 0; k < n; k++) {
        if (!states[k]) continue;
        char pat[32];
        snprintf(pat, sizeof pat, "{{state:%zu}}", k + 1);
        char *next = replace_all(text, pat, states[k]);
        free(text);
        text = next;
    }
    return text;
}

/* One begin (already run: st, call, resp) + decide, written to `out`. */
static void finish_step(snodo_engine *e, const jval *s, snodo_status st, snodo_call *call, snodo_response *resp,
                        sbuf *out) {
    if (st != SNODO_STATUS_OK) {
        error_out(out, st);
    } else if (resp) {
        CHECK(call == NULL, "both outs set");
        response_out(out, resp);
    } else {
        answers_and_readers(call, s);
        char *outcome = text_of(json_get(s, "outcome"));
        CHECK_OK(snodo_engine_decide(e, call, SZ(outcome), &resp));
        free(outcome);
        if (resp) response_out(out, resp);
    }
    snodo_response_free(resp);
    snodo_call_free(call);
}

/* snodo_engine_begin on the text and snodo_engine_begin_parts on
 * the parts (id and params as JSON text) give the same response. */
static void run_parts(const jval *file_cfg, const jval *t) {
    snodo_engine *e = make_engine(file_cfg, json_u64(json_get(t, "now")));
    const jval *steps = json_get(t, "steps");
    char *states[64] = {0};
    int saw_error = 0;
    const uint8_t *who;
    size_t who_len;
    principal_of(json_get(t, "principal"), &who, &who_len);
    for (size_t si = 0; steps && si < steps->n && si < 64; si++) {
        const jval *s = steps->items[si], *parts = json_get(s, "parts");
        char *text = with_states(strdup(json_get(s, "request")->text), states, si);
        char *id = text_of(json_get(parts, "id"));
        const jval *method = json_get(parts, "method"), *pv = json_get(parts, "params");
        char *params = pv && pv->type != J_NULL ? with_states(text_of(pv), states, si) : NULL;
        sbuf by_bytes = {0}, by_parts = {0};
        snodo_call *call = NULL;
        snodo_response *resp = NULL;
        snodo_status st = snodo_engine_begin(e, SZ(text), who, who_len, &call, &resp);
        finish_step(e, s, st, call, resp, &by_bytes);
        call = NULL;
        resp = NULL;
        st = snodo_engine_begin_parts(e, SZ(id), (const uint8_t *)method->text, method->len,
                                      (const uint8_t *)params, params ? strlen(params) : 0, who, who_len, &call,
                                      &resp);
        finish_step(e, s, st, call, resp, &by_parts);
        CHECK(by_bytes.p && by_parts.p && by_bytes.n == by_parts.n && memcmp(by_bytes.p, by_parts.p, by_bytes.n) == 0,
              "step %zu: parts and bytes differ", si + 1);
        jval *got = by_bytes.p ? json_parse(by_bytes.p, by_bytes.n) : NULL;
        const jval *body = json_get(got, "body");
        if (json_get(body, "error")) saw_error = 1;
        const jval *rs = json_get(json_get(body, "result"), "requestState");
        if (rs && rs->type == J_STR) states[si] = strdup(rs->text);
        CHECK(by_bytes.p && matches(by_bytes.p, json_get(s, "expected")), "step %zu", si + 1);
        json_free(got);
        sb_free(&by_bytes);
        sb_free(&by_parts);
        free(text);
        free(id);
        free(params);
    }
    CHECK(saw_error == json_is(json_get(t, "result"), "invalid"), "result");
    for (size_t k = 0; k < 64; k++) free(states[k]);
    snodo_engine_free(e);
}

static char *edit_token(const char *tok, const char *edit) {
    sbuf b = {0};
    const char *arg = strchr(edit, ':');
    arg = arg ? arg + 1 : "";
    size_t n = strlen(tok);
    if (strncmp(edit, "append:", 7) == 0) { sb_str(&b, tok); sb_str(&b, arg); }
    else if (strncmp(edit, "truncate:", 9) == 0) {
        size_t cut = (size_t)strtoull(arg, NULL, 10);
        sb_add(&b, tok, cut <= n ? n - cut : 0);
    } else if (strncmp(edit, "flip:", 5) == 0) {
        size_t i = (size_t)strtoull(arg, NULL, 10);
        sb_str(&b, tok);
        if (i < n) b.p[i] = b.p[i] == 'A' ? 'B' : 'A';
    } else if (strncmp(edit, "replace-prefix:", 15) == 0) {
        const char *dot = strchr(tok, '.');
        sb_str(&b, arg);
        sb_str(&b, dot ? dot : "");
    } else if (strncmp(edit, "keep:", 5) == 0) {
        size_t keep = (size_t)strtoull(arg, NULL, 10);
        sb_add(&b, tok, keep <= n ? keep : n);
    } else if (strncmp(edit, "replace-kid:", 12) == 0) {
        /* The second part (the key id) replaced. */
        const char *d1 = strchr(tok, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
        CHECK(d2 != NULL, "replace-kid on %s", tok);
        sb_add(&b, tok, (size_t)(d1 - tok) + 1);
        sb_str(&b, arg);
        sb_str(&b, d2);
    } else {
        CHECK(0, "unknown edit %s", edit);
    }
    if (!b.p) sb_add(&b, "", 0);
    return b.p;
}

typedef struct { uint64_t id; char *token; } sealed_t;

static void run_token(const jval *file_cfg, const jval *t, sealed_t *sealed, size_t *n_sealed) {
    const jval *cfg = json_get(t, "config") ? json_get(t, "config") : file_cfg;
    snodo_engine *e = make_engine(cfg, json_u64(json_get(t, "now")));
    const uint8_t *who;
    size_t who_len;
    principal_of(json_get(t, "principal"), &who, &who_len);
    const jval *method = json_get(t, "method"), *params = json_get(t, "params");
    uint8_t binding[SNODO_BINDING_LEN];
    CHECK_OK(snodo_binding_digest((const uint8_t *)method->text, method->len, (const uint8_t *)params->text,
                                  params->len, binding));
    sbuf out = {0};
    char *token = NULL;
    if (json_is(json_get(t, "op"), "seal")) {
        char *questions = text_of(json_get(t, "questions"));
        const jval *state = json_get(t, "state");
        char *state_text = state && state->type != J_NULL ? text_of(state) : NULL;
        snodo_status st = snodo_engine_seal(e, who, who_len, binding, (uint32_t)json_u64(json_get(t, "round")),
                                            json_u64(json_get(t, "flowStart")), SZ(questions),
                                            (const uint8_t *)state_text, state_text ? strlen(state_text) : 0,
                                            &token, NULL);
        if (st == SNODO_STATUS_OK) {
            sb_str(&out, "{\"token\":");
            json_write_string(token, strlen(token), &out);
            sb_str(&out, "}");
        } else {
            error_out(&out, st);
        }
        free(questions);
        free(state_text);
    } else if (json_is(json_get(t, "op"), "open")) {
        const jval *from = json_get(t, "tokenFrom"), *edit = json_get(from, "edit");
        const char *src = NULL;
        /* A literal token (sealed by an earlier release) has no source. */
        if (!from) src = json_get(t, "token")->text;
        else
            for (size_t k = 0; k < *n_sealed; k++)
                if (sealed[k].id == json_u64(json_get(from, "tcId"))) src = sealed[k].token;
        CHECK(src != NULL, "tokenFrom %llu", (unsigned long long)json_u64(json_get(from, "tcId")));
        char *tok = edit ? edit_token(src ? src : "", edit->text) : strdup(src ? src : "");
        CHECK(json_is(json_get(t, "token"), tok), "token %s", tok);
        char *opened = NULL;
        snodo_status st = snodo_engine_open(e, SZ(tok), who, who_len, binding, &opened, NULL);
        if (st == SNODO_STATUS_OK) {
            jval *o = json_parse(opened, strlen(opened));
            static const char *fields[] = {"round", "flowStart", "issuedAt", "expiresAt", "questionKeys", "state",
                                           "tokenId", "flowId"};
            sb_str(&out, "{");
            for (size_t k = 0; k < 8; k++) {
                if (k) sb_str(&out, ",");
                json_write_string(fields[k], strlen(fields[k]), &out);
                sb_str(&out, ":");
                json_write(json_get(o, fields[k]), &out);
            }
            sb_str(&out, "}");
            json_free(o);
        } else {
            /* The core's one message: "TOKEN: Invalid or expired requestState (<reason>)". */
            const char *detail = last_error_text(), *prefix = "TOKEN: Invalid or expired requestState (";
            size_t plen = strlen(prefix), dlen = strlen(detail);
            CHECK(st == SNODO_STATUS_TOKEN && strncmp(detail, prefix, plen) == 0 && dlen > plen &&
                      detail[dlen - 1] == ')',
                  "open: %s", detail);
            /* The reason comes from its accessor and must be the one the
             * message names. */
            char *reason = NULL;
            CHECK_OK(snodo_last_token_reason(&reason, NULL));
            CHECK(reason && dlen > plen && strlen(reason) == dlen - plen - 1 &&
                      strncmp(reason, detail + plen, dlen - plen - 1) == 0,
                  "reason %s vs %s", reason ? reason : "NULL", detail);
            sb_str(&out, "{\"reason\":");
            json_write_string(reason ? reason : "", reason ? strlen(reason) : 0, &out);
            sb_str(&out, "}");
            snodo_string_free(reason);
        }
        snodo_string_free(opened);
        free(tok);
    } else {
        CHECK(0, "unknown op");
    }
    jval *got = json_parse(out.p, out.n);
    const jval *check = json_get(t, "check");
    for (size_t k = 0; check && k < check->n; k++) {
        const jval *g = json_get(got, check->keys[k]);
        char *gt = text_of(g);
        CHECK(g && matches(gt, check->items[k]), "check %s", check->keys[k]);
        free(gt);
    }
    int invalid = json_get(got, "error") || json_get(got, "reason");
    CHECK(invalid == json_is(json_get(t, "result"), "invalid"), "result");
    CHECK(matches(out.p, json_get(t, "expected")), "expected output");
    sealed[*n_sealed].id = json_u64(json_get(t, "tcId"));
    sealed[*n_sealed].token = token ? strdup(token) : NULL;
    (*n_sealed)++;
    json_free(got);
    sb_free(&out);
    snodo_string_free(token);
    snodo_engine_free(e);
}

/* A string field as pointer + length; absent or non-string is "". */
static const uint8_t *str_field(const jval *t, const char *key, size_t *len) {
    const jval *v = json_get(t, key);
    if (v && v->type == J_STR) { *len = v->len; return (const uint8_t *)v->text; }
    *len = 0;
    return (const uint8_t *)"";
}

/* The vectors pin the deprecated builders too: only here is their
 * deprecation warning silenced. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static snodo_status deprecated_builder(const jval *op, const char *params, snodo_question **q) {
    return json_is(op, "sampling") ? snodo_sampling(SZ(params), q) : snodo_list_roots(q);
}
#pragma GCC diagnostic pop

static void run_builder(const jval *t) {
    const jval *op = json_get(t, "op");
    char *schema = text_of(json_get(t, "schema")), *params = text_of(json_get(t, "params"));
    char *requests = text_of(json_get(t, "requests")), *caps = text_of(json_get(t, "capabilities"));
    char *res = NULL;
    const char *field = "request";
    size_t ml, ul;
    const uint8_t *msg = str_field(t, "message", &ml), *url = str_field(t, "url", &ul);
    snodo_status st;
    char *task = text_of(json_get(t, "task"));
    /* The builders make questions; what is compared is the question's JSON. */
    snodo_question *q = NULL;
    if (json_is(op, "elicit_form")) st = snodo_elicit_form(msg, ml, SZ(schema), &q);
    else if (json_is(op, "elicit_url")) st = snodo_elicit_url(msg, ml, url, ul, &q);
    else if (json_is(op, "elicit_form_without_lint")) st = snodo_elicit_form_without_lint(msg, ml, SZ(schema), &q);
    else if (json_is(op, "elicit_url_without_lint")) st = snodo_elicit_url_without_lint(msg, ml, url, ul, &q);
    else if (json_is(op, "sampling") || json_is(op, "list_roots")) st = deprecated_builder(op, params, &q);
    else if (json_is(op, "task_input_requests")) {
        /* A malformed task is INPUT_REQUEST in C and Python (docs/api.md);
         * the vectors spell that verdict INVALID_TASK. */
        field = "missing";
        st = snodo_check_task_input_requests(SZ(task), SZ(caps), &res, NULL);
        if (st == SNODO_STATUS_INPUT_REQUEST) {
            sbuf e = {0};
            sb_str(&e, "{\"error\":\"INVALID_TASK\"}");
            CHECK(json_is(json_get(t, "result"), "invalid"), "result");
            CHECK(matches(e.p, json_get(t, "expected")), "expected output (%s)", last_error_text());
            sb_free(&e);
            free(schema); free(params); free(requests); free(caps); free(task);
            return;
        }
    } else if (json_is(op, "missing_capabilities")) {
        field = "missing";
        st = snodo_missing_capabilities(SZ(requests), SZ(caps), &res, NULL);
    } else if (json_is(op, "filter_supported")) {
        field = "keys";
        st = snodo_filter_supported(SZ(requests), SZ(caps), &res, NULL);
        if (st == SNODO_STATUS_OK) {
            /* The kept requests' keys, in the order snodo returned them. */
            jval *kept = json_parse(res, strlen(res));
            sbuf keys = {0};
            sb_str(&keys, "[");
            for (size_t k = 0; kept && k < kept->n; k++) {
                if (k) sb_str(&keys, ",");
                json_write_string(kept->keys[k], kept->key_lens[k], &keys);
            }
            sb_str(&keys, "]");
            json_free(kept);
            snodo_string_free(res);
            res = NULL;
            CHECK_OK(snodo_canonicalize((const uint8_t *)keys.p, keys.n, &res, NULL));
            sb_free(&keys);
        }
    } else {
        st = SNODO_STATUS_ARGUMENT;
        CHECK(0, "unknown op");
    }
    if (q) {
        CHECK_OK(snodo_question_to_json(q, &res, NULL));
        snodo_question_free(q);
    }
    sbuf out = {0};
    if (st == SNODO_STATUS_OK) {
        sb_str(&out, "{\"");
        sb_str(&out, field);
        sb_str(&out, "\":");
        sb_str(&out, res);
        sb_str(&out, "}");
    } else {
        error_out(&out, st);
    }
    CHECK((st != SNODO_STATUS_OK) == json_is(json_get(t, "result"), "invalid"), "result");
    CHECK(matches(out.p, json_get(t, "expected")), "expected output");
    sb_free(&out);
    snodo_string_free(res);
    free(schema);
    free(params);
    free(requests);
    free(caps);
    free(task);
}

/* origin.json: snodo_check_http_origin under a policy (null: the loopback
 * default; else {hosts, origins}) on (name, value) pairs; expected is null
 * (go on) or the refusal to send. */
static void run_origin(const jval *t) {
    const jval *p = json_get(t, "policy"), *hs = json_get(t, "headers");
    CHECK(json_is(json_get(t, "op"), "check_http_origin"), "op");
    snodo_origin_policy *policy = NULL;
    if (!p || p->type == J_NULL) {
        CHECK_OK(snodo_origin_policy_loopback(&policy));
    } else {
        char *hosts = text_of(json_get(p, "hosts")), *origins = text_of(json_get(p, "origins"));
        CHECK_OK(snodo_origin_policy_new(SZ(hosts), SZ(origins), &policy));
        free(hosts);
        free(origins);
    }
    snodo_header headers[32];
    size_t n = 0;
    for (size_t k = 0; hs && k < hs->n && k < 32; k++, n++) {
        const jval *name = hs->items[k]->items[0], *value = hs->items[k]->items[1];
        headers[k] = (snodo_header){(const uint8_t *)name->text, name->len, (const uint8_t *)value->text, value->len};
    }
    CHECK(!hs || hs->n <= 32, "too many headers for the runner");
    snodo_response *r = NULL;
    CHECK_OK(snodo_check_http_origin(policy, n ? headers : NULL, n, &r));
    const jval *want = json_get(t, "expected");
    CHECK(json_is(json_get(t, "result"), "valid") == (want->type == J_NULL), "result");
    if (want->type == J_NULL) {
        CHECK(r == NULL, "expected no response");
    } else {
        sbuf out = {0};
        CHECK(r != NULL, "expected a response");
        if (r) response_out(&out, r);
        CHECK(out.p && matches(out.p, want), "expected output");
        sb_free(&out);
    }
    snodo_response_free(r);
    snodo_origin_policy_free(policy);
}

/* headers.json: snodo_check_http_headers on (name, value) pairs and the
 * request text; expected is null (go on to begin) or the ready response. */
static void run_headers(const jval *t) {
    const jval *hs = json_get(t, "headers"), *req = json_get(t, "request");
    snodo_header headers[32];
    size_t n = 0;
    for (size_t k = 0; hs && k < hs->n && k < 32; k++, n++) {
        const jval *name = hs->items[k]->items[0], *value = hs->items[k]->items[1];
        headers[k] = (snodo_header){(const uint8_t *)name->text, name->len, (const uint8_t *)value->text, value->len};
    }
    CHECK(!hs || hs->n <= 32, "too many headers for the runner");
    snodo_response *r = NULL;
    CHECK_OK(snodo_check_http_headers(n ? headers : NULL, n, (const uint8_t *)req->text, req->len, &r));
    const jval *want = json_get(t, "expected");
    if (want->type == J_NULL) {
        CHECK(r == NULL, "expected no response");
        CHECK(json_is(json_get(t, "result"), "valid"), "result");
    } else {
        sbuf out = {0};
        CHECK(r != NULL, "expected a response");
        if (r) response_out(&out, r);
        CHECK(out.p && matches(out.p, want), "expected output");
        sb_free(&out);
    }
    snodo_response_free(r);
}

static void run_canonical(const jval *t) {
    const jval *op = json_get(t, "op");
    sbuf out = {0};
    int invalid = 0;
    if (json_is(op, "canonical")) {
        const jval *in = json_get(t, "input");
        char *c = NULL;
        size_t n = 0;
        snodo_status st = snodo_canonicalize((const uint8_t *)in->text, in->len, &c, &n);
        if (st == SNODO_STATUS_OK) {
            sb_str(&out, "{\"canonical\":");
            json_write_string(c, n, &out);
            sb_str(&out, "}");
        } else {
            invalid = 1;
            error_out(&out, st);
        }
        snodo_string_free(c);
    } else if (json_is(op, "binding")) {
        const jval *m = json_get(t, "method"), *p = json_get(t, "params");
        uint8_t d[SNODO_BINDING_LEN];
        char hex[2 * SNODO_BINDING_LEN + 1];
        CHECK_OK(snodo_binding_digest((const uint8_t *)m->text, m->len, (const uint8_t *)p->text, p->len, d));
        for (size_t k = 0; k < SNODO_BINDING_LEN; k++) snprintf(hex + 2 * k, 3, "%02x", d[k]);
        sb_str(&out, "{\"digestHex\":\"");
        sb_str(&out, hex);
        sb_str(&out, "\"}");
    } else {
        CHECK(0, "unknown op");
        sb_str(&out, "null");
    }
    CHECK(invalid == json_is(json_get(t, "result"), "invalid"), "result");
    CHECK(matches(out.p, json_get(t, "expected")), "expected output");
    sb_free(&out);
}

/* consistency.json: one core call per case, errors with their exact message
 * (the last error is "<NAME>: <message>"). */
static void error_message_out(sbuf *out, snodo_status st) {
    const char *name = snodo_status_name((int)st), *detail = last_error_text();
    size_t nl = strlen(name);
    const char *msg = strncmp(detail, name, nl) == 0 && detail[nl] == ':' ? detail + nl + 2 : detail;
    sb_str(out, "{\"error\":\"");
    sb_str(out, name);
    sb_str(out, "\",\"message\":");
    json_write_string(msg, strlen(msg), out);
    sb_str(out, "}");
}

/* A JSON argument from the vector: its text (strings are values, so quoted). */
static char *arg_text(const jval *v) { return text_of(v); }

static int run_consistency(const jval *cfg, const jval *t) {
    const jval *op = json_get(t, "op"), *in = json_get(t, "input");
    uint64_t now = json_u64(json_get(t, "now"));
    snodo_engine *e = make_engine(cfg, now);
    sbuf out = {0};
    snodo_status st = SNODO_STATUS_OK;
    const uint8_t *pp = NULL;
    size_t pl = 0;
    if (json_is(op, "decide_twice") || json_is(op, "principal")) {
        const jval *req = json_get(in, "request"), *p = json_get(in, "principal");
        if (json_is(op, "principal") && !p) {
            /* C cannot omit an argument (NULL is the explicit anonymous principal). */
            sb_str(&out, "{\"error\":\"OMITTED\"}");
            st = SNODO_STATUS_ARGUMENT;
        } else {
            principal_of(p, &pp, &pl);
            snodo_call *call = NULL;
            snodo_response *resp = NULL;
            st = snodo_engine_begin(e, (const uint8_t *)req->text, req->len, pp, pl, &call, &resp);
            CHECK(st != SNODO_STATUS_OK || call, "begin gave a call");
            if (st == SNODO_STATUS_OK && json_is(op, "principal")) {
                /* The call's principal as read back: NULL is anonymous. */
                char *name = NULL;
                size_t name_len = 0;
                CHECK_OK(snodo_call_principal(call, &name, &name_len));
                sb_str(&out, "{\"principal\":");
                if (name) json_write_string(name, name_len, &out);
                else sb_str(&out, "null");
                sb_str(&out, "}");
                snodo_string_free(name);
            } else if (st == SNODO_STATUS_OK) {
                char *o = arg_text(json_get(in, "outcome"));
                snodo_response *r1 = NULL, *r2 = NULL;
                CHECK_OK(snodo_engine_decide(e, call, SZ(o), &r1));
                st = snodo_engine_decide(e, call, SZ(o), &r2);
                CHECK(st != SNODO_STATUS_OK, "second decide refused");
                if (st != SNODO_STATUS_OK) error_message_out(&out, st);
                snodo_response_free(r1);
                snodo_response_free(r2);
                free(o);
            } else {
                error_message_out(&out, st);
            }
            snodo_call_free(call);
            snodo_response_free(resp);
        }
    } else if (json_is(op, "missing_capabilities") || json_is(op, "filter_supported")) {
        char *r = arg_text(json_get(in, "requests")), *c = arg_text(json_get(in, "capabilities")), *res = NULL;
        st = json_is(op, "missing_capabilities") ? snodo_missing_capabilities(SZ(r), SZ(c), &res, NULL)
                                                 : snodo_filter_supported(SZ(r), SZ(c), &res, NULL);
        if (st == SNODO_STATUS_OK) {
            sb_str(&out, "{\"result\":");
            sb_str(&out, res);
            sb_str(&out, "}");
        } else {
            error_message_out(&out, st);
        }
        snodo_string_free(res);
        free(r);
        free(c);
    } else if (json_is(op, "binding_digest")) {
        const jval *m = json_get(in, "method"), *p = json_get(in, "params");
        uint8_t d[SNODO_BINDING_LEN];
        st = snodo_binding_digest((const uint8_t *)m->text, m->len, (const uint8_t *)p->text, p->len, d);
        if (st == SNODO_STATUS_OK) {
            char hex[2 * SNODO_BINDING_LEN + 1];
            for (size_t k = 0; k < SNODO_BINDING_LEN; k++) snprintf(hex + 2 * k, 3, "%02x", d[k]);
            sb_str(&out, "{\"digestHex\":\"");
            sb_str(&out, hex);
            sb_str(&out, "\"}");
        } else {
            error_message_out(&out, st);
        }
    } else if (json_is(op, "canonicalize")) {
        const jval *hx = json_get(in, "hex"), *tx = json_get(in, "text"), *pad = json_get(in, "padSpaces");
        size_t np = pad ? (size_t)json_u64(pad) : 0, n = hx ? hx->len / 2 : np + tx->len;
        uint8_t *bytes = malloc(n + 1);
        if (hx) {
            for (size_t i = 0; i < n; i++) bytes[i] = (uint8_t)(hexval(hx->text[2 * i]) << 4 | hexval(hx->text[2 * i + 1]));
        } else {
            memset(bytes, ' ', np);
            memcpy(bytes + np, tx->text, tx->len);
        }
        char *c = NULL;
        size_t cn = 0;
        st = snodo_canonicalize(bytes, n, &c, &cn);
        if (st == SNODO_STATUS_OK) {
            sb_str(&out, "{\"canonical\":");
            json_write_string(c, cn, &out);
            sb_str(&out, "}");
        } else {
            error_message_out(&out, st);
        }
        snodo_string_free(c);
        free(bytes);
    } else if (json_is(op, "opened")) {
        const jval *m = json_get(in, "method"), *p = json_get(in, "params"), *v;
        uint8_t d[SNODO_BINDING_LEN];
        CHECK_OK(snodo_binding_digest((const uint8_t *)m->text, m->len, (const uint8_t *)p->text, p->len, d));
        principal_of(json_get(in, "principal"), &pp, &pl);
        /* ABI 1 takes round and flow start explicitly: absent fields get the
         * core's documented defaults (round 1, the flow starting now). */
        uint32_t round = (v = json_get(in, "round")) ? (uint32_t)json_u64(v) : 1;
        uint64_t flow = (v = json_get(in, "flowStart")) ? json_u64(v) : now;
        char *q = json_get(in, "questions") ? arg_text(json_get(in, "questions")) : NULL;
        char *sj = json_get(in, "state") ? arg_text(json_get(in, "state")) : NULL;
        char *tok = NULL, *opened = NULL;
        size_t tn = 0;
        CHECK_OK(snodo_engine_seal(e, pp, pl, d, round, flow, (const uint8_t *)q, q ? strlen(q) : 0,
                                   (const uint8_t *)sj, sj ? strlen(sj) : 0, &tok, &tn));
        const jval *as = json_get(in, "openAs");
        principal_of(as ? as : json_get(in, "principal"), &pp, &pl);
        st = snodo_engine_open(e, (const uint8_t *)tok, tn, pp, pl, d, &opened, NULL);
        if (st == SNODO_STATUS_OK) {
            sb_str(&out, "{\"opened\":");
            sb_str(&out, opened);
            sb_str(&out, "}");
        } else {
            /* The reason from its accessor; the message from the last error. */
            const char *detail = last_error_text();
            size_t dl = strlen(detail);
            char *reason = NULL;
            CHECK_OK(snodo_last_token_reason(&reason, NULL));
            sb_str(&out, "{\"error\":\"TOKEN\",\"reason\":");
            json_write_string(reason ? reason : "", reason ? strlen(reason) : 0, &out);
            snodo_string_free(reason);
            sb_str(&out, ",\"message\":");
            json_write_string(detail + 7, dl > 7 ? dl - 7 : 0, &out);
            sb_str(&out, "}");
        }
        snodo_string_free(tok);
        snodo_string_free(opened);
        free(q);
        free(sj);
    } else if (json_is(op, "config")) {
        if (!json_is(json_get(in, "spelling"), "snake")) {
            snodo_engine_free(e);
            return 0; /* C spells limits in snake_case only; the camel cases are Node's. */
        }
        const jval *name = json_get(in, "name");
        uint64_t value = json_u64(json_get(in, "value"));
        snodo_config *c = NULL;
        snodo_engine *built = NULL;
        uint8_t key[32];
        memset(key, 7, sizeof key);
        CHECK_OK(snodo_config_new(&c));
        CHECK_OK(snodo_config_add_key(c, (const uint8_t *)"k1", 2, key, sizeof key));
        /* By name, through the core's LIMITS table (as every typed setter). */
        st = snodo_config_set_limit(c, (const uint8_t *)name->text, name->len, value);
        if (st == SNODO_STATUS_OK) st = snodo_engine_new(c, &built);
        if (st == SNODO_STATUS_OK) sb_str(&out, "{\"ok\":true}");
        else error_message_out(&out, st);
        snodo_engine_free(built);
        snodo_config_free(c);
    } else {
        st = SNODO_STATUS_ARGUMENT;
        CHECK(0, "unknown op");
        sb_str(&out, "null");
    }
    CHECK((st != SNODO_STATUS_OK) == json_is(json_get(t, "result"), "invalid"), "result");
    CHECK(matches(out.p, json_get(t, "expected")), "expected output: %s", out.p);
    sb_free(&out);
    snodo_engine_free(e);
    return 1;
}

/* ---- legacy.json: the legacy bridge, format in README.md ---- */

/* The call as legacy.json spells it (core/tests/vectors.rs legacy_call_json). */
static void legacy_call_out(sbuf *out, const snodo_call *c) {
    char *id = NULL, *method = NULL, *version = NULL, *caps = NULL, *state = NULL, *asked = NULL, num[32];
    uint32_t round = 0;
    bool mrtr = true, legacy = false;
    CHECK_OK(snodo_call_id(c, &id, NULL));
    CHECK_OK(snodo_call_method(c, &method, NULL));
    CHECK_OK(snodo_call_protocol_version(c, &version, NULL));
    CHECK_OK(snodo_call_client_capabilities(c, &caps, NULL));
    CHECK_OK(snodo_call_state(c, &state, NULL));
    CHECK_OK(snodo_call_asked_keys(c, &asked, NULL));
    CHECK_OK(snodo_call_round(c, &round));
    CHECK_OK(snodo_call_mrtr_allowed(c, &mrtr));
    CHECK_OK(snodo_call_is_legacy(c, &legacy));
    sb_str(out, "{\"id\":");
    sb_str(out, id ? id : "null");
    sb_str(out, ",\"method\":");
    json_write_string(method ? method : "", method ? strlen(method) : 0, out);
    snprintf(num, sizeof num, "%u", round);
    sb_str(out, ",\"round\":");
    sb_str(out, num);
    sb_str(out, ",\"protocolVersion\":");
    json_write_string(version ? version : "", version ? strlen(version) : 0, out);
    sb_str(out, ",\"capabilities\":");
    sb_str(out, caps ? caps : "null");
    sb_str(out, mrtr ? ",\"mrtrAllowed\":true" : ",\"mrtrAllowed\":false");
    sb_str(out, legacy ? ",\"legacy\":true" : ",\"legacy\":false");
    sb_str(out, ",\"state\":");
    sb_str(out, state ? state : "null");
    sb_str(out, ",\"askedKeys\":");
    sb_str(out, asked ? asked : "null");
    sb_str(out, "}");
    snodo_string_free(id);
    snodo_string_free(method);
    snodo_string_free(version);
    snodo_string_free(caps);
    snodo_string_free(state);
    snodo_string_free(asked);
}

/* The pending flow as legacy.json spells it (legacy_pending_json). */
static void legacy_pending_out(sbuf *out, const snodo_pending_flow *p) {
    char *send = NULL, *eids = NULL, num[32];
    uint64_t deadline = 0;
    uint32_t round = 0;
    CHECK_OK(snodo_pending_flow_requests(p, &send, NULL));
    CHECK_OK(snodo_pending_flow_elicitation_ids(p, &eids, NULL));
    CHECK_OK(snodo_pending_flow_deadline(p, &deadline));
    CHECK_OK(snodo_pending_flow_round(p, &round));
    sb_str(out, "{\"send\":");
    sb_str(out, send ? send : "null");
    snprintf(num, sizeof num, "%llu", (unsigned long long)deadline);
    sb_str(out, ",\"deadline\":");
    sb_str(out, num);
    snprintf(num, sizeof num, "%u", round);
    sb_str(out, ",\"round\":");
    sb_str(out, num);
    sb_str(out, ",\"elicitationIds\":");
    sb_str(out, eids ? eids : "null");
    sb_str(out, "}");
    snodo_string_free(send);
    snodo_string_free(eids);
}

/* A feed/timeout result: waiting, resume (the call is kept in *call) or
 * respond + cancellations. */
static void legacy_feed_out(sbuf *out, snodo_feed_kind kind, snodo_call *next, snodo_response *resp, char *cancels,
                            snodo_call **call) {
    if (kind == SNODO_FEED_KIND_WAITING) {
        CHECK(next == NULL && resp == NULL, "waiting with a handle");
        sb_str(out, "{\"waiting\":true}");
    } else if (kind == SNODO_FEED_KIND_RESUME) {
        CHECK(next != NULL && resp == NULL, "resume without exactly a call");
        sb_str(out, "{\"resume\":");
        if (next) legacy_call_out(out, next);
        sb_str(out, "}");
        snodo_call_free(*call);
        *call = next;
        next = NULL;
    } else {
        CHECK(kind == SNODO_FEED_KIND_RESPOND && resp != NULL && next == NULL, "feed kind %d", (int)kind);
        sb_str(out, "{\"respond\":");
        if (resp) response_out(out, resp);
        sb_str(out, ",\"cancellations\":");
        sb_str(out, cancels ? cancels : "null");
        sb_str(out, "}");
    }
    if (kind != SNODO_FEED_KIND_RESPOND) CHECK(cancels && strcmp(cancels, "[]") == 0, "cancellations %s", cancels);
    snodo_call_free(next);
    snodo_response_free(resp);
    snodo_string_free(cancels);
}

static void run_legacy(const jval *file_cfg, const jval *t) {
    const jval *cfg = json_get(t, "config") ? json_get(t, "config") : file_cfg;
    uint64_t now = json_u64(json_get(t, "now"));
    const jval *s = json_get(t, "session"), *steps = json_get(t, "steps");
    const jval *pv = json_get(s, "protocolVersion"), *sid = json_get(s, "id"), *info = json_get(s, "clientInfo");
    char *caps = text_of(json_get(s, "capabilities"));
    char *info_text = info && info->type != J_NULL ? text_of(info) : NULL;
    /* The test's principal sends every message unless a step names its
     * own; the session's opener is its own `principal`, else the test's. */
    const uint8_t *who, *opener;
    size_t who_len, opener_len;
    principal_of(json_get(t, "principal"), &who, &who_len);
    principal_of(json_get(s, "principal") ? json_get(s, "principal") : json_get(t, "principal"), &opener, &opener_len);
    snodo_session *session = NULL;
    CHECK_OK(snodo_session_new((const uint8_t *)pv->text, pv->len, SZ(caps), (const uint8_t *)info_text,
                               info_text ? strlen(info_text) : 0, opener, opener_len, &session));
    CHECK_OK(snodo_session_with_id(session, (const uint8_t *)sid->text, sid->len));
    free(caps);
    free(info_text);
    snodo_engine *e = make_engine(cfg, now);
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    snodo_pending_flow *pending = NULL;
    int saw_error = 0;
    sbuf out = {0};
    const jval *request = json_get(t, "request");
    snodo_status st = snodo_engine_begin_legacy(e, (const uint8_t *)request->text, request->len, session, who,
                                                who_len, &call, &resp);
    CHECK_OK(st);
    if (resp) {
        saw_error = 1;
        sb_str(&out, "{\"respond\":");
        response_out(&out, resp);
        sb_str(&out, "}");
    } else if (call) {
        sb_str(&out, "{\"call\":");
        legacy_call_out(&out, call);
        sb_str(&out, "}");
    }
    CHECK(out.p && matches(out.p, json_get(t, "begin")), "begin: %s", out.p ? out.p : "(nothing)");
    sb_free(&out);
    snodo_response_free(resp);
    snodo_engine_free(e);
    for (size_t si = 0; steps && si < steps->n; si++) {
        const jval *step = steps->items[si], *op = json_get(step, "op");
        e = make_engine(cfg, json_get(step, "now") ? json_u64(json_get(step, "now")) : now);
        sbuf o = {0};
        snodo_feed_kind fk = SNODO_FEED_KIND_WAITING;
        snodo_call *next = NULL;
        snodo_response *r = NULL;
        char *cancels = NULL;
        if (json_is(op, "decide")) {
            CHECK(call != NULL, "step %zu: no call to decide", si + 1);
            if (call) answers_and_readers(call, step);
            char *outcome = text_of(json_get(step, "outcome"));
            snodo_bridge_kind bk = SNODO_BRIDGE_KIND_RESPOND;
            snodo_pending_flow *p = NULL;
            st = snodo_engine_decide_legacy(e, call, SZ(outcome), &bk, &r, &p, &next);
            free(outcome);
            CHECK_OK(st);
            if (st == SNODO_STATUS_OK && bk == SNODO_BRIDGE_KIND_RESPOND) {
                CHECK(r && !p && !next, "respond without exactly a response");
                sb_str(&o, "{\"respond\":");
                if (r) response_out(&o, r);
                sb_str(&o, "}");
            } else if (st == SNODO_STATUS_OK && bk == SNODO_BRIDGE_KIND_SEND) {
                CHECK(p && !r && !next, "send without exactly a flow");
                if (p) legacy_pending_out(&o, p);
                snodo_pending_flow_free(pending);
                pending = p;
            } else if (st == SNODO_STATUS_OK) {
                CHECK(bk == SNODO_BRIDGE_KIND_RESUME && next && !r && !p, "bridge kind %d", (int)bk);
                sb_str(&o, "{\"resume\":");
                if (next) legacy_call_out(&o, next);
                sb_str(&o, "}");
            }
            snodo_call_free(call);
            call = next;
            snodo_response_free(r);
        } else if (json_is(op, "feed") || json_is(op, "timeout")) {
            CHECK(pending != NULL, "step %zu: no pending flow", si + 1);
            if (json_is(op, "feed")) {
                char *text = strdup(json_get(step, "response")->text);
                char *ids = NULL;
                CHECK_OK(snodo_pending_flow_request_ids(pending, &ids, NULL));
                jval *idv = ids ? json_parse(ids, strlen(ids)) : NULL;
                for (size_t k = 0; idv && k < idv->n; k++) {
                    char pat[32];
                    snprintf(pat, sizeof pat, "{{leg:%zu}}", k + 1);
                    char *nt = replace_all(text, pat, idv->items[k]->text);
                    free(text);
                    text = nt;
                }
                json_free(idv);
                snodo_string_free(ids);
                const uint8_t *by = who;
                size_t by_len = who_len;
                if (json_get(step, "principal")) principal_of(json_get(step, "principal"), &by, &by_len);
                st = snodo_engine_feed(e, pending, SZ(text), by, by_len, &fk, &next, &r, &cancels, NULL);
                free(text);
            } else {
                st = snodo_engine_timeout(e, pending, &fk, &next, &r, &cancels, NULL);
            }
            if (st == SNODO_STATUS_OK) legacy_feed_out(&o, fk, next, r, cancels, &call);
            else {
                CHECK(!next && !r && !cancels, "outs written on an error");
                error_message_out(&o, st);
            }
        } else if (json_is(op, "cancel")) {
            const jval *reason = json_get(step, "reason");
            int has = reason && reason->type == J_STR;
            CHECK(pending != NULL, "step %zu: no pending flow", si + 1);
            CHECK_OK(snodo_pending_flow_cancel(pending, has ? (const uint8_t *)reason->text : NULL,
                                               has ? reason->len : 0, &cancels, NULL));
            sb_str(&o, "{\"cancellations\":");
            sb_str(&o, cancels ? cancels : "null");
            sb_str(&o, "}");
            snodo_string_free(cancels);
        } else {
            CHECK(0, "step %zu: unknown op", si + 1);
            sb_str(&o, "null");
        }
        jval *got = o.p ? json_parse(o.p, o.n) : NULL;
        if (json_get(got, "error") || json_get(json_get(json_get(got, "respond"), "body"), "error")) saw_error = 1;
        CHECK(o.p && matches(o.p, json_get(step, "expected")), "step %zu: %s", si + 1, o.p ? o.p : "(nothing)");
        json_free(got);
        sb_free(&o);
        snodo_engine_free(e);
    }
    CHECK(saw_error == json_is(json_get(t, "result"), "invalid"), "result");
    snodo_call_free(call);
    snodo_pending_flow_free(pending);
    snodo_session_free(session);
}

static void run_file(const char *dir, const char *name) {
    char path[4096], label[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len = 0;
    char *text = read_file(path, &len);
    jval *doc = text ? json_parse(text, len) : NULL;
    free(text);
    const jval *tests = json_get(doc, "tests"), *cfg = json_get(doc, "config");
    int kind = strcmp(name, "flows.json") == 0      ? 1
               : strcmp(name, "tokens.json") == 0   ? 2
               : strcmp(name, "builders.json") == 0 ? 3
               : strcmp(name, "canonical.json") == 0 ? 4
               : strcmp(name, "consistency.json") == 0 ? 5
               : strcmp(name, "wire.json") == 0 ? 1
               : strcmp(name, "wire-builders.json") == 0 ? 3
               : strcmp(name, "headers.json") == 0 ? 6
               : strcmp(name, "parts.json") == 0 ? 7
               : strcmp(name, "legacy.json") == 0 ? 8
               : strcmp(name, "origin.json") == 0 ? 9
                                                     : 0;
    if (!doc || !json_is(json_get(doc, "schema"), "snodo-vectors-v1") || !tests || kind == 0) {
        /* An unreadable or unknown vector file is a failure, never a skip. */
        case_begin();
        CHECK(0, "%s: unreadable, wrong schema or unknown file", name);
        case_end(name);
        json_free(doc);
        return;
    }
    sealed_t *sealed = calloc(tests->n + 1, sizeof *sealed);
    size_t n_sealed = 0;
    for (size_t k = 0; k < tests->n; k++) {
        const jval *t = tests->items[k];
        snprintf(label, sizeof label, "%s tc%llu", name, (unsigned long long)json_u64(json_get(t, "tcId")));
        case_begin();
        if (kind == 1) run_flow(cfg, t);
        else if (kind == 2) run_token(cfg, t, sealed, &n_sealed);
        else if (kind == 3) run_builder(t);
        else if (kind == 5) {
            if (!run_consistency(cfg, t)) {
                /* Not counted as passed: the camelCase config spelling is
                 * Node's; C names limits in snake_case (its own cases run). */
                fprintf(stderr, "n/a in C (camelCase spelling): %s\n", label);
                continue;
            }
        } else if (kind == 6) run_headers(t);
        else if (kind == 7) run_parts(cfg, t);
        else if (kind == 8) run_legacy(cfg, t);
        else if (kind == 9) run_origin(t);
        else run_canonical(t);
        if (g_case_failures) fprintf(stderr, "  in %s\n", label);
        case_end(label);
    }
    for (size_t k = 0; k < n_sealed; k++) free(sealed[k].token);
    free(sealed);
    json_free(doc);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void run_vectors(const char *dir) {
    DIR *d = opendir(dir);
    char *names[256];
    size_t n = 0;
    case_begin();
    CHECK(d != NULL, "cannot open %s", dir);
    case_end("vectors directory");
    if (!d) return;
    for (struct dirent *ent; (ent = readdir(d)) != NULL && n < 256;) {
        size_t l = strlen(ent->d_name);
        if (l > 5 && strcmp(ent->d_name + l - 5, ".json") == 0) names[n++] = strdup(ent->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    case_begin();
    CHECK(n >= 4, "only %zu vector files in %s", n, dir);
    case_end("vector files present");
    for (size_t k = 0; k < n; k++) {
        run_file(dir, names[k]);
        free(names[k]);
    }
}
