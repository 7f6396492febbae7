/*
 * s3_client: the operations of s3_client.h over s3_http_call: create/destroy, upload
 * (PutObject or multipart), download, newest-under-prefix, abort.
 *
 * Upload, pull style:
 *
 *   fill part buffer from read()  --full?--> peek 1 byte --EOF--> PutObject (one request)
 *          |                                      |
 *          +--short (EOF)--> PutObject            +--byte--> CreateMultipartUpload,
 *                                                            UploadPart 1 (the buffer),
 *                                                            refill (peeked byte first), ...
 *                                                            CompleteMultipartUpload
 *   any failure after Create --> AbortMultipartUpload (retried like any request)
 *
 * The peeked byte is the only payload byte held outside the part buffer.
 */
#include "s3/s3_internal.h"

#include "terse/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
s3_settings_default(struct s3_settings *set)
{
    memset(set, 0, sizeof(*set));
    set->region = "us-east-1";
    set->path_style = 0;
    set->checksum = S3_CHECKSUM_CRC32C;
    set->part_size = S3_PART_DEFAULT;
    set->chunk_size = S3_CHUNK_DEFAULT;
    set->part_checksums = 1;
    set->max_attempts = 5;
    set->backoff_ms = 200;
    set->backoff_max_ms = 5000;
    set->connect_timeout_ms = 10000;
    set->stall_timeout_s = 30;
}

const char *
s3_client_error(const struct s3_client *c)
{
    return c->err;
}

int
s3_url_parse(const char *url, char *bucket, size_t bucket_cap, char *prefix, size_t prefix_cap)
{
    if (strncmp(url, "s3://", 5) != 0) {
        return TERSE_EINVAL;
    }
    const char *b = url + 5;
    size_t blen = strcspn(b, "/");
    const char *p = b[blen] == '/' ? b + blen + 1 : b + blen;
    size_t plen = strlen(p);

    if (blen == 0) {
        return TERSE_EINVAL;
    }
    if (blen >= bucket_cap || plen >= prefix_cap) {
        return TERSE_ETOOBIG;
    }
    memcpy(bucket, b, blen);
    bucket[blen] = '\0';
    memcpy(prefix, p, plen + 1);
    return TERSE_OK;
}

/* Copies src (or the environment variable when src is NULL) into dst. */
static int
copy_cred(char *dst, size_t cap, const char *src, const char *env, int required)
{
    if (src == NULL) {
        src = getenv(env);
    }
    if (src == NULL || src[0] == '\0') {
        dst[0] = '\0';
        return required ? TERSE_EINVAL : TERSE_OK;
    }
    if (strlen(src) >= cap) {
        return TERSE_ETOOBIG;
    }
    memcpy(dst, src, strlen(src) + 1);
    return TERSE_OK;
}

/* Splits "http[s]://host[:port][/]" into scheme and host. */
static int
parse_endpoint(struct s3_client *c, const char *ep)
{
    const char *rest;

    if (strncmp(ep, "https://", 8) == 0) {
        memcpy(c->scheme, "https", 6);
        rest = ep + 8;
    } else if (strncmp(ep, "http://", 7) == 0) {
        memcpy(c->scheme, "http", 5);
        rest = ep + 7;
    } else {
        return TERSE_EINVAL;
    }
    size_t n = strcspn(rest, "/?#");
    if (n == 0 || (rest[n] != '\0' && strcmp(rest + n, "/") != 0)) {
        return TERSE_EINVAL; /* no host, or a path we would not sign correctly */
    }
    if (n >= sizeof(c->host)) {
        return TERSE_ETOOBIG;
    }
    memcpy(c->host, rest, n);
    c->host[n] = '\0';
    return TERSE_OK;
}

static int
check_settings(const struct s3_settings *set)
{
    if (set->part_size < S3_PART_MIN || set->part_size > S3_PART_MAX ||
        set->chunk_size < S3_CHUNK_MIN || set->chunk_size > S3_CHUNKED_CHUNK_MAX ||
        set->chunk_size > set->part_size || set->max_attempts == 0 ||
        (s3_checksum_b64_len(set->checksum) == 0 && set->checksum != S3_CHECKSUM_NONE)) {
        return TERSE_EINVAL;
    }
    return TERSE_OK;
}

int
s3_client_create(struct s3_client **out, const struct s3_settings *set)
{
    struct s3_client *c = NULL;
    char ep[S3_ENDPOINT_MAX + 64];
    int rc;

    *out = NULL;
    if ((rc = check_settings(set)) != TERSE_OK) {
        return rc;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        return TERSE_ENOMEM;
    }
    c->set = *set;
    const char *region = set->region != NULL ? set->region : "us-east-1";
    if (strlen(region) >= sizeof(c->region) || region[0] == '\0') {
        rc = TERSE_EINVAL;
        goto fail;
    }
    memcpy(c->region, region, strlen(region) + 1);
    c->set.region = c->region;
    if (set->endpoint != NULL) {
        snprintf(ep, sizeof(ep), "%s", set->endpoint);
    } else {
        snprintf(ep, sizeof(ep), "https://s3.%s.amazonaws.com", c->region);
    }
    c->set.endpoint = NULL;
    if ((rc = parse_endpoint(c, ep)) != TERSE_OK ||
        (rc = copy_cred(c->access_key, sizeof(c->access_key), set->access_key,
                        "AWS_ACCESS_KEY_ID", 1)) != TERSE_OK ||
        (rc = copy_cred(c->secret_key, sizeof(c->secret_key), set->secret_key,
                        "AWS_SECRET_ACCESS_KEY", 1)) != TERSE_OK ||
        (rc = copy_cred(c->token, sizeof(c->token), set->session_token, "AWS_SESSION_TOKEN",
                        0)) != TERSE_OK) {
        goto fail;
    }
    c->set.access_key = c->set.secret_key = c->set.session_token = NULL;
    c->part_cap = set->part_size;
    c->part = malloc(c->part_cap);
    c->parts = calloc(S3_PARTS_MAX, sizeof(*c->parts));
    if (c->part == NULL || c->parts == NULL) {
        rc = TERSE_ENOMEM;
        goto fail;
    }
    if ((rc = s3_sigv4_init(&c->sig)) != TERSE_OK ||
        (rc = s3_chunked_enc_init(&c->enc, 0, set->chunk_size, set->checksum)) != TERSE_OK ||
        (rc = s3_checksum_init(&c->get_ck, set->checksum)) != TERSE_OK) {
        goto fail;
    }
    c->curl = curl_easy_init();
    if (c->curl == NULL) {
        rc = TERSE_ENOMEM;
        goto fail;
    }
    if ((rc = s3_http_setup_handle(c)) != TERSE_OK) {
        goto fail;
    }
    *out = c;
    return TERSE_OK;
fail:
    s3_client_destroy(&c);
    return rc;
}

void
s3_client_destroy(struct s3_client **pp)
{
    if (pp == NULL || *pp == NULL) {
        return;
    }
    struct s3_client *c = *pp;
    if (c->curl != NULL) {
        curl_easy_cleanup(c->curl);
    }
    s3_sigv4_deinit(&c->sig);
    s3_chunked_enc_deinit(&c->enc);
    s3_checksum_deinit(&c->get_ck);
    free(c->part);
    free(c->parts);
    /* Credentials do not outlive the client in freed memory. */
    memset(c->secret_key, 0, sizeof(c->secret_key));
    memset(c->token, 0, sizeof(c->token));
    free(c);
    *pp = NULL;
}

/* ---- upload ------------------------------------------------------------------------------ */

struct source {
    s3_read_fn read;
    void *opaque;
    int eof;           /* read() reported the end */
    int has_peek;      /* peek holds the first byte of the next part */
    uint8_t peek;
};

/* Fills the part buffer; then, if it is full, peeks one byte to learn whether more follows. */
static int
fill_part(struct s3_client *c, struct source *src)
{
    c->part_len = 0;
    if (src->has_peek) {
        c->part[c->part_len++] = src->peek;
        src->has_peek = 0;
    }
    while (!src->eof && c->part_len < c->part_cap) {
        size_t n = 0;
        int rc = src->read(src->opaque, c->part + c->part_len, c->part_cap - c->part_len, &n);
        if (rc != TERSE_OK) {
            return rc;
        }
        if (n > c->part_cap - c->part_len) {
            return TERSE_EINVAL;
        }
        if (n == 0) {
            src->eof = 1;
        }
        c->part_len += n;
    }
    while (!src->eof && !src->has_peek) {
        size_t n = 0;
        int rc = src->read(src->opaque, &src->peek, 1, &n);
        if (rc != TERSE_OK) {
            return rc;
        }
        if (n == 0) {
            src->eof = 1;
        } else {
            src->has_peek = 1;
        }
    }
    return TERSE_OK;
}

static int
put_single(struct s3_client *c, const char *bucket, const char *key, struct s3_put_result *res)
{
    struct s3_call call = {
        .op = "PutObject", .method = "PUT", .bucket = bucket, .key = key, .query = "",
        .body = S3_BODY_CHUNKED, .sink = S3_SINK_KEEP,
    };
    int rc = s3_http_call(c, &call);

    if (rc == TERSE_OK) {
        res->n_bytes = c->part_len;
        memcpy(res->checksum, c->enc.checksum_b64, sizeof(res->checksum));
    }
    return rc;
}

/* Canonical query "partNumber=N&uploadId=ID" (names sorted) or "uploadId=ID". */
static int
upload_query(const struct s3_client *c, size_t part_number, char *q, size_t cap)
{
    char id[S3_UPLOAD_ID_MAX * 3];
    size_t n = 0;
    int w;

    if (s3_sigv4_uri_encode(c->upload_id, strlen(c->upload_id), 0, id, sizeof(id), &n) !=
        TERSE_OK) {
        return TERSE_ETOOBIG;
    }
    if (part_number > 0) {
        w = snprintf(q, cap, "partNumber=%zu&uploadId=%s", part_number, id);
    } else {
        w = snprintf(q, cap, "uploadId=%s", id);
    }
    return w < 0 || (size_t)w >= cap ? TERSE_ETOOBIG : TERSE_OK;
}

static int
abort_upload(struct s3_client *c, const char *bucket, const char *key)
{
    char q[S3_QUERY_MAX];
    int rc = upload_query(c, 0, q, sizeof(q));
    struct s3_call call = {
        .op = "AbortMultipartUpload", .method = "DELETE", .bucket = bucket, .key = key,
        .query = q, .body = S3_BODY_NONE, .sink = S3_SINK_KEEP,
    };

    if (rc != TERSE_OK) {
        return rc;
    }
    rc = s3_http_call(c, &call);
    return rc == TERSE_ENOTFOUND ? TERSE_OK : rc;
}

static int
put_multipart(struct s3_client *c, const char *bucket, const char *key, struct source *src,
              struct s3_put_result *res)
{
    char q[S3_QUERY_MAX];
    struct s3_call create = {
        .op = "CreateMultipartUpload", .method = "POST", .bucket = bucket, .key = key,
        .query = "uploads=", .body = S3_BODY_NONE, .sink = S3_SINK_KEEP, .create_checksum = 1,
    };
    int rc = s3_http_call(c, &create);

    if (rc != TERSE_OK) {
        return rc;
    }
    rc = s3_xml_text(c->resp, "UploadId", c->upload_id, sizeof(c->upload_id));
    if (rc != TERSE_OK || c->upload_id[0] == '\0') {
        snprintf(c->err, sizeof(c->err), "CreateMultipartUpload %s/%s: no UploadId in answer",
                 bucket, key);
        return TERSE_EPROTO;
    }
    c->n_parts = 0;
    for (;;) {
        if (c->n_parts == S3_PARTS_MAX) {
            snprintf(c->err, sizeof(c->err), "%s/%s: object needs more than %d parts of %zu "
                     "bytes", bucket, key, S3_PARTS_MAX, c->part_cap);
            rc = TERSE_ETOOBIG;
            goto abort;
        }
        if ((rc = upload_query(c, c->n_parts + 1, q, sizeof(q))) != TERSE_OK) {
            goto abort;
        }
        struct s3_call part = {
            .op = "UploadPart", .method = "PUT", .bucket = bucket, .key = key, .query = q,
            .body = S3_BODY_CHUNKED, .sink = S3_SINK_KEEP,
        };
        if ((rc = s3_http_call(c, &part)) != TERSE_OK) {
            goto abort;
        }
        struct s3_part *p = &c->parts[c->n_parts];
        if (c->resp_etag[0] == '\0' || strpbrk(c->resp_etag, "<>&") != NULL) {
            snprintf(c->err, sizeof(c->err), "UploadPart %s/%s part %zu: missing or odd ETag",
                     bucket, key, c->n_parts + 1);
            rc = TERSE_EPROTO;
            goto abort;
        }
        memcpy(p->etag, c->resp_etag, sizeof(p->etag));
        memcpy(p->checksum, c->enc.checksum_b64, sizeof(p->checksum));
        memcpy(res->checksum, c->enc.checksum_b64, sizeof(res->checksum));
        c->n_parts++;
        res->n_bytes += c->part_len;
        if (src->eof && !src->has_peek) {
            break;
        }
        if ((rc = fill_part(c, src)) != TERSE_OK) {
            snprintf(c->err, sizeof(c->err), "%s/%s: the read callback failed: %s", bucket, key,
                     terse_strerror(rc));
            goto abort;
        }
    }
    if ((rc = upload_query(c, 0, q, sizeof(q))) != TERSE_OK) {
        goto abort;
    }
    struct s3_call complete = {
        .op = "CompleteMultipartUpload", .method = "POST", .bucket = bucket, .key = key,
        .query = q, .body = S3_BODY_COMPLETE, .sink = S3_SINK_KEEP,
    };
    if ((rc = s3_http_call(c, &complete)) != TERSE_OK) {
        goto abort;
    }
    res->n_parts = (unsigned)c->n_parts;
    return TERSE_OK;
abort:
    res->n_parts = (unsigned)c->n_parts;
    {
        /* Keep the first failure's text; append the abort's outcome. */
        char first[S3_ERR_MAX];
        memcpy(first, c->err, sizeof(first));
        int arc = abort_upload(c, bucket, key);
        res->aborted = arc == TERSE_OK ? 1 : -1;
        if (arc == TERSE_OK) {
            snprintf(c->err, sizeof(c->err), "%s (upload aborted)", first);
        } else {
            char second[S3_ERR_MAX];
            memcpy(second, c->err, sizeof(second));
            snprintf(c->err, sizeof(c->err), "%.*s; abort failed too: %.*s", 250, first, 200,
                     second);
        }
    }
    return rc;
}

int
s3_client_put(struct s3_client *c, const char *bucket, const char *key, s3_read_fn read,
              void *opaque, struct s3_put_result *res)
{
    struct s3_put_result dummy;
    struct source src = {.read = read, .opaque = opaque};
    int rc;

    if (res == NULL) {
        res = &dummy;
    }
    memset(res, 0, sizeof(*res));
    c->err[0] = '\0';
    c->n_requests = 0;
    c->n_retries = 0;
    c->upload_id[0] = '\0';
    if (bucket == NULL || key == NULL || bucket[0] == '\0' || key[0] == '\0' ||
        strlen(bucket) > S3_BUCKET_MAX || strlen(key) > S3_KEY_MAX) {
        snprintf(c->err, sizeof(c->err), "put: bad bucket or key");
        return TERSE_EINVAL;
    }
    if ((rc = fill_part(c, &src)) != TERSE_OK) {
        snprintf(c->err, sizeof(c->err), "%s/%s: the read callback failed: %s", bucket, key,
                 terse_strerror(rc));
    } else if (src.eof && !src.has_peek) {
        rc = put_single(c, bucket, key, res);
    } else {
        rc = put_multipart(c, bucket, key, &src, res);
    }
    res->n_requests = c->n_requests;
    res->n_retries = c->n_retries;
    return rc;
}

/* ---- restore ----------------------------------------------------------------------------- */

int
s3_client_get(struct s3_client *c, const char *bucket, const char *key, s3_write_fn write,
              void *opaque, uint64_t *n_bytes)
{
    struct s3_call call = {
        .op = "GetObject", .method = "GET", .bucket = bucket, .key = key, .query = "",
        .body = S3_BODY_NONE, .sink = S3_SINK_WRITE, .checksum_mode = 1, .write = write,
        .write_opaque = opaque,
    };

    c->n_requests = 0;
    c->n_retries = 0;
    if (bucket == NULL || key == NULL || bucket[0] == '\0' || key[0] == '\0' ||
        strlen(bucket) > S3_BUCKET_MAX || strlen(key) > S3_KEY_MAX) {
        snprintf(c->err, sizeof(c->err), "get: bad bucket or key");
        return TERSE_EINVAL;
    }
    int rc = s3_http_call(c, &call);
    if (n_bytes != NULL) {
        *n_bytes = c->n_written;
    }
    return rc;
}

int
s3_client_newest(struct s3_client *c, const char *bucket, const char *prefix, char *key,
                 size_t key_cap)
{
    char q[S3_QUERY_MAX];
    char tok[S3_UPLOAD_ID_MAX * 3];
    char pfx[S3_KEY_MAX * 3 + 1];
    size_t n = 0;
    int rc;

    c->n_requests = 0;
    c->n_retries = 0;
    if (bucket == NULL || bucket[0] == '\0' || strlen(bucket) > S3_BUCKET_MAX ||
        strlen(prefix) > S3_KEY_MAX) {
        snprintf(c->err, sizeof(c->err), "list: bad bucket or prefix");
        return TERSE_EINVAL;
    }
    memset(&c->list, 0, sizeof(c->list));
    if (s3_sigv4_uri_encode(prefix, strlen(prefix), 0, pfx, sizeof(pfx), &n) != TERSE_OK) {
        return TERSE_ETOOBIG;
    }
    tok[0] = '\0';
    for (unsigned page = 0;; page++) {
        int w;
        if (tok[0] != '\0') {
            w = snprintf(q, sizeof(q), "continuation-token=%s&list-type=2&prefix=%s", tok, pfx);
        } else {
            w = snprintf(q, sizeof(q), "list-type=2&prefix=%s", pfx);
        }
        if (w < 0 || (size_t)w >= sizeof(q)) {
            return TERSE_ETOOBIG;
        }
        struct s3_call call = {
            .op = "ListObjectsV2", .method = "GET", .bucket = bucket, .key = NULL, .query = q,
            .body = S3_BODY_NONE, .sink = S3_SINK_LIST,
        };
        if ((rc = s3_http_call(c, &call)) != TERSE_OK) {
            return rc;
        }
        if (c->list.bad) {
            snprintf(c->err, sizeof(c->err), "ListObjectsV2 %s: malformed or over-long element",
                     bucket);
            return TERSE_EPROTO;
        }
        if (!c->list.truncated) {
            break;
        }
        if (c->list.token[0] == '\0' || page > 1000000) {
            snprintf(c->err, sizeof(c->err), "ListObjectsV2 %s: truncated without a token",
                     bucket);
            return TERSE_EPROTO;
        }
        if (s3_sigv4_uri_encode(c->list.token, strlen(c->list.token), 0, tok, sizeof(tok), &n) !=
            TERSE_OK) {
            return TERSE_ETOOBIG;
        }
    }
    if (!c->list.found) {
        snprintf(c->err, sizeof(c->err), "ListObjectsV2 %s: nothing under \"%s\"", bucket,
                 prefix);
        return TERSE_ENOTFOUND;
    }
    if (strlen(c->list.best_key) >= key_cap) {
        return TERSE_EDSTSIZE;
    }
    memcpy(key, c->list.best_key, strlen(c->list.best_key) + 1);
    return TERSE_OK;
}

int
s3_client_abort(struct s3_client *c, const char *bucket, const char *key, const char *upload_id)
{
    if (strlen(upload_id) >= sizeof(c->upload_id)) {
        return TERSE_ETOOBIG;
    }
    memcpy(c->upload_id, upload_id, strlen(upload_id) + 1);
    return abort_upload(c, bucket, key);
}
