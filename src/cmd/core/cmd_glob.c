/*
 * cmd_glob: Redis's glob-style pattern matching (stringmatchlen), for KEYS, SCAN MATCH, HSCAN,
 * PSUBSCRIBE, CONFIG GET, COMMAND LIST FILTERBY PATTERN and CLIENT KILL.
 */
#include "cmd/core/cmd_glob.h"


#include <ctype.h>
#include <stddef.h>

/* ---- glob matching ----------------------------------------------------------------------- */

static int fold(int ch, int nocase)
{
    return nocase ? tolower(ch) : ch;
}

/*
 * Matches one pattern token at pat[*pi] against byte ch and advances *pi past the token.
 * Tokens: '?', '[...]' (with '^' negation, ranges, '\' escapes; an unterminated class runs
 * to the end of the pattern), '\x', or a literal byte.
 */
static int glob_token(const uint8_t *pat, size_t plen, size_t *pi, int ch, int nocase)
{
    size_t i = *pi;
    int match = 0, neg = 0;

    if (pat[i] == '?') {
        *pi = i + 1;
        return 1;
    }
    if (pat[i] == '\\' && i + 1 < plen) {
        *pi = i + 2;
        return fold(pat[i + 1], nocase) == fold(ch, nocase);
    }
    if (pat[i] != '[') {
        *pi = i + 1;
        return fold(pat[i], nocase) == fold(ch, nocase);
    }
    i++;
    if (i < plen && pat[i] == '^') {
        neg = 1;
        i++;
    }
    while (i < plen && pat[i] != ']') {
        if (pat[i] == '\\' && i + 1 < plen) {
            i++;
            if (pat[i] == ch) {
                match = 1;
            }
        } else if (i + 2 < plen && pat[i + 1] == '-') {
            int lo = fold(pat[i], nocase), hi = fold(pat[i + 2], nocase), x = fold(ch, nocase);
            if (lo > hi) {
                int t = lo;
                lo = hi;
                hi = t;
            }
            if (x >= lo && x <= hi) {
                match = 1;
            }
            i += 2;
        } else if (fold(pat[i], nocase) == fold(ch, nocase)) {
            match = 1;
        }
        i++;
    }
    *pi = i < plen ? i + 1 : i; /* past ']' */
    return neg ? !match : match;
}

/* Redis (7.0.15 as Debian ships it, with the fix for CVE-2024-31228) gives up on a match
 * once its recursion passes 1000 nested '*'. Every path through the pattern meets its star
 * groups in order, so the 1001st group is always reached at that depth: if a token that must
 * consume a byte follows it, Redis never matches. A trailing group matches without recursing. */
#define GLOB_MAX_NESTING 1000

static int glob_too_nested(const uint8_t *pat, size_t plen)
{
    size_t pi = 0, groups = 0;

    /* 1001 groups need 1001 '*' and 1001 separating or following tokens. */
    if (plen < 2 * (GLOB_MAX_NESTING + 1)) {
        return 0;
    }
    while (pi < plen) {
        if (pat[pi] == '*') {
            while (pi < plen && pat[pi] == '*') {
                pi++;
            }
            if (++groups > GLOB_MAX_NESTING) {
                return pi < plen;
            }
            continue;
        }
        glob_token(pat, plen, &pi, 0, 0);
    }
    return 0;
}

int cmd_glob_match(const uint8_t *pat, size_t plen, const uint8_t *s, size_t slen, int nocase)
{
    size_t pi = 0, si = 0;
    size_t star_p = SIZE_MAX, star_s = 0;

    if (glob_too_nested(pat, plen)) {
        return 0;
    }

    /* Greedy matching with one backtrack point: a later '*' supersedes an earlier one, so
     * this is exact for glob patterns and needs no recursion (no stack blow-up on "****"). */
    while (si < slen) {
        if (pi < plen && pat[pi] == '*') {
            while (pi < plen && pat[pi] == '*') {
                pi++;
            }
            if (pi == plen) {
                return 1;
            }
            star_p = pi;
            star_s = si;
            continue;
        }
        if (pi < plen) {
            size_t next = pi;
            if (glob_token(pat, plen, &next, s[si], nocase)) {
                pi = next;
                si++;
                continue;
            }
        }
        if (star_p == SIZE_MAX) {
            return 0;
        }
        pi = star_p;
        si = ++star_s;
    }
    while (pi < plen && pat[pi] == '*') {
        pi++;
    }
    return pi == plen;
}

