/* A small JSON reader/writer for the C test suite: just enough to walk the
 * vector files and to hand sub-values back to libsnodo as JSON text.
 * Numbers keep their lexical text (no conversion), strings are decoded to
 * UTF-8 with their length, and object members keep their file order.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#ifndef SNODO_TEST_JSON_H
#define SNODO_TEST_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval {
    jtype type;
    int boolean;
    char *text;          /* J_STR: decoded UTF-8 (NUL-terminated); J_NUM: lexical text */
    size_t len;          /* length of text */
    size_t n;            /* J_ARR / J_OBJ: number of items */
    struct jval **items; /* J_ARR / J_OBJ values */
    char **keys;         /* J_OBJ keys (NUL-terminated) */
    size_t *key_lens;
} jval;

/* A growable byte buffer, always NUL-terminated. */
typedef struct {
    char *p;
    size_t n, cap;
} sbuf;

void sb_add(sbuf *b, const char *s, size_t n);
void sb_str(sbuf *b, const char *s);
void sb_free(sbuf *b);

/* Parses `len` bytes; NULL on a syntax error. */
jval *json_parse(const char *text, size_t len);
void json_free(jval *v);
/* The member `key` of an object, or NULL (also when `obj` is not an object). */
const jval *json_get(const jval *obj, const char *key);
/* Appends `v` as compact JSON text; NULL is written as `null`. */
void json_write(const jval *v, sbuf *out);
/* Appends a JSON string literal for `len` bytes of UTF-8. */
void json_write_string(const char *s, size_t len, sbuf *out);
/* Whether `v` is a string equal to `s`. */
int json_is(const jval *v, const char *s);
/* The number as an unsigned integer (0 when absent or not a number). */
uint64_t json_u64(const jval *v);

#endif
