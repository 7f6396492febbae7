/*
 * s3_internal: the client struct and the one-request machinery shared by s3_client.c (the
 * operations) and s3_http.c (signing, sending, retrying, reading answers).
 *
 *   s3_client (one allocation, fixed size)
 *   +-- settings, credentials, endpoint parts       copied at create
 *   +-- CURL easy handle                            reused for every request (keep-alive)
 *   +-- hdr_nodes[] / hdr_buf                       request headers as a curl_slist built
 *   |                                               in place (no curl_slist_append)
 *   +-- url, path, query, auth, amz_date            per-request text, rebuilt each attempt
 *   +-- s3_sigv4, s3_chunked_enc, get checksum      contexts created once
 *   +-- resp[]                                      error / small answer bodies, truncated
 *   +-- list scanner state                          ListObjectsV2, streamed
 *   part (part_cap bytes)                           second allocation: the part buffer
 *   parts (S3_PARTS_MAX entries)                    third allocation: ETag + checksum per part
 */
#ifndef S3_INTERNAL_H
#define S3_INTERNAL_H

#include "s3/s3_checksum.h"
#include "s3/s3_chunked.h"
#include "s3/s3_client.h"
#include "s3/s3_sigv4.h"

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

#define S3_ETAG_MAX 80            /* longest ETag kept, with NUL (S3's: 34) */
#define S3_UPLOAD_ID_MAX 1024     /* longest UploadId kept, with NUL */
#define S3_URL_MAX 8192           /* request URL, with NUL */
#define S3_PATH_MAX 4096          /* encoded path, with NUL */
#define S3_QUERY_MAX 4096         /* canonical query, with NUL */
#define S3_HDR_MAX 16             /* request headers per request */
#define S3_HDR_BUF 8192           /* their text */
#define S3_RESP_MAX 8192          /* answer bodies kept (errors, Create, Complete) */
#define S3_XML_TEXT_MAX 8192      /* one element's text while scanning a listing */

struct s3_part {
    char etag[S3_ETAG_MAX];                  /* as S3 returned it, quotes included */
    char checksum[S3_CHECKSUM_B64_MAX + 1];  /* the part's trailer value */
};

enum s3_body_kind {
    S3_BODY_NONE,      /* no body (GET, DELETE, Create) */
    S3_BODY_CHUNKED,   /* c->part[0..part_len) aws-chunked through c->enc */
    S3_BODY_COMPLETE   /* CompleteMultipartUpload XML generated from c->parts */
};

enum s3_sink_kind {
    S3_SINK_KEEP,      /* keep the answer in resp[] (truncated at S3_RESP_MAX) */
    S3_SINK_WRITE,     /* 2xx body to the caller's write callback */
    S3_SINK_LIST       /* 2xx body to the ListObjectsV2 scanner */
};

/* One logical request; s3_http_call sends it, retrying as the settings allow. */
struct s3_call {
    const char *op;            /* "PutObject", ... for error lines */
    const char *method;
    const char *bucket;
    const char *key;           /* NULL: bucket-level request */
    const char *query;         /* canonical query (sorted, encoded), "" if none */
    enum s3_body_kind body;
    enum s3_sink_kind sink;
    int checksum_mode;         /* send x-amz-checksum-mode: ENABLED */
    int create_checksum;       /* send x-amz-checksum-algorithm (CreateMultipartUpload) */
    s3_write_fn write;
    void *write_opaque;
};

struct s3_list_scan {
    int depth_contents;        /* inside <Contents> */
    int in_tag;                /* reading a tag name */
    size_t tag_len;
    char tag[64];
    size_t text_len;
    int text_over;             /* current text exceeded S3_XML_TEXT_MAX */
    char text[S3_XML_TEXT_MAX];
    char cur_key[S3_KEY_MAX + 1];
    char cur_mod[64];
    char best_key[S3_KEY_MAX + 1];
    char best_mod[64];
    int found;
    int truncated;
    char token[S3_UPLOAD_ID_MAX];   /* NextContinuationToken */
    int bad;                   /* malformed or over-long element */
};

struct s3_client {
    struct s3_settings set;    /* copied; string fields point into the buffers below */
    char region[S3_SIGV4_REGION_MAX];
    char scheme[8];            /* "http" or "https" */
    char host[S3_ENDPOINT_MAX]; /* host[:port] of the endpoint */
    char access_key[S3_CRED_MAX];
    char secret_key[S3_CRED_MAX];
    char token[S3_TOKEN_MAX];  /* "" when no session token */

    CURL *curl;
    char curl_err[CURL_ERROR_SIZE];
    struct curl_slist hdr_nodes[S3_HDR_MAX];
    char hdr_buf[S3_HDR_BUF];
    size_t hdr_used;
    size_t n_hdrs;
    struct s3_sigv4_header sign_hdrs[S3_HDR_MAX];
    size_t n_sign;

    char url[S3_URL_MAX];
    char path[S3_PATH_MAX];
    char req_host[S3_ENDPOINT_MAX + S3_BUCKET_MAX + 2];
    char auth[S3_SIGV4_AUTH_MAX];
    char amz_date[17];
    char len_text[24];         /* decoded length, decimal */
    char payload_hash[65];
    struct s3_sigv4 sig;
    struct s3_chunked_enc enc;  /* reset per part / attempt */
    struct s3_checksum get_ck;  /* GET verification, same algorithm as uploads */

    /* per attempt */
    const struct s3_call *call;
    long http_status;
    size_t body_pos;            /* CHUNKED: part bytes consumed; COMPLETE: XML bytes sent */
    size_t xml_elem;            /* COMPLETE: element being sent (0 = header) */
    size_t xml_off;             /* offset within it */
    size_t xml_len;
    char xml[S3_ETAG_MAX + S3_CHECKSUM_B64_MAX + 128];
    uint64_t n_written;         /* bytes given to the write callback */
    int write_status;           /* first error of the write callback */
    char resp_etag[S3_ETAG_MAX];
    char resp_checksum[S3_CHECKSUM_B64_MAX + 8]; /* x-amz-checksum-<alg> of a GET answer */
    int resp_checksum_seen;
    size_t resp_len;
    char resp[S3_RESP_MAX + 1];
    struct s3_list_scan list;

    /* per upload */
    uint8_t *part;              /* part buffer, part_cap bytes */
    size_t part_cap;
    size_t part_len;
    struct s3_part *parts;      /* S3_PARTS_MAX entries */
    size_t n_parts;
    char upload_id[S3_UPLOAD_ID_MAX];
    unsigned n_requests;
    unsigned n_retries;

    char err[S3_ERR_MAX];
};

/*
 * s3_http_call: signs and sends `call`, retrying transport errors and 5xx; on return
 * c->http_status, c->resp (KEEP sinks), c->resp_etag hold the last attempt's answer.
 * Returns TERSE_OK for a 2xx answer; else an error status with c->err set (see s3_client.h).
 */
int s3_http_call(struct s3_client *c, const struct s3_call *call);

/* s3_http_setup_handle: sets the options that never change on c->curl. TERSE_OK or EIO. */
int s3_http_setup_handle(struct s3_client *c);

/*
 * s3_xml_text: copies the unescaped text of the first <tag>...</tag> in `xml` into out
 * (room cap, NUL-terminated). Returns TERSE_OK, TERSE_ENOTFOUND, TERSE_ETOOBIG.
 */
int s3_xml_text(const char *xml, const char *tag, char *out, size_t cap);

/* s3_list_feed: streams ListObjectsV2 answer bytes through c->list. No allocation. */
void s3_list_feed(struct s3_list_scan *ls, const char *p, size_t len);

/* s3_complete_xml_elem: formats element i (0: header, 1..n: parts, n+1: footer) of the
 * CompleteMultipartUpload body into c->xml; returns its length, 0 past the end. */
size_t s3_complete_xml_elem(struct s3_client *c, size_t i);

#endif /* S3_INTERNAL_H */
