/* Secret hygiene through the C ABI: the key bytes never appear in any text
 * libsnodo hands back (last errors after config failures, response bodies,
 * diagnostics, opened tokens), and the principal never appears in clear in
 * a token, even after decoding its base64url parts.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

#define KEY_LEN 32
static uint8_t SECRET[KEY_LEN];

/* Bytes spread over the whole range (high bytes included, so the latin-1
 * and UTF-8 spellings differ) and not a short repeated pattern, so a hit
 * cannot be a coincidence with ordinary JSON text. */
static void make_secret(void) {
    for (int i = 0; i < KEY_LEN; i++) SECRET[i] = (uint8_t)(0xA5 + i * 73);
}

static int contains(const char *hay, size_t hlen, const char *needle, size_t nlen) {
    if (nlen == 0 || nlen > hlen) return 0;
    for (size_t i = 0; i + nlen <= hlen; i++)
        if (memcmp(hay + i, needle, nlen) == 0) return 1;
    return 0;
}

static void base64(const uint8_t *in, size_t n, int url, sbuf *out) {
    const char *abc = url ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                          : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        size_t chars = i + 2 < n ? 4 : i + 1 < n ? 3 : 2;
        for (size_t c = 0; c < 4; c++) {
            char ch = c < chars ? abc[(v >> (18 - 6 * c)) & 63] : '=';
            if (ch == '=' && url) break; /* url-safe spelling without padding */
            sb_add(out, &ch, 1);
        }
    }
}

/* base64url (no padding) → bytes; returns 0 on a character outside the alphabet. */
static int base64url_decode(const char *in, size_t n, sbuf *out) {
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        char c = in[i];
        int v = c >= 'A' && c <= 'Z'   ? c - 'A'
                : c >= 'a' && c <= 'z' ? c - 'a' + 26
                : c >= '0' && c <= '9' ? c - '0' + 52
                : c == '-'             ? 62
                : c == '_'             ? 63
                                       : -1;
        if (v < 0) return 0;
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            char byte = (char)((acc >> bits) & 0xFF);
            sb_add(out, &byte, 1);
        }
    }
    return 1;
}

/* Every spelling of `k` a log line or message could plausibly contain:
 * hex (lower, upper), base64 (standard, url-safe), the raw bytes, the same
 * bytes read as latin-1 and written as UTF-8, and C's usual ways of printing
 * a byte array ("0xa5, 0xee, ..." and "165, 238, ..."). */
static int n_spellings(const uint8_t *k, size_t n, sbuf *out /* [8] */) {
    char tmp[16];
    for (size_t i = 0; i < n; i++) {
        snprintf(tmp, sizeof tmp, "%02x", k[i]);
        sb_str(&out[0], tmp);
        snprintf(tmp, sizeof tmp, "%02X", k[i]);
        sb_str(&out[1], tmp);
        snprintf(tmp, sizeof tmp, "%s0x%02x", i ? ", " : "", k[i]);
        sb_str(&out[6], tmp);
        snprintf(tmp, sizeof tmp, "%s%u", i ? ", " : "", k[i]);
        sb_str(&out[7], tmp);
        if (k[i] < 0x80) {
            sb_add(&out[5], (const char *)&k[i], 1);
        } else {
            char u[2] = {(char)(0xC0 | k[i] >> 6), (char)(0x80 | (k[i] & 0x3F))};
            sb_add(&out[5], u, 2);
        }
    }
    base64(k, n, 0, &out[2]);
    base64(k, n, 1, &out[3]);
    sb_add(&out[4], (const char *)k, n);
    return 8;
}

static const char *const SPELLING_NAMES[8] = {"hex", "HEX", "base64", "base64url", "raw bytes",
                                              "latin-1 as UTF-8", "0x list", "decimal list"};

/* The first spelling of the whole key, or of any 8-byte window of it (a
 * partial leak counts too), found in `text`; NULL when clean. */
static const char *leak_found(const char *text, size_t len) {
    static char found[64];
    if (!text) return NULL;
    /* First the whole key (off 0, n 32), then every 8-byte window. */
    for (size_t off = 0, n = KEY_LEN; off + n <= KEY_LEN; off += n == KEY_LEN ? 0 : 1, n = 8) {
        sbuf sp[8] = {{0}};
        n_spellings(SECRET + off, n, sp);
        const char *hit = NULL;
        for (int s = 0; s < 8 && !hit; s++) {
            size_t m = sp[s].n;
            if ((s == 2 || s == 3) && n != KEY_LEN) {
                /* A window's base64 is a substring of the key's only when it
                 * starts on a 3-byte group; compare whole 4-character groups. */
                if (off % 3 != 0) continue;
                m = (n / 3) * 4;
            }
            if (contains(text, len, sp[s].p, m)) {
                snprintf(found, sizeof found, "%s of %zu bytes at %zu", SPELLING_NAMES[s], n, off);
                hit = found;
            }
        }
        for (int s = 0; s < 8; s++) sb_free(&sp[s]);
        if (hit) return hit;
    }
    return NULL;
}

static void assert_clean(const char *what, const char *text, size_t len) {
    const char *hit = leak_found(text, len);
    CHECK(hit == NULL, "%s leaked in %s: %.*s", hit, what, (int)len, text);
}

/* The last error of this thread must be set and clean. */
static void last_error_clean(const char *what) {
    char *s = NULL;
    size_t n = 0;
    CHECK_OK(snodo_last_error(&s, &n));
    CHECK(s && n > 0, "%s: a last error is set", what);
    assert_clean(what, s, n);
    snodo_string_free(s);
}

static void test_config_errors(void) {
    case_begin();
    make_secret();
    uint8_t longkey[1025];
    for (size_t i = 0; i < sizeof longkey; i++) longkey[i] = SECRET[i % KEY_LEN];
    snodo_config *c = NULL;
    snodo_engine *e = NULL;
    CHECK_OK(snodo_config_new(&c));

    CHECK(snodo_config_add_key(c, S("k1"), SECRET, KEY_LEN - 1) == SNODO_STATUS_CONFIG, "short key");
    last_error_clean("short key");
    CHECK(snodo_config_add_key(c, S("k1"), longkey, sizeof longkey) == SNODO_STATUS_CONFIG, "1025-byte key");
    last_error_clean("long key");
    CHECK(snodo_config_add_key(c, S("bad id"), SECRET, KEY_LEN) == SNODO_STATUS_CONFIG, "bad id");
    last_error_clean("bad id");
    CHECK(snodo_config_add_key(c, (const uint8_t *)"", 0, SECRET, KEY_LEN) == SNODO_STATUS_CONFIG, "empty id");
    last_error_clean("empty id");
    /* The id itself spelled as the key bytes (a caller mixing up the two
     * arguments) must not be echoed either. */
    CHECK(snodo_config_add_key(c, SECRET, KEY_LEN, SECRET, KEY_LEN) != SNODO_STATUS_OK, "key bytes as id");
    last_error_clean("key bytes as id");

    /* Duplicate id: refused when the add is checked or when the engine is built. */
    CHECK_OK(snodo_config_add_key(c, S("k1"), SECRET, KEY_LEN));
    snodo_status dup = snodo_config_add_key(c, S("k1"), SECRET, KEY_LEN);
    if (dup == SNODO_STATUS_OK) {
        CHECK(snodo_engine_new(c, &e) == SNODO_STATUS_CONFIG, "duplicate id accepted");
        CHECK(e == NULL, "no engine");
    } else {
        CHECK(dup == SNODO_STATUS_CONFIG, "duplicate id status %d", dup);
    }
    last_error_clean("duplicate id");
    snodo_config_free(c);

    /* Invalid limits with a valid key in the ring. */
    CHECK_OK(snodo_config_new(&c));
    CHECK_OK(snodo_config_add_key(c, S("k1"), SECRET, KEY_LEN));
    CHECK_OK(snodo_config_set_ttl_secs(c, 0));
    CHECK(snodo_engine_new(c, &e) == SNODO_STATUS_CONFIG, "ttl 0");
    last_error_clean("ttl 0");
    snodo_engine_free(e);
    snodo_config_free(c);
    case_end("key bytes never in the last error of config failures");
}

/* Everything a flow produces: both response bodies, the diagnostic of a
 * handler bug, error responses (tampered token, wrong principal), the
 * low-level seal/open texts and their errors. */
static void test_flow_outputs(void) {
    case_begin();
    make_secret();
    snodo_config *c = NULL;
    snodo_engine *e = NULL;
    CHECK_OK(snodo_config_new(&c));
    CHECK_OK(snodo_config_add_key(c, S("prod"), SECRET, KEY_LEN));
    CHECK_OK(snodo_config_set_fixed_time(c, 1800000000));
    CHECK_OK(snodo_engine_new(c, &e));
    snodo_config_free(c);
    if (!e) goto out;

    const char *principal = "octocat@example.com";
    snodo_call *call = NULL;
    snodo_response *resp = NULL;
    char *s = NULL;
    snodo_question *form = NULL;
    size_t n = 0;
    CHECK_OK(snodo_elicit_form(S("Pick"), S("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}}}"), &form));
    CHECK_OK(snodo_engine_begin(e, S(TOOL_CALL("1")), SZ(principal), &call, &resp));
    if (!call || !form) goto out;
    snodo_input_request ask[] = {{S("n"), form}};
    CHECK_OK(snodo_engine_decide_input_required(e, call, ask, 1, S("{\"step\":1}"), &resp));
    snodo_call_free(call);
    call = NULL;
    char *body = NULL;
    CHECK_OK(snodo_response_body(resp, &body, &n));
    assert_clean("round-1 body", body, n);
    snodo_response_free(resp);
    resp = NULL;

    /* The token: the principal is neither in it nor in any decoded part. */
    char *token = NULL;
    const char *t = body ? strstr(body, "\"requestState\":\"") : NULL;
    CHECK(t != NULL, "a token in %s", body ? body : "");
    if (t) {
        t += 16;
        const char *end = strchr(t, '"');
        token = strndup(t, (size_t)(end - t));
        CHECK(!strstr(token, "octocat"), "principal in token %s", token);
        int parts = 0;
        for (const char *p = token; p;) {
            const char *dot = strchr(p, '.');
            size_t len = dot ? (size_t)(dot - p) : strlen(p);
            sbuf dec = {0};
            if (base64url_decode(p, len, &dec)) {
                parts++;
                CHECK(!contains(dec.p ? dec.p : "", dec.n, "octocat", 7), "principal in a decoded token part");
                assert_clean("decoded token part", dec.p, dec.n);
            }
            sb_free(&dec);
            p = dot ? dot + 1 : NULL;
        }
        CHECK(parts == 4, "token has 4 parts, %d decoded", parts);
    }
    snodo_string_free(body);

    /* A tampered retry and a retry by someone else: error responses. */
    if (token) {
        const char *who[2] = {principal, "mallory"};
        for (int k = 0; k < 2; k++) {
            sbuf r = {0};
            sb_str(&r, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"book\","
                       "\"arguments\":{\"n\":2}," META(CAPS_ALL) ",\"requestState\":\"");
            sb_str(&r, token);
            if (k == 0) sb_str(&r, "A"); /* tampered: the tag no longer decodes canonically */
            sb_str(&r, "\"}}");
            CHECK_OK(snodo_engine_begin(e, (const uint8_t *)r.p, r.n, SZ(who[k]), &call, &resp));
            sb_free(&r);
            CHECK(resp != NULL && call == NULL, "retry %d: an error response, not a call", k);
            if (resp) {
                CHECK_OK(snodo_response_body(resp, &s, &n));
                assert_clean("error response", s, n);
                CHECK(!s || !strstr(s, "octocat"), "principal in %s", s);
                snodo_string_free(s);
                s = NULL;
                CHECK_OK(snodo_response_diagnostic(resp, &s, &n));
                assert_clean("error diagnostic", s, s ? n : 0);
                snodo_string_free(s);
                s = NULL;
            }
            snodo_call_free(call);
            snodo_response_free(resp);
            call = NULL;
            resp = NULL;
        }
    }

    /* A handler bug: -32603 with a diagnostic (log-only text). */
    CHECK_OK(snodo_engine_begin(e, S(TOOL_CALL("3")), SZ(principal), &call, &resp));
    if (call) {
        CHECK_OK(snodo_engine_decide(e, call, S("{\"type\":\"input_required\"}"), &resp));
        CHECK_OK(snodo_response_body(resp, &s, &n));
        assert_clean("handler-bug body", s, n);
        snodo_string_free(s);
        s = NULL;
        CHECK_OK(snodo_response_diagnostic(resp, &s, &n));
        CHECK(s != NULL, "a diagnostic");
        assert_clean("diagnostic", s, s ? n : 0);
        snodo_string_free(s);
        s = NULL;
        snodo_response_free(resp);
        resp = NULL;
        /* A complete flow's body too. */
        snodo_call_free(call);
        call = NULL;
        CHECK_OK(snodo_engine_begin(e, S(TOOL_CALL("4")), SZ(principal), &call, &resp));
        CHECK_OK(snodo_engine_decide(e, call, S("{\"type\":\"complete\",\"result\":{\"content\":[]}}"), &resp));
        CHECK_OK(snodo_response_body(resp, &s, &n));
        assert_clean("complete body", s, n);
        snodo_string_free(s);
        s = NULL;
        snodo_response_free(resp);
        resp = NULL;
        snodo_call_free(call);
        call = NULL;
    }

    /* Low level: seal, open, and the last error of a failed open. */
    uint8_t d[SNODO_BINDING_LEN];
    char *sealed = NULL;
    CHECK_OK(snodo_binding_digest(S("tools/call"), S("{\"name\":\"book\"}"), d));
    CHECK_OK(snodo_engine_seal(e, SZ(principal), d, 1, 1800000000, NULL, 0, S("{\"k\":1}"), &sealed, &n));
    assert_clean("sealed token", sealed, sealed ? n : 0);
    CHECK(!sealed || !strstr(sealed, "octocat"), "principal in sealed token");
    if (sealed) {
        CHECK_OK(snodo_engine_open(e, SZ(sealed), SZ(principal), d, &s, &n));
        assert_clean("opened token", s, s ? n : 0);
        CHECK(!s || !strstr(s, "octocat"), "principal in opened %s", s);
        snodo_string_free(s);
        s = NULL;
        CHECK(snodo_engine_open(e, SZ(sealed), S("mallory"), d, &s, &n) == SNODO_STATUS_TOKEN, "other principal");
        last_error_clean("open by another principal");
        CHECK(!strstr(last_error_text(), "octocat"), "%s", last_error_text());
    }
    snodo_string_free(sealed);
    free(token);
    snodo_question_free(form);
out:
    snodo_engine_free(e);
    case_end("key bytes never in bodies, diagnostics or tokens; principal never in clear");
}

/* The checker itself finds every spelling (so the tests above can fail). */
static void test_checker_detects(void) {
    case_begin();
    make_secret();
    sbuf sp[8] = {{0}};
    n_spellings(SECRET, KEY_LEN, sp);
    for (int s = 0; s < 8; s++) {
        sbuf text = {0};
        sb_str(&text, "{\"note\":\"");
        sb_add(&text, sp[s].p, sp[s].n);
        sb_str(&text, "\"}");
        CHECK(leak_found(text.p, text.n) != NULL, "spelling %s not detected", SPELLING_NAMES[s]);
        /* A partial leak: the middle third of the spelling alone. */
        CHECK(leak_found(text.p + 9 + sp[s].n / 3, sp[s].n / 3) != NULL, "partial %s not detected",
              SPELLING_NAMES[s]);
        sb_free(&text);
    }
    for (int s = 0; s < 8; s++) sb_free(&sp[s]);
    CHECK(leak_found("{\"jsonrpc\":\"2.0\",\"id\":1}", 24) == NULL, "false positive");
    case_end("the leak checker detects each spelling, whole and partial");
}

void run_secret_tests(void) {
    test_checker_detects();
    test_config_errors();
    test_flow_outputs();
}
