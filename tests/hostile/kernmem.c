/* kernmem MODE - on the first request, tries to hold memory or kernel objects that no
 * process's RSS shows, or that count against the user's own quotas, and answers one line:
 * "MODE held N UNIT" (what it holds, and keeps until the end), or "MODE denied ERRNO" when
 * the very first try fails (ERRNO by name: EPERM is the seccomp filter's answer).  Then it
 * answers "0" to every request.  Issue 27.  Modes:
 *
 *   memfd_secret   12 x 32 MiB of memfd_secret(2), touched and unmapped, fds kept
 *   shm            12 x 32 MiB System V segments, touched and detached
 *   msg            System V message queues filled (64 at most)
 *   mq             POSIX message queues, each unlinked at once and its fd kept
 *   fanotify       fanotify groups (200 at most)
 *   inotify        inotify instances (200 at most)
 *   vmsplice       a page spliced into a pipe by reference
 *   seccomp        a filter stacked with seccomp(2)
 *   prctl_seccomp  a filter stacked with prctl(PR_SET_SECCOMP)
 *   pipesz         a pipe grown to 1 MiB with fcntl(F_SETPIPE_SZ)
 *   sigqueue       real-time signals queued to itself (blocked) until refused
 *   sockbuf        10 helper children, each holding ~38 MiB written into socketpairs it
 *                  never reads (send buffers raised with SO_SNDBUF where allowed), then
 *                  waiting; "sockbuf held N MiB" sums what the children report (a child
 *                  the kernel killed for memory reports nothing).  The children exit by
 *                  themselves within 20 s (alarm) and die with their parent
 *
 * shm and msg leave what they make in their IPC namespace (that is the attack): they take
 * the test's IPC namespace as a second argument (the target of /proc/self/ns/ipc) and
 * refuse to run in it, so they never leak into the host's.
 */
#include "hostile.h"

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#ifndef SYS_memfd_secret
#define SYS_memfd_secret 447
#endif

#define CHUNK (32u << 20)
#define SOCK_CHILDREN 10
#define SOCK_EACH (38L << 20)

/* One helper child of sockbuf: fill socketpairs (both directions, never read) up to
 * SOCK_EACH bytes or until descriptors run out, report the bytes held on `report`, wait. */
static _Noreturn void sockbuf_child(int report)
{
    static char buf[65536];
    memset(buf, 1, sizeof buf);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    alarm(20);
    long held = 0;
    while (held < SOCK_EACH) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
            break;
        int size = 4 << 20;
        for (int end = 0; end < 2; end++) {
            setsockopt(sv[end], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
            setsockopt(sv[end], SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
            fcntl(sv[end], F_SETFL, O_NONBLOCK);
        }
        for (int end = 0; end < 2 && held < SOCK_EACH; end++)
            for (ssize_t n; held < SOCK_EACH && (n = write(sv[end], buf, sizeof buf)) > 0;)
                held += n;
    }
    write_all(report, (const char *)&held, sizeof held);
    close(report);
    for (;;)
        pause();
}

static long sockbuf(int *err)
{
    int p[2];
    if (pipe(p) < 0) { *err = errno; return 0; }
    for (int i = 0; i < SOCK_CHILDREN; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            close(p[0]);
            sockbuf_child(p[1]);
        }
        if (pid < 0) { *err = errno; break; }
    }
    close(p[1]);
    long total = 0, held;
    /* EOF once every child has reported or died. */
    for (int i = 0; i < SOCK_CHILDREN && read(p[0], &held, sizeof held) == (ssize_t)sizeof held; i++)
        total += held;
    close(p[0]);
    return total >> 20;
}

static char reply[256];

static const char *errname(int err)
{
    switch (err) {
    case EPERM: return "EPERM";
    case EACCES: return "EACCES";
    case ENOSYS: return "ENOSYS";
    case EMFILE: return "EMFILE";
    case ENOSPC: return "ENOSPC";
    case EAGAIN: return "EAGAIN";
    case EINVAL: return "EINVAL";
    case ENOMEM: return "ENOMEM";
    default: return "EOTHER";
    }
}

/* Set the reply from a count held, or from the errno of a first try that failed. */
static void result(const char *mode, long held, const char *unit, int err)
{
    if (held == 0)
        snprintf(reply, sizeof reply, "%s denied %s\n", mode, errname(err));
    else
        snprintf(reply, sizeof reply, "%s held %ld %s\n", mode, held, unit);
}

static void touch(char *p, size_t size)
{
    for (size_t i = 0; i < size; i += 4096)
        p[i] = 1;
}

static struct sock_fprog allow_all(void)
{
    static struct sock_filter insn[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    struct sock_fprog prog = {1, insn};
    return prog;
}

static void attack(const char *mode, const char *host_ipc)
{
    long held = 0;
    int err = 0;
    if (strcmp(mode, "shm") == 0 || strcmp(mode, "msg") == 0) {
        char ns[64] = "";
        if (host_ipc == NULL || readlink("/proc/self/ns/ipc", ns, sizeof ns - 1) < 0 || strcmp(ns, host_ipc) == 0) {
            snprintf(reply, sizeof reply, "%s refused: not in an IPC namespace of its own\n", mode);
            return;
        }
    }
    if (strcmp(mode, "memfd_secret") == 0) {
        for (; held < 12 * 32; held += 32) {
            int fd = (int)syscall(SYS_memfd_secret, 0);
            if (fd < 0 || ftruncate(fd, CHUNK) < 0) { err = errno; break; }
            char *p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (p == MAP_FAILED) { err = errno; break; }
            touch(p, CHUNK);
            munmap(p, CHUNK);
        }
        result(mode, held, "MiB", err);
    } else if (strcmp(mode, "shm") == 0) {
        for (; held < 12 * 32; held += 32) {
            int id = shmget(IPC_PRIVATE, CHUNK, IPC_CREAT | 0600);
            if (id < 0) { err = errno; break; }
            char *p = shmat(id, NULL, 0);
            if (p == (void *)-1) { err = errno; break; }
            touch(p, CHUNK);
            shmdt(p);
        }
        result(mode, held, "MiB", err);
    } else if (strcmp(mode, "msg") == 0) {
        static struct { long type; char text[1024]; } m = {1, {0}};
        for (int q = 0; q < 64; q++) {
            int id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
            if (id < 0) { err = errno; break; }
            while (msgsnd(id, &m, sizeof m.text, IPC_NOWAIT) == 0)
                held += 1;
        }
        result(mode, held, "KiB", err);
    } else if (strcmp(mode, "mq") == 0) {
        for (int i = 0; i < 1000; i++) {
            char name[64];
            snprintf(name, sizeof name, "referee-kernmem-%d-%d", (int)getpid(), i);
            int fd = (int)syscall(SYS_mq_open, name, O_CREAT | O_EXCL | O_RDWR, 0600, NULL);
            if (fd < 0) { err = errno; break; }
            syscall(SYS_mq_unlink, name);  /* nothing outlives it; the fd keeps the queue */
            held++;
        }
        result(mode, held, "queues", err);
    } else if (strcmp(mode, "fanotify") == 0 || strcmp(mode, "inotify") == 0) {
        for (; held < 200; held++) {
            int fd = mode[0] == 'f' ? fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID, O_RDONLY) : inotify_init1(IN_CLOEXEC);
            if (fd < 0) { err = errno; break; }
        }
        result(mode, held, "instances", err);
    } else if (strcmp(mode, "vmsplice") == 0) {
        int p[2];
        static char page[4096] __attribute__((aligned(4096))) = {1};
        struct iovec iov = {page, sizeof page};
        if (pipe(p) == 0 && vmsplice(p[1], &iov, 1, 0) > 0)
            held = 1;
        err = errno;
        result(mode, held, "pages", err);
    } else if (strcmp(mode, "seccomp") == 0 || strcmp(mode, "prctl_seccomp") == 0) {
        struct sock_fprog prog = allow_all();
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        long ret = mode[0] == 's' ? syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)
                                  : prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
        err = errno;
        result(mode, ret == 0, "filters", err);
    } else if (strcmp(mode, "pipesz") == 0) {
        int p[2];
        if (pipe(p) == 0 && fcntl(p[1], F_SETPIPE_SZ, 1 << 20) >= (1 << 20))
            held = 1024;
        err = errno;
        result(mode, held, "KiB", err);
    } else if (strcmp(mode, "sockbuf") == 0) {
        held = sockbuf(&err);
        result(mode, held, "MiB", err);
    } else if (strcmp(mode, "sigqueue") == 0) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGRTMIN);
        sigprocmask(SIG_BLOCK, &set, NULL);
        union sigval value = {0};
        for (; held < 200000; held++)
            if (sigqueue(getpid(), SIGRTMIN, value) < 0) { err = errno; break; }
        result(mode, held, "signals", err);
    } else {
        snprintf(reply, sizeof reply, "unknown mode %s\n", mode);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    next_request();
    attack(argv[1], argc > 2 ? argv[2] : NULL);
    write_all(1, reply, strlen(reply));
    for (;;) {
        next_request();
        answer();
    }
}
