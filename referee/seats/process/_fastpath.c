/* The per-decision I/O fast path of the process seat, in C (referee.seats.process.fastpath
 * is its Python face: the contract in words, the counters' layout, the VERSION check).
 *
 * exchange(wfd, rfd, line, max_line, counters, wait_ns[, owed[, look_first]]) writes
 * `line` to the bot's stdin and reads its stdout without blocking: one read right after the write and, if
 * that finds nothing, one after yielding the core (sched_yield) and one more after
 * waiting at most `wait_ns` nanoseconds (ppoll) for the reply.  `counters` is a
 * writable int64 buffer, or None to keep no statistics (an information line's answer):
 * [0] answered requests, [1] latency sum (ns), [2] latency max (ns), [3] the first
 * answer's latency (ns, kept apart: it carries the bot's startup work), [4] the start
 * time (CLOCK_MONOTONIC ns) of this request.
 *
 * The yield and the short wait are for the usual miss: on one core the bot often has
 * not run yet when we read; handing it the core takes its reply a few µs later (the
 * yield: read_soon), where a fall-back to trio's wait_readable (epoll, the scheduler,
 * the wake-ups) costs ~40 µs.
 * It holds up the whole trio loop for at most `wait_ns` (the GIL is released
 * meanwhile): every other task waits that long at most.  A signal ends it at once
 * (EINTR): that is a miss like any other, and Python runs the handler as this returns.
 *
 * `owed` (default 0): `line` begins with that many information lines the bot answers
 * (held back to go with this request: one wake-up for all), whose answers come first
 * and are dropped.  `look_first` (default false): before writing, take what the bot's
 * stdout already holds, if anything, and then write nothing (the result (0, chunk)).
 *
 * Returns
 *   bytes          the reply without its newline: the whole line arrived alone (after
 *                  exactly `owed` whole answers), no longer than max_line; counters
 *                  [0]-[3] are updated.  The usual case.
 *   int n >= 0     n bytes of `line` were written (n == len(line): the reply is not
 *                  there yet, even after the short wait); nothing was read.  The caller
 *                  carries on from counters[4].
 *   int < 0        -errno: the write failed (EPIPE: the bot closed its stdin).
 *   (0, chunk)     look_first found `chunk` waiting: nothing was written.
 *   (n, chunk)     the whole line was written and the read gave `chunk`, which is not
 *                  `owed` answers and a single clean line (b"" for end of file or a read
 *                  error).
 *
 * Lines that start to arrive without their newline are read on until there are `owed`
 * + 1 newlines, within the same short wait (finish_lines).
 *
 * Python does everything else; it owns every decision about verdicts.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h> /* first: its pyconfig.h defines _GNU_SOURCE, which ppoll needs */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

enum { ANSWERED, LATENCY_SUM, LATENCY_MAX, FIRST_ANSWER, START, N_COUNTERS };

/* The most answers `owed` may count (MAX_OWED in the module: the caller's bound too). */
#define MAX_OWED 1024

static long long monotonic_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Wait at most wait_ns for fd to be readable (ready, closed or in error: the next read
 * says which).  The GIL goes meanwhile: another thread (trio's workers) may run; the
 * loop may not.  Returns ppoll's result: > 0 ready, 0 timed out, < 0 (EINTR) a signal. */
static int wait_readable(int fd, long long wait_ns) {
    struct pollfd pfd = {.fd = fd, .events = POLLIN, .revents = 0};
    struct timespec wait = {.tv_sec = (time_t)(wait_ns / 1000000000LL), .tv_nsec = (long)(wait_ns % 1000000000LL)};
    int ready;
    Py_BEGIN_ALLOW_THREADS
    ready = ppoll(&pfd, 1, &wait, NULL);
    Py_END_ALLOW_THREADS
    return ready;
}

/* Read what the bot's stdout holds now; if nothing, yield the core once and read again
 * (see below); if still nothing, wait for it at most wait_ns and read once more.
 * Returns read()'s result; errno is EAGAIN when nothing came in time (or a signal cut
 * the wait short).
 *
 * The yield: on one core the bot our write woke is runnable but often did not preempt
 * us (a third of an instant C bot's round trips here); sched_yield hands it the core
 * without a timer, where the ppoll's 1 ms timeout is a timer armed and cancelled,
 * which this VM pays dearly for (HZ 250: it is nearly always the earliest timer, so
 * the clock event device is reprogrammed).  A C parent's round trip with an instant
 * C bot: 8.0-8.5 us waiting by ppoll on a miss, 5.4-6.6 us yielding first (blocking
 * read: 5.4-6.4); after the yield the reply was there every time.  Beside a busy loop
 * on the same core: 14.4-14.5 against 13.2-13.6 us.  Where the bot runs on another
 * core the yield returns at once. */
static ssize_t read_soon(int fd, char *buf, size_t size, long long wait_ns) {
    ssize_t got = read(fd, buf, size);
    if (got >= 0 || errno != EAGAIN || wait_ns <= 0) return got;
    Py_BEGIN_ALLOW_THREADS /* the bot may run a whole time slice: other threads may too */
    sched_yield();
    Py_END_ALLOW_THREADS
    got = read(fd, buf, size);
    if (got >= 0 || errno != EAGAIN) return got;
    if (wait_readable(fd, wait_ns) <= 0) {
        errno = EAGAIN; /* timed out, or EINTR: a miss, and Python handles the signal */
        return -1;
    }
    return read(fd, buf, size);
}

static size_t count_lines(const char *buf, size_t len) {
    size_t n = 0;
    for (const char *p = buf, *end = buf + len; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++) n++;
    return n;
}

/* Fewer than `lines` whole lines came (a reply written in pieces, e.g. by Python run
 * with -u; or the answers to held information lines before it): go on reading until
 * there are that many newlines, the buffer's end, end of file, or the short wait's
 * deadline, whichever comes first.  Returns the bytes now in buf; `seen` (the newlines
 * in it, counted by the caller) is kept up to date.
 *
 * As in read_soon, the core is yielded (once) before a timed wait: a bot that writes its
 * answers one by one wakes us with the first, and on one core we often run before it
 * has written the next — handing it the core back costs no timer.  After that every
 * empty read meets the deadline: a bot that trickles bytes holds the loop no longer
 * than the short wait. */
static ssize_t finish_lines(int fd, char *buf, ssize_t got, size_t size, long long deadline_ns, size_t lines, size_t *seen) {
    int yielded = 0; /* once: after it every empty read meets the deadline */
    while ((size_t)got < size && *seen < lines) {
        ssize_t more = read(fd, buf + got, size - (size_t)got);
        if (more > 0) {
            *seen += count_lines(buf + got, (size_t)more);
            got += more;
            continue;
        }
        if (more == 0 || errno != EAGAIN) break; /* EOF or an error: Python reports it */
        if (!yielded) {
            Py_BEGIN_ALLOW_THREADS
            sched_yield();
            Py_END_ALLOW_THREADS
            yielded = 1;
            continue;
        }
        long long left = deadline_ns - monotonic_ns();
        if (left <= 0 || wait_readable(fd, left) <= 0) break; /* timed out, or a signal: Python takes the rest */
    }
    return got;
}

static PyObject *exchange(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs < 6 || nargs > 8) {
        PyErr_SetString(PyExc_TypeError, "exchange(wfd, rfd, line, max_line, counters, wait_ns[, owed[, look_first]])");
        return NULL;
    }
    long owed = 0;
    int look_first = 0;
    if (nargs == 8) {
        look_first = PyObject_IsTrue(args[7]);
        if (look_first < 0) return NULL;
    }
    if (nargs >= 7) {
        owed = PyLong_AsLong(args[6]);
        if (owed == -1 && PyErr_Occurred()) return NULL;
        if (owed < 0 || owed > MAX_OWED) {
            PyErr_SetString(PyExc_ValueError, "owed must be 0..MAX_OWED");
            return NULL;
        }
    }
    long wfd = PyLong_AsLong(args[0]);
    if (wfd == -1 && PyErr_Occurred()) return NULL;
    long rfd = PyLong_AsLong(args[1]);
    if (rfd == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t max_line = PyLong_AsSsize_t(args[3]);
    if (max_line == -1 && PyErr_Occurred()) return NULL;
    long long wait_ns = PyLong_AsLongLong(args[5]);
    if (wait_ns == -1 && PyErr_Occurred()) return NULL;
    if (wfd < 0 || wfd > INT_MAX || rfd < 0 || rfd > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "file descriptors out of range");
        return NULL;
    }
    char *data;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(args[2], &data, &len) < 0) return NULL;
    Py_buffer view = {.buf = NULL, .obj = NULL};
    long long *counters = NULL;
    if (args[4] != Py_None) {
        if (PyObject_GetBuffer(args[4], &view, PyBUF_WRITABLE) < 0) return NULL;
        if (view.len < (Py_ssize_t)(N_COUNTERS * sizeof(long long))) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError, "counters must hold 5 int64 values");
            return NULL;
        }
        counters = (long long *)view.buf;
    }
    PyObject *result;
    char buf[65536];
    if (look_first) {
        /* Output already waiting, before anything is written: it cannot be this line's
         * reply.  Taken, nothing written, and (0, chunk) returned for the caller. */
        int waiting = 0;
        if (ioctl((int)rfd, FIONREAD, &waiting) == 0 && waiting > 0) {
            ssize_t got = read((int)rfd, buf, sizeof buf);
            if (got > 0) {
                result = Py_BuildValue("(ny#)", (Py_ssize_t)0, buf, (Py_ssize_t)got);
                goto done;
            }
        }
    }
    long long start = monotonic_ns();
    if (counters) counters[START] = start;

    ssize_t written = write((int)wfd, data, (size_t)len);
    int write_errno = errno;
    if (written != len) {
        if (written < 0) result = PyLong_FromLong(write_errno == EAGAIN ? 0 : -write_errno);
        else result = PyLong_FromSsize_t(written);
        goto done;
    }
    ssize_t got = read_soon((int)rfd, buf, sizeof buf, wait_ns);
    if (got < 0 && errno == EAGAIN) {
        result = PyLong_FromSsize_t(len);
        goto done;
    }
    if (got <= 0) {
        result = Py_BuildValue("(ny#)", len, "", (Py_ssize_t)0);
        goto done;
    }
    size_t lines = (size_t)owed + 1; /* the owed answers, then the reply */
    size_t seen = count_lines(buf, (size_t)got);
    if (wait_ns > 0 && seen < lines) got = finish_lines((int)rfd, buf, got, sizeof buf, start + wait_ns, lines, &seen);
    /* Exactly the owed answers and one reply, nothing after it, the reply within the
     * limit: anything else is the caller's to judge, from the whole chunk. */
    const char *reply = buf;
    if (owed) {
        const char *last = memrchr(buf, '\n', (size_t)(got - 1));
        reply = last ? last + 1 : buf;
    }
    if (seen != lines || buf[got - 1] != '\n' || (buf + got - 1) - reply > max_line) {
        result = Py_BuildValue("(ny#)", len, buf, (Py_ssize_t)got);
        goto done;
    }
    if (counters) {
        long long elapsed = monotonic_ns() - start;
        if (counters[ANSWERED]) {
            counters[LATENCY_SUM] += elapsed;
            if (elapsed > counters[LATENCY_MAX]) counters[LATENCY_MAX] = elapsed;
        } else {
            counters[FIRST_ANSWER] = elapsed;
        }
        counters[ANSWERED] += 1;
    }
    result = PyBytes_FromStringAndSize(reply, (buf + got - 1) - reply);
done:
    if (counters) PyBuffer_Release(&view);
    return result;
}

static PyMethodDef methods[] = {
    {"exchange", (PyCFunction)(void (*)(void))exchange, METH_FASTCALL, "One request's write and (soon) read (see the file's header)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "referee.seats.process._fastpath", NULL, -1, methods, NULL, NULL, NULL, NULL};

/* What fastpath.py checks before it uses exchange(): 2 since it took wait_ns, 3 since
 * it took owed and look_first. */
#define FASTPATH_VERSION 3

PyMODINIT_FUNC PyInit__fastpath(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && (PyModule_AddIntConstant(m, "VERSION", FASTPATH_VERSION) < 0 || PyModule_AddIntConstant(m, "MAX_OWED", MAX_OWED) < 0))
        Py_CLEAR(m);
    return m;
}
