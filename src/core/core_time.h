/*
 * core_time: clocks. Wall clock for expiry times (unix ms, as Redis keys expire at absolute
 * times), monotonic clock for durations and budgets.
 */
#ifndef TERSE_CORE_TIME_H
#define TERSE_CORE_TIME_H

#include <stdint.h>
#include <time.h>

/* Inline: the loop reads it twice a command (its clock and its timing, INFO commandstats). */
static inline int64_t core_time_unix_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
int64_t core_time_unix_ms(void);
uint64_t core_time_mono_us(void);

#endif /* TERSE_CORE_TIME_H */
