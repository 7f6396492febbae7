/*
 * core_time: clocks. Wall clock for expiry times (unix ms, as Redis keys expire at absolute
 * times), monotonic clock for durations and budgets.
 */
#ifndef TERSE_CORE_TIME_H
#define TERSE_CORE_TIME_H

#include <stdint.h>

int64_t core_time_unix_ms(void);
int64_t core_time_unix_us(void);
uint64_t core_time_mono_us(void);

#endif /* TERSE_CORE_TIME_H */
