/*
 * s3_client: backups to S3-compatible storage: a streaming uploader (PutObject for an object
 * that fits one part, else CreateMultipartUpload / UploadPart / CompleteMultipartUpload, with
 * AbortMultipartUpload on any failure), and the restore side (GetObject streamed to a
 * callback, ListObjectsV2 to find the newest object under a prefix).
 *
 * Every request is SigV4-signed (s3_sigv4.h) and sent with libcurl over one reused easy handle
 * (keep-alive). Every upload body (PutObject and each UploadPart) is aws-chunked with a
 * trailing checksum (s3_chunked.h): Content-Encoding: aws-chunked, x-amz-content-sha256:
 * STREAMING-UNSIGNED-PAYLOAD-TRAILER, x-amz-decoded-content-length, x-amz-trailer.
 * Wire details: docs/formats/backup.md.
 *
 * Memory: s3_client_create allocates everything once: the part buffer (part_size bytes), the
 * part table (S3_PARTS_MAX entries, about 1.1 MiB) and the client (fixed buffers). An upload
 * pulls bytes from the caller's read callback straight into the part buffer and encodes from
 * there into libcurl's send buffer, so memory is one part plus a fixed amount and the client
 * itself allocates nothing per request or per byte. The only allocations after create are
 * libcurl's and OpenSSL's own per-request ones; s3_setup() can route those to a bounded pool
 * (s3_pool.h) so that the process-wide number of heap allocations is constant too.
 *
 * Retries: a request that fails with a transport error (connect, timeout, reset, stall) or
 * HTTP 5xx (and 429, and a 200 CompleteMultipartUpload carrying an <Error>) is retried up to
 * max_attempts times in total, sleeping backoff_ms, 2*backoff_ms, ... (capped at
 * backoff_max_ms) between attempts. A part is resent from the part buffer. A GET is retried
 * only while nothing has been passed to the write callback.
 *
 * Errors: every function returns a terse_status; on failure s3_client_error() has a line
 * with the request, the HTTP status and S3's <Code> and <Message> (or libcurl's error).
 *   TERSE_EINVAL    bad settings or arguments
 *   TERSE_EIO       transport failure after retries, or an HTTP error answer
 *   TERSE_ECORRUPT  S3 rejected a checksum (BadDigest), or a GET body fails its checksum
 *   TERSE_ENOTFOUND no such object (404) / nothing under the prefix
 *   TERSE_ETOOBIG   object needs more than S3_PARTS_MAX parts; name or id over its limit
 *   TERSE_EPROTO    malformed answer (no UploadId, no ETag, bad XML)
 *   TERSE_ENOMEM    allocation failed (create only)
 *   any error status returned by the caller's read or write callback, passed through.
 *
 * Threads: a client is used by one thread at a time (the backup thread). s3_setup() must run
 * once per process before any client is created and before other threads start.
 */
#ifndef S3_CLIENT_H
#define S3_CLIENT_H

#include "s3/s3_checksum.h"

#include <stddef.h>
#include <stdint.h>

#define S3_PART_MIN ((size_t)5 << 20)    /* S3's smallest non-final part: 5 MiB */
#define S3_PART_MAX ((size_t)5 << 30)    /* S3's largest part: 5 GiB */
#define S3_PART_DEFAULT ((size_t)8 << 20)
#define S3_PARTS_MAX 10000               /* S3's limit on parts per upload */
#define S3_CHUNK_MIN 8192                /* S3's smallest non-final aws-chunked chunk */
#define S3_CHUNK_DEFAULT 65536
#define S3_KEY_MAX 1024                  /* S3's longest object key, bytes */
#define S3_BUCKET_MAX 63                 /* S3's longest bucket name */
#define S3_ENDPOINT_MAX 256              /* longest endpoint URL accepted */
#define S3_TOKEN_MAX 4096                /* longest AWS_SESSION_TOKEN accepted */
#define S3_CRED_MAX 128                  /* longest access key id / secret key */
#define S3_ERR_MAX 512                   /* s3_client_error text, with NUL */

/* Settings; every string is borrowed by s3_client_create and copied. */
struct s3_settings {
    const char *endpoint;     /* "http[s]://host[:port]"; NULL: https://s3.<region>.amazonaws.com */
    const char *region;       /* NULL: "us-east-1" */
    int path_style;           /* 1: <endpoint>/<bucket>/<key>; 0: <bucket>.<host>/<key> */
    enum s3_checksum_alg checksum; /* trailer algorithm; default S3_CHECKSUM_CRC32C */
    size_t part_size;         /* bytes per part, S3_PART_MIN..S3_PART_MAX; also the largest
                                 object sent with a single PutObject */
    size_t chunk_size;        /* aws-chunked chunk, S3_CHUNK_MIN..S3_CHUNKED_CHUNK_MAX */
    int part_checksums;       /* 1: list each part's checksum in CompleteMultipartUpload (S3
                                 expects it when the upload was created with an algorithm);
                                 0: leave them out (fauxqs 1.9.2 stores an empty object) */
    unsigned max_attempts;    /* tries per request, >= 1; default 5 */
    unsigned backoff_ms;      /* sleep before the 2nd try, doubling; default 200 */
    unsigned backoff_max_ms;  /* cap on one sleep; default 5000 */
    unsigned connect_timeout_ms; /* default 10000 */
    unsigned stall_timeout_s; /* abort a request that moves no byte for this long; default 30 */
    const char *access_key;   /* NULL: $AWS_ACCESS_KEY_ID */
    const char *secret_key;   /* NULL: $AWS_SECRET_ACCESS_KEY */
    const char *session_token; /* NULL: $AWS_SESSION_TOKEN (may be unset) */
};

/* s3_settings_default: fills the defaults above (endpoint and credentials NULL). No failure. */
void s3_settings_default(struct s3_settings *set);

/*
 * Read callback of an upload: write up to dst_cap (> 0) bytes of the object into dst and their
 * count into *dst_len; *dst_len == 0 means the object ends. Return TERSE_OK, or an error
 * status to abort the upload (it is returned by s3_client_put). dst is the client's part
 * buffer: borrowed for the call only.
 */
typedef int (*s3_read_fn)(void *opaque, uint8_t *dst, size_t dst_cap, size_t *dst_len);

/*
 * Write callback of a download: consume `len` bytes at `src` (borrowed for the call). Return
 * TERSE_OK or an error status to stop the download (returned by s3_client_get).
 */
typedef int (*s3_write_fn)(void *opaque, const uint8_t *src, size_t len);

struct s3_put_result {
    uint64_t n_bytes;      /* object bytes uploaded */
    unsigned n_parts;      /* parts of a multipart upload; 0 for a single PutObject */
    unsigned n_requests;   /* HTTP requests sent, retries included */
    unsigned n_retries;    /* requests that were retries */
    int aborted;           /* after a failed multipart upload: 1 if AbortMultipartUpload
                              succeeded, -1 if it failed too (garbage may remain), 0 if
                              there was no upload to abort */
    char checksum[S3_CHECKSUM_B64_MAX + 1]; /* single PutObject: the object's checksum;
                                               multipart: the last part's */
};

struct s3_client;

/*
 * s3_setup / s3_teardown: process-wide libcurl (and OpenSSL) initialisation. Call s3_setup
 * once before any client exists and before other threads start; s3_teardown after the last
 * client is destroyed. `use_pool` 1 routes libcurl's and OpenSSL's allocations to the s3 pool
 * (s3_pool.h) so that uploads make no heap calls after warm-up; 0 leaves them on malloc.
 * Returns TERSE_OK or TERSE_EIO (libcurl init failed) / TERSE_ENOMEM.
 */
int s3_setup(int use_pool);
void s3_teardown(void);

/*
 * s3_client_create: validates `set` (borrowed), reads credentials from the environment where
 * the settings leave them NULL, and allocates the client. Returns TERSE_OK with *out set;
 * TERSE_EINVAL for out-of-range sizes, an endpoint that is not http(s)://host[:port], or
 * missing credentials; TERSE_ETOOBIG for over-long strings; TERSE_ENOMEM.
 */
int s3_client_create(struct s3_client **out, const struct s3_settings *set);

/* s3_client_destroy: frees the client; sets *pp to NULL; NULL or *pp NULL is a no-op. */
void s3_client_destroy(struct s3_client **pp);

/*
 * s3_client_put: uploads the object produced by `read` to bucket/key (both borrowed). Fills
 * `res` (may be NULL). See the error list above. After a failure no multipart upload is left
 * behind unless res->aborted is -1. No allocation by the client.
 */
int s3_client_put(struct s3_client *c, const char *bucket, const char *key, s3_read_fn read,
                  void *opaque, struct s3_put_result *res);

/*
 * s3_client_get: downloads bucket/key to `write`; the object's byte count goes to *n_bytes
 * (may be NULL). Asks for the object's checksum (x-amz-checksum-mode: ENABLED) and, when S3
 * returns a whole-object value of the client's algorithm, verifies it (TERSE_ECORRUPT on a
 * mismatch, detected after the last byte was written). TERSE_ENOTFOUND for a missing object.
 */
int s3_client_get(struct s3_client *c, const char *bucket, const char *key, s3_write_fn write,
                  void *opaque, uint64_t *n_bytes);

/*
 * s3_client_newest: the key of the most recently modified object under `prefix` (by
 * LastModified, then the greater key), over every page of ListObjectsV2. Writes the key
 * (NUL-terminated) to `key` (room key_cap, S3_KEY_MAX + 1 always fits). TERSE_ENOTFOUND when
 * the prefix holds no object; TERSE_EDSTSIZE when key_cap is short.
 */
int s3_client_newest(struct s3_client *c, const char *bucket, const char *prefix, char *key,
                     size_t key_cap);

/*
 * s3_client_abort: AbortMultipartUpload of upload_id on bucket/key (for tools and for
 * cleaning up after a crash). TERSE_OK also when S3 answers 404 NoSuchUpload.
 */
int s3_client_abort(struct s3_client *c, const char *bucket, const char *key,
                    const char *upload_id);

/* s3_client_error: the last error line ("" after a success). Valid until the next call. */
const char *s3_client_error(const struct s3_client *c);

/*
 * s3_url_parse: splits "s3://bucket/prefix" (the `dir` convention) into bucket and prefix
 * (prefix may be empty; both NUL-terminated). Returns TERSE_OK, TERSE_EINVAL when `url` is
 * not an s3:// URL or the bucket is empty, TERSE_ETOOBIG when a part exceeds its room.
 */
int s3_url_parse(const char *url, char *bucket, size_t bucket_cap, char *prefix,
                 size_t prefix_cap);

#endif /* S3_CLIENT_H */
