/*
 * core_time: see core_time.h.
 */
#include "core/core_time.h"

#include <time.h>

int64_t core_time_unix_ms(void)
{
    return core_time_unix_us() / 1000;
}

uint64_t core_time_mono_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}
