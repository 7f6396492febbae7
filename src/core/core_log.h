/*
 * core_log: the server log, in Redis's line format
 *   <pid>:M <day> <mon> <year> <hh:mm:ss.mmm> <level char> <message>
 * with level chars '.' debug, '-' verbose, '*' notice, '#' warning.
 *
 * Process-wide: set up once by main (core_log_setup) before any thread starts and torn down
 * last; the level may change at run time (CONFIG SET loglevel) from the owning thread.
 */
#ifndef TERSE_CORE_LOG_H
#define TERSE_CORE_LOG_H

enum core_log_level {
    CORE_LOG_DEBUG = 0,
    CORE_LOG_VERBOSE = 1,
    CORE_LOG_NOTICE = 2,
    CORE_LOG_WARNING = 3
};

/* path NULL or "" logs to stdout. Returns TERSE_OK or TERSE_EIO (file cannot be opened). */
int core_log_setup(const char *path, enum core_log_level level);
void core_log_teardown(void);
void core_log_set_level(enum core_log_level level);
void core_log(enum core_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* TERSE_CORE_LOG_H */
