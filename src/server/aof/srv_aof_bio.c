/*
 * srv_aof_bio: the AOF's background fsync thread, as Redis's bio does for appendfsync
 * everysec: fsync(2) of a file that takes writes can block for a long time (the disk flushes
 * everything queued), so the event loop never calls it there; it queues a job and goes on.
 * A job is fsync(fd), or fsync(fd) then close(fd) (an incr file replaced by a rewrite: the
 * close of a file with dirty pages can block too).
 *
 * The ring of jobs, busy and stop are guarded by mu; the thread sleeps on cv. A full ring
 * (SRV_AOF_BIO_JOBS jobs: a disk far behind) makes the caller run the job itself: slow, never
 * lost. Nothing here allocates.
 *
 * A failed fsync of the file being appended is Redis's aof_bio_fsync_status: its errno goes
 * to err (logged when it was 0), and the next fsync that succeeds clears it; the loop reads it
 * (srv_aof.c) and refuses writes with -MISCONF meanwhile. EBADF and EINVAL are not failures
 * (the fd was closed, or is no file). The fsync before a close (an incr file a rewrite
 * replaced) is best effort and leaves err alone, as Redis's close job does.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "core/core_log.h"
#include "server/aof/srv_aof_bio.h"

/* One job, on the thread or in the caller's when the ring is full. */
static void run_job(struct srv_aof_bio *b, int fd, int close_after)
{
    int rc = fdatasync(fd);
    int e = rc != 0 ? errno : 0;

    if (close_after) {
        close(fd);
        return;
    }
    if (e == EBADF || e == EINVAL) {
        return;
    }
    if (e != 0 && atomic_exchange(&b->err, e) == 0) {
        core_log(CORE_LOG_WARNING, "Fail to fsync the AOF file: %s", strerror(e));
    } else if (e == 0) {
        atomic_store(&b->err, 0);
    }
}

static void *bio_main(void *arg)
{
    struct srv_aof_bio *b = arg;

    pthread_mutex_lock(&b->mu);
    for (;;) {
        while (b->n == 0 && !b->stop) {
            pthread_cond_wait(&b->cv, &b->mu);
        }
        if (b->n == 0 && b->stop) {
            break;
        }
        int fd = b->job[b->head].fd, close_after = b->job[b->head].close;
        b->head = (b->head + 1) % SRV_AOF_BIO_JOBS;
        b->n--;
        b->busy = 1;
        pthread_mutex_unlock(&b->mu);
        run_job(b, fd, close_after);
        pthread_mutex_lock(&b->mu);
        b->busy = 0;
        pthread_cond_broadcast(&b->cv);
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

int srv_aof_bio_start(struct srv_aof_bio *b)
{
    if (b->started) {
        return 0;
    }
    b->head = b->n = 0;
    b->busy = b->stop = 0;
    if (pthread_mutex_init(&b->mu, NULL) != 0) {
        return -1;
    }
    if (pthread_cond_init(&b->cv, NULL) != 0) {
        pthread_mutex_destroy(&b->mu);
        return -1;
    }
    if (pthread_create(&b->thread, NULL, bio_main, b) != 0) {
        pthread_cond_destroy(&b->cv);
        pthread_mutex_destroy(&b->mu);
        return -1;
    }
    b->started = 1;
    return 0;
}

void srv_aof_bio_stop(struct srv_aof_bio *b)
{
    if (!b->started) {
        return;
    }
    pthread_mutex_lock(&b->mu);
    b->stop = 1;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    pthread_join(b->thread, NULL); /* it runs what is queued first */
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
    b->started = 0;
}

void srv_aof_bio_fsync(struct srv_aof_bio *b, int fd, int close_after)
{
    if (b->started) {
        pthread_mutex_lock(&b->mu);
        if (b->n < SRV_AOF_BIO_JOBS) {
            size_t i = (b->head + b->n) % SRV_AOF_BIO_JOBS;
            b->job[i].fd = fd;
            b->job[i].close = close_after;
            b->n++;
            pthread_cond_signal(&b->cv);
            pthread_mutex_unlock(&b->mu);
            return;
        }
        pthread_mutex_unlock(&b->mu);
    }
    run_job(b, fd, close_after);
}

size_t srv_aof_bio_pending(struct srv_aof_bio *b)
{
    size_t n;

    if (!b->started) {
        return 0;
    }
    pthread_mutex_lock(&b->mu);
    n = b->n + (b->busy ? 1u : 0u);
    pthread_mutex_unlock(&b->mu);
    return n;
}

int srv_aof_bio_err(struct srv_aof_bio *b)
{
    return atomic_load_explicit(&b->err, memory_order_relaxed);
}

void srv_aof_bio_err_reset(struct srv_aof_bio *b)
{
    atomic_store(&b->err, 0);
}
