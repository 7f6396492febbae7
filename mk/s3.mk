# s3 layer: libraries, the s3-tool test program, and its place in `make test`.
#
# src/s3/ links libcurl (HTTP, TLS), OpenSSL's libcrypto (SHA-256, HMAC, SHA-1, base64),
# zlib (CRC-32) and ISA-L (CRC-32C). Debian: libcurl4-openssl-dev libssl-dev zlib1g-dev
# libisal-dev.
LIBS += -lcurl -lcrypto -lz -lisal

S3_TOOL := $(BUILD)/s3-tool

$(S3_TOOL): tests/integration/s3/s3_tool.c $(SRVLIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(SRVLIB) $(LIBS)

# pytest (tests/integration/s3/) drives the uploader through s3-tool.
integration: $(S3_TOOL)

.PHONY: s3-tool
s3-tool: $(S3_TOOL)
