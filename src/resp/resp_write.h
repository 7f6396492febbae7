/*
 * resp_write: reply writers for RESP2 and RESP3.
 *
 * A struct resp_out is a view of an output byte buffer owned elsewhere (the connection). The
 * writers append to p[len..cap) and call grow() when room runs out. An allocation failure is
 * sticky: err is set, later writes do nothing, and the owner closes the connection. Writers
 * therefore return void.
 *
 * proto selects the encoding: 2 = RESP2, 3 = RESP3. Types that RESP2 lacks are written as
 * Redis 7 writes them there (map -> flat array of 2n, set -> array, null -> $-1 or *-1,
 * double -> bulk string, boolean -> integer, verbatim -> bulk).
 */
#ifndef TERSE_RESP_WRITE_H
#define TERSE_RESP_WRITE_H

#include <stddef.h>
#include <stdint.h>

struct resp_out {
    uint8_t *p; /* borrowed from the owner; may change across grow() */
    size_t len; /* bytes written so far */
    size_t cap; /* bytes available at p */
    /* Grows the owner's buffer so that cap - len >= need, updating p and cap.
     * Returns 0 on success, nonzero on failure. */
    int (*grow)(void *owner, struct resp_out *o, size_t need);
    void *owner;
    int proto; /* 2 or 3 */
    int err;   /* sticky: nonzero after a failed grow */
    /* Told of every error reply written, with its code (the first word: "ERR", "WRONGTYPE");
     * NULL: nobody counts (INFO errorstats does). code points into the buffer: read it now. */
    void (*on_error)(void *err_arg, const char *code, size_t len);
    void *err_arg;
};

/* Longest header any writer emits: type byte, sign, 20 digits, CRLF. */
#define RESP_HEADER_MAX 32

/* Room for n bytes at o->p + o->len, or NULL (sticky error). Commit with resp_out_commit.
 * A NULL grow callback means the buffer cannot grow: running out of room sets err. */
uint8_t *resp_out_reserve(struct resp_out *o, size_t n);
void resp_out_commit(struct resp_out *o, size_t n);

void resp_write_raw(struct resp_out *o, const void *p, size_t n);
/* +s; CR/LF in s become spaces, so a reply can never break the framing. */
void resp_write_simple(struct resp_out *o, const char *s);          /* +s */
void resp_write_ok(struct resp_out *o);                              /* +OK */
/* -msg; msg starts with the error code ("ERR ...", "WRONGTYPE ..."). CR/LF in msg are
 * replaced by spaces as Redis does. A leading '-' in msg is not doubled. */
void resp_write_error(struct resp_out *o, const char *msg);
/* Formatted resp_write_error; as Redis's addReplyErrorFormat, CR/LF at either end of the
 * formatted text are trimmed and those inside become spaces. Formats straight into the
 * output buffer (no temporary allocation). */
void resp_write_errorf(struct resp_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Writes v's decimal digits at dst (room for 20, no NUL); returns their count. */
size_t resp_ull_digits(char *dst, unsigned long long v);

void resp_write_int(struct resp_out *o, long long v);               /* :v */
void resp_write_bulk(struct resp_out *o, const void *p, size_t n);   /* $n p */
void resp_write_cstr(struct resp_out *o, const char *s);            /* bulk of a C string */
void resp_write_bulk_ll(struct resp_out *o, long long v);           /* bulk "123" */
/* Bulk header and trailer, for writers that fill the body in place (decode into buffer). */
void resp_write_bulk_header(struct resp_out *o, size_t n);
void resp_write_crlf(struct resp_out *o);
void resp_write_null(struct resp_out *o);       /* RESP2 $-1, RESP3 _ */
void resp_write_null_array(struct resp_out *o); /* RESP2 *-1, RESP3 _ */
void resp_write_array(struct resp_out *o, size_t n); /* *n */
void resp_write_map(struct resp_out *o, size_t n);   /* RESP3 %n, RESP2 *2n */
void resp_write_set(struct resp_out *o, size_t n);   /* RESP3 ~n, RESP2 *n */
void resp_write_push(struct resp_out *o, size_t n);  /* RESP3 >n, RESP2 *n (pub/sub) */
void resp_write_double(struct resp_out *o, double d); /* RESP3 ,d  RESP2 bulk, %.17g */
/* d spelled as "%.17g" (integers under 2^53 without snprintf) into buf; returns its length, 0
 * when it does not fit (never for a finite double or an infinity). */
#define RESP_G17_MAX 40
size_t resp_fmt_g17(char buf[RESP_G17_MAX], double d);
void resp_write_bool(struct resp_out *o, int b);      /* RESP3 #t/#f, RESP2 :1/:0 */
/* RESP3 =n\r\ntxt:body, RESP2 bulk of body. fmt3 is a 3-letter format such as "txt" (only
 * its first three bytes are used; a shorter one is padded with spaces). */
void resp_write_verbatim(struct resp_out *o, const char *fmt3, const void *p, size_t n);

/*
 * Deferred aggregate length (KEYS, SCAN, ...): begin reserves room for the header and
 * returns its offset; end writes the header and closes any gap. kind is '*', '%' or '~'
 * (mapped for RESP2 as above; for '%' pass the number of pairs).
 * Deferred headers nest but must be ended in reverse order of begin (end moves the bytes
 * after `at`, which would invalidate an inner offset still open). After a sticky error both
 * are no-ops. begin reserves RESP_HEADER_MAX bytes at most.
 */
size_t resp_write_deferred_begin(struct resp_out *o);
void resp_write_deferred_end(struct resp_out *o, size_t at, char kind, size_t n);

#endif /* TERSE_RESP_WRITE_H */
