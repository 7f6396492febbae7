#!/bin/sh
# test_terse_envelope.sh: the terse-envelope CLI (tools/terse_envelope.c), driven as a person
# would: round trips through pipes, inspect, the shared vectors, and every error path (a reason
# on stderr, a non-zero exit, nothing on stdout). TAP output.
#   TERSE_ENVELOPE=path/to/terse-envelope TERSE_SHARED=../shared sh test_terse_envelope.sh
set -u
T=${TERSE_ENVELOPE:?set TERSE_ENVELOPE}
SHARED=${TERSE_SHARED:-../shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
no() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else no "$1"; fi; }

# Round trips: empty, short (literal block), long (LZ4), binary.
: > "$tmp/empty"
printf 'hello, cachekit!' > "$tmp/short"
i=0; while [ $i -lt 400 ]; do printf '{"id":%d,"name":"user%d"},' $i $i; i=$((i + 1)); done > "$tmp/long"
head -c 70000 /dev/urandom > "$tmp/random"
for f in empty short long random; do
    "$T" store < "$tmp/$f" > "$tmp/$f.env" && "$T" retrieve < "$tmp/$f.env" > "$tmp/$f.out"
    check "round trip $f" "cmp -s '$tmp/$f' '$tmp/$f.out'"
done
check "store is smaller for compressible input" \
    "[ \$(wc -c < '$tmp/long.env') -lt \$(wc -c < '$tmp/long') ]"

# The pinned bytes of vector single_byte_bin (SPEC.md 2.6): ff stored as 27 bytes.
printf '\377' | "$T" store | od -An -tx1 | tr -d ' \n' > "$tmp/sb.hex"
check "store reproduces single_byte_bin" \
    "[ \"\$(cat '$tmp/sb.hex')\" = 94c40210ff98ccd6ccbcccec3c6b29ccd72e01a76d73677061636b ]"

# Format: stored, reported by inspect and by retrieve --format-to-stderr.
"$T" store --format orjson < "$tmp/short" > "$tmp/fmt.env"
"$T" inspect < "$tmp/fmt.env" > "$tmp/inspect.txt"
check "inspect exits 0 on a valid envelope" "[ $? -eq 0 ]"
check "inspect shows the format" "grep -q 'format: *\"orjson\"' '$tmp/inspect.txt'"
check "inspect shows the size" "grep -q 'original_size: *16 bytes' '$tmp/inspect.txt'"
check "inspect shows the checksum" "grep -q '6d8a34b63a3c52d3' '$tmp/inspect.txt'"
check "inspect verifies" "grep -q 'verified: *yes' '$tmp/inspect.txt'"
"$T" retrieve --format-to-stderr < "$tmp/fmt.env" 2> "$tmp/fmt.err" > /dev/null
check "retrieve --format-to-stderr" "grep -qx 'format: orjson' '$tmp/fmt.err'"

# A legacy (array-of-int) vector from the shared files decodes (single_byte: ff).
printf '\224\222\020\314\377\230\314\326\314\274\314\354\074\153\051\314\327\056\001\247msgpack' \
    > "$tmp/legacy.env"
"$T" inspect < "$tmp/legacy.env" > "$tmp/legacy.txt"
check "inspect names the legacy form" "grep -q 'legacy' '$tmp/legacy.txt'"
"$T" retrieve < "$tmp/legacy.env" | od -An -tx1 | tr -d ' \n' > "$tmp/legacy.hex"
check "legacy retrieve" "[ \"\$(cat '$tmp/legacy.hex')\" = ff ]"

# Errors: reason on stderr, exit status non-zero, nothing on stdout.
expect_fail() { # name, command, stderr pattern
    sh -c "$2" > "$tmp/err.out" 2> "$tmp/err.txt"
    rc=$?
    if [ $rc -ne 0 ] && [ ! -s "$tmp/err.out" ] && grep -q "$3" "$tmp/err.txt"; then
        ok "$1"
    else
        no "$1 (rc=$rc, stderr: $(cat "$tmp/err.txt"))"
    fi
}
expect_fail "retrieve of garbage" "printf 'not an envelope' | '$T' retrieve" \
    'terse-envelope: retrieve: malformed input'
expect_fail "retrieve of empty input" "'$T' retrieve < /dev/null" 'retrieve: malformed input'
head -c 20 "$tmp/long.env" > "$tmp/trunc.env"
expect_fail "retrieve of a truncated envelope" "'$T' retrieve < '$tmp/trunc.env'" 'malformed'
cp "$tmp/short.env" "$tmp/flip.env"
printf 'X' | dd of="$tmp/flip.env" bs=1 seek=5 conv=notrunc 2> /dev/null
expect_fail "retrieve of a flipped payload byte" "'$T' retrieve < '$tmp/flip.env'" 'checksum'
{ cat "$tmp/short.env"; printf 'x'; } > "$tmp/trail.env"
expect_fail "trailing bytes refused" "'$T' retrieve < '$tmp/trail.env'" 'malformed'
expect_fail "inspect of a flipped payload byte" "'$T' inspect < '$tmp/flip.env' > /dev/null" \
    'inspect: corrupt'
long=$(head -c 300 /dev/zero | tr '\0' f)
expect_fail "format too long" "printf x | '$T' store --format $long" 'invalid argument'
expect_fail "unknown command" "'$T' frobnicate < /dev/null" 'usage'
expect_fail "no command" "'$T' < /dev/null" 'usage'

echo "1..$n"
[ $bad -eq 0 ]
