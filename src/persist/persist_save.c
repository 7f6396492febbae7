/*
 * persist_save: writes a snapshot (docs/formats/snapshot.md).
 *
 * Records are appended to one block buffer of PERSIST_BLOCK_TARGET bytes (plus room for the
 * header, one small record and the trailer); a full buffer becomes one DATA block: header
 * filled in, xxh3 over header and payload appended, written with one write(). A record too
 * large for the buffer is streamed as a block of its own straight from the store's memory.
 * Every byte written also feeds the whole-file hash that the END block carries.
 *
 * Deduplication: a stored value of PERSIST_DEDUP_MIN bytes or more that is byte-identical to
 * one already written is written as a reference (file offset and length) to the earlier copy.
 * The table maps xxh3 of the stored bytes to the earlier copy's file offset and its bytes in
 * the store (compared with memcmp before a reference is written, so a hash collision costs
 * space, never data). It is open addressing, sized from the key count, at most
 * PERSIST_DEDUP_SLOTS_MAX slots and never more than 3/4 full: once full, later values are
 * written inline. If the table cannot be allocated the snapshot is written without it.
 *
 * Invariant: w->off is the file offset of w->buf[0]; every write goes through write_out.
 */
#include "persist/persist.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t by value: no malloc behind our back */
#include <xxhash.h>

#include "persist/persist_internal.h"
#include "persist/persist_save_coll.h"
#include "persist/persist_save_internal.h"
#include "codec/codec_sum.h"
#include "codec/codec_value.h"
#include "store/store.h"
#include "terse/status.h"

void persist_w_fail(struct writer *w, int status, const char *what)
{
    if (w->status != TERSE_OK) {
        return;
    }
    w->status = status;
    if (w->err != NULL) {
        w->err->offset = w->off;
        snprintf(w->err->reason, sizeof(w->err->reason), "%s", what);
    }
}

/* Writes n bytes at the end of the file and feeds the whole-file hash. */
void persist_w_out(struct writer *w, const void *p, size_t n)
{
    const uint8_t *b = p;
    size_t done = 0;

    if (w->status != TERSE_OK) {
        return;
    }
    XXH3_64bits_update(&w->file_hash, p, n);
    while (done < n) {
        ssize_t k = write(w->fd, b + done, n - done);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k <= 0) {
            char why[PERSIST_REASON_CAP];
            snprintf(why, sizeof(why), "write failed: %s", k < 0 ? strerror(errno) : "no space");
            persist_w_fail(w, TERSE_EIO, why);
            return;
        }
        done += (size_t)k;
    }
}

void persist_w_block_header(uint8_t *h, enum persist_block_type type, uint32_t seq, int db,
                         uint32_t n_records, uint64_t payload_len)
{
    h[0] = (uint8_t)type;
    h[1] = 0;
    h[2] = h[3] = 0;
    persist_put_u32(h + 4, seq);
    persist_put_u32(h + 8, (uint32_t)db);
    persist_put_u32(h + 12, n_records);
    persist_put_u64(h + 16, payload_len);
}

/* Closes the block being built (if it holds records) and writes it. */
void persist_w_flush(struct writer *w)
{
    size_t payload = w->len - PERSIST_BLOCK_HEADER_LEN;

    if (w->n_records == 0) {
        return;
    }
    persist_w_block_header(w->buf, PERSIST_BLOCK_DATA, w->seq, w->db, w->n_records, payload);
    persist_put_u64(w->buf + w->len, codec_sum(w->buf, w->len));
    persist_w_out(w, w->buf, w->len + PERSIST_BLOCK_TRAILER_LEN);
    w->off += w->len + PERSIST_BLOCK_TRAILER_LEN;
    w->seq++;
    w->len = PERSIST_BLOCK_HEADER_LEN;
    w->n_records = 0;
}

/* ---- deduplication ------------------------------------------------------------------------ */

static void dedup_setup(struct writer *w, const struct store_shard *s)
{
    struct store_stats ss;
    size_t want = 1024;

    store_stats_get(s, &ss);
    while (want < PERSIST_DEDUP_SLOTS_MAX && want < ss.n_keys * 2) {
        want *= 2;
    }
    w->slots = w_alloc(w->alloc, want * sizeof(*w->slots));
    if (w->slots == NULL) {
        return; /* not an error: the snapshot is written without references */
    }
    memset(w->slots, 0, want * sizeof(*w->slots));
    w->n_slots = want;
    w->n_used = 0;
}

/* Looks the stored bytes up; returns the slot of an identical earlier copy, or NULL after
 * recording this one (at file offset off) when there is room. */
static const struct dedup_slot *dedup_find_or_add(struct writer *w, const uint8_t *p, size_t len,
                                                  uint64_t off)
{
    uint64_t h;
    size_t mask, i;

    if (w->slots == NULL || len < PERSIST_DEDUP_MIN) {
        return NULL;
    }
    h = codec_sum(p, len);
    mask = w->n_slots - 1;
    for (i = (size_t)h & mask; w->slots[i].p != NULL; i = (i + 1) & mask) {
        const struct dedup_slot *sl = &w->slots[i];
        if (sl->hash == h && sl->len == len && memcmp(sl->p, p, len) == 0) {
            return sl;
        }
    }
    if (w->n_used < w->n_slots / 4 * 3) {
        w->slots[i].hash = h;
        w->slots[i].off = off;
        w->slots[i].p = p;
        w->slots[i].len = len;
        w->n_used++;
    }
    return NULL;
}

/* ---- records ------------------------------------------------------------------------------ */

/* A record too large for the buffer: one block of its own, key and value written from the
 * store's memory. pre/mid are the encoded bytes before the key and between key and value. */
static void write_big_record(struct writer *w, const uint8_t *pre, size_t pre_len,
                             const uint8_t *key, size_t klen, const uint8_t *mid, size_t mid_len,
                             const uint8_t *val, size_t vlen)
{
    uint8_t h[PERSIST_BLOCK_HEADER_LEN], t[PERSIST_BLOCK_TRAILER_LEN];
    uint64_t payload = (uint64_t)pre_len + klen + mid_len + vlen;
    XXH3_state_t bh;

    persist_w_flush(w);
    XXH3_INITSTATE(&bh);
    XXH3_64bits_reset(&bh);
    persist_w_block_header(h, PERSIST_BLOCK_DATA, w->seq, w->db, 1, payload);
    XXH3_64bits_update(&bh, h, sizeof(h));
    XXH3_64bits_update(&bh, pre, pre_len);
    XXH3_64bits_update(&bh, key, klen);
    XXH3_64bits_update(&bh, mid, mid_len);
    XXH3_64bits_update(&bh, val, vlen);
    persist_put_u64(t, XXH3_64bits_digest(&bh));
    persist_w_out(w, h, sizeof(h));
    persist_w_out(w, pre, pre_len);
    persist_w_out(w, key, klen);
    persist_w_out(w, mid, mid_len);
    persist_w_out(w, val, vlen);
    persist_w_out(w, t, sizeof(t));
    w->off += sizeof(h) + payload + sizeof(t);
    w->seq++;
}

static void save_entry(void *arg, const struct store_entry *e)
{
    struct writer *w = arg;
    uint8_t pre[SAVE_PREFIX_MAX], mid[SAVE_MIDDLE_MAX];
    size_t pre_len = 1, mid_len = 0, klen, vlen = 0, rec_len;
    const uint8_t *key = store_entry_key(e, &klen);
    const uint8_t *val = NULL;
    int64_t exp = store_entry_expire(e);
    const struct dedup_slot *dup = NULL;
    unsigned kind;

    if (w->status != TERSE_OK) {
        return;
    }
    if (store_entry_enc(e) == STORE_ENC_INT) {
        kind = PERSIST_REC_INT;
    } else if (store_entry_enc(e) == STORE_ENC_COLL) {
        persist_save_coll(w, e); /* a CHUNKED record: its chunks as held */
        return;
    } else {
        val = store_entry_val(e, &vlen);
        kind = PERSIST_REC_STR;
    }
    pre[0] = (uint8_t)kind;
    if (exp != STORE_NO_EXPIRE) {
        pre[0] |= PERSIST_REC_EXPIRE;
        persist_put_u64(mid, (uint64_t)exp);
        mid_len = 8;
    }
    if (store_entry_type(e) != STORE_TYPE_STRING) {
        /* Not a hash's or set's "hashtable" mark: Redis decides a loaded value's encoding
         * afresh. */
        pre[0] |= (uint8_t)((unsigned)store_entry_type(e) << PERSIST_REC_TYPE_SHIFT);
    } else if (kind == PERSIST_REC_STR && store_entry_is_raw(e)) {
        pre[0] |= PERSIST_REC_RAW;
    }
    pre_len += persist_put_varint(pre + 1, klen);
    if (kind == PERSIST_REC_INT) {
        mid_len += persist_put_varint(mid + mid_len, persist_zigzag(store_entry_int(e)));
    } else {
        /* Offset the value will have if written inline in this block (the varint of its
         * length comes first; measured by a dry run). */
        uint8_t tmp[PERSIST_VARINT_MAX];
        size_t vl_len = persist_put_varint(tmp, vlen);
        uint64_t at = (uint64_t)pre_len + klen + mid_len + vl_len;

        rec_len = at + vlen;
        at += rec_len > SAVE_SMALL_RECORD_MAX ? w->off + PERSIST_BLOCK_HEADER_LEN
                                              : w->off + w->len;
        /* A big record flushes the current block first, moving its own offset: compute the
         * offset after that flush. */
        if (rec_len > SAVE_SMALL_RECORD_MAX && w->n_records > 0) {
            at += w->len + PERSIST_BLOCK_TRAILER_LEN;
        }
        dup = dedup_find_or_add(w, val, vlen, at);
        if (dup != NULL) {
            pre[0] = (uint8_t)((pre[0] & ~PERSIST_REC_KIND_MASK) | PERSIST_REC_REF);
            mid_len += persist_put_varint(mid + mid_len, dup->off);
            mid_len += persist_put_varint(mid + mid_len, vlen);
            val = NULL;
            vlen = 0;
            w->n_dedup++;
        } else {
            mid_len += persist_put_varint(mid + mid_len, vlen);
        }
    }
    rec_len = pre_len + klen + mid_len + vlen;
    if (rec_len > SAVE_SMALL_RECORD_MAX) {
        write_big_record(w, pre, pre_len, key, klen, mid, mid_len, val, vlen);
    } else {
        memcpy(w->buf + w->len, pre, pre_len);
        if (klen > 0) {
            memcpy(w->buf + w->len + pre_len, key, klen);
        }
        memcpy(w->buf + w->len + pre_len + klen, mid, mid_len);
        if (vlen > 0) {
            memcpy(w->buf + w->len + pre_len + klen + mid_len, val, vlen);
        }
        w->len += rec_len;
        w->n_records++;
        if (w->len - PERSIST_BLOCK_HEADER_LEN >= PERSIST_BLOCK_TARGET) {
            persist_w_flush(w);
        }
    }
    w->n_keys++;
}

/* ---- file --------------------------------------------------------------------------------- */

static void write_header(struct writer *w, int n_db)
{
    uint8_t h[PERSIST_HEADER_LEN];

    memcpy(h, PERSIST_MAGIC, PERSIST_MAGIC_LEN);
    h[8] = PERSIST_VERSION;
    h[9] = 0;
    h[10] = h[11] = 0;
    persist_put_u32(h + 12, (uint32_t)n_db);
    persist_put_u64(h + 16, (uint64_t)w->now_ms);
    persist_put_u64(h + 24, XXH3_64bits(h, 24));
    persist_w_out(w, h, sizeof(h));
    w->off += sizeof(h);
}

static void write_end(struct writer *w)
{
    uint8_t b[PERSIST_BLOCK_HEADER_LEN + PERSIST_END_PAYLOAD_LEN + PERSIST_BLOCK_TRAILER_LEN];
    uint8_t *p = b + PERSIST_BLOCK_HEADER_LEN;

    persist_w_block_header(b, PERSIST_BLOCK_END, w->seq, 0, 0, PERSIST_END_PAYLOAD_LEN);
    persist_put_u64(p, w->n_keys);
    persist_put_u64(p + 8, w->seq);
    persist_put_u64(p + 16, XXH3_64bits_digest(&w->file_hash));
    persist_put_u64(p + PERSIST_END_PAYLOAD_LEN,
                    XXH3_64bits(b, PERSIST_BLOCK_HEADER_LEN + PERSIST_END_PAYLOAD_LEN));
    persist_w_out(w, b, sizeof(b));
    w->off += sizeof(b);
}

int persist_save_fd(struct store_shard *s, int fd, int64_t now_ms, const terse_allocator *alloc,
                    struct persist_save_stats *st, struct persist_error *err)
{
    struct writer w;
    int n_db = store_shard_n_db(s);

    memset(&w, 0, sizeof(w));
    w.fd = fd;
    w.alloc = alloc;
    w.now_ms = now_ms;
    w.err = err;
    w.status = TERSE_OK;
    w.len = PERSIST_BLOCK_HEADER_LEN;
    w.shard = s;
    if (err != NULL) {
        err->offset = 0;
        err->reason[0] = '\0';
    }
    w.buf = w_alloc(alloc, SAVE_BUF_CAP);
    if (w.buf == NULL) {
        persist_w_fail(&w, TERSE_ENOMEM, "out of memory");
        goto out;
    }
    XXH3_INITSTATE(&w.file_hash);
    XXH3_64bits_reset(&w.file_hash);
    dedup_setup(&w, s);
    write_header(&w, n_db);
    for (int db = 0; db < n_db && w.status == TERSE_OK; db++) {
        uint64_t cursor = 0;

        persist_w_flush(&w); /* blocks hold one db each: the per-db sections */
        w.db = db;
        do {
            cursor = store_scan(s, db, cursor, 1024, now_ms, save_entry, &w);
        } while (cursor != 0 && w.status == TERSE_OK);
    }
    persist_w_flush(&w);
    write_end(&w);
out:
    if (st != NULL) {
        st->n_keys = w.n_keys;
        st->n_dedup = w.n_dedup;
        st->file_bytes = w.off;
    }
    w_free(alloc, w.slots);
    w_free(alloc, w.buf);
    w_free(alloc, w.form);
    w_free(alloc, w.form2);
    return w.status;
}

static int fail_io(struct persist_error *err, const char *what, const char *path)
{
    if (err != NULL) {
        snprintf(err->reason, sizeof(err->reason), "%s %s: %s", what, path, strerror(errno));
    }
    return TERSE_EIO;
}

/* fsync of the directory holding path, so the rename itself is durable. */
static int sync_dir(const char *path, struct persist_error *err)
{
    char copy[4096];
    const char *dir;
    int fd, rc;

    snprintf(copy, sizeof(copy), "%s", path);
    dir = dirname(copy);
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return fail_io(err, "cannot open directory", dir);
    }
    rc = fsync(fd);
    close(fd);
    return rc == 0 ? TERSE_OK : fail_io(err, "fsync of directory failed for", dir);
}

int persist_save_file(struct store_shard *s, const char *path, const char *tmp_path,
                      int64_t now_ms, const terse_allocator *alloc,
                      struct persist_save_stats *st, struct persist_error *err)
{
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc;

    if (fd < 0) {
        return fail_io(err, "cannot create", tmp_path);
    }
    rc = persist_save_fd(s, fd, now_ms, alloc, st, err);
    if (rc == TERSE_OK && fsync(fd) != 0) {
        rc = fail_io(err, "fsync failed for", tmp_path);
    }
    if (close(fd) != 0 && rc == TERSE_OK) {
        rc = fail_io(err, "close failed for", tmp_path);
    }
    if (rc == TERSE_OK && rename(tmp_path, path) != 0) {
        rc = fail_io(err, "cannot rename the temporary file to", path);
    }
    if (rc != TERSE_OK) {
        unlink(tmp_path);
        return rc;
    }
    return sync_dir(path, err);
}
