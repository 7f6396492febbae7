/*
 * s3_http: one S3 request over the client's reused libcurl handle: build the URL and the
 * signed headers, send the body (aws-chunked part or CompleteMultipartUpload XML, both
 * generated inside libcurl's read callback from memory the client owns), read the answer
 * (ETag and checksum headers; the body to the caller, the listing scanner, or resp[]), and
 * retry transport errors and 5xx with exponential backoff.
 *
 * Invariant: nothing here allocates. Headers are a curl_slist whose nodes live in
 * c->hdr_nodes and whose text lives in c->hdr_buf; every per-request string is a fixed
 * buffer of the client.
 */
#include "s3/s3_internal.h"

#include "terse/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static void set_err(struct s3_client *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
set_err(struct s3_client *c, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(c->err, sizeof(c->err), fmt, ap);
    va_end(ap);
}

/* ---- XML ------------------------------------------------------------------------------ */

/* Copies text[0..len) into out with the five predefined entities decoded. */
static int
xml_unescape(const char *text, size_t len, char *out, size_t cap)
{
    static const struct {
        const char *ent;
        char c;
    } ents[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    size_t n = 0;

    for (size_t i = 0; i < len;) {
        char ch = text[i];
        size_t adv = 1;

        if (ch == '&') {
            for (size_t e = 0; e < sizeof(ents) / sizeof(ents[0]); e++) {
                size_t el = strlen(ents[e].ent);
                if (len - i >= el && memcmp(text + i, ents[e].ent, el) == 0) {
                    ch = ents[e].c;
                    adv = el;
                    break;
                }
            }
        }
        if (n + 1 >= cap) {
            return TERSE_ETOOBIG;
        }
        out[n++] = ch;
        i += adv;
    }
    if (cap == 0) {
        return TERSE_ETOOBIG;
    }
    out[n] = '\0';
    return TERSE_OK;
}

int
s3_xml_text(const char *xml, const char *tag, char *out, size_t cap)
{
    char open[72];
    char close[72];
    const char *a;
    const char *b;

    snprintf(open, sizeof(open), "<%s>", tag);
    snprintf(close, sizeof(close), "</%s>", tag);
    a = strstr(xml, open);
    if (a == NULL) {
        return TERSE_ENOTFOUND;
    }
    a += strlen(open);
    b = strstr(a, close);
    if (b == NULL) {
        return TERSE_ENOTFOUND;
    }
    return xml_unescape(a, (size_t)(b - a), out, cap);
}

static void
list_tag(struct s3_list_scan *ls)
{
    const char *name = ls->tag;

    if (ls->tag_len > 0 && ls->tag[ls->tag_len - 1] == '/') {
        return; /* <Empty/> */
    }
    if (name[0] != '/') {
        size_t n = strcspn(name, " \t\r\n");
        if (n == 8 && memcmp(name, "Contents", 8) == 0) {
            ls->depth_contents = 1;
            ls->cur_key[0] = '\0';
            ls->cur_mod[0] = '\0';
        }
        ls->text_len = 0;
        ls->text_over = 0;
        return;
    }
    name++;
    if (ls->depth_contents && strcmp(name, "Key") == 0) {
        if (ls->text_over ||
            xml_unescape(ls->text, ls->text_len, ls->cur_key, sizeof(ls->cur_key)) != TERSE_OK) {
            ls->bad = 1;
        }
    } else if (ls->depth_contents && strcmp(name, "LastModified") == 0) {
        if (ls->text_over ||
            xml_unescape(ls->text, ls->text_len, ls->cur_mod, sizeof(ls->cur_mod)) != TERSE_OK) {
            ls->bad = 1;
        }
    } else if (strcmp(name, "Contents") == 0) {
        ls->depth_contents = 0;
        if (ls->cur_key[0] != '\0') {
            int m = strcmp(ls->cur_mod, ls->best_mod);
            if (!ls->found || m > 0 || (m == 0 && strcmp(ls->cur_key, ls->best_key) > 0)) {
                memcpy(ls->best_key, ls->cur_key, sizeof(ls->best_key));
                memcpy(ls->best_mod, ls->cur_mod, sizeof(ls->best_mod));
                ls->found = 1;
            }
        }
    } else if (!ls->depth_contents && strcmp(name, "IsTruncated") == 0) {
        ls->truncated = ls->text_len == 4 && memcmp(ls->text, "true", 4) == 0;
    } else if (!ls->depth_contents && strcmp(name, "NextContinuationToken") == 0) {
        if (ls->text_over ||
            xml_unescape(ls->text, ls->text_len, ls->token, sizeof(ls->token)) != TERSE_OK) {
            ls->bad = 1;
        }
    }
}

void
s3_list_feed(struct s3_list_scan *ls, const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char ch = p[i];

        if (ls->in_tag) {
            if (ch == '>') {
                ls->in_tag = 0;
                ls->tag[ls->tag_len] = '\0';
                list_tag(ls);
            } else if (ls->tag_len + 1 < sizeof(ls->tag)) {
                ls->tag[ls->tag_len++] = ch;
            }
        } else if (ch == '<') {
            ls->in_tag = 1;
            ls->tag_len = 0;
        } else if (ls->text_len < sizeof(ls->text)) {
            ls->text[ls->text_len++] = ch;
        } else {
            ls->text_over = 1;
        }
    }
}

size_t
s3_complete_xml_elem(struct s3_client *c, size_t i)
{
    int n = 0;

    if (i == 0) {
        n = snprintf(c->xml, sizeof(c->xml),
                     "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
    } else if (i <= c->n_parts) {
        const struct s3_part *p = &c->parts[i - 1];
        const char *alg = s3_checksum_upper(c->set.checksum);

        if (c->set.part_checksums && c->set.checksum != S3_CHECKSUM_NONE) {
            n = snprintf(c->xml, sizeof(c->xml),
                         "<Part><ETag>%s</ETag><PartNumber>%zu</PartNumber>"
                         "<Checksum%s>%s</Checksum%s></Part>",
                         p->etag, i, alg, p->checksum, alg);
        } else {
            n = snprintf(c->xml, sizeof(c->xml),
                         "<Part><ETag>%s</ETag><PartNumber>%zu</PartNumber></Part>", p->etag, i);
        }
    } else if (i == c->n_parts + 1) {
        n = snprintf(c->xml, sizeof(c->xml), "</CompleteMultipartUpload>");
    }
    return n > 0 ? (size_t)n : 0;
}

/* ---- libcurl callbacks ------------------------------------------------------------------ */

static size_t
read_cb(char *buf, size_t size, size_t nitems, void *ud)
{
    struct s3_client *c = ud;
    size_t cap = size * nitems;
    size_t out = 0;

    if (c->call->body == S3_BODY_CHUNKED) {
        size_t used = 0;
        int rc = s3_chunked_enc_encode(&c->enc, c->part + c->body_pos, c->part_len - c->body_pos,
                                       &used, (uint8_t *)buf, cap, &out);
        if (rc < 0) {
            return CURL_READFUNC_ABORT;
        }
        c->body_pos += used;
        return out;
    }
    if (c->call->body == S3_BODY_COMPLETE) {
        while (out < cap) {
            if (c->xml_off == c->xml_len) {
                c->xml_len = s3_complete_xml_elem(c, ++c->xml_elem);
                c->xml_off = 0;
                if (c->xml_len == 0) {
                    break;
                }
            }
            size_t n = c->xml_len - c->xml_off;
            n = n < cap - out ? n : cap - out;
            memcpy(buf + out, c->xml + c->xml_off, n);
            c->xml_off += n;
            out += n;
        }
        return out;
    }
    return 0;
}

/* Copies a header's value (after "name:") without surrounding whitespace. */
static void
header_value(const char *v, size_t len, char *out, size_t cap)
{
    while (len > 0 && (*v == ' ' || *v == '\t')) {
        v++;
        len--;
    }
    while (len > 0 && (v[len - 1] == '\r' || v[len - 1] == '\n' || v[len - 1] == ' ')) {
        len--;
    }
    if (len >= cap) {
        len = cap - 1;
    }
    memcpy(out, v, len);
    out[len] = '\0';
}

static size_t
header_cb(char *buf, size_t size, size_t nitems, void *ud)
{
    struct s3_client *c = ud;
    size_t len = size * nitems;
    char name[40];

    if (len > 5 && strncasecmp(buf, "ETag:", 5) == 0) {
        header_value(buf + 5, len - 5, c->resp_etag, sizeof(c->resp_etag));
        return len;
    }
    int n = snprintf(name, sizeof(name), "%s:", s3_chunked_trailer_name(c->set.checksum));
    if (c->set.checksum != S3_CHECKSUM_NONE && n > 0 && len > (size_t)n &&
        strncasecmp(buf, name, (size_t)n) == 0) {
        header_value(buf + n, len - (size_t)n, c->resp_checksum, sizeof(c->resp_checksum));
        /* "value-N" is a composite of part checksums: not comparable to the whole body. */
        c->resp_checksum_seen = strchr(c->resp_checksum, '-') == NULL;
    }
    return len;
}

static size_t
write_cb(char *p, size_t size, size_t nitems, void *ud)
{
    struct s3_client *c = ud;
    size_t len = size * nitems;
    long code = 0;

    curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &code);
    if (code / 100 == 2 && c->call->sink == S3_SINK_WRITE) {
        int rc = c->call->write(c->call->write_opaque, (const uint8_t *)p, len);
        if (rc != TERSE_OK) {
            c->write_status = rc;
            return 0;
        }
        if (c->resp_checksum_seen && s3_checksum_update(&c->get_ck, (uint8_t *)p, len) != 0) {
            c->write_status = TERSE_ECRYPTO;
            return 0;
        }
        c->n_written += len;
        return len;
    }
    if (code / 100 == 2 && c->call->sink == S3_SINK_LIST) {
        s3_list_feed(&c->list, p, len);
        return len;
    }
    size_t n = S3_RESP_MAX - c->resp_len < len ? S3_RESP_MAX - c->resp_len : len;
    memcpy(c->resp + c->resp_len, p, n);
    c->resp_len += n;
    c->resp[c->resp_len] = '\0';
    return len;
}

int
s3_http_setup_handle(struct s3_client *c)
{
    CURL *h = c->curl;
    int bad = 0;

    bad |= curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_ERRORBUFFER, c->curl_err) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_READFUNCTION, read_cb) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_READDATA, c) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, write_cb) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_WRITEDATA, c) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, header_cb) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_HEADERDATA, c) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)c->set.connect_timeout_ms);
    bad |= curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, (long)c->set.stall_timeout_s);
    bad |= curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L) != CURLE_OK;
    bad |= curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK;
    return bad ? TERSE_EIO : TERSE_OK;
}

/* ---- one request ------------------------------------------------------------------------ */

/* Adds a header to sign (name lowercase; both strings must outlive the attempt). */
static void
sign_add(struct s3_client *c, const char *name, const char *value)
{
    if (c->n_sign < S3_HDR_MAX) {
        c->sign_hdrs[c->n_sign].name = name;
        c->sign_hdrs[c->n_sign].value = value;
        c->n_sign++;
    }
}

/* Adds "line" to the curl header list built in place. */
static int
hdr_add(struct s3_client *c, const char *a, const char *b)
{
    size_t la = strlen(a);
    size_t lb = strlen(b);

    if (c->n_hdrs == S3_HDR_MAX || c->hdr_used + la + lb + 1 > sizeof(c->hdr_buf)) {
        return TERSE_ETOOBIG;
    }
    char *line = c->hdr_buf + c->hdr_used;
    memcpy(line, a, la);
    memcpy(line + la, b, lb);
    line[la + lb] = '\0';
    c->hdr_used += la + lb + 1;
    c->hdr_nodes[c->n_hdrs].data = line;
    c->hdr_nodes[c->n_hdrs].next = NULL;
    if (c->n_hdrs > 0) {
        c->hdr_nodes[c->n_hdrs - 1].next = &c->hdr_nodes[c->n_hdrs];
    }
    c->n_hdrs++;
    return TERSE_OK;
}

static int
build_path(struct s3_client *c, const struct s3_call *call)
{
    size_t used = 0;
    size_t n = 0;

    if (c->set.path_style) {
        snprintf(c->req_host, sizeof(c->req_host), "%s", c->host);
        c->path[used++] = '/';
        if (s3_sigv4_uri_encode(call->bucket, strlen(call->bucket), 0, c->path + used,
                                sizeof(c->path) - used, &n) != TERSE_OK) {
            return TERSE_ETOOBIG;
        }
        used += n;
        if (call->key != NULL) {
            if (used + 2 > sizeof(c->path)) {
                return TERSE_ETOOBIG;
            }
            c->path[used++] = '/';
        }
    } else {
        int w = snprintf(c->req_host, sizeof(c->req_host), "%s.%s", call->bucket, c->host);
        if (w < 0 || (size_t)w >= sizeof(c->req_host)) {
            return TERSE_ETOOBIG;
        }
        c->path[used++] = '/';
    }
    c->path[used] = '\0';
    if (call->key != NULL && s3_sigv4_uri_encode(call->key, strlen(call->key), 1, c->path + used,
                                                 sizeof(c->path) - used, &n) != TERSE_OK) {
        return TERSE_ETOOBIG;
    }
    int w = snprintf(c->url, sizeof(c->url), "%s://%s%s%s%s", c->scheme, c->req_host, c->path,
                     call->query[0] != '\0' ? "?" : "", call->query);
    return w < 0 || (size_t)w >= sizeof(c->url) ? TERSE_ETOOBIG : TERSE_OK;
}

static int
complete_hash(struct s3_client *c)
{
    int rc = s3_sigv4_hash_begin(&c->sig);
    uint64_t total = 0;

    for (size_t i = 0; rc == TERSE_OK; i++) {
        size_t n = s3_complete_xml_elem(c, i);
        if (n == 0) {
            break;
        }
        total += n;
        rc = s3_sigv4_hash_update(&c->sig, c->xml, n);
    }
    if (rc == TERSE_OK) {
        rc = s3_sigv4_hash_end_hex(&c->sig, c->payload_hash);
    }
    snprintf(c->len_text, sizeof(c->len_text), "%llu", (unsigned long long)total);
    return rc;
}

/* Signs and configures one attempt. */
static int
prepare(struct s3_client *c, const struct s3_call *call)
{
    struct tm tm;
    time_t now = time(NULL);
    int rc;
    curl_off_t body_len = 0;

    gmtime_r(&now, &tm);
    strftime(c->amz_date, sizeof(c->amz_date), "%Y%m%dT%H%M%SZ", &tm);
    c->n_sign = 0;
    c->n_hdrs = 0;
    c->hdr_used = 0;

    const char *payload = S3_SIGV4_EMPTY_SHA256;
    if (call->body == S3_BODY_CHUNKED) {
        payload = S3_CHUNKED_CONTENT_SHA256;
        body_len = (curl_off_t)s3_chunked_encoded_len(c->part_len, c->set.chunk_size,
                                                      c->set.checksum);
        snprintf(c->len_text, sizeof(c->len_text), "%zu", c->part_len);
        if ((rc = s3_chunked_enc_reset(&c->enc, c->part_len)) != TERSE_OK) {
            return rc;
        }
    } else if (call->body == S3_BODY_COMPLETE) {
        if ((rc = complete_hash(c)) != TERSE_OK) {
            return rc;
        }
        payload = c->payload_hash;
        body_len = (curl_off_t)strtoull(c->len_text, NULL, 10);
        c->xml_elem = 0;
        c->xml_off = 0;
        c->xml_len = s3_complete_xml_elem(c, 0);
    }
    /* Sorted by name, as the canonical request wants them. */
    if (call->body == S3_BODY_CHUNKED) {
        sign_add(c, "content-encoding", "aws-chunked");
    }
    sign_add(c, "host", c->req_host);
    if (call->create_checksum && c->set.checksum != S3_CHECKSUM_NONE) {
        sign_add(c, "x-amz-checksum-algorithm", s3_checksum_upper(c->set.checksum));
    }
    if (call->checksum_mode) {
        sign_add(c, "x-amz-checksum-mode", "ENABLED");
    }
    if (call->create_checksum && c->set.checksum == S3_CHECKSUM_CRC64NVME) {
        sign_add(c, "x-amz-checksum-type", "FULL_OBJECT");
    }
    sign_add(c, "x-amz-content-sha256", payload);
    sign_add(c, "x-amz-date", c->amz_date);
    if (call->body == S3_BODY_CHUNKED) {
        sign_add(c, "x-amz-decoded-content-length", c->len_text);
        if (c->set.checksum != S3_CHECKSUM_NONE) {
            sign_add(c, "x-amz-sdk-checksum-algorithm", s3_checksum_upper(c->set.checksum));
        }
    }
    if (c->token[0] != '\0') {
        sign_add(c, "x-amz-security-token", c->token);
    }
    if (call->body == S3_BODY_CHUNKED && c->set.checksum != S3_CHECKSUM_NONE) {
        sign_add(c, "x-amz-trailer", s3_chunked_trailer_name(c->set.checksum));
    }
    struct s3_sigv4_request req = {
        .method = call->method,
        .uri = c->path,
        .query = call->query,
        .headers = c->sign_hdrs,
        .n_headers = c->n_sign,
        .payload_hash = payload,
        .amz_date = c->amz_date,
        .region = c->region,
        .access_key = c->access_key,
        .secret_key = c->secret_key,
    };
    if ((rc = s3_sigv4_sign(&c->sig, &req, c->auth, sizeof(c->auth))) != TERSE_OK) {
        return rc;
    }
    for (size_t i = 0; i < c->n_sign; i++) {
        if (strcmp(c->sign_hdrs[i].name, "host") == 0) {
            continue; /* libcurl sends Host from the URL */
        }
        if ((rc = hdr_add(c, c->sign_hdrs[i].name, ": ")) != TERSE_OK) {
            return rc;
        }
        /* hdr_add wrote "name: " + NUL; extend the same line with the value. */
        c->hdr_used--;
        size_t lv = strlen(c->sign_hdrs[i].value);
        if (c->hdr_used + lv + 1 > sizeof(c->hdr_buf)) {
            return TERSE_ETOOBIG;
        }
        memcpy(c->hdr_buf + c->hdr_used, c->sign_hdrs[i].value, lv + 1);
        c->hdr_used += lv + 1;
    }
    if ((rc = hdr_add(c, "Authorization: ", c->auth)) != TERSE_OK ||
        (rc = hdr_add(c, "Expect:", "")) != TERSE_OK ||
        (rc = hdr_add(c, "Content-Type:", "")) != TERSE_OK) {
        return rc;
    }

    CURL *h = c->curl;
    curl_easy_setopt(h, CURLOPT_URL, c->url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, &c->hdr_nodes[0]);
    if (strcmp(call->method, "GET") == 0) {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, NULL);
    } else if (strcmp(call->method, "DELETE") == 0) {
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "DELETE");
    } else {
        curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, body_len);
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST,
                         strcmp(call->method, "PUT") == 0 ? NULL : call->method);
    }
    return TERSE_OK;
}

static int
curl_transient(CURLcode rc)
{
    switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    /* curl found its reused connection dead and wanted to resend the body itself; the body
     * is a stream it cannot rewind, so the next attempt rebuilds it from the part instead. */
    case CURLE_SEND_FAIL_REWIND:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return 1;
    default:
        return 0;
    }
}

static void
backoff(const struct s3_client *c, unsigned attempt)
{
    uint64_t ms = c->set.backoff_ms;

    for (unsigned i = 1; i < attempt && ms < c->set.backoff_max_ms; i++) {
        ms *= 2;
    }
    if (ms > c->set.backoff_max_ms) {
        ms = c->set.backoff_max_ms;
    }
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Error line and status for a final HTTP error answer. */
static int
http_error(struct s3_client *c, const struct s3_call *call)
{
    char code[64] = "";
    char msg[256] = "";

    s3_xml_text(c->resp, "Code", code, sizeof(code));
    s3_xml_text(c->resp, "Message", msg, sizeof(msg));
    set_err(c, "%s %s/%s: HTTP %ld %s: %s", call->op, call->bucket,
            call->key != NULL ? call->key : "", c->http_status, code[0] ? code : "(no code)",
            msg);
    if (strcmp(code, "BadDigest") == 0 || strcmp(code, "InvalidDigest") == 0) {
        return TERSE_ECORRUPT;
    }
    if (c->http_status == 404) {
        return TERSE_ENOTFOUND;
    }
    return TERSE_EIO;
}

int
s3_http_call(struct s3_client *c, const struct s3_call *call)
{
    int rc;

    c->call = call;
    c->err[0] = '\0';
    c->n_written = 0;
    if ((rc = build_path(c, call)) != TERSE_OK) {
        set_err(c, "%s: bucket, key or query too long", call->op);
        return rc;
    }
    for (unsigned attempt = 1;; attempt++) {
        int retry = 0;

        c->http_status = 0;
        c->resp_len = 0;
        c->resp[0] = '\0';
        c->resp_etag[0] = '\0';
        c->resp_checksum[0] = '\0';
        c->resp_checksum_seen = 0;
        c->body_pos = 0;
        c->write_status = TERSE_OK;
        c->curl_err[0] = '\0';
        if (call->sink == S3_SINK_LIST) {
            c->list.in_tag = 0;
            c->list.depth_contents = 0;
            c->list.text_len = 0;
            c->list.truncated = 0;
            c->list.token[0] = '\0';
        }
        if ((rc = s3_checksum_reset(&c->get_ck)) != TERSE_OK ||
            (rc = prepare(c, call)) != TERSE_OK) {
            set_err(c, "%s: cannot sign the request: %s", call->op, terse_strerror(rc));
            return rc;
        }
        c->n_requests++;
        if (attempt > 1) {
            c->n_retries++;
        }
        CURLcode cr = curl_easy_perform(c->curl);
        if (cr == CURLE_OK) {
            curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &c->http_status);
            if (c->http_status / 100 == 2) {
                if (call->body == S3_BODY_COMPLETE && strstr(c->resp, "<Error>") != NULL) {
                    /* S3 may answer 200 and report the failure in the body. */
                    char code[64] = "";
                    s3_xml_text(c->resp, "Code", code, sizeof(code));
                    retry = strcmp(code, "InternalError") == 0 ||
                            strcmp(code, "SlowDown") == 0 ||
                            strcmp(code, "ServiceUnavailable") == 0;
                    if (!retry || attempt >= c->set.max_attempts) {
                        return http_error(c, call);
                    }
                } else {
                    if (call->sink == S3_SINK_WRITE && c->resp_checksum_seen) {
                        char got[S3_CHECKSUM_B64_MAX + 1];
                        size_t len = 0;
                        if (s3_checksum_final_b64(&c->get_ck, got, sizeof(got), &len) !=
                                TERSE_OK ||
                            strcmp(got, c->resp_checksum) != 0) {
                            set_err(c, "%s %s/%s: body checksum %s, S3 says %s", call->op,
                                    call->bucket, call->key, got, c->resp_checksum);
                            return TERSE_ECORRUPT;
                        }
                    }
                    return TERSE_OK;
                }
            } else {
                retry = c->http_status / 100 == 5 || c->http_status == 429;
                if (!retry || attempt >= c->set.max_attempts) {
                    return http_error(c, call);
                }
            }
        } else {
            if (cr == CURLE_WRITE_ERROR && c->write_status != TERSE_OK) {
                set_err(c, "%s %s/%s: the write callback failed: %s", call->op, call->bucket,
                        call->key, terse_strerror(c->write_status));
                return c->write_status;
            }
            retry = curl_transient(cr) && c->n_written == 0;
            if (!retry || attempt >= c->set.max_attempts) {
                set_err(c, "%s %s/%s: %s (%s) after %u attempt(s)", call->op, call->bucket,
                        call->key != NULL ? call->key : "", curl_easy_strerror(cr), c->curl_err,
                        attempt);
                return TERSE_EIO;
            }
        }
        backoff(c, attempt);
    }
}
