/*
 * hostile.h - what every hostile test bot shares: a well-behaved prefix.
 *
 * Each program first answers "0" to GOOD request lines, as an honest bot would, and
 * only then misbehaves, so that the referee judges the misbehaviour under the
 * per-decision limit rather than the startup allowance.  GOOD is the program's last
 * numeric argument where it takes one (default 1).
 *
 * These programs are test fixtures for tests/test_hostile.py.  Each is bounded in what
 * it does to the machine (the fork bomb forks at most 200 children, the memory hogs
 * stay under 1 GiB) because the suite runs as root, where RLIMIT_NPROC does not apply.
 */
#ifndef HOSTILE_H
#define HOSTILE_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* Read one request line from stdin (unbuffered, so nothing is read ahead of it).
 * Exits quietly on EOF: the referee closed the match. */
static inline void next_request(void)
{
    char c;
    for (;;) {
        ssize_t n = read(0, &c, 1);
        if (n == 1 && c == '\n')
            return;
        if (n == 0 || (n < 0 && errno != EINTR))
            exit(0);
    }
}

/* Write all of buf to fd, bypassing stdio (so nothing waits in a buffer). */
static inline void write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            exit(1);
        }
        buf += n;
        len -= (size_t)n;
    }
}

static inline void answer(void) { write_all(1, "0\n", 2); }

/* Answer the first `good` requests like an honest bot. */
static inline void behave(int good)
{
    for (int i = 0; i < good; i++) {
        next_request();
        answer();
    }
}

/* GOOD from argv[index] when given, else 1. */
static inline int good_arg(int argc, char **argv, int index)
{
    return argc > index ? atoi(argv[index]) : 1;
}

/* Seconds on the monotonic clock. */
static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleep ms milliseconds, resuming after signals. */
static inline void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

/* Answer now, then every request, as an honest bot would (exits on EOF). */
static inline _Noreturn void answer_forever(void)
{
    for (;;) {
        answer();
        next_request();
    }
}

/* Block forever without using CPU. */
static inline _Noreturn void wait_forever(void)
{
    for (;;)
        pause();
}

/* Read /proc/PID/NAME into buf (NUL-terminated); the bytes read, or <= 0 if it could
 * not be read (the process is gone, or hidden from this one). */
static inline ssize_t read_proc(const char *pid, const char *name, char *buf, size_t size)
{
    char path[300];
    snprintf(path, sizeof path, "/proc/%s/%s", pid, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n > 0)
        buf[n] = '\0';
    return n;
}

#endif
