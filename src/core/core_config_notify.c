/*
 * core_config_notify: the letters of notify-keyspace-events, as Redis 7.0's notify.c reads
 * and writes them. Each letter is one bit (CORE_NOTIFY_*, core_config.h); "A" stands for
 * every class but key-miss (m) and new-key (n). Parsing accepts letters in any order and
 * repeated; formatting gives the one canonical spelling CONFIG GET shows.
 */
#include "core/core_config.h"

#include <stdbool.h>
#include <stddef.h>

/* The class letters in formatting order, then the channel kinds and m, which follow them. */
static const struct {
    char letter;
    int bit;
} classes[] = {
    {'g', CORE_NOTIFY_GENERIC}, {'$', CORE_NOTIFY_STRING},  {'l', CORE_NOTIFY_LIST},
    {'s', CORE_NOTIFY_SET},     {'h', CORE_NOTIFY_HASH},    {'z', CORE_NOTIFY_ZSET},
    {'x', CORE_NOTIFY_EXPIRED}, {'e', CORE_NOTIFY_EVICTED}, {'t', CORE_NOTIFY_STREAM},
    {'d', CORE_NOTIFY_MODULE},  {'n', CORE_NOTIFY_NEW},
}, trailers[] = {
    {'K', CORE_NOTIFY_KEYSPACE}, {'E', CORE_NOTIFY_KEYEVENT}, {'m', CORE_NOTIFY_KEY_MISS},
};

#define N_CLASSES (sizeof classes / sizeof classes[0])
#define N_TRAILERS (sizeof trailers / sizeof trailers[0])

static int letter_bit(char ch)
{
    if (ch == 'A') {
        return CORE_NOTIFY_ALL;
    }
    for (size_t i = 0; i < N_CLASSES; i++) {
        if (classes[i].letter == ch) {
            return classes[i].bit;
        }
    }
    for (size_t i = 0; i < N_TRAILERS; i++) {
        if (trailers[i].letter == ch) {
            return trailers[i].bit;
        }
    }
    return 0;
}

bool core_config_notify_parse(const char *text, int *flags)
{
    int f = 0;

    for (const char *p = text; *p != '\0'; p++) {
        int bit = letter_bit(*p);
        if (bit == 0) {
            return false;
        }
        f |= bit;
    }
    *flags = f;
    return true;
}

void core_config_notify_format(int flags, char *buf)
{
    size_t n = 0;

    if ((flags & CORE_NOTIFY_ALL) == CORE_NOTIFY_ALL) {
        buf[n++] = 'A';
        /* n is no part of A: Redis then drops it from the text too. */
    } else {
        for (size_t i = 0; i < N_CLASSES; i++) {
            if (flags & classes[i].bit) {
                buf[n++] = classes[i].letter;
            }
        }
    }
    for (size_t i = 0; i < N_TRAILERS; i++) {
        if (flags & trailers[i].bit) {
            buf[n++] = trailers[i].letter;
        }
    }
    buf[n] = '\0';
}
