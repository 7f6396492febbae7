"""SORT and SORT_RO against redis-server: numbers, ALPHA, DESC, LIMIT, BY and GET patterns
(strings, hash fields, "#", no '*'), STORE (replacing, deleting, dropping the expiry), lists,
sets and sorted sets, the errors, and COMMAND GETKEYS."""

from terse_harness import Step


def test_sort_as_redis(diff):
    diff.run([
        Step("RPUSH", "l", "3", "1", "2", "10", "-5", "1.5"),
        Step("SORT", "l"), Step("SORT", "l", "DESC"), Step("SORT", "l", "ALPHA"),
        Step("SORT", "l", "ALPHA", "DESC"), Step("SORT", "l", "LIMIT", "1", "2"),
        Step("SORT", "l", "LIMIT", "-1", "-1"), Step("SORT", "l", "LIMIT", "10", "5"),
        Step("SORT", "l", "LIMIT", "0", "0"), Step("SORT", "l", "DESC", "LIMIT", "2", "100"),
        Step("SORT", "l", "LIMIT", "2", "9223372036854775807"),
        Step("SORT", "l", "LIMIT", "9223372036854775807", "9223372036854775807"),
        Step("SORT", "l", "LIMIT", "-9223372036854775808", "-9223372036854775808"),
        Step("MSET", "w_3", "30", "w_1", "10", "w_2", "5", "w_10", "1", "w_-5", "100"),
        Step("SORT", "l", "BY", "w_*"), Step("SORT", "l", "BY", "w_*", "GET", "#", "GET", "w_*"),
        Step("SORT", "l", "BY", "nosort"), Step("SORT", "l", "BY", "nosort", "DESC"),
        Step("SORT", "l", "BY", "nosort", "LIMIT", "1", "2"),
        Step("HSET", "o_3", "name", "three"), Step("HSET", "o_1", "name", "one"),
        Step("SORT", "l", "GET", "o_*->name", "GET", "#"),
        Step("SORT", "l", "BY", "o_*->name", "ALPHA"),
        Step("SORT", "l", "BY", "o_*->name"),
        Step("SORT", "l", "GET", "o_*->", "GET", "nopattern"),
        Step("SADD", "s", "b", "a", "c"), Step("SORT", "s", "ALPHA"),
        Step("SET", "dst", "old"), Step("EXPIRE", "dst", "100"),
        Step("SORT", "s", "ALPHA", "STORE", "dst"), Step("LRANGE", "dst", "0", "-1"),
        Step("TTL", "dst"), Step("SORT", "s"),
        Step("SORT", "s", "BY", "nosort", "STORE", "k2"), Step("LRANGE", "k2", "0", "-1"),
        Step("SADD", "is", "30", "-2", "7"), Step("SORT", "is", "BY", "nosort"),
        Step("ZADD", "z", "1", "x", "2", "y", "3", "z"), Step("SORT", "z", "BY", "nosort"),
        Step("SORT", "z", "BY", "nosort", "DESC", "LIMIT", "0", "2"),
        Step("SORT", "z", "ALPHA", "DESC"), Step("SORT", "z"),
        Step("SORT", "l", "BY", "w_*", "STORE", "st", "GET", "missing_*"),
        Step("LRANGE", "st", "0", "-1"),
        Step("SORT", "none"), Step("SORT", "none", "STORE", "dst"), Step("EXISTS", "dst"),
        Step("RPUSH", "e", "", "5", "-0", "1e2"), Step("SORT", "e"),
        Step("RPUSH", "f", " 3", "0x10", "inf", "-inf"), Step("SORT", "f"),
        Step("SORT_RO", "l", "DESC"), Step("SORT_RO", "l", "BY", "w_*", "GET", "#"),
    ])


def test_sort_errors(diff):
    diff.run([
        Step("RPUSH", "l", "3", "x"), Step("SORT", "l"), Step("SORT", "l", "ALPHA"),
        Step("RPUSH", "big", "1e400"), Step("SORT", "big"), Step("RPUSH", "nan", "nan"),
        Step("SORT", "nan"), Step("SET", "str", "x"), Step("SORT", "str"),
        Step("HSET", "h", "f", "v"), Step("SORT", "h"), Step("SORT", "l", "LIMIT", "a", "b"),
        Step("SORT", "l", "LIMIT", "1"), Step("SORT", "l", "FOO"), Step("SORT", "l", "BY"),
        Step("SORT", "l", "STORE"), Step("SORT_RO", "l", "STORE", "x"), Step("SORT"),
        Step("SORT", "str", "FOO"),
    ])


def test_sort_getkeys(diff):
    diff.run([
        Step("COMMAND", "GETKEYS", "SORT", "abc", "STORE", "def"),
        Step("COMMAND", "GETKEYS", "SORT", "abc", "STORE", "invalid", "STORE", "stillbad",
             "STORE", "def"),
        Step("COMMAND", "GETKEYS", "SORT", "abc", "LIMIT", "0", "1", "GET", "store", "BY", "x"),
        Step("COMMAND", "GETKEYS", "SORT_RO", "abc"),
        Step("COMMAND", "INFO", "sort", "sort_ro"), Step("COMMAND", "DOCS", "sort"),
    ])
