# s3 layer: the libraries src/s3/ links.
#
# src/s3/ links libcurl (HTTP, TLS), OpenSSL's libcrypto (SHA-256, HMAC, SHA-1, base64),
# zlib (CRC-32) and ISA-L (CRC-32C). Debian: libcurl4-openssl-dev libssl-dev zlib1g-dev
# libisal-dev.
LIBS += -lcurl -lcrypto -lz -lisal
