/*
 * core_log: see core_log.h. One write(2) per line so concurrent lines never interleave.
 */
#include "core/core_log.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "terse/status.h"

/* Process-wide logger state, written only by setup/teardown/set_level (see header). */
static int log_fd = STDOUT_FILENO;
static enum core_log_level log_level = CORE_LOG_NOTICE;

int core_log_setup(const char *path, enum core_log_level level)
{
    log_level = level;
    if (path == NULL || path[0] == '\0') {
        log_fd = STDOUT_FILENO;
        return TERSE_OK;
    }
    log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
        log_fd = STDOUT_FILENO;
        return TERSE_EIO;
    }
    return TERSE_OK;
}

void core_log_teardown(void)
{
    if (log_fd != STDOUT_FILENO) {
        close(log_fd);
    }
    log_fd = STDOUT_FILENO;
}

void core_log_set_level(enum core_log_level level)
{
    log_level = level;
}

void core_log(enum core_log_level level, const char *fmt, ...)
{
    static const char marks[] = ".-*#";
    char line[1024];
    struct timeval tv;
    struct tm tm;
    va_list ap;
    int n, m;

    if (level < log_level) {
        return;
    }
    gettimeofday(&tv, NULL);
    localtime_r(&tv.tv_sec, &tm);
    n = snprintf(line, sizeof(line), "%ld:M ", (long)getpid());
    n += (int)strftime(line + n, sizeof(line) - (size_t)n, "%d %b %Y %H:%M:%S", &tm);
    n += snprintf(line + n, sizeof(line) - (size_t)n, ".%03d %c ", (int)(tv.tv_usec / 1000),
                  marks[level]);
    va_start(ap, fmt);
    m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0) {
        m = 0;
    }
    n += m;
    if ((size_t)n > sizeof(line) - 2) {
        n = (int)sizeof(line) - 2;
    }
    line[n++] = '\n';
    if (write(log_fd, line, (size_t)n) < 0) {
        /* Nowhere left to report a failing log; drop the line. */
    }
}
