/* The per-decision I/O fast path of referee.seats.process.bot.BotProcess.request, in C.
 *
 * exchange(wfd, rfd, line, max_line, counters) writes `line` to the bot's stdin and
 * makes ONE nonblocking read of its stdout.  `counters` is a writable int64 buffer:
 * [0] answered requests, [1] latency sum (ns), [2] latency max (ns), [3] the first
 * answer's latency (ns, kept apart: it carries the bot's startup work), [4] the start
 * time (CLOCK_MONOTONIC ns) of this request.
 *
 * Returns
 *   bytes          the reply without its newline: the whole line arrived alone, no
 *                  longer than max_line; counters [0]-[3] are updated.  The usual case.
 *   int n >= 0     n bytes of `line` were written (n == len(line): the reply is not
 *                  there yet); nothing was read.  The caller carries on from counters[4].
 *   int < 0        -errno: the write failed (EPIPE: the bot closed its stdin).
 *   (n, chunk)     the whole line was written and the read gave `chunk`, which is not a
 *                  single clean line (b"" for end of file or a read error).
 *
 * Python does everything else; it owns every decision about verdicts.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { ANSWERED, LATENCY_SUM, LATENCY_MAX, FIRST_ANSWER, START, N_COUNTERS };

static long long monotonic_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static PyObject *exchange(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "exchange(wfd, rfd, line, max_line, counters)");
        return NULL;
    }
    long wfd = PyLong_AsLong(args[0]);
    if (wfd == -1 && PyErr_Occurred()) return NULL;
    long rfd = PyLong_AsLong(args[1]);
    if (rfd == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t max_line = PyLong_AsSsize_t(args[3]);
    if (max_line == -1 && PyErr_Occurred()) return NULL;
    if (wfd < 0 || wfd > INT_MAX || rfd < 0 || rfd > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "file descriptors out of range");
        return NULL;
    }
    char *data;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(args[2], &data, &len) < 0) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[4], &view, PyBUF_WRITABLE) < 0) return NULL;
    if (view.len < (Py_ssize_t)(N_COUNTERS * sizeof(long long))) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "counters must hold 5 int64 values");
        return NULL;
    }
    long long *counters = (long long *)view.buf;
    long long start = monotonic_ns();
    counters[START] = start;

    ssize_t written = write((int)wfd, data, (size_t)len);
    int write_errno = errno;
    if (written != len) {
        PyBuffer_Release(&view);
        if (written < 0) return PyLong_FromLong(write_errno == EAGAIN ? 0 : -write_errno);
        return PyLong_FromSsize_t(written);
    }
    char buf[65536];
    ssize_t got = read((int)rfd, buf, sizeof buf);
    int read_errno = errno;
    if (got < 0 && read_errno == EAGAIN) {
        PyBuffer_Release(&view);
        return PyLong_FromSsize_t(len);
    }
    if (got <= 0) {
        PyBuffer_Release(&view);
        return Py_BuildValue("(ny#)", len, "", (Py_ssize_t)0);
    }
    const char *newline = memchr(buf, '\n', (size_t)got);
    if (newline != buf + got - 1 || got - 1 > max_line) {
        PyBuffer_Release(&view);
        return Py_BuildValue("(ny#)", len, buf, (Py_ssize_t)got);
    }
    long long elapsed = monotonic_ns() - start;
    if (counters[ANSWERED]) {
        counters[LATENCY_SUM] += elapsed;
        if (elapsed > counters[LATENCY_MAX]) counters[LATENCY_MAX] = elapsed;
    } else {
        counters[FIRST_ANSWER] = elapsed;
    }
    counters[ANSWERED] += 1;
    PyBuffer_Release(&view);
    return PyBytes_FromStringAndSize(buf, got - 1);
}

static PyMethodDef methods[] = {
    {"exchange", (PyCFunction)(void (*)(void))exchange, METH_FASTCALL, "One request's write and read (see the file's header)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "referee.seats.process._fastpath", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fastpath(void) { return PyModule_Create(&module); }
