"""Lua scripting (EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT), compared with Debian's
redis-server 7.0: the same scripts go to terse and to the oracle, each sequence on a fresh
connection with an empty keyspace, and the raw reply bytes must be identical.

Covered: every RESP <-> Lua conversion both ways (RESP2, and RESP3 under redis.setresp(3) with
RESP2 and RESP3 callers), errors (compile, runtime, numkeys, NOSCRIPT, unknown command, wrong
arity, commands refused in scripts, pcall catching them, error_reply/status_reply), the redis.*
API, the globals protection, EVALSHA after SCRIPT LOAD, SCRIPT EXISTS / FLUSH / KILL / HELP,
shebang flags and EVAL_RO, cjson and bit, scripts as applications write them (a rate limiter,
a lock release, a compare-and-set), maxmemory inside scripts, WATCH dirtied by a script,
keyspace notifications from a script's commands, the write feed (a script's writes as
themselves, in MULTI/EXEC when several; EVAL never), and -BUSY / SCRIPT KILL / UNKILLABLE past
busy-reply-threshold.
"""

import time

import pytest

import alloc_harness as ah
import terse_harness as h
from terse_harness import Step

SHA_RETURN_1 = "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"  # sha1("return 1")


def ev(body, *keys_and_args, numkeys=None):
    """An EVAL step: ev("return KEYS[1]", "k", numkeys=1)."""
    n = len(keys_and_args) if numkeys is None else numkeys
    return ("EVAL", body, str(n)) + tuple(keys_and_args)


CONVERSIONS = [
    ev("return 1"), ev("return -42"), ev("return 3.99"), ev("return -3.99"), ev("return 0.5"),
    ev("return 1e20"), ev("return 'hello'"), ev("return ''"), ev("return true"),
    ev("return false"), ev("return nil"), ev("return {}"), ev("return {1,2,3,'x',{4,{5}}}"),
    ev("return {1,2,nil,4}"), ev("return {1,false,3}"), ev("return {ok='FINE'}"),
    ev("return {err='ERR my error'}"), ev("return {err='CUSTOM boom'}"),
    ev("return {1, {err='x'}, {ok='y'}}"), ev("return {double=1.5}"),
    ev("return {big_number='12345678901234567890'}"),
    ev("return {verbatim_string={format='txt', string='hi'}}"),
    ev("return {map={a=1}}"), ev("return {set={a=true}}"),
    ev("return redis.status_reply('PONG')"), ev("return redis.error_reply('MY bad')"),
    ev("return redis.error_reply('-MY bad')"), ev("return redis.error_reply('bad')"),
    ev("return redis.error_reply(1)"), ev("return redis.status_reply()"),
    ev("return {ok='a\\r\\nb'}"), ev("return {err='a\\r\\nb'}"),
    ev("return KEYS"), ev("return ARGV"), ev("return {KEYS[1], ARGV[1], #KEYS, #ARGV}", "k1",
                                               "a1", "a2", numkeys=1),
    ev("return tostring(0/0) ~= nil"),
    # replies of commands inside the script
    "SET s hello", "RPUSH l a b c", "HSET h f v", "SADD st m", "ZADD z 1.5 a",
    ev("return redis.call('get', 's')"), ev("return redis.call('get', 'nokey')"),
    ev("return {redis.call('get', 'nokey')}"), ev("return redis.call('lrange', 'l', 0, -1)"),
    ev("return redis.call('incr', 'n')"), ev("return redis.call('set', 'a', 'b')"),
    ev("return redis.call('ping')"), ev("return redis.call('type', 'h')"),
    ev("return redis.call('hgetall', 'h')"), ev("return redis.call('zrange', 'z', 0, -1, 'withscores')"),
    ev("return type(redis.call('get', 'nokey'))"),
    ev("return type(redis.call('set', 'a', 'b'))"),
    ev("return redis.call('set', 'a', 'b')['ok']"),
    ev("return redis.pcall('incr', 's')"), ev("return redis.pcall('incr', 's')['err']"),
    ev("return redis.call('echo', 1.5)"), ev("return redis.call('echo', 0.1)"),
    ev("return redis.call('echo', 100)"), ev("return redis.call('echo', -0.0)"),
    ev("return redis.call('blpop', 'nolist', 0)"), ev("return redis.call('exists', 's', 'l')"),
    ev("return redis.call('select', 1)"), ev("return redis.call('get', 's')"),
]

RESP3_IN_SCRIPT = [
    "HSET h f v", "SADD st m", "ZADD z 1.5 a", "SET s v",
    ev("redis.setresp(3); return redis.call('hgetall', 'h')"),
    ev("redis.setresp(3); return redis.call('hgetall', 'h')['map']['f']"),
    ev("redis.setresp(3); return redis.call('smembers', 'st')"),
    ev("redis.setresp(3); return redis.call('zscore', 'z', 'a')"),
    ev("redis.setresp(3); return redis.call('zscore', 'z', 'a')['double']"),
    ev("redis.setresp(3); return redis.call('get', 'nokey')"),
    ev("redis.setresp(3); return {redis.call('get', 'nokey'), 1}"),
    ev("redis.setresp(3); return redis.call('exists', 's')"),
    ev("redis.setresp(3); return true"), ev("redis.setresp(3); return false"),
    ev("redis.setresp(3); return {double=3.14}"),
    ev("redis.setresp(3); return {big_number='123\\r\\n4'}"),
    ev("redis.setresp(3); return {verbatim_string={format='txt', string='a b'}}"),
    ev("redis.setresp(3); return {map={k='v'}}"), ev("redis.setresp(3); return {set={m=true}}"),
    ev("redis.setresp(2); return redis.call('hgetall', 'h')"),
    ev("return redis.setresp(4)"), ev("return redis.setresp()"),
]

ERRORS = [
    ev("return 1 +"), ev("return (("), ev("x = "), ev("return 1 + nil"),
    ev("return nosuchglobal"), ev("nosuchglobal = 1"), ev("error('boom')"),
    ev("error({err='CODE custom'})"), ev("error()"), ev("error(nil)"), ev("error(12)"),
    ev("return redis.call('nosuchcommand')"), ev("return redis.pcall('nosuchcommand')"),
    ev("return redis.call('get')"), ev("return redis.call('get', 'a', 'b')"),
    ev("return redis.call()"), ev("return redis.pcall()"), ev("return redis.call({})"),
    ev("return redis.call('get', {})"), ev("return redis.call('get', nil)"),
    ev("return redis.call('subscribe', 'c')"), ev("return redis.call('multi')"),
    ev("return redis.call('eval', 'return 1', 0)"), ev("return redis.call('script', 'load', 'x')"),
    ev("return redis.call('config', 'nosub')"), ev("return redis.call('config')"),
    "SET s v", ev("return redis.call('incr', 's')"), ev("return redis.call('lpush', 's', 'x')"),
    ev("return pcall(function() redis.call('nosuch') end)"),
    ev("local ok, e = pcall(function() redis.call('nosuch') end); return e"),
    ev("local ok, e = pcall(function() error('x') end); return {tostring(ok), e}"),
    ev("local ok, e = pcall(function() error({err='T x'}) end); return e"),
    ev("return redis.pcall('incr', 's')"),
    ev("local t = redis.pcall('incr', 's'); return t['err']"),
    ("EVAL", "return 1"), ("EVAL", "return 1", "2", "a"), ("EVAL", "return 1", "-1"),
    ("EVAL", "return 1", "x"), ("EVAL", "return 1", "1.5", "a"),
    ("EVALSHA", "0" * 40, "0"), ("EVALSHA", "abc", "0"), ("EVALSHA", "0" * 41, "0"),
    ("EVALSHA", SHA_RETURN_1, "x"), ("EVALSHA", SHA_RETURN_1, "3", "a"),
    ev("local function f() return 1 + f() end return f()"),
    ev("return string.rep('x', -1)"), ev("return ('x'):bad()"),
    ev("return loadstring(string.dump(function() return 1 end))()"),
    ev("return loadstring('return 7')()"),
]

REDIS_API = [
    ev("return redis.sha1hex('')"), ev("return redis.sha1hex('Pizza & Mandolino')"),
    ev("return redis.sha1hex()"), ev("return redis.sha1hex(1, 2)"), ev("return redis.sha1hex(12)"),
    ev("return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}"),
    ev("redis.log(redis.LOG_WARNING, 'from', 'a script', 1)"), ev("redis.log(redis.LOG_DEBUG)"),
    ev("redis.log('x', 'y')"), ev("redis.log(9, 'y')"),
    ev("return redis.REDIS_VERSION"), ev("return redis.REDIS_VERSION_NUM"),
    ev("return redis.replicate_commands()"), ev("return redis.breakpoint()"),
    ev("return redis.debug('x')"),
    ev("redis.set_repl(redis.REPL_ALL); return 1"), ev("redis.set_repl(redis.REPL_NONE); return 1"),
    ev("redis.set_repl(99)"), ev("redis.set_repl()"),
    ev("return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, "
       "redis.REPL_ALL}"),
    ev("return redis.acl_check_cmd('set', 'k', 'v')"),
    ev("return redis.acl_check_cmd('nosuch')"), ev("return redis.acl_check_cmd()"),
    ev("return {math.random(), math.random(10), math.random(5, 6)} ~= nil"),
    ev("return _VERSION"), ev("return type(coroutine.create)"), ev("return tostring(unpack({7}))"),
    ev("return table.concat({'a','b'}, '-')"), ev("return string.format('%d-%s', 5, 'x')"),
    ev("return math.floor(7.9)"), ev("return select('#', 1, 2, 3)"),
    ev("return tonumber('0x10')"), ev("return type(next)"),
]

PROTECTION = [
    ev("a = 1"), ev("redis = function() return 1 end"), ev("_G = {}"), ev("_G.x = 1"),
    ev("redis.call = function() return 1 end"), ev("cjson.encode = function() return 1 end"),
    ev("bit.lshift = function() return 1 end"), ev("string.x = 1"), ev("math.y = 2"),
    ev("table.z = 3"), ev("setmetatable(_G, {})"), ev("rawset(_G, 'x', 1)"),
    ev("local g = getmetatable(_G); g.__index = {}"),
    ev("getmetatable('').__index = function() return 1 end"),
    ev("print('x')"), ev("dofile('/etc/passwd')"), ev("loadfile('/etc/passwd')"),
    ev("return os"), ev("return io"), ev("return require"), ev("return module"),
    ev("return debug"), ev("return newproxy"), ev("return setfenv"), ev("return getfenv"),
    ev("local t = {}; t.x = 1; return t.x"), ev("local t = setmetatable({}, {}); return 1"),
    ev("return rawget({5}, 1)"),
]

LIBRARIES = [
    ev("return cjson.encode({1,2,3,'x'})"), ev("return cjson.encode({a=1})"),
    ev("return cjson.encode({})"), ev("return cjson.encode('s\\n')"),
    ev("return cjson.decode('[1,2,{\"a\":3}]')[3]['a']"),
    ev("return cjson.decode('{\"k\":\"v\"}')['k']"), ev("return cjson.decode('[1,2,3]')"),
    ev("return type(cjson.null)"), ev("return cjson.encode(cjson.decode('[null,1]'))"),
    ev("return bit.band(7, 3)"), ev("return bit.bor(1, 2)"), ev("return bit.bxor(5, 1)"),
    ev("return bit.lshift(1, 10)"), ev("return bit.rshift(1024, 3)"), ev("return bit.bnot(0)"),
    ev("return bit.tohex(65535, -2147483648)"), ev("return bit.tobit(2^32 + 5)"),
]

SCRIPT_CACHE = [
    ("SCRIPT", "EXISTS", SHA_RETURN_1), ("SCRIPT", "LOAD", "return 1"),
    ("SCRIPT", "EXISTS", SHA_RETURN_1, SHA_RETURN_1.upper(), "abc", "0" * 40),
    ("EVALSHA", SHA_RETURN_1, "0"), ("EVALSHA", SHA_RETURN_1.upper(), "0"),
    ("EVALSHA_RO", SHA_RETURN_1, "0"), ("SCRIPT", "FLUSH"), ("EVALSHA", SHA_RETURN_1, "0"),
    ("SCRIPT", "EXISTS", SHA_RETURN_1), ev("return 1"), ("SCRIPT", "EXISTS", SHA_RETURN_1),
    ("EVALSHA", SHA_RETURN_1, "0"), ("SCRIPT", "FLUSH", "SYNC"), ("SCRIPT", "FLUSH", "async"),
    ("SCRIPT", "FLUSH", "x"), ("SCRIPT", "FLUSH", "SYNC", "x"), ("SCRIPT", "LOAD", "return ("),
    ("SCRIPT", "LOAD", "return 2"), ("SCRIPT", "LOAD", "return 2"),
    ("SCRIPT", "LOAD"), ("SCRIPT", "LOAD", "a", "b"), ("SCRIPT", "EXISTS"), ("SCRIPT", "KILL"),
    ("SCRIPT", "KILL", "x"), ("SCRIPT", "HELP"), ("SCRIPT",), ("SCRIPT", "NOSUCH"),
    ("SCRIPT", "DEBUG", "NO"), ("SCRIPT", "DEBUG", "bad"), ("SCRIPT", "DEBUG"),
]

SHEBANG_AND_RO = [
    "SET k v",
    ("EVAL_RO", "return redis.call('get', KEYS[1])", "1", "k"),
    ("EVAL_RO", "return redis.call('set', KEYS[1], 'x')", "1", "k"),
    ("EVAL_RO", "return redis.call('del', KEYS[1])", "1", "k"),
    ("EVAL_RO", "return redis.pcall('set', KEYS[1], 'x')", "1", "k"),
    ("EVAL_RO", "return redis.call('publish', 'c', 'm')", "0"),
    ("EVAL", "#!lua flags=no-writes\nreturn redis.call('get', 'k')", "0"),
    ("EVAL", "#!lua flags=no-writes\nreturn redis.call('set', 'k', 'y')", "0"),
    ("EVAL", "#!lua\nreturn redis.call('set', 'k', 'y')", "0"),
    ("EVAL_RO", "#!lua\nreturn 1", "0"),
    ("EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0"),
    ("EVAL", "#!lua flags=no-writes,allow-oom\nreturn 1", "0"),
    ("EVAL", "#!lua flags=allow-stale,no-cluster,allow-cross-slot-keys\nreturn 1", "0"),
    ("EVAL", "#!lua flags=bad\nreturn 1", "0"), ("EVAL", "#!lua flags=\nreturn 1", "0"),
    ("EVAL", "#!lua flags=no-writes,,allow-oom\nreturn 1", "0"),
    ("EVAL", "#!luajit\nreturn 1", "0"), ("EVAL", "#!lua x=y\nreturn 1", "0"),
    ("EVAL", "#!lua", "0"), ("EVAL", "#! lua\nreturn 1", "0"),
    ("EVAL", "#!lua\nreturn 1 +", "0"), ("EVAL", "#!lua\n\nerror('line 3')", "0"),
    ("EVAL", "# a comment line\nreturn 1", "0"),
    ("SCRIPT", "LOAD", "#!lua flags=no-writes\nreturn 5"),
    ("SCRIPT", "LOAD", "#!lua flags=nope\nreturn 5"),
]

# Scripts as applications write them.
RATE_LIMITER = """
local current = redis.call('INCR', KEYS[1])
if current == 1 then
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
if current > tonumber(ARGV[2]) then
    return {0, redis.call('PTTL', KEYS[1]) > 0 and 1 or 0}
end
return {1, tonumber(ARGV[2]) - current}
"""

LOCK_RELEASE = """
if redis.call("get", KEYS[1]) == ARGV[1] then
    return redis.call("del", KEYS[1])
else
    return 0
end
"""

CAS = """
local v = redis.call('HGET', KEYS[1], 'version')
if v == false or tonumber(v) == tonumber(ARGV[1]) then
    redis.call('HSET', KEYS[1], 'version', tonumber(ARGV[1]) + 1, 'data', ARGV[2])
    return redis.status_reply('OK')
end
return redis.error_reply('CONFLICT version is ' .. v)
"""

QUEUE_MOVE = """
local job = redis.call('RPOPLPUSH', KEYS[1], KEYS[2])
if not job then return nil end
redis.call('ZADD', KEYS[3], ARGV[1], job)
return {job, redis.call('LLEN', KEYS[1]), redis.call('ZCARD', KEYS[3])}
"""

APPS = [
    ev(RATE_LIMITER, "rl", "100000", "3", numkeys=1),
    ev(RATE_LIMITER, "rl", "100000", "3", numkeys=1),
    ev(RATE_LIMITER, "rl", "100000", "3", numkeys=1),
    ev(RATE_LIMITER, "rl", "100000", "3", numkeys=1),
    Step("PTTL", "rl", norm=lambda raw: int(h.decode_one(raw)) > 99000,
         why="the TTL left depends on timing"),
    "SET lock token-1 PX 100000",
    ev(LOCK_RELEASE, "lock", "token-2", numkeys=1), "GET lock",
    ev(LOCK_RELEASE, "lock", "token-1", numkeys=1), "GET lock",
    ev(LOCK_RELEASE, "lock", "token-1", numkeys=1),
    ev(CAS, "doc", "0", "first", numkeys=1), ev(CAS, "doc", "0", "again", numkeys=1),
    ev(CAS, "doc", "1", "second", numkeys=1), "HGETALL doc",
    "RPUSH wait j1 j2 j3", ev(QUEUE_MOVE, "wait", "active", "started", "17", numkeys=3),
    ev(QUEUE_MOVE, "wait", "active", "started", "18", numkeys=3),
    "LRANGE active 0 -1", "ZRANGE started 0 -1 WITHSCORES",
    ev(QUEUE_MOVE, "empty", "active", "started", "1", numkeys=3),
    ("SCRIPT", "LOAD", LOCK_RELEASE), "SET lock t",
    ("EVALSHA", "a" * 40, "1", "lock", "t"),
]


LIB = ("#!lua name=mylib\n"
       "redis.register_function('echo_kv', function(keys, args) return {keys[1], args[1]} end)\n"
       "redis.register_function{function_name='setter', callback=function(keys, args) "
       "return redis.call('set', keys[1], args[1]) end, flags={'allow-oom'}, "
       "description='sets a key'}\n"
       "redis.register_function{function_name='reader', callback=function(keys) "
       "return redis.call('get', keys[1]) end, flags={'no-writes'}}\n")

WHY_LIST = "Redis lists a library's functions in its hash table's order; compared sorted"


def list_norm(raw):
    libs = h.decode_one(raw)
    if not isinstance(libs, list):
        return libs
    out = []
    for lib in libs:
        lib = list(lib)
        i = lib.index(b"functions")
        lib[i + 1] = sorted(repr(f) for f in lib[i + 1])
        out.append(repr(lib))
    return sorted(out)


def listing(*args):
    return Step("FUNCTION", "LIST", *args, norm=list_norm, why=WHY_LIST)


FUNCTIONS = [
    ("FUNCTION", "FLUSH"), ("FUNCTION", "LOAD", LIB), ("FCALL", "echo_kv", "1", "k", "v"),
    ("FCALL", "setter", "1", "k", "v"), ("FCALL", "reader", "1", "k"),
    ("FCALL_RO", "reader", "1", "k"), ("FCALL_RO", "setter", "1", "k", "v"),
    ("FCALL", "nosuch", "0"), ("FCALL", "echo_kv", "x"), ("FCALL", "echo_kv", "3", "a"),
    ("FCALL", "echo_kv", "-1"), listing(), listing("WITHCODE"),
    listing("LIBRARYNAME", "my*"), ("FUNCTION", "LIST", "LIBRARYNAME", "no*"),
    ("FUNCTION", "LIST", "LIBRARYNAME"), ("FUNCTION", "LIST", "BAD"),
    ("FUNCTION", "LOAD", LIB), ("FUNCTION", "LOAD", "REPLACE", LIB),
    ("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('echo_kv', "
                         "function() return 1 end)"),
    ("FUNCTION", "LOAD", "#!lua name=other\nreturn 1"),
    ("FUNCTION", "LOAD", "#!lua name=other\nreturn 1 +"),
    ("FUNCTION", "LOAD", "#!lua name=other\nerror('x')"),
    ("FUNCTION", "LOAD", "#!lua name=other\nredis.call('ping')"),
    ("FUNCTION", "LOAD", "#!lua name=other\nx = 1"),
    ("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('f')"),
    ("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function(1, 2, 3)"),
    ("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('a-b', function() end)"),
    ("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function('f', function() end) "
                         "redis.register_function('f', function() end)"),
    ("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function{function_name='f'}"),
    ("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function{callback=function() end}"),
    ("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function{function_name='f', "
                         "callback=function() end, flags={'nope'}}"),
    ("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function{function_name='f', "
                         "callback=function() end, what=1}"),
    ("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function{function_name='f', "
                         "callback=function() end, flags='no-writes'}"),
    ("FUNCTION", "LOAD", "#!lua name=other\nredis.register_function{function_name=1, "
                         "callback=2}"),
    ("FUNCTION", "LOAD", "#!lua name=bad-name\nreturn 1"), ("FUNCTION", "LOAD", "#!lua\n"),
    ("FUNCTION", "LOAD", "#!lua name=a name=b\n"), ("FUNCTION", "LOAD", "#!lua x=y\n"),
    ("FUNCTION", "LOAD", "#!js name=a\n"), ("FUNCTION", "LOAD", "no metadata"),
    ("FUNCTION", "LOAD", "#!lua name=a"), ("FUNCTION", "LOAD", "BAD", "code"),
    ("FUNCTION", "LOAD"), ("FUNCTION", "STATS"), ("FUNCTION", "KILL"),
    ("FUNCTION", "DELETE", "nosuch"), ("FUNCTION", "DELETE", "mylib"),
    ("FCALL", "echo_kv", "0"), ("FUNCTION", "LIST"),
    ("FUNCTION", "LOAD", "#!lua name=errs\nredis.register_function('boom', function() "
                         "error('x') end) redis.register_function('glob', function() y = 1 "
                         "end) redis.register_function('tab', function() "
                         "return redis.call('nosuch') end)"),
    ("FCALL", "boom", "0"), ("FCALL", "glob", "0"), ("FCALL", "tab", "0"),
    ("FUNCTION", "FLUSH", "BAD"), ("FUNCTION", "FLUSH", "SYNC"), ("FUNCTION", "LIST"),
    ("FUNCTION", "HELP"), ("FUNCTION", "NOSUCH"), ("FUNCTION",),
    ("SCRIPT", "FLUSH"), ("FUNCTION", "LOAD", LIB), ("SCRIPT", "FLUSH"),
    ("FCALL", "echo_kv", "1", "still", "here"), ("FUNCTION", "FLUSH"),
]


@pytest.mark.parametrize("name", ["conversions", "resp3_in_script", "errors", "redis_api",
                                  "protection", "libraries", "script_cache", "shebang_and_ro",
                                  "apps", "functions"])
def test_sequence(diff, name):
    steps = {"conversions": CONVERSIONS, "resp3_in_script": RESP3_IN_SCRIPT,
             "errors": ERRORS, "redis_api": REDIS_API, "protection": PROTECTION,
             "libraries": LIBRARIES, "script_cache": SCRIPT_CACHE,
             "shebang_and_ro": SHEBANG_AND_RO, "apps": APPS, "functions": FUNCTIONS}[name]
    diff.run([("SCRIPT", "FLUSH")] + steps, title=name)


def test_command_table(diff):
    # The containers themselves are left out: Redis lists their subcommands in its hash
    # table's order.
    names = ["eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro", "script|load", "script|exists", "script|flush", "script|kill", "script|help",
             "function|load", "function|delete", "function|flush", "function|list",
             "function|kill", "function|stats", "function|help"]
    diff.run([("COMMAND", "INFO", n) for n in names] + [("COMMAND", "DOCS", n) for n in names] +
             [("COMMAND", "GETKEYS", "EVAL", "return 1", "2", "a", "b", "c"),
              ("COMMAND", "GETKEYS", "FCALL", "f", "1", "a", "b"),
              ("COMMAND", "GETKEYS", "EVALSHA", "x", "0", "a")],
             title="COMMAND on scripting commands")


def test_evalsha_of_app_script(diff):
    sha = h.decode_one(diff.replies([("SCRIPT", "LOAD", LOCK_RELEASE)])[1][0]).decode()
    diff.run([("SCRIPT", "LOAD", LOCK_RELEASE), "SET lock t",
              ("EVALSHA", sha, "1", "lock", "x"), ("EVALSHA", sha, "1", "lock", "t"),
              ("EVALSHA", sha, "1", "lock", "t"), ("EVALSHA_RO", sha, "1", "lock", "t")],
             title="EVALSHA after SCRIPT LOAD")


def test_resp3_caller(diff):
    hello = Step("HELLO", "3", norm=h.hello3_norm, why="id, version and server are per process")
    diff.run([hello] + RESP3_IN_SCRIPT + [
        ev("return false"), ev("return true"), ev("return nil"), ev("return {double=2.5}"),
        ev("return {map={a=1}}"), ev("return {set={b=true}}"), ev("return {big_number='1'}"),
        ev("return {verbatim_string={format='txt', string='x'}}"),
        ev("return redis.call('hgetall', 'h')"), ev("return redis.call('get', 'nokey')"),
        ev("return redis.call('zscore', 'z', 'a')"),
    ], title="a RESP3 caller")


def test_select_stays_in_script(diff):
    diff.run([
        "SET k zero", "SELECT 1", "SET k one",
        ev("redis.call('select', 0); return redis.call('get', 'k')"), "GET k",
        ev("return redis.call('get', 'k')"), "SELECT 0",
        ev("redis.call('select', 1); redis.call('set', 'k2', 'x'); return 1"), "GET k2",
        "SELECT 1", "GET k2",
    ], title="SELECT inside a script")


def test_in_multi(diff):
    diff.run([
        "MULTI", ev("return redis.call('set', 'a', '1')"), ev("return redis.call('incr', 'a')"),
        ev("return redis.call('blpop', 'nolist', 0)"), "EXEC",
        "MULTI", ("EVAL", "return 1"), "EXEC",
        "MULTI", ("SCRIPT", "LOAD", "return 9"), ("EVALSHA", "0" * 40, "0"), "EXEC",
    ], title="scripts inside MULTI")


def test_watch_dirtied_by_script(terse, oracle):
    script = [("a", "WATCH", "k"),
              ("b", "EVAL", "return redis.call('set', KEYS[1], 'v')", "1", "k"),
              ("a", "MULTI"), ("a", "GET", "k"), ("a", "EXEC"),
              ("a", "WATCH", "k"),
              ("b", "EVAL", "return redis.call('get', KEYS[1])", "1", "k"),
              ("a", "MULTI"), ("a", "GET", "k"), ("a", "EXEC")]
    h.compare_clients(terse, oracle, script)


def test_notifications_from_script(terse, oracle):
    for server in (terse, oracle):
        with server.raw() as c:
            assert c.call("CONFIG", "SET", "notify-keyspace-events", "KEA") == b"+OK\r\n"
    try:
        script = [("s", "SUBSCRIBE", "__keyevent@0__:set"),
                  ("s", "PSUBSCRIBE", "__keyspace@0__:*"),
                  ("w", "EVAL", "redis.call('set', 'k', 'v'); redis.call('del', 'k'); return 1",
                   "0"),
                  ("s<",), ("s<",), ("s<",), ("s<",)]
        h.compare_clients(terse, oracle, script)
    finally:
        for server in (terse, oracle):
            with server.raw() as c:
                c.call("CONFIG", "SET", "notify-keyspace-events", "")


def test_maxmemory_inside_scripts(pair):
    t, r, diff = pair()
    diff.run([
        "SET before v", "CONFIG SET maxmemory 1",
        ev("return redis.call('set', 'x', 'y')"), ev("return redis.pcall('set', 'x', 'y')"),
        ev("return redis.call('get', 'before')"), ev("return redis.call('del', 'before')"),
        ev("redis.call('del', 'nokey'); return redis.call('set', 'x', 'y')"),
        ("EVAL", "#!lua\nreturn redis.call('get', 'before')", "0"),
        ("EVAL", "#!lua flags=no-writes\nreturn redis.call('get', 'before')", "0"),
        ("EVAL", "#!lua flags=allow-oom\nreturn redis.call('set', 'x', 'y')", "0"),
        ("EVAL_RO", "return redis.call('get', 'x')", "0"),
        "CONFIG SET maxmemory 0", ev("return redis.call('set', 'x', 'z')"),
    ], title="maxmemory")


def test_every_resp_type_into_scripts(pair):
    """DEBUG PROTOCOL inside scripts: every RESP type a command can reply, read into Lua and
    back, for each script protocol and each caller protocol (Redis's own test of it)."""
    t, r, diff = pair(extra=["--enable-debug-command", "yes"])
    types = ["string", "integer", "double", "bignum", "null", "array", "set", "map", "attrib",
             "true", "false", "verbatim", "push", "nosuch"]
    steps = []
    for caller in ("2", "3"):
        steps.append(Step("HELLO", caller, norm=h.hello3_norm if caller == "3" else len,
                          why="id, version and server are per process"))
        for resp in ("2", "3"):
            for typ in types:
                steps.append(ev("redis.setresp(%s); return redis.call('debug', 'protocol', '%s')"
                                % (resp, typ)))
    steps += ["DEBUG SET-DISABLE-DENY-SCRIPTS 1", ev("return redis.call('multi')"),
              ev("return redis.call('exec')"), "DEBUG SET-DISABLE-DENY-SCRIPTS 0",
              ev("return redis.call('multi')"),
              # A script refused midway keeps the write it made before the refusal. (An
              # expiry of 1 ms here would make the EXISTS below a race on both servers.)
              "SET key value", ev("redis.call('SET', 'key', 'value2', 'PX', '100000') "
                                  "redis.call('DEBUG', 'SLEEP', 0.01) "
                                  "return redis.call('EXISTS', 'key')"), "GET key"]
    diff.run(steps, title="DEBUG PROTOCOL in scripts")


def test_errorstats_of_scripts(pair):
    t, r, diff = pair()

    def errorstats(raw):
        text = h.decode_one(raw).decode()
        return sorted(line for line in text.split("\r\n") if line.startswith("errorstat_"))
    diff.run([
        "CONFIG RESETSTAT", ev("return redis.call('nosuch')"), ev("return redis.pcall('nosuch')"),
        "SET s v", ev("return redis.call('incr', 's')"), ev("error('x')"),
        ev("return redis.error_reply('MINE x')"), ev("return 1 +"),
        Step("INFO", "errorstats", norm=errorstats, why="INFO carries other sections' text"),
    ], title="errorstats")


# ---- the write feed --------------------------------------------------------------------------

def read_stream_after_sync(master, c):
    deadline = time.monotonic() + 10
    c.send(b"SYNC\r\n")
    while b"\r\n" not in c.buf.lstrip(b"\n"):
        c._fill(deadline)
    c.buf = c.buf.lstrip(b"\n")
    size = int(c.buf[1:c.buf.index(b"\r\n")])
    c.buf = c.buf[c.buf.index(b"\r\n") + 2:]
    while len(c.buf) < size:
        c._fill(deadline)
    c.buf = c.buf[size:]


def test_feed_carries_the_script_effects(spawn):
    master = spawn("terse")
    t = master.client()
    t.config_set("repl-ping-replica-period", 3600)
    with h.RawConn(master.port) as c:
        read_stream_after_sync(master, c)
        t.eval("return redis.call('get', 'nothing')", 0)                  # a read: nothing
        t.eval("return redis.call('set', KEYS[1], 'v1')", 1, "one")        # one write: alone
        t.eval("redis.call('set', 'a', '1'); redis.call('incr', 'a'); "
               "redis.call('select', 3); redis.call('set', 'b', '2'); return 1", 0)
        t.eval("redis.set_repl(redis.REPL_NONE); redis.call('set', 'hidden', '1'); return 1", 0)
        t.eval("redis.call('set', 'c', '3'); redis.set_repl(redis.REPL_NONE); "
               "redis.call('set', 'hidden2', '1'); return 1", 0)
        t.eval("return redis.call('del', 'nokey')", 0)                     # changed nothing
        t.set("last", "x")
        # Each op as the script called it (Redis propagates the script client's argv).
        want = [[b"SELECT", b"0"], [b"set", b"one", b"v1"],
                [b"MULTI"], [b"set", b"a", b"1"], [b"incr", b"a"], [b"SELECT", b"3"],
                [b"set", b"b", b"2"], [b"EXEC"],
                [b"SELECT", b"0"], [b"set", b"c", b"3"], [b"SET", b"last", b"x"]]
        got = [h.decode_one(c.read_reply()) for _ in want]
        assert got == want


def test_replica_follows_scripts(spawn):
    master = spawn("terse")
    t = master.client()
    replica = spawn("redis", ["--replicaof", "127.0.0.1", str(master.port)])
    r = replica.client()
    deadline = time.monotonic() + 20
    while r.info("replication").get("master_link_status") != "up":
        assert time.monotonic() < deadline, "the replica never came up"
        time.sleep(0.05)
    t.eval(RATE_LIMITER, 1, "rl", 100000, 3)
    t.eval("for i = 1, 50 do redis.call('rpush', 'l', i) end; "
           "redis.call('hset', 'h', 'f', redis.call('llen', 'l')); return 1", 0)
    t.eval("redis.call('set', 'r', math.random(1000)); return 1", 0)
    t.set("done", 1)
    want = t.info("replication")["master_repl_offset"]
    while r.info("replication").get("slave_repl_offset", -1) < want:
        assert time.monotonic() < deadline, "the replica did not catch up"
        time.sleep(0.05)
    for key in ("rl", "l", "h", "r", "done"):
        assert t.dump(key) is not None
    assert r.get("rl") == t.get("rl") and r.pttl("rl") > 0
    assert r.lrange("l", 0, -1) == t.lrange("l", 0, -1)
    assert r.hgetall("h") == t.hgetall("h") == {b"f": b"50"}
    assert r.get("r") == t.get("r")


def test_function_busy_and_kill(pair):
    t, r, _ = pair(extra=["--busy-reply-threshold", "200"])
    lib = "#!lua name=slow\nredis.register_function('spin', function() " + LOOP + " end)"
    script = [("c", "FUNCTION", "LOAD", lib), ("a>", "FCALL", "spin", "0"), ("sleep", 0.5),
              ("b", "PING"), ("b", "SCRIPT", "KILL"), ("b", "FUNCTION", "STATS"),
              ("b", "FUNCTION", "KILL"), ("a<",), ("b", "FUNCTION", "KILL"),
              ("a", "PING")]

    def stats_norm(raw):
        return busy_norm(raw).split(b"duration_ms")[0]
    h.compare_clients(t, r, script, norm=stats_norm)


# ---- a long script: -BUSY, SCRIPT KILL, UNKILLABLE --------------------------------------------

LOOP = "local i = 0 while true do i = i + 1 end"
WRITE_THEN_LOOP = ("redis.call('set', 'w', '1') local t0 = tonumber(redis.call('time')[1]) "
                   "while tonumber(redis.call('time')[1]) - t0 < 2 do end return 'done'")


def busy_norm(raw):
    """The sha of a script shows in its error; both servers hash the same body, so the bytes
    compare as they are, but a killed script's line may differ: keep the text before it."""
    return raw.split(b" script: ")[0]


def test_busy_and_script_kill(pair):
    t, r, _ = pair(extra=["--busy-reply-threshold", "200"])
    script = [("a>", "EVAL", LOOP, "0"), ("sleep", 0.5),
              ("b", "PING"), ("b", "GET", "k"), ("b", "SET", "k", "v"),
              ("b", "MULTI"), ("b", "GET", "k"), ("b", "DISCARD"),
              ("b", "SCRIPT", "KILL"), ("a<",), ("b", "SCRIPT", "KILL"), ("b", "PING"),
              ("a", "PING")]
    h.compare_clients(t, r, script, norm=busy_norm)


def test_unkillable_script(pair):
    t, r, _ = pair(extra=["--busy-reply-threshold", "200"])
    script = [("a>", "EVAL", WRITE_THEN_LOOP, "0"), ("sleep", 0.6),
              ("b", "SCRIPT", "KILL"), ("b", "GET", "w"), ("a<",), ("b", "GET", "w"),
              ("b", "SCRIPT", "KILL")]
    h.compare_clients(t, r, script)


def test_busy_new_connection_and_config(pair):
    t, r, _ = pair(extra=["--lua-time-limit", "200"])
    script = [("a>", "EVAL", LOOP, "0"), ("sleep", 0.5), ("c", "PING"), ("c", "INFO"),
              ("b", "SCRIPT", "KILL"), ("a<",), ("c", "CONFIG", "GET", "busy-reply-threshold"),
              ("c", "CONFIG", "GET", "lua-time-limit")]
    h.compare_clients(t, r, script, norm=busy_norm)


def test_warm_scripts_allocate_nothing(terse):
    """EVALSHA and EVAL of scripts calling commands, warm: the script client's reply buffer
    and argument array are kept, so terse's allocator is not called (Lua's own heap is the
    libc allocator's, outside terse's accounting, as in Redis)."""
    if h.is_redis(terse.binary):
        pytest.skip("counts terse's allocator")
    body = ("redis.call('set', KEYS[1], ARGV[1]) local v = redis.call('get', KEYS[1]) "
            "redis.call('incrby', KEYS[2], 0) return {v, redis.call('exists', KEYS[1], KEYS[2])}")
    with h.RawConn(terse.port) as c:
        sha = h.decode_one(c.call("SCRIPT", "LOAD", body))
        batch = b"".join([h.encode("EVALSHA", sha, "2", "k%d" % i, "n%d" % i, "v" * 20)
                          for i in range(20)] +
                         [h.encode("EVAL", body, "2", "e%d" % i, "m%d" % i, "w") for i in range(5)])
        ah.send_rounds(c, batch, 25, 5, {})
        ah.info_alloc_counts(c)  # INFO's own buffer, warm too
        ah.assert_rounds_allocate_nothing(c, "warm EVALSHA/EVAL loop", batch, 25,
                                         {0: b"*2\r\n$20\r\n" + b"v" * 20 + b"\r\n:2\r\n"})
