/* attack MODE REFEREE_PID [GOOD] - after GOOD honest answers, attacks the processes it
 * can see on the next request, and replies with what it managed:
 *
 *   signal-all      SIGKILL every visible process but itself
 *   kill-minus-one  kill(-1, SIGKILL)
 *   stop-parent     SIGSTOP its parent and the referee
 *   fd-write        append "pwned\n" to every visible process's stdout (a pipe or a
 *                   file), and read what waits on its stdin
 *   ptrace          PTRACE_SEIZE every visible process (detached at once), and read a
 *                   page of its stack with process_vm_readv
 *   stop-forks      for 3 s, SIGSTOP every process that appears (an opponent spawned)
 *   read-env        read /proc/REFEREE_PID/environ and /proc/PPID/environ
 *
 * Replies: "could <what>" when something succeeded, "could-not <what>" when nothing
 * did, "unsafe <reason>" when the interlock refused; the same line then answers every
 * later request.
 *
 * THE INTERLOCK.  Every mode but read-env is destructive, and the suite runs as root:
 * without a sandbox, signal-all would kill the machine.  So before doing anything a
 * destructive mode checks that it cannot see the referee (REFEREE_PID, the test's own
 * os.getpid()): kill(REFEREE_PID, 0) must fail with ESRCH or EPERM, /proc/REFEREE_PID
 * must not exist or not be readable, and REFEREE_PID must not be one of its ancestors.
 * If any check fails it does nothing and replies "unsafe <reason>".
 *
 * Bounds: one pass over /proc (at most MAX_PIDS processes), stop-forks watches for
 * STOP_FORKS_S seconds, ptrace waits at most 200 ms per process, nothing is forked. */
#include "hostile.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#define MAX_PIDS 65536
#define STOP_FORKS_S 3.0
#define LISTED 8 /* pids named in a reply */

static char reply[1024];
static size_t reply_len;

/* Append to the reply (truncated at its size; newlines become spaces when sent). */
static void add(const char *fmt, ...)
{
    if (reply_len >= sizeof reply - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(reply + reply_len, sizeof reply - reply_len, fmt, ap);
    va_end(ap);
    if (n > 0)
        reply_len += (size_t)n < sizeof reply - reply_len ? (size_t)n : sizeof reply - reply_len - 1;
}

static void send_reply(void)
{
    char line[sizeof reply + 1];
    size_t n = 0;
    for (size_t i = 0; i < reply_len && reply[i]; i++)
        line[n++] = (reply[i] == '\n' || reply[i] == '\r') ? ' ' : reply[i];
    line[n++] = '\n';
    write_all(1, line, n);
}

/* Read up to cap-1 bytes of a file (NUL-terminated); returns the count or -1 (errno). */
static ssize_t read_file(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got < cap - 1) {
        ssize_t n = read(fd, buf + got, cap - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n < 0 && got == 0) {
                int saved = errno;
                close(fd);
                errno = saved;
                return -1;
            }
            break;
        }
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    return (ssize_t)got;
}

/* The parent pid and state letter of pid, from /proc/pid/stat; -1 if unreadable. */
static pid_t stat_of(pid_t pid, char *state)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (read_file(path, buf, sizeof buf) <= 0)
        return -1;
    char *close_paren = strrchr(buf, ')'); /* the name may contain anything */
    char st;
    int ppid;
    if (!close_paren || sscanf(close_paren + 1, " %c %d", &st, &ppid) != 2)
        return -1;
    if (state)
        *state = st;
    return (pid_t)ppid;
}

/* ------------------------------------------------------------------ the interlock */

/* NULL when the referee is out of sight; otherwise why it is not (static buffer). */
static const char *interlock(pid_t referee)
{
    static char why[256];
    char path[64];
    struct stat st;

    if (referee <= 1 || referee >= 4194304 /* PID_MAX_LIMIT */) {
        snprintf(why, sizeof why, "referee pid %d is not a usable pid", (int)referee);
        return why;
    }
    if (referee == getpid()) {
        snprintf(why, sizeof why, "referee pid %d is this process", (int)referee);
        return why;
    }
    if (kill(referee, 0) == 0) {
        snprintf(why, sizeof why, "kill(%d, 0) succeeded: the referee is visible", (int)referee);
        return why;
    }
    if (errno != ESRCH && errno != EPERM) {
        snprintf(why, sizeof why, "kill(%d, 0) failed with %s, neither ESRCH nor EPERM", (int)referee,
                 strerror(errno));
        return why;
    }
    snprintf(path, sizeof path, "/proc/%d", (int)referee);
    if (stat(path, &st) == 0) {
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
            close(fd);
            snprintf(why, sizeof why, "%s exists and is readable", path);
            return why;
        }
        char buf[64];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)referee);
        if (read_file(path, buf, sizeof buf) >= 0) {
            snprintf(why, sizeof why, "%s is readable", path);
            return why;
        }
    }
    /* Its own ancestry, as far as it can see it. */
    pid_t p = getppid();
    for (int depth = 0; p > 0 && depth < 256; depth++) {
        if (p == referee) {
            snprintf(why, sizeof why, "the referee %d is one of its ancestors", (int)referee);
            return why;
        }
        if (p == 1)
            break;
        p = stat_of(p, NULL);
    }
    return NULL;
}

/* ------------------------------------------------------------------ what it can see */

/* Every numeric entry of /proc but its own pid, ascending; returns the count. */
static size_t visible_pids(pid_t *out, size_t cap)
{
    size_t n = 0;
    pid_t self = getpid();
    DIR *dir = opendir("/proc");
    if (!dir)
        return 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL && n < cap) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0 || pid == self)
            continue;
        out[n++] = (pid_t)pid;
    }
    closedir(dir);
    return n;
}

static pid_t pids[MAX_PIDS];

/* A short list of pids for a reply: "12,34,56 ...". */
static void add_list(const pid_t *list, size_t n)
{
    for (size_t i = 0; i < n && i < LISTED; i++)
        add("%s%d", i ? "," : "", (int)list[i]);
    if (n > LISTED)
        add(",...");
}

/* ------------------------------------------------------------------ the modes */

/* Whether pid is gone (or dying: a zombie, or in exit). */
static int gone(pid_t pid)
{
    char state;
    return stat_of(pid, &state) < 0 || state == 'Z' || state == 'X' || state == 'x';
}

static void signal_all(void)
{
    size_t n = visible_pids(pids, MAX_PIDS);
    static pid_t hit[MAX_PIDS];
    size_t signalled = 0;
    int last_errno = 0;
    for (size_t i = 0; i < n; i++) {
        if (kill(pids[i], SIGKILL) == 0)
            hit[signalled++] = pids[i];
        else
            last_errno = errno;
    }
    sleep_ms(50); /* SIGKILL takes effect asynchronously */
    pid_t dead[LISTED], alive[LISTED];
    size_t ndead = 0, nalive = 0;
    for (size_t i = 0; i < signalled; i++) {
        if (gone(hit[i])) {
            if (ndead < LISTED)
                dead[ndead] = hit[i];
            ndead++;
        } else {
            if (nalive < LISTED)
                alive[nalive] = hit[i];
            nalive++;
        }
    }
    if (ndead) {
        add("could kill %zu of %zu visible processes: ", ndead, n);
        add_list(dead, ndead);
    } else {
        add("could-not kill any of %zu visible processes (%s)", n,
            signalled ? "signalled, none died" : n ? strerror(last_errno) : "none seen");
    }
    if (nalive) {
        add("; signalled but alive: ");
        add_list(alive, nalive);
    }
}

static void kill_minus_one(void)
{
    size_t before = visible_pids(pids, MAX_PIDS);
    if (kill(-1, SIGKILL) == 0) {
        sleep_ms(50); /* SIGKILL takes effect asynchronously */
        size_t after = visible_pids(pids, MAX_PIDS);
        add("could kill(-1, SIGKILL): %zu other processes visible before, %zu after", before, after);
    } else {
        add("could-not kill(-1, SIGKILL): %s (%zu other processes visible)", strerror(errno), before);
    }
}

/* SIGSTOP pid; says whether it really stopped (an init ignores it, and kill says 0). */
static int stop_one(const char *what, pid_t pid)
{
    if (kill(pid, SIGSTOP) < 0) {
        add("%s %d: %s", what, (int)pid, strerror(errno));
        return 0;
    }
    char state = '?';
    for (int i = 0; i < 20; i++) {
        if (stat_of(pid, &state) < 0) {
            state = '?';
            break;
        }
        if (state == 'T' || state == 't')
            break;
        sleep_ms(5);
    }
    if (state == 'S' || state == 'R' || state == 'D') {
        add("%s %d: signal sent but ignored (state %c)", what, (int)pid, state);
        return 0;
    }
    add("%s %d stopped (state %c)", what, (int)pid, state);
    return 1;
}

static void stop_parent(pid_t referee)
{
    char detail[600];
    int stopped = 0;
    pid_t parent = getppid();
    size_t mark = reply_len;
    if (parent == 0)
        add("parent: outside its pid namespace (getppid() is 0)");
    else
        stopped += stop_one("parent", parent);
    add("; ");
    stopped += stop_one("referee", referee);
    snprintf(detail, sizeof detail, "%s", reply + mark);
    reply_len = 0;
    reply[0] = '\0';
    add("%s %s", stopped ? "could stop:" : "could-not stop:", detail);
}

/* Open /proc/pid/fd/n only if it is a pipe or a regular file: never a device. */
static int open_fd_of(pid_t pid, int n, int flags)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, n);
    if (stat(path, &st) < 0)
        return -1;
    if (!S_ISFIFO(st.st_mode) && !S_ISREG(st.st_mode)) {
        errno = ENODEV;
        return -1;
    }
    return open(path, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

static void fd_write(void)
{
    size_t n = visible_pids(pids, MAX_PIDS);
    pid_t wrote[LISTED];
    size_t writes = 0, stdins = 0;
    long stolen = 0;
    for (size_t i = 0; i < n; i++) {
        int fd = open_fd_of(pids[i], 1, O_WRONLY | O_APPEND);
        if (fd >= 0) {
            if (write(fd, "pwned\n", 6) == 6) {
                if (writes < LISTED)
                    wrote[writes] = pids[i];
                writes++;
            }
            close(fd);
        }
        fd = open_fd_of(pids[i], 0, O_RDONLY);
        if (fd >= 0) {
            char buf[4096];
            stdins++;
            ssize_t got = read(fd, buf, sizeof buf);
            if (got > 0)
                stolen += got;
            close(fd);
        }
    }
    add("%s write to %zu of %zu stdouts", writes || stdins ? "could" : "could-not", writes, n);
    if (writes) {
        add(" (");
        add_list(wrote, writes);
        add(")");
    }
    add(", open %zu stdins and read %ld bytes from them", stdins, stolen);
}

/* The page just below the top of pid's stack, from /proc/pid/maps; 0 if unknown. */
static uintptr_t stack_page(pid_t pid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *maps = fopen(path, "re");
    if (!maps)
        return 0;
    uintptr_t page = 0;
    while (fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &start, &end) == 2 && end - start >= 4096) {
            page = (uintptr_t)(end - 4096);
            break;
        }
    }
    fclose(maps);
    return page;
}

static void ptrace_all(void)
{
    size_t n = visible_pids(pids, MAX_PIDS);
    pid_t traced_list[LISTED];
    size_t traced = 0, read_stacks = 0;
    int last_errno = 0;
    for (size_t i = 0; i < n; i++) {
        pid_t pid = pids[i];
        if (ptrace(PTRACE_SEIZE, pid, NULL, NULL) == 0) {
            if (traced < LISTED)
                traced_list[traced] = pid;
            traced++;
            /* Stop it, so that it can be detached (the kernel detaches it at our exit
             * anyway, should it not stop within 200 ms). */
            if (ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) == 0) {
                for (int t = 0; t < 200; t++) {
                    int status;
                    pid_t w = waitpid(pid, &status, __WALL | WNOHANG);
                    if (w == pid || w < 0)
                        break;
                    sleep_ms(1);
                }
            }
            ptrace(PTRACE_DETACH, pid, NULL, NULL);
        } else {
            last_errno = errno;
        }
        uintptr_t page = stack_page(pid);
        if (page) {
            char buf[4096];
            struct iovec local = {buf, sizeof buf};
            struct iovec remote = {(void *)page, sizeof buf};
            if (process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)sizeof buf)
                read_stacks++;
        }
    }
    if (traced || read_stacks) {
        add("could ptrace %zu of %zu processes", traced, n);
        if (traced) {
            add(" (");
            add_list(traced_list, traced);
            add(")");
        }
        add(" and read the stack of %zu", read_stacks);
    } else {
        add("could-not ptrace or read any of %zu processes (%s)", n, n ? strerror(last_errno) : "none seen");
    }
}

static unsigned char seen[(4194304 + 7) / 8]; /* PID_MAX_LIMIT bits */

static void stop_forks(void)
{
    size_t n = visible_pids(pids, MAX_PIDS);
    for (size_t i = 0; i < n; i++)
        if (pids[i] < 4194304)
            seen[pids[i] / 8] |= (unsigned char)(1u << (pids[i] % 8));
    pid_t stopped_list[LISTED];
    size_t appeared = 0, stopped = 0;
    int last_errno = 0;
    double end = now() + STOP_FORKS_S;
    while (now() < end) {
        n = visible_pids(pids, MAX_PIDS);
        for (size_t i = 0; i < n; i++) {
            pid_t pid = pids[i];
            if (pid >= 4194304 || (seen[pid / 8] & (1u << (pid % 8))))
                continue;
            seen[pid / 8] |= (unsigned char)(1u << (pid % 8));
            appeared++;
            if (kill(pid, SIGSTOP) == 0) {
                if (stopped < LISTED)
                    stopped_list[stopped] = pid;
                stopped++;
            } else {
                last_errno = errno;
            }
        }
        sleep_ms(1);
    }
    if (stopped) {
        add("could stop %zu of %zu new processes in %.0f s: ", stopped, appeared, STOP_FORKS_S);
        add_list(stopped_list, stopped);
    } else if (appeared) {
        add("could-not stop any of %zu new processes (%s)", appeared, strerror(last_errno));
    } else {
        add("could-not see any new process in %.0f s", STOP_FORKS_S);
    }
}

/* The variable names of a NUL-separated environment, as "\0NAME\0NAME\0...";
 * returns the bytes used. */
static size_t names_of(const char *env, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    out[o++] = '\0';
    for (size_t i = 0; i < n;) {
        size_t len = strnlen(env + i, n - i);
        const char *eq = memchr(env + i, '=', len);
        size_t name = eq ? (size_t)(eq - (env + i)) : len;
        if (name && o + name + 1 < cap) {
            memcpy(out + o, env + i, name);
            o += name;
            out[o++] = '\0';
        }
        i += len + 1;
    }
    return o;
}

/* Whether NAME (len bytes) is among names (from names_of, total bytes). */
static int has_name(const char *names, size_t total, const char *name, size_t len)
{
    for (size_t i = 1; i < total;) {
        size_t l = strlen(names + i);
        if (l == len && memcmp(names + i, name, len) == 0)
            return 1;
        i += l + 1;
    }
    return 0;
}

/* Reads an environment.  A leak only if it holds a variable its own lacks: in a pid
 * namespace the parent is the sandbox's init, which has (about) the bot's environment. */
static void read_env(pid_t referee)
{
    static char own[65536], theirs[65536], own_names[65536];
    ssize_t own_n = read_file("/proc/self/environ", own, sizeof own);
    size_t own_total = names_of(own, own_n > 0 ? (size_t)own_n : 0, own_names, sizeof own_names);
    pid_t targets[2] = {referee, getppid()};
    int leaks = 0;
    char details[900];
    size_t mark = reply_len;
    for (int i = 0; i < 2; i++) {
        pid_t t = targets[i];
        if (i == 1 && (t == referee || t == 0)) {
            if (t == 0)
                add("; parent outside its pid namespace");
            continue;
        }
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/environ", (int)t);
        ssize_t got = read_file(path, theirs, sizeof theirs);
        if (i)
            add("; ");
        if (got < 0) {
            add("%s: %s", path, strerror(errno));
            continue;
        }
        int foreign = 0;
        for (size_t k = 0; k < (size_t)got;) {
            size_t len = strnlen(theirs + k, (size_t)got - k);
            const char *eq = memchr(theirs + k, '=', len);
            size_t name = eq ? (size_t)(eq - (theirs + k)) : len;
            if (name && !has_name(own_names, own_total, theirs + k, name))
                foreign++;
            k += len + 1;
        }
        if (got == 0) {
            add("%s: empty", path);
        } else if (!foreign) {
            add("%s: only variables of its own", path);
        } else {
            char shown[41];
            size_t k;
            for (k = 0; k < 40 && k < (size_t)got; k++) {
                unsigned char c = (unsigned char)theirs[k];
                shown[k] = c == 0 ? ' ' : (c < 32 || c > 126) ? '?' : (char)c;
            }
            shown[k] = '\0';
            add("%s (%d variables not its own): %s", path, foreign, shown);
            leaks++;
        }
    }
    snprintf(details, sizeof details, "%s", reply + mark);
    reply_len = 0;
    reply[0] = '\0';
    add("%s %s", leaks ? "could read" : "could-not read", details);
}

static const char *const MODES[] = {"signal-all", "kill-minus-one", "stop-parent", "fd-write",
                                    "ptrace",     "stop-forks",     "read-env"};

int main(int argc, char **argv)
{
    int known = 0;
    for (size_t i = 0; argc >= 3 && i < sizeof MODES / sizeof MODES[0]; i++)
        known |= strcmp(argv[1], MODES[i]) == 0;
    if (!known) {
        fprintf(stderr, "usage: attack signal-all|kill-minus-one|stop-parent|fd-write|ptrace|"
                        "stop-forks|read-env REFEREE_PID [GOOD]\n");
        return 2;
    }
    const char *mode = argv[1];
    char *end;
    long referee = strtol(argv[2], &end, 10);
    if (*end || referee > 0x7fffffffL)
        referee = 0; /* the interlock refuses it */
    behave(good_arg(argc, argv, 3));
    next_request();
    if (strcmp(mode, "read-env") == 0) {
        read_env((pid_t)referee); /* only reads: no interlock */
    } else {
        const char *why = interlock((pid_t)referee);
        if (why)
            add("unsafe %s", why);
        else if (strcmp(mode, "signal-all") == 0)
            signal_all();
        else if (strcmp(mode, "kill-minus-one") == 0)
            kill_minus_one();
        else if (strcmp(mode, "stop-parent") == 0)
            stop_parent((pid_t)referee);
        else if (strcmp(mode, "fd-write") == 0)
            fd_write();
        else if (strcmp(mode, "ptrace") == 0)
            ptrace_all();
        else
            stop_forks();
    }
    for (;;) {
        send_reply();
        next_request();
    }
}
