#!/usr/bin/env bash
# Redis's own test files, run against terse and against Debian's redis-server as external
# servers, outcomes compared test by test (issue 2, Bar: "Redis's own test files for strings,
# INCR, keyspace and expire pass when run against terse as an external server, as far as they
# pass against redis-server run the same way").
#
#   tools/redis_tests.sh [--terse PATH] [--out DIR] [--known FILE] [--redis-from DIR] [UNIT ...]
#
# --redis-from DIR takes redis-server's outcomes of a unit from an earlier run's DIR (the
# same redis-server, the same test files) instead of running it again: make test's sanitizer
# pass reuses the plain pass's, which halves its time.
#
# UNIT defaults to unit/type/string unit/type/incr unit/keyspace unit/expire, the files of
# the types terse has: unit/type/hash, unit/type/list (with list-2's LTRIM stress and list-3's
# encoding stress, which take about 45 s a server), unit/type/set, unit/type/zset,
# unit/type/stream, unit/type/stream-cgroups, then unit/multi, unit/sort, unit/pubsub,
# unit/bitops, unit/bitfield, unit/dump (DUMP and RESTORE; its MIGRATE tests fail on both
# servers run this way: they start a second server, which external mode cannot, and terse has
# no MIGRATE) and unit/scripting.
#
# The tests are not in this repository: they are fetched at test time from Debian's source
# package of redis, the version of the installed redis-server (the oracle), through apt with
# private state under build/redis-src (the system's apt configuration is not touched), unpacked
# once, Debian's patches applied (one of them adds a keyspace test).
#
# One change is made to Redis's harness, identically for both servers: in external mode it runs
# FUNCTION FLUSH before every server block; that call is wrapped in `catch` (terse has had
# FUNCTION since scripting; the wrap is kept harmless). No test is changed.
#
# For every unit a fresh terse-server and a fresh redis-server are started on free loopback
# ports (so state a failed test leaves behind, such as DEBUG SET-ACTIVE-EXPIRE 0, cannot leak
# into the next unit), and Redis's runner (`runtest --host --port --durable`: an error inside
# one test is reported and the next test runs) is pointed at each in turn. Every test has an
# outcome per server: ok, err, ignore (a tag excluded it, e.g. external:skip) or missing (the
# unit stopped before it, or the test file defines it only under a condition). terse-server
# must also exit 0 on SIGTERM with no sanitizer report in its log. A test that is ok on
# redis-server must be ok on terse, unless it is listed in tools/redis_tests_known.txt with a
# reason; the script prints a table and exits 1 on any other terse-only failure. A listed
# test that passes on terse is reported as stale.
#
# Environment: PYTHON (default python3), REDIS_SERVER (default redis-server), REDIS_SRC_DIR
# (default build/redis-src in the repository), REDIS_TESTS_TIMEOUT (runner timeout without
# progress, default 120 s).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TERSE=$ROOT/build/terse-server
OUT=$ROOT/build/redis-tests
KNOWN=$ROOT/tools/redis_tests_known.txt
REDIS_SERVER=${REDIS_SERVER:-redis-server}
SRC_DIR=${REDIS_SRC_DIR:-$ROOT/build/redis-src}
TIMEOUT=${REDIS_TESTS_TIMEOUT:-120}
UNITS=()
REDIS_FROM=

usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case $1 in
    --terse) TERSE=$(realpath "$2"); shift 2 ;;
    --out) OUT=$(realpath -m "$2"); shift 2 ;;
    --known) KNOWN=$(realpath "$2"); shift 2 ;;
    --redis-from) REDIS_FROM=$(realpath -m "$2"); shift 2 ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "redis_tests: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) UNITS+=("$1"); shift ;;
    esac
done
[ ${#UNITS[@]} -gt 0 ] || UNITS=(unit/type/string unit/type/incr unit/keyspace unit/expire unit/type/hash
                                 unit/type/list unit/type/list-2 unit/type/list-3
                                 unit/type/set unit/type/zset unit/type/stream
                                 unit/type/stream-cgroups unit/multi unit/sort unit/pubsub
                                 unit/bitops unit/bitfield unit/dump unit/scripting)

PYTHON=${PYTHON:-python3}
for tool in tclsh patch "$PYTHON" apt-get redis-cli "$REDIS_SERVER"; do
    command -v "$tool" >/dev/null || {
        echo "redis_tests: $tool not found (make redis-tests installs what is missing)" >&2
        exit 2
    }
done
[ -x "$TERSE" ] || { echo "redis_tests: no terse-server at $TERSE" >&2; exit 2; }
[ -f "$KNOWN" ] || { echo "redis_tests: no known-failures list at $KNOWN" >&2; exit 2; }

# ---- fetch: Debian's source package of the installed redis-server ---------------------------

fetch_tests() {
    local apt_opts ver want tarball debtar
    mkdir -p "$SRC_DIR/apt/lists/partial" "$SRC_DIR/apt/cache/archives/partial"
    cat >"$SRC_DIR/apt/src.sources" <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    apt_opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$SRC_DIR/apt"
        -o "Dir::State::Lists=$SRC_DIR/apt/lists" -o "Dir::Cache=$SRC_DIR/apt/cache")
    # The tests of the very package the oracle redis-server comes from.
    ver=$(dpkg-query -W -f='${Version}' redis-server 2>/dev/null || true)
    want=${ver#*:}
    if [ -z "$want" ] || [ ! -f "$SRC_DIR/redis_$want.dsc" ]; then
        echo "redis_tests: fetching Debian's redis ${ver:-(newest)} source into $SRC_DIR"
        apt-get "${apt_opts[@]}" -qq update
        if ! (cd "$SRC_DIR" && apt-get "${apt_opts[@]}" -qq source --download-only \
            "redis${ver:+=$ver}" >download.log 2>&1); then
            echo "redis_tests: warning: no source package for redis $ver; using the newest" >&2
            (cd "$SRC_DIR" && apt-get "${apt_opts[@]}" -qq source --download-only redis \
                >download.log 2>&1) || { cat "$SRC_DIR/download.log" >&2; exit 2; }
        fi
    fi
    if [ -n "$want" ] && [ -f "$SRC_DIR/redis_$want.debian.tar.xz" ]; then
        debtar=$SRC_DIR/redis_$want.debian.tar.xz
    else
        debtar=$(ls "$SRC_DIR"/redis_*.debian.tar.xz 2>/dev/null | sort -V | tail -1)
    fi
    tarball=$(ls "$SRC_DIR"/redis_*.orig.tar.gz 2>/dev/null | sort -V | tail -1)
    if [ -z "$tarball" ] || [ -z "$debtar" ]; then
        echo "redis_tests: download failed; $SRC_DIR/download.log" >&2
        exit 2
    fi
    local upstream=${tarball##*/redis_}
    upstream=${upstream%.orig.tar.gz}
    TESTS_DIR=$SRC_DIR/redis-$upstream
    if [ "$(cat "$TESTS_DIR/.terse-ready" 2>/dev/null)" = "${debtar##*/}" ]; then
        return 0
    fi

    rm -rf "$TESTS_DIR"
    tar -xzf "$tarball" -C "$SRC_DIR"
    # Only debian/patches, and removed again: the top-level Makefile includes every *.d under
    # build/, and debian/ has a bash_completion.d directory.
    local pdir=$SRC_DIR/patches.tmp p
    rm -rf "$pdir" && mkdir -p "$pdir"
    tar -xJf "$debtar" -C "$pdir" debian/patches
    while read -r p; do
        case $p in '' | '#'*) continue ;; esac
        patch -d "$TESTS_DIR" -p1 -s -N <"$pdir/debian/patches/$p" || {
            echo "redis_tests: Debian patch $p does not apply" >&2
            exit 2
        }
    done <"$pdir/debian/patches/series"
    rm -rf "$pdir"
    # The one harness change (see the header): FUNCTION FLUSH may fail.
    local helper=$TESTS_DIR/tests/support/server.tcl
    grep -q '^    r function flush$' "$helper" || {
        echo "redis_tests: $helper no longer has the FUNCTION FLUSH line to wrap" >&2
        exit 2
    }
    sed -i 's/^    r function flush$/    catch {r function flush}/' "$helper"
    # Helpers that look for the tools beside the tests find Debian's.
    mkdir -p "$TESTS_DIR/src"
    ln -sf "$(command -v redis-cli)" "$TESTS_DIR/src/redis-cli"
    ln -sf "$(command -v "$REDIS_SERVER")" "$TESTS_DIR/src/redis-server"
    echo "${debtar##*/}" >"$TESTS_DIR/.terse-ready"
}

# ---- servers ---------------------------------------------------------------------------------

free_port() {
    "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    PIDS=()
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_ready() { # port pid log
    local i
    for i in $(seq 100); do
        if ! kill -0 "$2" 2>/dev/null; then
            echo "redis_tests: server on port $1 exited at startup; log $3:" >&2
            tail -20 "$3" >&2
            exit 2
        fi
        [ "$(redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null)" = PONG ] && return 0
        sleep 0.1
    done
    echo "redis_tests: server on port $1 never answered PING; log $3" >&2
    exit 2
}

start_server() { # name port dir -> sets SERVER_PID
    local name=$1 port=$2 dir=$3
    mkdir -p "$dir"
    if [ "$name" = terse ]; then
        "$TERSE" --port "$port" --save '' --enable-debug-command yes --dir "$dir" \
            >"$dir/server.log" 2>&1 &
    else
        "$REDIS_SERVER" --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
            --enable-debug-command yes --dir "$dir" --logfile '' --daemonize no \
            >"$dir/server.log" 2>&1 &
    fi
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    wait_ready "$port" "$SERVER_PID" "$dir/server.log"
}

run_unit() { # unit name -> $OUT/<name>/<unit>/{runtest.out,server.log,server.exit}
    local unit=$1 name=$2 port dir log rc=0 src=0 skip
    port=$(free_port)
    dir=$OUT/$name/${unit//\//_}
    rm -rf "$dir"
    start_server "$name" "$port" "$dir"
    log=$dir/runtest.out
    # Known tests that need blocked clients only wait out their timeouts on terse (minutes per
    # run), and ones that need replication fail half-way, which can leave the shared client
    # inside a MULTI for the tests after them: terse's run skips both kinds (they then count as
    # known, never as stale).
    skip=()
    if [ "$name" = terse ]; then
        awk -F' [|] ' -v u="$unit" '$1 == u && $3 ~ /blocked clients|replication/ {
            sub(/ \(#[0-9]+\)$/, "", $2); print $2 }' "$KNOWN" | sort -u >"$dir/skip.txt"
        skip=(--skipfile "$dir/skip.txt")
    fi
    # The runner's own ports (test server, clients) start at --baseport: a random one, so two
    # runs at once (another worktree, the sanitizer pass) do not race for 21079; below the
    # ephemeral range (32768-), with the runner's +10000 probe, so no client socket holds it.
    # A base port another program holds right then fails the runner before any test runs
    # ("couldn't open socket"): it tries again on another one.
    for attempt in 1 2 3; do
        rc=0
        (cd "$TESTS_DIR" && env -u TERM ./runtest --host 127.0.0.1 --port "$port" --durable \
            --baseport $((10100 + RANDOM % 120 * 100)) --portcount 100 \
            --timeout "$TIMEOUT" "${skip[@]}" --single "$unit" >"$log" 2>&1) || rc=$?
        if ! grep -q "couldn't open socket: address already in use" "$log" ||
            grep -q '^\[' "$log"; then
            break
        fi
        echo "redis_tests: $name $unit: the runner's base port was taken (attempt $attempt)" >&2
    done
    # The server must still be up, and exit 0 on SIGTERM (the comparison checks the file).
    if kill "$SERVER_PID" 2>/dev/null; then
        wait "$SERVER_PID" || src=$?
    else
        wait "$SERVER_PID" || src=$?
        echo "redis_tests: $name-server died during $unit (status $src); $dir/server.log" >&2
        src="died ($src)"
    fi
    PIDS=()
    echo "$src" >"$dir/server.exit"
    printf '  %-6s %-18s runtest exit %d, server exit %s\n' "$name" "$unit" "$rc" "$src"
}

fetch_tests
mkdir -p "$OUT"
start=$(date +%s)
echo "redis_tests: $TESTS_DIR against $TERSE and $(command -v "$REDIS_SERVER")"
for unit in "${UNITS[@]}"; do
    [ -f "$TESTS_DIR/tests/$unit.tcl" ] || { echo "redis_tests: no $unit.tcl" >&2; exit 2; }
    prev=$REDIS_FROM/redis/${unit//\//_}
    if [ -n "$REDIS_FROM" ] && [ -s "$prev/runtest.out" ] && [ -s "$prev/server.exit" ]; then
        rm -rf "$OUT/redis/${unit//\//_}"
        mkdir -p "$OUT/redis"
        cp -r "$prev" "$OUT/redis/"
        printf '  %-6s %-18s taken from %s\n' redis "$unit" "$REDIS_FROM"
    else
        run_unit "$unit" redis
    fi
    run_unit "$unit" terse
done
echo "redis_tests: ran in $(($(date +%s) - start)) s"

# ---- compare -----------------------------------------------------------------------------

exec "$PYTHON" - "$OUT" "$KNOWN" "${UNITS[@]}" <<'PY'
import re
import sys

out, known_path, units = sys.argv[1], sys.argv[2], sys.argv[3:]

STATUS = re.compile(r"^\[(ok|err|ignore|skip|exception)\]: (.*)$")


def parse(path):
    """Ordered {(name, occurrence): (status, detail)} from one runtest log."""
    results, seen, last, exception, done = {}, {}, None, None, False
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            done = done or line.startswith("[1/1 done]: ")
            if line.strip() == "The End" or line.startswith("!!! WARNING"):
                break
            m = STATUS.match(line)
            if not m:
                if last is not None and not results[last][1] and line.strip():
                    results[last] = (results[last][0], line.strip())
                continue
            status, text = m.groups()
            if status == "exception":
                exception = text
                last = None
                continue
            if status == "ok":
                text = re.sub(r" \(\d+ ms\)$", "", text)
            elif status == "err":
                text = re.sub(r" in tests/\S+\.tcl$", "", text)
            elif status == "ignore":
                if text == "Not supported on external server":
                    last = None
                    continue  # a whole server block; its tests have no names here
                text = text.split(": ", 1)[0]
            n = seen.get(text, 0) + 1
            seen[text] = n
            last = (text, n)
            results[last] = (status, "")
    if not done and exception is None:
        exception = "the runner never finished the unit (see the end of %s)" % path
    return results, exception


def load_known(path):
    known = {}
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ")]
            if len(parts) != 3 or not all(parts):
                sys.exit(f"{path}:{lineno}: expected 'unit | test name | reason'")
            known[(parts[0], parts[1])] = parts[2]
    return known


known = load_known(known_path)
used = set()
rows, failures, stale, notes, listed = [], [], [], [], []
for unit in units:
    tag = unit.replace("/", "_")
    redis, redis_exc = parse(f"{out}/redis/{tag}/runtest.out")
    terse, terse_exc = parse(f"{out}/terse/{tag}/runtest.out")
    if redis_exc:  # the oracle's run is incomplete: nothing to compare against
        failures.append((unit, "(redis-server run)", "incomplete", redis_exc))
    if terse_exc:
        notes.append(f"{unit}: terse run stopped: {terse_exc}")
    with open(f"{out}/terse/{tag}/server.exit") as f:
        status = f.read().strip()
    with open(f"{out}/terse/{tag}/server.log", errors="replace") as f:
        sanitizer = [l.strip() for l in f if "Sanitizer" in l or "runtime error:" in l]
    if status != "0" or sanitizer:
        failures.append((unit, "(terse-server itself)", f"exit {status}",
                         sanitizer[0] if sanitizer else ""))
    count = {"redis_ok": 0, "terse_ok": sum(s == "ok" for s, _ in terse.values()),
             "known": 0, "fail": 0, "both": 0}
    for key, (rstat, _) in redis.items():
        name = key[0] if key[1] == 1 else f"{key[0]} (#{key[1]})"
        tstat, tdetail = terse.get(key, ("missing", ""))
        count["redis_ok"] += rstat == "ok"
        if rstat != "ok":
            count["both"] += tstat != "ok"
            continue
        k = (unit, name)
        if tstat == "ok":
            if k in known:
                stale.append(f"{unit} | {name}")
                used.add(k)
            continue
        if k in known:
            used.add(k)
            listed.append((k, known[k]))
            count["known"] += 1
        else:
            count["fail"] += 1
            failures.append((unit, name, tstat, tdetail))
    rows.append((unit, len(redis), count))

print()
print(f"{'unit':<18} {'tests':>5} {'ok redis':>9} {'ok terse':>9} {'known':>6} "
      f"{'terse-only fail':>16}")
for unit, total, c in rows:
    print(f"{unit:<18} {total:>5} {c['redis_ok']:>9} {c['terse_ok']:>9} {c['known']:>6} "
          f"{c['fail']:>16}")
tot = {k: sum(r[2][k] for r in rows) for k in ("redis_ok", "terse_ok", "known", "fail")}
print(f"{'total':<18} {sum(r[1] for r in rows):>5} {tot['redis_ok']:>9} {tot['terse_ok']:>9} "
      f"{tot['known']:>6} {tot['fail']:>16}")

if listed:
    print("\nknown (ok on redis-server, not on terse, out of scope):")
    for (unit, name), reason in listed:
        print(f"  {unit} | {name}\n      {reason}")
for n in notes:
    print(f"\nnote: {n}")
for s in stale:
    print(f"\nstale known entry (now ok on terse, remove it): {s}")
unmatched = [k for k in known if k[0] in units and k not in used]
for unit, name in unmatched:
    print(f"\nknown entry matches no test that passes on redis-server: {unit} | {name}")
if failures:
    print("\nFAIL: ok on redis-server, not on terse:")
    for unit, name, stat, detail in failures:
        detail = detail if len(detail) <= 160 else detail[:157] + "..."
        print(f"  {unit} | {name}: {stat}" + (f": {detail}" if detail else ""))
    print(f"\nlogs: {out}/{{redis,terse}}/<unit>/runtest.out")
    sys.exit(1)
print("\nredis_tests: every test that passes on redis-server passes on terse or is listed")
PY
