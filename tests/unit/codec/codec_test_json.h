/*
 * codec_test_json: helpers shared by the codec's cmocka tests (header-only, static inline): a
 * minimal JSON reader for the cachekit vector files (objects, arrays, strings without \u
 * escapes beyond ASCII, numbers kept as text, literals), the vector loader that reads
 * $TERSE_SHARED/vectors/cachekit/<file> (default ../shared) at test time, and hex helpers.
 * Include after <cmocka.h>.
 */
#ifndef TERSE_CODEC_TEST_JSON_H
#define TERSE_CODEC_TEST_JSON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tiny JSON reader -------------------------------------------------------------------- */

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

struct json {
    enum json_type type;
    char *text;          /* JSON_STR and JSON_NUM: NUL-terminated text; JSON_BOOL: "t"/"f" */
    char *key;           /* member name when inside an object */
    struct json *child;  /* first element or member */
    struct json *next;   /* next sibling */
};

struct json_in {
    const char *p;
    const char *end;
};

static inline void
json_ws(struct json_in *in)
{
    while (in->p < in->end && (*in->p == ' ' || *in->p == '\n' || *in->p == '\r' ||
                               *in->p == '\t')) {
        in->p++;
    }
}

static inline char *
json_string(struct json_in *in)
{
    char *out = malloc((size_t)(in->end - in->p) + 1), *o = out;

    assert_non_null(out);
    assert_true(*in->p == '"');
    in->p++;
    while (in->p < in->end && *in->p != '"') {
        if (*in->p == '\\') {
            in->p++;
            switch (*in->p) {
            case 'n': *o++ = '\n'; break;
            case 't': *o++ = '\t'; break;
            case 'u': *o++ = '?'; in->p += 4; break; /* not needed by any field we read */
            default: *o++ = *in->p; break;
            }
            in->p++;
        } else {
            *o++ = *in->p++;
        }
    }
    assert_true(in->p < in->end);
    in->p++;
    *o = '\0';
    return out;
}

static inline struct json *json_value(struct json_in *in);

static inline struct json *
json_container(struct json_in *in, enum json_type t)
{
    struct json *j = calloc(1, sizeof(*j)), **tail = &j->child;
    char close = t == JSON_ARR ? ']' : '}';

    assert_non_null(j);
    j->type = t;
    in->p++;
    json_ws(in);
    while (in->p < in->end && *in->p != close) {
        char *key = NULL;
        struct json *v;

        if (t == JSON_OBJ) {
            key = json_string(in);
            json_ws(in);
            assert_true(*in->p == ':');
            in->p++;
        }
        v = json_value(in);
        v->key = key;
        *tail = v;
        tail = &v->next;
        json_ws(in);
        if (*in->p == ',') {
            in->p++;
            json_ws(in);
        }
    }
    assert_true(in->p < in->end);
    in->p++;
    return j;
}

static inline struct json *
json_value(struct json_in *in)
{
    struct json *j;
    const char *s;

    json_ws(in);
    assert_true(in->p < in->end);
    if (*in->p == '{') {
        return json_container(in, JSON_OBJ);
    }
    if (*in->p == '[') {
        return json_container(in, JSON_ARR);
    }
    j = calloc(1, sizeof(*j));
    assert_non_null(j);
    if (*in->p == '"') {
        j->type = JSON_STR;
        j->text = json_string(in);
        return j;
    }
    s = in->p;
    while (in->p < in->end && strchr(",]} \n\r\t", *in->p) == NULL) {
        in->p++;
    }
    j->text = strndup(s, (size_t)(in->p - s));
    j->type = s[0] == 'n' ? JSON_NULL : (s[0] == 't' || s[0] == 'f') ? JSON_BOOL : JSON_NUM;
    return j;
}

static inline void
json_free(struct json *j)
{
    while (j != NULL) {
        struct json *next = j->next;

        json_free(j->child);
        free(j->text);
        free(j->key);
        free(j);
        j = next;
    }
}

static inline struct json *
json_get(const struct json *obj, const char *key)
{
    for (struct json *m = obj != NULL ? obj->child : NULL; m != NULL; m = m->next) {
        if (m->key != NULL && strcmp(m->key, key) == 0) {
            return m;
        }
    }
    return NULL;
}

static inline const char *
json_str(const struct json *obj, const char *key)
{
    struct json *m = json_get(obj, key);

    return m != NULL ? m->text : NULL;
}

static inline uint64_t
json_u64(const struct json *obj, const char *key)
{
    const char *s = json_str(obj, key);

    assert_non_null(s);
    return strtoull(s, NULL, 10);
}

static inline struct json *
vectors_load(const char *file)
{
    const char *root = getenv("TERSE_SHARED");
    char path[1024];
    struct json_in in;
    struct json *j;
    char *buf;
    long n;
    FILE *f;

    snprintf(path, sizeof(path), "%s/vectors/cachekit/%s", root != NULL ? root : "../shared",
             file);
    f = fopen(path, "rb");
    if (f == NULL) {
        fail_msg("cannot open %s (set TERSE_SHARED)", path);
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    in.p = buf;
    in.end = buf + n;
    j = json_value(&in);
    free(buf);
    return j;
}

/* ---- byte helpers ------------------------------------------------------------------------ */

struct bytes {
    uint8_t *p;
    size_t len;
};

static inline void
hex_append(struct bytes *b, const char *hex, uint64_t count)
{
    size_t h = strlen(hex) / 2;

    b->p = realloc(b->p, b->len + h * count + 1);
    assert_non_null(b->p);
    for (uint64_t c = 0; c < count; c++) {
        for (size_t i = 0; i < h; i++) {
            unsigned v;

            assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
            b->p[b->len++] = (uint8_t)v;
        }
    }
}

static inline struct bytes
hex_bytes(const char *hex)
{
    struct bytes b = { NULL, 0 };

    hex_append(&b, hex != NULL ? hex : "", 1);
    return b;
}

/* A list of {hex, count} segments, repeated and concatenated. */
static inline struct bytes
segments_bytes(const struct json *list)
{
    struct bytes b = { NULL, 0 };

    hex_append(&b, "", 1);
    for (struct json *s = list->child; s != NULL; s = s->next) {
        hex_append(&b, json_str(s, "hex"), json_u64(s, "count"));
    }
    return b;
}

#endif /* TERSE_CODEC_TEST_JSON_H */
