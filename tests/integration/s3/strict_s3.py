"""A strict S3 test receiver: checks what the emulator does not, answers S3's errors.

Runs in the test process (a ThreadingHTTPServer on a free loopback port); tests read its
state and set its faults directly. Every request must carry a valid SigV4 signature (403
SignatureDoesNotMatch otherwise). aws-chunked bodies (Content-Encoding: aws-chunked) are
decoded by the strict parser below, independent of the C code: lowercase hex sizes without
leading zeros, no extensions in the unsigned mode, every chunk but the last of the same size
and at least `min_chunk` bytes (403 InvalidChunkSizeError), x-amz-decoded-content-length equal
to what is decoded (400 IncompleteBody), the trailer named by x-amz-trailer equal to the
checksum of the decoded bytes (400 BadDigest), and Content-Length equal to the encoded length.

Implements PutObject, CreateMultipartUpload, UploadPart, CompleteMultipartUpload (ETags and
per-part checksums checked), AbortMultipartUpload, GetObject (x-amz-checksum-mode) and
ListObjectsV2 (page size `max_keys`, continuation tokens).

Checksums: zlib (CRC-32), hashlib (SHA-1, SHA-256), and bit-wise CRC-32C / CRC-64/NVME
written from their definitions (slow; tests keep those bodies small).
"""

import base64
import hashlib
import hmac
import http.server
import socket
import threading
import time
import urllib.parse
import zlib
from xml.sax.saxutils import escape

ACCESS_KEY = "AKSTRICTTEST"
SECRET_KEY = "strict/secret+key"


def _crc_table(poly, width):
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        table.append(c)
    return table


_CRC32C = _crc_table(0x82F63B78, 32)
_CRC64 = _crc_table(0x9A6C9329AC4BC9B5, 64)


def _crc_refl(table, data, mask):
    c = mask
    for b in data:
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ mask


def checksum_b64(alg, data):
    if alg == "crc32":
        raw = (zlib.crc32(data) & 0xFFFFFFFF).to_bytes(4, "big")
    elif alg == "crc32c":
        raw = _crc_refl(_CRC32C, data, 0xFFFFFFFF).to_bytes(4, "big")
    elif alg == "crc64nvme":
        raw = _crc_refl(_CRC64, data, 0xFFFFFFFFFFFFFFFF).to_bytes(8, "big")
    elif alg == "sha1":
        raw = hashlib.sha1(data).digest()
    elif alg == "sha256":
        raw = hashlib.sha256(data).digest()
    else:
        raise ValueError(alg)
    return base64.b64encode(raw).decode()


def checksum_raw(alg, b64):
    return base64.b64decode(b64)


class S3Error(Exception):
    def __init__(self, status, code, message):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def decode_aws_chunked(body, trailer_name, decoded_len, min_chunk):
    """Strictly decodes an unsigned aws-chunked body; returns the payload."""
    pos, out, sizes = 0, [], []
    while True:
        eol = body.find(b"\r\n", pos)
        if eol < 0:
            raise S3Error(400, "IncompleteBody", "chunk size line not terminated")
        line = body[pos:eol]
        if not line or any(c not in b"0123456789abcdef" for c in line) or \
                (len(line) > 1 and line[:1] == b"0"):
            raise S3Error(400, "InvalidRequest", "bad chunk size line %r" % line[:40])
        size = int(line, 16)
        pos = eol + 2
        if size == 0:
            break
        sizes.append(size)
        if len(body) < pos + size + 2 or body[pos + size:pos + size + 2] != b"\r\n":
            raise S3Error(400, "IncompleteBody", "chunk data not followed by CRLF")
        out.append(body[pos:pos + size])
        pos += size + 2
    for i, s in enumerate(sizes[:-1]):
        if s < min_chunk:
            raise S3Error(403, "InvalidChunkSizeError",
                          "Only the last chunk is allowed to have a size less than %d bytes"
                          % min_chunk)
        if s != sizes[0]:
            raise S3Error(400, "InvalidRequest", "chunk %d has %d bytes, first %d" %
                          (i, s, sizes[0]))
    if len(sizes) > 1 and sizes[-1] > sizes[0]:
        raise S3Error(400, "InvalidRequest", "last chunk larger than the others")
    data = b"".join(out)
    trailers = {}
    while True:
        eol = body.find(b"\r\n", pos)
        if eol < 0:
            raise S3Error(400, "IncompleteBody", "trailer not terminated")
        line = body[pos:eol]
        pos = eol + 2
        if not line:
            break
        name, sep, value = line.decode("latin-1").partition(":")
        if not sep:
            raise S3Error(400, "InvalidRequest", "bad trailer line")
        trailers[name.strip().lower()] = value.strip()
    if pos != len(body):
        raise S3Error(400, "InvalidRequest", "bytes after the end of the aws-chunked body")
    if len(data) != decoded_len:
        raise S3Error(400, "IncompleteBody", "decoded %d bytes, x-amz-decoded-content-length "
                      "says %d" % (len(data), decoded_len))
    return data, sizes, trailers


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.objects = {}        # (bucket, key) -> (bytes, checksum header value or None, alg, mtime)
        self.uploads = {}        # upload id -> dict
        self.log = []            # (method, op, status)
        self.aborted = []        # upload ids
        self.completed = []      # upload ids
        self.chunk_sizes = []    # per aws-chunked body: list of chunk sizes
        self.min_chunk = 8192
        self.max_keys = 1000
        self.fail = {}           # op -> [status, code, count] (count < 0: forever)
        self.flip_part = None    # part number whose decoded bytes get a flipped byte
        self.drop_parts_after = None  # UploadPart numbers above this: connection dropped
        self.get_bad_checksum = False
        self.gone = False        # stopped: open keep-alive connections are cut too
        self.n_upload_id = 0
        self.clock = 0


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "StrictS3"

    def log_message(self, *args):
        pass

    # ---- helpers ----
    def _reply(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def _error(self, e):
        xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>%s</Code>"
               "<Message>%s</Message></Error>" % (e.code, escape(e.message))).encode()
        self._reply(e.status, xml, [("Content-Type", "application/xml")])

    def _check_signature(self, path, query, payload_hash):
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("AWS4-HMAC-SHA256 "):
            raise S3Error(403, "AccessDenied", "no SigV4 Authorization")
        fields = dict(p.strip().split("=", 1) for p in auth[len("AWS4-HMAC-SHA256 "):].split(","))
        cred = fields["Credential"].split("/")
        if cred[0] != ACCESS_KEY:
            raise S3Error(403, "InvalidAccessKeyId", "unknown access key")
        date, region = cred[1], cred[2]
        signed = fields["SignedHeaders"].split(";")
        if "host" not in signed or "x-amz-date" not in signed or \
                "x-amz-content-sha256" not in signed:
            raise S3Error(403, "AccessDenied", "host, x-amz-date, x-amz-content-sha256 unsigned")
        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
        q = "&".join("%s=%s" % (urllib.parse.quote(k, safe="-_.~"),
                                urllib.parse.quote(v, safe="-_.~")) for k, v in sorted(pairs))
        canon_headers = "".join("%s:%s\n" % (h, " ".join(self.headers.get(h, "").split()))
                                for h in signed)
        canon = "\n".join([self.command, path, q, canon_headers, ";".join(signed), payload_hash])
        amz_date = self.headers.get("x-amz-date", "")
        scope = "%s/%s/s3/aws4_request" % (date, region)
        sts = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope,
                         hashlib.sha256(canon.encode()).hexdigest()])
        k = ("AWS4" + SECRET_KEY).encode()
        for part in (date, region, "s3", "aws4_request"):
            k = hmac.new(k, part.encode(), hashlib.sha256).digest()
        want = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(want, fields["Signature"]):
            raise S3Error(403, "SignatureDoesNotMatch", "The request signature we calculated "
                          "does not match the signature you provided.")

    def _read_body(self, drop=False):
        if "chunked" in self.headers.get("Transfer-Encoding", ""):
            raise S3Error(400, "InvalidRequest", "Transfer-Encoding: chunked not expected")
        n = int(self.headers.get("Content-Length", "0"))
        if drop:
            # S3 "unreachable" mid-body: read a little, then cut the connection.
            self.rfile.read(min(n, 65536))
            with self.server.state.lock:  # logged before the client can see the cut
                self.server.state.log.append((self.command, self.op, "dropped"))
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return None
        return self.rfile.read(n)

    def _fault(self, st, op):
        f = st.fail.get(op)
        if f and f[2] != 0:
            f[2] -= 1
            raise S3Error(f[0], f[1], "injected failure")

    # ---- dispatch ----
    def _handle(self):
        st = self.server.state
        url = urllib.parse.urlsplit(self.path)
        path, query = url.path, url.query
        qd = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
        parts = urllib.parse.unquote(path).lstrip("/").split("/", 1)
        bucket = parts[0]
        key = parts[1] if len(parts) > 1 else ""
        m = self.command
        if m == "PUT" and "partNumber" in qd:
            op = "UploadPart"
        elif m == "PUT":
            op = "PutObject"
        elif m == "POST" and "uploads" in qd:
            op = "CreateMultipartUpload"
        elif m == "POST" and "uploadId" in qd:
            op = "CompleteMultipartUpload"
        elif m == "DELETE" and "uploadId" in qd:
            op = "AbortMultipartUpload"
        elif m == "GET" and qd.get("list-type") == "2":
            op = "ListObjectsV2"
        elif m == "GET":
            op = "GetObject"
        else:
            op = "Unsupported"
        self.op = op
        drop = (op == "UploadPart" and st.drop_parts_after is not None and
                int(qd["partNumber"]) > st.drop_parts_after)
        body = self._read_body(drop)
        if body is None:
            return None
        payload_hash = self.headers.get("x-amz-content-sha256", "")
        self._check_signature(path, query, payload_hash)
        if payload_hash not in ("STREAMING-UNSIGNED-PAYLOAD-TRAILER", "UNSIGNED-PAYLOAD") and \
                hashlib.sha256(body).hexdigest() != payload_hash:
            raise S3Error(400, "XAmzContentSHA256Mismatch", "payload hash differs")
        with st.lock:
            self._fault(st, op)
        if op in ("PutObject", "UploadPart"):
            return self._put(st, op, bucket, key, qd, body)
        if op == "CreateMultipartUpload":
            alg = self.headers.get("x-amz-checksum-algorithm", "").lower() or None
            with st.lock:
                st.n_upload_id += 1
                uid = "up/%d+id=%d" % (st.n_upload_id, st.n_upload_id)  # needs URI-encoding
                st.uploads[uid] = {"bucket": bucket, "key": key, "alg": alg, "parts": {}}
            xml = ("<InitiateMultipartUploadResult><Bucket>%s</Bucket><Key>%s</Key>"
                   "<UploadId>%s</UploadId></InitiateMultipartUploadResult>"
                   % (escape(bucket), escape(key), escape(uid))).encode()
            return 200, xml, []
        if op == "CompleteMultipartUpload":
            return self._complete(st, bucket, key, qd["uploadId"], body)
        if op == "AbortMultipartUpload":
            with st.lock:
                if qd["uploadId"] not in st.uploads:
                    raise S3Error(404, "NoSuchUpload", "no such upload")
                del st.uploads[qd["uploadId"]]
                st.aborted.append(qd["uploadId"])
            return 204, b"", []
        if op == "GetObject":
            with st.lock:
                obj = st.objects.get((bucket, key))
            if obj is None:
                raise S3Error(404, "NoSuchKey", "The specified key does not exist.")
            data, ck, alg, _ = obj
            hdrs = []
            if ck and self.headers.get("x-amz-checksum-mode") == "ENABLED":
                if st.get_bad_checksum:
                    ck = checksum_b64(alg, data + b"x")
                hdrs.append(("x-amz-checksum-" + alg, ck))
            return 200, data, hdrs
        if op == "ListObjectsV2":
            return self._list(st, bucket, qd)
        raise S3Error(400, "NotImplemented", "unsupported request")

    def _put(self, st, op, bucket, key, qd, body):
        if "aws-chunked" not in self.headers.get("Content-Encoding", ""):
            raise S3Error(400, "InvalidRequest", "expected Content-Encoding: aws-chunked")
        if self.headers.get("x-amz-content-sha256") != "STREAMING-UNSIGNED-PAYLOAD-TRAILER":
            raise S3Error(400, "InvalidRequest", "expected STREAMING-UNSIGNED-PAYLOAD-TRAILER")
        trailer = self.headers.get("x-amz-trailer", "")
        alg = trailer[len("x-amz-checksum-"):] if trailer.startswith("x-amz-checksum-") else None
        if trailer and alg is None:
            raise S3Error(400, "InvalidRequest", "bad x-amz-trailer")
        sdk = self.headers.get("x-amz-sdk-checksum-algorithm")
        if alg and (sdk or "").lower() != alg:
            raise S3Error(400, "InvalidRequest", "x-amz-sdk-checksum-algorithm disagrees")
        decoded_len = int(self.headers["x-amz-decoded-content-length"])
        data, sizes, trailers = decode_aws_chunked(body, trailer, decoded_len, st.min_chunk)
        if op == "UploadPart" and st.flip_part == int(qd["partNumber"]) and data:
            data = bytes([data[0] ^ 1]) + data[1:]
        if sorted(trailers) != ([trailer] if trailer else []):
            raise S3Error(400, "InvalidRequest", "trailers %s, x-amz-trailer %s" %
                          (sorted(trailers), trailer))
        ck = None
        if alg:
            ck = checksum_b64(alg, data)
            if trailers[trailer] != ck:
                raise S3Error(400, "BadDigest", "The %s you specified did not match the "
                              "calculated checksum." % alg.upper())
        etag = '"%s"' % hashlib.md5(data).hexdigest()
        with st.lock:
            st.chunk_sizes.append(sizes)
            st.clock += 1
            if op == "PutObject":
                st.objects[(bucket, key)] = (data, ck, alg, st.clock)
            else:
                up = st.uploads.get(qd["uploadId"])
                if up is None:
                    raise S3Error(404, "NoSuchUpload", "no such upload")
                if up["alg"] != alg:
                    raise S3Error(400, "InvalidRequest", "part checksum algorithm differs from "
                                  "the upload's")
                n = int(qd["partNumber"])
                if not 1 <= n <= 10000:
                    raise S3Error(400, "InvalidArgument", "part number")
                up["parts"][n] = (data, etag, ck)
        hdrs = [("ETag", etag)]
        if ck:
            hdrs.append(("x-amz-checksum-" + alg, ck))
        return 200, b"", hdrs

    def _complete(self, st, bucket, key, uid, body):
        import xml.etree.ElementTree as ET
        root = ET.fromstring(body)
        ns = root.tag[:root.tag.index("}") + 1] if root.tag.startswith("{") else ""
        with st.lock:
            up = st.uploads.get(uid)
            if up is None:
                raise S3Error(404, "NoSuchUpload", "no such upload")
            listed = root.findall(ns + "Part")
            numbers = [int(p.find(ns + "PartNumber").text) for p in listed]
            if numbers != sorted(numbers) or numbers != list(range(1, len(numbers) + 1)) or \
                    set(numbers) != set(up["parts"]):
                raise S3Error(400, "InvalidPartOrder", "parts %s, uploaded %s" %
                              (numbers, sorted(up["parts"])))
            alg = up["alg"]
            for p, n in zip(listed, numbers):
                data, etag, ck = up["parts"][n]
                if p.find(ns + "ETag").text != etag:
                    raise S3Error(400, "InvalidPart", "ETag of part %d" % n)
                el = p.find(ns + "Checksum" + (alg or "").upper())
                if alg and el is None:
                    raise S3Error(400, "InvalidRequest", "part %d lacks Checksum%s" %
                                  (n, alg.upper()))
                if el is not None and el.text != ck:
                    raise S3Error(400, "InvalidPart", "checksum of part %d" % n)
                if n != numbers[-1] and len(data) < 5 * 1024 * 1024:
                    raise S3Error(400, "EntityTooSmall", "part %d is %d bytes" % (n, len(data)))
            data = b"".join(up["parts"][n][0] for n in numbers)
            ck = None
            if alg:
                raw = b"".join(checksum_raw(alg, up["parts"][n][2]) for n in numbers)
                ck = "%s-%d" % (checksum_b64(alg, raw), len(numbers))
            st.clock += 1
            st.objects[(bucket, key)] = (data, ck, alg, st.clock)
            del st.uploads[uid]
            st.completed.append(uid)
        xml = ("<CompleteMultipartUploadResult><Bucket>%s</Bucket><Key>%s</Key>"
               "<ETag>\"x-%d\"</ETag></CompleteMultipartUploadResult>"
               % (escape(bucket), escape(key), len(numbers))).encode()
        return 200, xml, []

    def _list(self, st, bucket, qd):
        prefix = qd.get("prefix", "")
        with st.lock:
            keys = sorted((k, v[3], len(v[0])) for (b, k), v in st.objects.items()
                          if b == bucket and k.startswith(prefix))
        start = int(qd.get("continuation-token", "0") or 0)
        page = keys[start:start + st.max_keys]
        more = start + st.max_keys < len(keys)
        items = "".join(
            "<Contents><Key>%s</Key><LastModified>2024-01-01T00:%02d:%02d.000Z</LastModified>"
            "<ETag>&quot;x&quot;</ETag><Size>%d</Size><StorageClass>STANDARD</StorageClass>"
            "</Contents>" % (escape(k), clk // 60, clk % 60, size) for k, clk, size in page)
        xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult "
               "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>%s</Name>"
               "<Prefix>%s</Prefix><KeyCount>%d</KeyCount><MaxKeys>%d</MaxKeys>"
               "<IsTruncated>%s</IsTruncated>%s%s</ListBucketResult>"
               % (escape(bucket), escape(prefix), len(page), st.max_keys,
                  "true" if more else "false", items,
                  "<NextContinuationToken>%d</NextContinuationToken>" % (start + st.max_keys)
                  if more else "")).encode()
        return 200, xml, [("Content-Type", "application/xml")]

    def _serve(self):
        st = self.server.state
        self.op = "?"
        if st.gone:
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        try:
            r = self._handle()
            if r is None:
                return
            status, body, hdrs = r
        except S3Error as e:
            status, body, hdrs = e.status, None, e
        except (ConnectionError, BrokenPipeError):
            return
        with st.lock:  # logged before the answer, so a test never sees it missing
            st.log.append((self.command, self.op, status))
        try:
            if body is None:
                self._error(hdrs)
            else:
                self._reply(status, body, hdrs)
        except (ConnectionError, BrokenPipeError):
            return

    do_GET = do_PUT = do_POST = do_DELETE = _serve


class StrictS3:
    """The receiver on a free loopback port; stop() closes it (and every connection)."""

    def __init__(self):
        self.state = State()
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.state = self.state
        self.port = self.httpd.server_address[1]
        self.endpoint = "http://127.0.0.1:%d" % self.port
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def ops(self, op):
        with self.state.lock:
            return [s for (_, o, s) in self.state.log if o == op]

    def stop(self):
        self.state.gone = True
        self.httpd.shutdown()
        self.httpd.server_close()
