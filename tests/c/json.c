/* See json.h. SPDX-License-Identifier: MIT OR Apache-2.0 */
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("out of memory\n", stderr);
        abort();
    }
    return q;
}

void sb_add(sbuf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + n + 1) cap *= 2;
        b->p = xrealloc(b->p, cap);
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

void sb_str(sbuf *b, const char *s) { sb_add(b, s, strlen(s)); }

void sb_free(sbuf *b) {
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

typedef struct {
    const char *s;
    size_t i, len;
    int depth;
} parser;

static void skip_ws(parser *p) {
    while (p->i < p->len && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
        p->i++;
}

static int hex4(parser *p, unsigned *out) {
    unsigned v = 0;
    if (p->i + 4 > p->len) return 0;
    for (int k = 0; k < 4; k++) {
        char c = p->s[p->i++];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

static void put_utf8(sbuf *b, unsigned cp) {
    char u[4];
    size_t n;
    if (cp < 0x80) { u[0] = (char)cp; n = 1; }
    else if (cp < 0x800) { u[0] = (char)(0xC0 | (cp >> 6)); u[1] = (char)(0x80 | (cp & 0x3F)); n = 2; }
    else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12)); u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F)); n = 3;
    } else {
        u[0] = (char)(0xF0 | (cp >> 18)); u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); u[3] = (char)(0x80 | (cp & 0x3F)); n = 4;
    }
    sb_add(b, u, n);
}

/* Parses a string literal at p->i (on the opening quote) into `out`. */
static int parse_string(parser *p, sbuf *out) {
    p->i++;
    while (p->i < p->len) {
        unsigned char c = (unsigned char)p->s[p->i++];
        if (c == '"') return 1;
        if (c < 0x20) return 0;
        if (c != '\\') { char ch = (char)c; sb_add(out, &ch, 1); continue; }
        if (p->i >= p->len) return 0;
        char e = p->s[p->i++];
        switch (e) {
        case '"': sb_add(out, "\"", 1); break;
        case '\\': sb_add(out, "\\", 1); break;
        case '/': sb_add(out, "/", 1); break;
        case 'b': sb_add(out, "\b", 1); break;
        case 'f': sb_add(out, "\f", 1); break;
        case 'n': sb_add(out, "\n", 1); break;
        case 'r': sb_add(out, "\r", 1); break;
        case 't': sb_add(out, "\t", 1); break;
        case 'u': {
            unsigned cp, lo;
            if (!hex4(p, &cp)) return 0;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (p->i + 2 > p->len || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u') return 0;
                p->i += 2;
                if (!hex4(p, &lo) || lo < 0xDC00 || lo > 0xDFFF) return 0;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return 0;
            }
            put_utf8(out, cp);
            break;
        }
        default: return 0;
        }
    }
    return 0;
}

static jval *new_val(jtype t) {
    jval *v = calloc(1, sizeof *v);
    if (!v) abort();
    v->type = t;
    return v;
}

static jval *parse_value(parser *p);

static jval *parse_container(parser *p, int is_obj) {
    jval *v = new_val(is_obj ? J_OBJ : J_ARR);
    char close = is_obj ? '}' : ']';
    size_t cap = 0;
    p->i++;
    if (++p->depth > 200) goto fail;
    skip_ws(p);
    if (p->i < p->len && p->s[p->i] == close) { p->i++; p->depth--; return v; }
    for (;;) {
        sbuf key = {0};
        skip_ws(p);
        if (is_obj) {
            if (p->i >= p->len || p->s[p->i] != '"' || !parse_string(p, &key)) { sb_free(&key); goto fail; }
            skip_ws(p);
            if (p->i >= p->len || p->s[p->i] != ':') { sb_free(&key); goto fail; }
            p->i++;
        }
        jval *item = parse_value(p);
        if (!item) { sb_free(&key); goto fail; }
        if (v->n == cap) {
            cap = cap ? cap * 2 : 4;
            v->items = xrealloc(v->items, cap * sizeof *v->items);
            if (is_obj) {
                v->keys = xrealloc(v->keys, cap * sizeof *v->keys);
                v->key_lens = xrealloc(v->key_lens, cap * sizeof *v->key_lens);
            }
        }
        if (is_obj) {
            if (!key.p) sb_add(&key, "", 0);
            v->keys[v->n] = key.p;
            v->key_lens[v->n] = key.n;
        }
        v->items[v->n++] = item;
        skip_ws(p);
        if (p->i < p->len && p->s[p->i] == ',') { p->i++; continue; }
        if (p->i < p->len && p->s[p->i] == close) { p->i++; p->depth--; return v; }
        goto fail;
    }
fail:
    json_free(v);
    return NULL;
}

static jval *parse_value(parser *p) {
    skip_ws(p);
    if (p->i >= p->len) return NULL;
    char c = p->s[p->i];
    if (c == '{' || c == '[') return parse_container(p, c == '{');
    if (c == '"') {
        sbuf s = {0};
        if (!parse_string(p, &s)) { sb_free(&s); return NULL; }
        if (!s.p) sb_add(&s, "", 0);
        jval *v = new_val(J_STR);
        v->text = s.p;
        v->len = s.n;
        return v;
    }
    static const struct { const char *word; jtype t; int b; } words[] = {
        {"null", J_NULL, 0}, {"true", J_BOOL, 1}, {"false", J_BOOL, 0}};
    for (size_t k = 0; k < 3; k++) {
        size_t n = strlen(words[k].word);
        if (p->len - p->i >= n && memcmp(p->s + p->i, words[k].word, n) == 0) {
            p->i += n;
            jval *v = new_val(words[k].t);
            v->boolean = words[k].b;
            return v;
        }
    }
    size_t start = p->i;
    while (p->i < p->len && strchr("+-0123456789.eE", p->s[p->i]) && p->s[p->i]) p->i++;
    if (p->i == start) return NULL;
    jval *v = new_val(J_NUM);
    sbuf s = {0};
    sb_add(&s, p->s + start, p->i - start);
    v->text = s.p;
    v->len = s.n;
    return v;
}

jval *json_parse(const char *text, size_t len) {
    parser p = {text, 0, len, 0};
    jval *v = parse_value(&p);
    skip_ws(&p);
    if (v && p.i != len) { json_free(v); return NULL; }
    return v;
}

void json_free(jval *v) {
    if (!v) return;
    for (size_t k = 0; k < v->n; k++) {
        json_free(v->items[k]);
        if (v->keys) free(v->keys[k]);
    }
    free(v->items);
    free(v->keys);
    free(v->key_lens);
    free(v->text);
    free(v);
}

const jval *json_get(const jval *obj, const char *key) {
    if (!obj || obj->type != J_OBJ) return NULL;
    size_t n = strlen(key);
    for (size_t k = 0; k < obj->n; k++)
        if (obj->key_lens[k] == n && memcmp(obj->keys[k], key, n) == 0) return obj->items[k];
    return NULL;
}

void json_write_string(const char *s, size_t len, sbuf *out) {
    sb_add(out, "\"", 1);
    for (size_t k = 0; k < len; k++) {
        unsigned char c = (unsigned char)s[k];
        if (c == '"') sb_add(out, "\\\"", 2);
        else if (c == '\\') sb_add(out, "\\\\", 2);
        else if (c < 0x20) {
            char e[8];
            snprintf(e, sizeof e, "\\u%04x", c);
            sb_add(out, e, 6);
        } else sb_add(out, (const char *)&s[k], 1);
    }
    sb_add(out, "\"", 1);
}

void json_write(const jval *v, sbuf *out) {
    if (!v) { sb_str(out, "null"); return; }
    switch (v->type) {
    case J_NULL: sb_str(out, "null"); break;
    case J_BOOL: sb_str(out, v->boolean ? "true" : "false"); break;
    case J_NUM: sb_add(out, v->text, v->len); break;
    case J_STR: json_write_string(v->text, v->len, out); break;
    case J_ARR:
    case J_OBJ:
        sb_str(out, v->type == J_OBJ ? "{" : "[");
        for (size_t k = 0; k < v->n; k++) {
            if (k) sb_str(out, ",");
            if (v->type == J_OBJ) {
                json_write_string(v->keys[k], v->key_lens[k], out);
                sb_str(out, ":");
            }
            json_write(v->items[k], out);
        }
        sb_str(out, v->type == J_OBJ ? "}" : "]");
        break;
    }
}

int json_is(const jval *v, const char *s) {
    return v && v->type == J_STR && v->len == strlen(s) && memcmp(v->text, s, v->len) == 0;
}

uint64_t json_u64(const jval *v) {
    if (!v || v->type != J_NUM) return 0;
    return strtoull(v->text, NULL, 10);
}
