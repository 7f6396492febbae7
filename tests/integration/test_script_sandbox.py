"""No bytecode in scripts: every way a script, a script body or a library's code can turn bytes
into a function accepts Lua source only, as in Redis 7.0 (whose Lua parses every chunk as text
since CVE-2015-4335, where a crafted binary chunk escaped the sandbox).

Lua 5.1 decides between its parser and its undumper on the first byte of a chunk (ESC for
bytecode). terse runs on Debian's unpatched liblua5.1, so these cases are the ones that reach
the undumper there: base `load` with a reader (whole, split so the ESC comes alone, one byte a
piece, behind an empty first piece), `loadstring` of `string.dump`'s output, bytecode handed in
as an argument, an EVAL / SCRIPT LOAD body that is itself bytecode, FUNCTION LOAD code holding
bytecode, and functions of a library that load bytecode when called. The same steps go to
terse and to Debian's redis-server 7.0 and the raw replies must be identical, error texts
included (`unexpected symbol near 'char(27)'`, with Lua's own chunk names); every dumped
function writes the key `ran`, and each sequence ends by checking that no key exists: nothing
of the bytecode ran.

The reachable globals (in EVAL, in a function as FCALL runs it, and while FUNCTION LOAD runs a
library's code) are compared by name: the only differences allowed are KNOWN_ABSENT's, each
with its reason.
"""

import hashlib

import pytest

import terse_harness as h
from terse_harness import Step

# A function whose bytecode, if it ever ran, would leave a trace: the key 'ran'.
DUMPED = "string.dump(function() redis.call('set', 'ran', 'bytecode') return 42 end)"

# What a script reports of a load: the function's absence and the error message.
REPORT = "return {tostring(g == nil), e, g and g()}"


def ev(body, *args):
    return ("EVAL", body, "0") + tuple(args)


def reader_of(pieces):
    """Lua text: `local g, e = load(reader)`, the reader handing out the elements of the Lua
    table constructor pieces one a call, then nil."""
    return ("local p = %s local i = 0 local g, e = load(function() i = i + 1 return p[i] end)"
            % pieces)


NOTHING_RAN = [("EXISTS", "ran"), ("DBSIZE",)]

# The issue's reproduction: terse answered 42, Redis 'refused'.
ISSUE = ev("local f=string.dump(function() return 42 end) local d=false local g=load(function() "
           "if d then return nil end d=true return f end) if g==nil then return 'refused' end "
           "return g()")


def loader_steps(code):
    """load and loadstring in a script, given bytecode the script dumps itself and code (the
    oracle's bytecode) as an argument; then text, which must still load as before."""
    f = "local f = " + DUMPED + " "
    return [
        ISSUE,
        ev(f + reader_of("{f}") + " " + REPORT),
        ev(f + reader_of("{f:sub(1, 1), f:sub(2)}") + " " + REPORT),
        ev(f + "local i = 0 local g, e = load(function() i = i + 1 if i <= #f then "
               "return f:sub(i, i) end end) " + REPORT),
        ev(f + reader_of("{'', f}") + " " + REPORT),
        ev(f + reader_of("{' ', f}") + " " + REPORT),
        ev(f + "local d = false local g, e = load(function() if d then return nil end d = true "
               "return f end, 'named') " + REPORT),
        ev(f + "local d = false local g, e = load(function() if d then return nil end d = true "
               "return f end, '=named') " + REPORT),
        ev(f + "local g, e = loadstring(f) " + REPORT),
        ev(f + "local g, e = loadstring(f, 'named') " + REPORT),
        ev(f + "local g, e = loadstring(f, '=named') " + REPORT),
        ev(f + "local g, e = loadstring(f, '@named') " + REPORT),
        ev(f + "return loadstring(f)()"),
        ev(f + "return {pcall(loadstring(f))}"),
        ev("return loadstring(string.dump(loadstring('return 1')))"),
        ev("local co = coroutine.create(function() return loadstring(" + DUMPED + ") end) "
           "return {coroutine.resume(co)}"),
        ev("local g, e = loadstring(ARGV[1]) " + REPORT, code),
        ev("local d = false local g, e = load(function() if d then return nil end d = true "
           "return ARGV[1] end) " + REPORT, code),
        ev("local g, e = loadstring('\\27') " + REPORT),
        ev("local g, e = loadstring(string.rep('\\27', 80)) " + REPORT),
        # text still loads as before
        ev("return loadstring('return 7')()"), ev("return {loadstring('return 1 +')}"),
        ev(reader_of("{'return ', '4', '2'}") + " return g()"),
        ev(reader_of("{'', 'return 5'}") + " " + REPORT),
        ev("local g, e = loadstring('\\n\\27') " + REPORT),
        ev("local g, e = load(function() return {} end) return e"),
        ev("return load('return 1')"), ev("return loadstring()"),
        ev("return type(string.dump)"), ev("return string.dump(function() end):sub(1, 4)"),
    ] + NOTHING_RAN


def body_steps(code):
    """Bodies that are bytecode: EVAL, EVAL after a shebang line, SCRIPT LOAD."""
    return [
        ev(code), ev("\x1b"), ev(b"#!lua\n" + code), ("SCRIPT", "LOAD", code),
        ("EVALSHA", hashlib.sha1(code).hexdigest(), "0"),
        ("SCRIPT", "EXISTS", hashlib.sha1(code).hexdigest()),
    ] + NOTHING_RAN


LIBRARY = (
    "#!lua name=sandbox\n"
    "redis.register_function('string_of', function(keys, args) "
    "local g, e = loadstring(args[1]) " + REPORT + " end)\n"
    "redis.register_function('reader_of', function(keys, args) local d = false "
    "local g, e = load(function() if d then return nil end d = true return args[1] end) "
    + REPORT + " end)\n"
    "redis.register_function('own', function() local g, e = loadstring(" + DUMPED + ") "
    + REPORT + " end)\n")


def function_steps(code):
    """FUNCTION LOAD of code holding bytecode, and functions loading bytecode as they run."""
    steps = [
        ("FUNCTION", "FLUSH"),
        ("FUNCTION", "LOAD", b"#!lua name=bin\n" + code),
        ("FUNCTION", "LOAD", b"#!lua name=bin\n\x1b"),
        ("FUNCTION", "LOAD", code),
        ("FUNCTION", "LOAD", LIBRARY),
        ("FCALL", "string_of", "0", code), ("FCALL", "reader_of", "0", code),
        ("FCALL", "own", "0"), ("FCALL", "string_of", "0", "return 5"),
        ("FCALL", "reader_of", "0", "return 6"),
    ]
    # While a library's code runs only redis is there: no loader at all.
    for name in ("load", "loadstring", "dofile", "loadfile", "require", "module", "package",
                 "string", "debug", "getfenv", "setfenv", "newproxy", "_G"):
        steps.append(("FUNCTION", "LOAD",
                      "#!lua name=probe\nlocal x = %s\n"
                      "redis.register_function('p', function() return 1 end)" % name))
    steps.append(("FUNCTION", "LIST", "LIBRARYNAME", "probe"))
    return steps + [("FUNCTION", "FLUSH")] + NOTHING_RAN


@pytest.fixture
def code(oracle):
    """The bytecode of a function that sets 'ran', as the oracle's Lua dumps it."""
    with oracle.raw() as c:
        raw = c.call("EVAL", "return " + DUMPED, "0")
    v = h.decode_one(raw)
    assert isinstance(v, bytes) and v[:1] == b"\x1b", raw
    return v


def test_loaders_in_scripts(diff, code):
    diff.run([("SCRIPT", "FLUSH")] + loader_steps(code), title="load and loadstring")


def test_bytecode_bodies(diff, code):
    diff.run([("SCRIPT", "FLUSH")] + body_steps(code), title="EVAL and SCRIPT LOAD bodies")


def test_bytecode_in_functions(diff, code):
    diff.run(function_steps(code), title="FUNCTION LOAD and FCALL")


# ---- the reachable globals ------------------------------------------------------------------

NAMES = [
    "assert", "collectgarbage", "dofile", "error", "gcinfo", "getfenv", "getmetatable", "ipairs",
    "load", "loadfile", "loadstring", "module", "newproxy", "next", "pairs", "pcall", "print",
    "rawequal", "rawget", "rawset", "require", "select", "setfenv", "setmetatable", "tonumber",
    "tostring", "type", "unpack", "xpcall", "_G", "_VERSION", "coroutine", "debug", "io", "math",
    "os", "package", "string", "table", "bit", "cjson", "cmsgpack", "struct", "redis", "KEYS",
    "ARGV", "__redis__err__handler", "jit", "ffi", "utf8", "bit32",
]
FIELDS = {
    "string": ["byte", "char", "dump", "find", "format", "gfind", "gmatch", "gsub", "len",
               "lower", "match", "rep", "reverse", "sub", "upper"],
    "table": ["concat", "foreach", "foreachi", "getn", "insert", "maxn", "remove", "setn",
              "sort", "unpack", "pack"],
    "coroutine": ["create", "resume", "running", "status", "wrap", "yield"],
    "math": ["abs", "floor", "random", "randomseed", "mod", "pow", "ldexp", "frexp", "log10"],
}

PROBE = (
    "local out = {} "
    "local function probe(label, get) local ok, v = pcall(get) "
    "out[#out + 1] = label .. '=' .. (ok and type(v) or 'error') end "
    + " ".join("probe('%s', function() return %s end)" % (n, n) for n in NAMES) + " "
    + " ".join("probe('%s.%s', function() return %s.%s end)" % (lib, f, lib, f)
               for lib, fs in sorted(FIELDS.items()) for f in fs)
    + " return out")

# Names whose answer may differ, and why:
KNOWN_ABSENT = {
    "cmsgpack": "Redis loads cmsgpack; Debian packages no Lua cmsgpack, so terse has none "
                "(README, Scripting)",
    "struct": "Redis loads struct; Debian packages no Lua struct, so terse has none",
    "__redis__err__handler": "Redis keeps its error handler as an EVAL global; terse keeps it "
                             "in the registry (neither loads code)",
}
WHY_GLOBALS = "compared name by name, without KNOWN_ABSENT: " + "; ".join(
    "%s: %s" % kv for kv in sorted(KNOWN_ABSENT.items()))


def globals_norm(raw):
    v = h.decode_one(raw)
    if not isinstance(v, list):
        return v
    return [x for x in v if x.split(b"=")[0].decode() not in KNOWN_ABSENT]


def test_reachable_globals(diff):
    lib = ("#!lua name=globals\nredis.register_function('globals', function() "
           + PROBE + " end)")
    diff.run([
        Step("EVAL", PROBE, "0", norm=globals_norm, why=WHY_GLOBALS),
        ("FUNCTION", "FLUSH"), ("FUNCTION", "LOAD", lib),
        Step("FCALL", "globals", "0", norm=globals_norm, why=WHY_GLOBALS),
        ("FUNCTION", "FLUSH"),
    ], title="globals of EVAL and of FCALL")
