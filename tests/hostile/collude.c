/* collude send SECRET [TAG] | collude recv SECRET [TAG] | collude clean [TAG]
 *
 * Two bots that try to talk to each other behind the referee's back.
 *
 * send: plants the message "SECRET PID" (PID: its own, as it sees it) in every channel
 *   below before it reads its first request, keeps the servers alive in a thread, and
 *   answers "0" to every request, or "signalled" once a receiver has reached it with a
 *   signal (see `signal`).  On EOF (or SIGTERM, SIGINT, SIGHUP) it removes everything
 *   it created; in any case it does so and exits LIFETIME_S after its start.
 * recv: on its first request tries every channel at once (a thread each, none waiting
 *   more than TIMEOUT_MS), and replies "got CHAN1,CHAN2,..." (the channels that
 *   delivered exactly SECRET, in the order below) or "got none"; the same line answers
 *   every later request.  Then, for every sender pid it learned, it sends the `signal`.
 * clean: removes every object of TAG by name and key (for a test's teardown after a
 *   sender was SIGKILLed); workdir files are left to the referee, which owns the
 *   directory.  Not a bot: it prints nothing.
 *
 * SECRET is 1 to 16 decimal digits; TAG (default 7f3a) names every object, so that
 * both find each other:
 *
 *   tmp       file /tmp/referee-collude-TAG
 *   shm       file /dev/shm/referee-collude-TAG
 *   workdir   file referee-collude-TAG.txt in the sender's working directory; the
 *             receiver looks in its own, in /tmp/referee-* and in every /proc/PID/cwd
 *   tcp       the sender listens on 127.0.0.1:PORT (PORT = 20000 + TAGNUM % 10000)
 *   udp       the sender is bound to 127.0.0.1:PORT+1 and answers any datagram
 *   abstract  abstract unix socket "\0referee-collude-TAG"
 *   unixpath  unix socket /tmp/referee-collude-TAG.sock, and referee-collude-TAG.sock
 *             in the sender's working directory (found as the workdir file is)
 *   fifo      FIFO /tmp/referee-collude-TAG.fifo, held open and kept filled
 *   mq        POSIX message queue /referee-collude-TAG, kept filled
 *   sysvshm   System V shared memory, key KEY+1 (KEY = 0x52000000 | TAGNUM << 8)
 *   sysvmsg   System V message queue, key KEY+2, kept filled
 *   sysvsem   System V semaphore set, key KEY+3: one semaphore per digit of SECRET,
 *             then the PID in two 15-bit halves
 *   proc      the sender's command line, read from /proc/PID/cmdline
 *   signal    reported by the sender: sigqueue(PID, SIGUSR1, SECRET mod 2^31-1) from
 *             the receiver makes it answer "signalled".  The receiver signals a pid only
 *             after reading in /proc/PID/cmdline that it is "collude send SECRET": a
 *             pid from another pid namespace, or a reused one, is never signalled.
 *
 * TAGNUM is TAG read as hexadecimal when it is 1-4 hex digits (7f3a: PORT 22570),
 * else a hash of it, 16 bits.  Every object is created with mode 0666 (umask 0), the
 * better to collude across uids.  Bounds: the sender lives LIFETIME_S at most; the
 * receiver's channels take TIMEOUT_MS each, in parallel. */
#include "hostile.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>

#define LIFETIME_S 20
#define TIMEOUT_MS 200
#define MAX_SECRET 16

enum {
    C_TMP,
    C_SHM,
    C_WORKDIR,
    C_TCP,
    C_UDP,
    C_ABSTRACT,
    C_UNIXPATH,
    C_FIFO,
    C_MQ,
    C_SYSVSHM,
    C_SYSVMSG,
    C_SYSVSEM,
    C_PROC,
    NCHAN
};
static const char *const CHANNELS[NCHAN] = {"tmp",      "shm",  "workdir", "tcp",     "udp",
                                            "abstract", "unixpath", "fifo", "mq",     "sysvshm",
                                            "sysvmsg",  "sysvsem",  "proc"};

/* ------------------------------------------------------------------ names */

static const char *tag = "7f3a";
static const char *secret;
static int secret_value; /* SECRET mod 2^31-1: the signal's payload */
static char message[64]; /* "SECRET PID\n" */
static size_t message_len;

static char tmp_file[128], shm_file[128], work_file[128], tmp_sock[108], work_sock[108];
static char fifo_path[128], mq_name[128], abstract_name[100];
static int port;
static key_t shm_key, msg_key, sem_key;

static void name_everything(void)
{
    unsigned tagnum = 0;
    size_t len = strlen(tag);
    int hex = len >= 1 && len <= 4;
    for (size_t i = 0; i < len; i++)
        hex = hex && strchr("0123456789abcdefABCDEF", tag[i]) != NULL;
    if (hex) {
        tagnum = (unsigned)strtoul(tag, NULL, 16);
    } else {
        unsigned h = 2166136261u;
        for (size_t i = 0; i < len; i++)
            h = (h ^ (unsigned char)tag[i]) * 16777619u;
        tagnum = (h ^ (h >> 16)) & 0xffffu;
    }
    port = 20000 + (int)(tagnum % 10000);
    shm_key = (key_t)(0x52000000u | (tagnum << 8) | 1u);
    msg_key = (key_t)(0x52000000u | (tagnum << 8) | 2u);
    sem_key = (key_t)(0x52000000u | (tagnum << 8) | 3u);
    snprintf(tmp_file, sizeof tmp_file, "/tmp/referee-collude-%s", tag);
    snprintf(shm_file, sizeof shm_file, "/dev/shm/referee-collude-%s", tag);
    snprintf(work_file, sizeof work_file, "referee-collude-%s.txt", tag);
    snprintf(tmp_sock, sizeof tmp_sock, "/tmp/referee-collude-%s.sock", tag);
    snprintf(work_sock, sizeof work_sock, "referee-collude-%s.sock", tag);
    snprintf(fifo_path, sizeof fifo_path, "/tmp/referee-collude-%s.fifo", tag);
    snprintf(mq_name, sizeof mq_name, "/referee-collude-%s", tag);
    snprintf(abstract_name, sizeof abstract_name, "referee-collude-%s", tag);
}

/* Milliseconds left until deadline, at least 0. */
static int ms_left(double deadline)
{
    double left = deadline - now();
    return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

static int unix_address(struct sockaddr_un *a, const char *path, int abstract)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    size_t len = strlen(path);
    if (len + 1 >= sizeof a->sun_path)
        return -1;
    if (abstract) {
        memcpy(a->sun_path + 1, path, len); /* sun_path[0] stays NUL */
        return (int)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
    }
    memcpy(a->sun_path, path, len + 1);
    return (int)sizeof *a;
}

static struct sockaddr_in loopback(int p)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)p);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

/* ------------------------------------------------------------------ send */

enum { L_TCP, L_ABSTRACT, L_TMPSOCK, L_WORKSOCK, L_UDP, NLISTEN };
static int listeners[NLISTEN] = {-1, -1, -1, -1, -1};
static int fifo_fd = -1, shm_id = -1, msg_id = -1, sem_id = -1;
static mqd_t mq = (mqd_t)-1;
static int made_tmp, made_shm, made_work;
static volatile sig_atomic_t signalled;
static int cleaned;

struct msgbuf_text {
    long mtype;
    char mtext[64];
};

union semun { /* semctl's fourth argument, which the caller must declare */
    int val;
    struct semid_ds *buf;
    unsigned short *array;
};

/* Removes what this sender created (once; async-signal-safe system calls only). */
static void cleanup(void)
{
    if (__atomic_exchange_n(&cleaned, 1, __ATOMIC_SEQ_CST))
        return;
    if (made_tmp)
        unlink(tmp_file);
    if (made_shm)
        unlink(shm_file);
    if (made_work)
        unlink(work_file);
    if (listeners[L_TMPSOCK] >= 0)
        unlink(tmp_sock);
    if (listeners[L_WORKSOCK] >= 0)
        unlink(work_sock);
    if (fifo_fd >= 0)
        unlink(fifo_path);
    if (mq != (mqd_t)-1)
        mq_unlink(mq_name);
    if (shm_id >= 0)
        shmctl(shm_id, IPC_RMID, NULL);
    if (msg_id >= 0)
        msgctl(msg_id, IPC_RMID, NULL);
    if (sem_id >= 0)
        semctl(sem_id, 0, IPC_RMID);
}

static void on_exit_signal(int sig)
{
    (void)sig;
    cleanup();
    _exit(0);
}

static void on_usr1(int sig, siginfo_t *info, void *context)
{
    (void)sig;
    (void)context;
    if (info->si_code == SI_QUEUE && info->si_value.sival_int == secret_value)
        signalled = 1;
}

static int put_file(const char *path)
{
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        return 0;
    int ok = write(fd, message, message_len) == (ssize_t)message_len;
    close(fd);
    return ok;
}

static int listen_on(int domain, int type, const struct sockaddr *a, socklen_t len)
{
    int s = socket(domain, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0)
        return -1;
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(s, a, len) < 0 || (type == SOCK_STREAM && listen(s, 16) < 0)) {
        close(s);
        return -1;
    }
    return s;
}

static int listen_unix(const char *path, int abstract)
{
    struct sockaddr_un a;
    int len = unix_address(&a, path, abstract);
    if (len < 0)
        return -1;
    if (!abstract)
        unlink(path);
    return listen_on(AF_UNIX, SOCK_STREAM, (struct sockaddr *)&a, (socklen_t)len);
}

static void refill(void)
{
    int queued;
    if (fifo_fd >= 0 && ioctl(fifo_fd, FIONREAD, &queued) == 0 && queued == 0)
        if (write(fifo_fd, message, message_len) < 0) {
            /* full or gone: the next round */
        }
    struct mq_attr attr;
    if (mq != (mqd_t)-1 && mq_getattr(mq, &attr) == 0 && attr.mq_curmsgs == 0)
        mq_send(mq, message, message_len, 0);
    struct msqid_ds ds;
    if (msg_id >= 0 && msgctl(msg_id, IPC_STAT, &ds) == 0 && ds.msg_qnum == 0) {
        struct msgbuf_text m = {1, ""};
        memcpy(m.mtext, message, message_len);
        msgsnd(msg_id, &m, message_len, IPC_NOWAIT);
    }
}

static double sender_deadline;

static void *serve(void *unused)
{
    (void)unused;
    struct pollfd fds[NLISTEN];
    for (;;) {
        if (now() >= sender_deadline) {
            cleanup();
            _exit(0);
        }
        int n = 0;
        for (int i = 0; i < NLISTEN; i++)
            if (listeners[i] >= 0)
                fds[n++] = (struct pollfd){listeners[i], POLLIN, 0};
        poll(fds, (nfds_t)n, 50);
        for (int i = 0; i < n; i++) {
            if (!(fds[i].revents & POLLIN))
                continue;
            if (fds[i].fd == listeners[L_UDP]) {
                char buf[64];
                struct sockaddr_storage from;
                socklen_t fromlen = sizeof from;
                if (recvfrom(fds[i].fd, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&from, &fromlen) >= 0)
                    sendto(fds[i].fd, message, message_len, MSG_DONTWAIT, (struct sockaddr *)&from, fromlen);
                continue;
            }
            int c = accept4(fds[i].fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (c >= 0) {
                send(c, message, message_len, MSG_NOSIGNAL | MSG_DONTWAIT);
                close(c);
            }
        }
        refill();
    }
    return NULL;
}

static int plant(void)
{
    char planted[256] = "";
#define PLANTED(cond, name)                                                                        \
    do {                                                                                           \
        if (cond)                                                                                  \
            snprintf(planted + strlen(planted), sizeof planted - strlen(planted), "%s%s",        \
                     planted[0] ? "," : "", name);                                                 \
    } while (0)

    made_tmp = put_file(tmp_file);
    PLANTED(made_tmp, "tmp");
    made_shm = put_file(shm_file);
    PLANTED(made_shm, "shm");
    made_work = put_file(work_file);
    PLANTED(made_work, "workdir");

    struct sockaddr_in a = loopback(port);
    listeners[L_TCP] = listen_on(AF_INET, SOCK_STREAM, (struct sockaddr *)&a, sizeof a);
    PLANTED(listeners[L_TCP] >= 0, "tcp");
    a = loopback(port + 1);
    listeners[L_UDP] = listen_on(AF_INET, SOCK_DGRAM, (struct sockaddr *)&a, sizeof a);
    PLANTED(listeners[L_UDP] >= 0, "udp");
    listeners[L_ABSTRACT] = listen_unix(abstract_name, 1);
    PLANTED(listeners[L_ABSTRACT] >= 0, "abstract");
    listeners[L_TMPSOCK] = listen_unix(tmp_sock, 0);
    listeners[L_WORKSOCK] = listen_unix(work_sock, 0);
    PLANTED(listeners[L_TMPSOCK] >= 0 || listeners[L_WORKSOCK] >= 0, "unixpath");

    unlink(fifo_path);
    if (mkfifo(fifo_path, 0666) == 0) {
        fifo_fd = open(fifo_path, O_RDWR | O_NONBLOCK | O_CLOEXEC); /* never blocks, never EOF */
        if (fifo_fd < 0)
            unlink(fifo_path);
    }
    PLANTED(fifo_fd >= 0, "fifo");

    struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 64};
    mq_unlink(mq_name);
    mq = mq_open(mq_name, O_RDWR | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC, 0666, &attr);
    PLANTED(mq != (mqd_t)-1, "mq");

    int old;
    if ((old = shmget(shm_key, 0, 0)) >= 0)
        shmctl(old, IPC_RMID, NULL);
    shm_id = shmget(shm_key, 4096, IPC_CREAT | IPC_EXCL | 0666);
    if (shm_id >= 0) {
        char *p = shmat(shm_id, NULL, 0);
        if (p != (char *)-1) {
            memcpy(p, message, message_len + 1);
            shmdt(p);
        }
    }
    PLANTED(shm_id >= 0, "sysvshm");

    if ((old = msgget(msg_key, 0)) >= 0)
        msgctl(old, IPC_RMID, NULL);
    msg_id = msgget(msg_key, IPC_CREAT | IPC_EXCL | 0666);
    PLANTED(msg_id >= 0, "sysvmsg");

    if ((old = semget(sem_key, 0, 0)) >= 0)
        semctl(old, 0, IPC_RMID);
    size_t digits = strlen(secret);
    sem_id = semget(sem_key, (int)digits + 2, IPC_CREAT | IPC_EXCL | 0666);
    if (sem_id >= 0) {
        unsigned short values[MAX_SECRET + 2];
        for (size_t i = 0; i < digits; i++)
            values[i] = (unsigned short)(secret[i] - '0');
        values[digits] = (unsigned short)(getpid() & 0x7fff);
        values[digits + 1] = (unsigned short)((getpid() >> 15) & 0x7fff);
        if (semctl(sem_id, 0, SETALL, (union semun){.array = values}) < 0) {
            semctl(sem_id, 0, IPC_RMID);
            sem_id = -1;
        }
    }
    PLANTED(sem_id >= 0, "sysvsem");
    PLANTED(1, "proc");
    refill();
    fprintf(stderr, "collude send: planted %s (tcp %d, udp %d)\n", planted, port, port + 1);
    return 0;
#undef PLANTED
}

static _Noreturn void send_role(void)
{
    sender_deadline = now() + LIFETIME_S;
    alarm(LIFETIME_S + 2); /* should the clean exit itself hang */
    umask(0);
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_exit_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = NULL;
    sa.sa_sigaction = on_usr1;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);
    message_len = (size_t)snprintf(message, sizeof message, "%s %d\n", secret, (int)getpid());
    atexit(cleanup); /* next_request() exits on EOF */
    plant();
    pthread_t server;
    if (pthread_create(&server, NULL, serve, NULL) != 0)
        fprintf(stderr, "collude send: no server thread\n");
    for (;;) {
        next_request();
        if (signalled)
            write_all(1, "signalled\n", 10);
        else
            answer();
    }
}

/* ------------------------------------------------------------------ recv */

static int got[NCHAN];
static pid_t learned[NCHAN]; /* the sender's pid, as a channel told it */

/* Whether buf (n bytes) is "SECRET PID..."; stores the pid. */
static int delivers(int chan, const char *buf, size_t n)
{
    char text[128], word[64];
    int pid = 0;
    if (n >= sizeof text)
        n = sizeof text - 1;
    memcpy(text, buf, n);
    text[n] = '\0';
    if (sscanf(text, "%63s %d", word, &pid) < 1 || strcmp(word, secret) != 0)
        return 0;
    got[chan] = 1;
    if (pid > 0)
        learned[chan] = (pid_t)pid;
    return 1;
}

static int file_delivers(int chan, const char *path)
{
    char buf[128];
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    return n > 0 && delivers(chan, buf, (size_t)n);
}

/* Reads one message from a stream socket at address a, by deadline. */
static int stream_delivers(int chan, int domain, const struct sockaddr *a, socklen_t len, double deadline)
{
    int s = socket(domain, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0)
        return 0;
    int ok = 0;
    if (connect(s, a, len) == 0 || errno == EINPROGRESS || errno == EAGAIN) {
        char buf[128];
        size_t have = 0;
        while (have < sizeof buf) {
            struct pollfd p = {s, POLLIN, 0};
            if (poll(&p, 1, ms_left(deadline)) <= 0)
                break;
            ssize_t n = recv(s, buf + have, sizeof buf - have, 0);
            if (n <= 0)
                break;
            have += (size_t)n;
            if (memchr(buf, '\n', have))
                break;
        }
        ok = have > 0 && delivers(chan, buf, have);
    }
    close(s);
    return ok;
}

static int unix_delivers(int chan, const char *path, int abstract, double deadline)
{
    struct sockaddr_un a;
    int len = unix_address(&a, path, abstract);
    return len >= 0 && stream_delivers(chan, AF_UNIX, (struct sockaddr *)&a, (socklen_t)len, deadline);
}

/* Calls found(chan, path) for NAME in its own directory, each /tmp/referee-*, and each
 * /proc/PID/cwd, until one delivers or the deadline. */
static void search_workdirs(int chan, const char *name, double deadline,
                            int (*found)(int, const char *, double))
{
    char path[PATH_MAX];
    if (found(chan, name, deadline))
        return;
    snprintf(path, sizeof path, "/tmp/referee-*/%s", name);
    glob_t g;
    if (glob(path, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc && now() < deadline; i++)
            if (found(chan, g.gl_pathv[i], deadline)) {
                globfree(&g);
                return;
            }
        globfree(&g);
    }
    DIR *dir = opendir("/proc");
    if (!dir)
        return;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL && now() < deadline) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || atoi(e->d_name) == getpid())
            continue;
        snprintf(path, sizeof path, "/proc/%s/cwd/%s", e->d_name, name);
        if (found(chan, path, deadline))
            break;
    }
    closedir(dir);
}

static int found_file(int chan, const char *path, double deadline)
{
    (void)deadline;
    return file_delivers(chan, path);
}

static int found_socket(int chan, const char *path, double deadline)
{
    return unix_delivers(chan, path, 0, deadline);
}

static void try_channel(int chan, double deadline)
{
    switch (chan) {
    case C_TMP:
        file_delivers(chan, tmp_file);
        break;
    case C_SHM:
        file_delivers(chan, shm_file);
        break;
    case C_WORKDIR:
        search_workdirs(chan, work_file, deadline, found_file);
        break;
    case C_TCP: {
        struct sockaddr_in a = loopback(port);
        stream_delivers(chan, AF_INET, (struct sockaddr *)&a, sizeof a, deadline);
        break;
    }
    case C_UDP: {
        struct sockaddr_in a = loopback(port + 1);
        int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (s < 0)
            break;
        if (connect(s, (struct sockaddr *)&a, sizeof a) == 0 && send(s, "?", 1, 0) == 1) {
            struct pollfd p = {s, POLLIN, 0};
            char buf[128];
            if (poll(&p, 1, ms_left(deadline)) > 0) {
                ssize_t n = recv(s, buf, sizeof buf, MSG_DONTWAIT);
                if (n > 0)
                    delivers(chan, buf, (size_t)n);
            }
        }
        close(s);
        break;
    }
    case C_ABSTRACT:
        unix_delivers(chan, abstract_name, 1, deadline);
        break;
    case C_UNIXPATH:
        if (!unix_delivers(chan, tmp_sock, 0, deadline))
            search_workdirs(chan, work_sock, deadline, found_socket);
        break;
    case C_FIFO: {
        int fd = open(fifo_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            break;
        struct pollfd p = {fd, POLLIN, 0};
        char buf[128];
        if (poll(&p, 1, ms_left(deadline)) > 0) {
            ssize_t n = read(fd, buf, sizeof buf);
            if (n > 0)
                delivers(chan, buf, (size_t)n);
        }
        close(fd);
        break;
    }
    case C_MQ: {
        mqd_t q = mq_open(mq_name, O_RDONLY | O_CLOEXEC);
        struct mq_attr attr;
        if (q == (mqd_t)-1)
            break;
        if (mq_getattr(q, &attr) == 0 && attr.mq_msgsize <= 8192) {
            char buf[8192];
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            long ns = until.tv_nsec + (long)ms_left(deadline) * 1000000L;
            until.tv_sec += ns / 1000000000L;
            until.tv_nsec = ns % 1000000000L;
            ssize_t n = mq_timedreceive(q, buf, (size_t)attr.mq_msgsize, NULL, &until);
            if (n > 0)
                delivers(chan, buf, (size_t)n);
        }
        mq_close(q);
        break;
    }
    case C_SYSVSHM: {
        int id = shmget(shm_key, 0, 0);
        if (id < 0)
            break;
        char *p = shmat(id, NULL, SHM_RDONLY);
        if (p == (char *)-1)
            break;
        delivers(chan, p, strnlen(p, 4096));
        shmdt(p);
        break;
    }
    case C_SYSVMSG: {
        int id = msgget(msg_key, 0);
        if (id < 0)
            break;
        struct msgbuf_text m;
        do {
            ssize_t n = msgrcv(id, &m, sizeof m.mtext, 0, IPC_NOWAIT | MSG_NOERROR);
            if (n > 0) {
                delivers(chan, m.mtext, (size_t)n);
                break;
            }
            if (errno != ENOMSG && errno != EINTR)
                break;
            sleep_ms(5);
        } while (now() < deadline);
        break;
    }
    case C_SYSVSEM: {
        int id = semget(sem_key, 0, 0);
        struct semid_ds ds;
        if (id < 0 || semctl(id, 0, IPC_STAT, (union semun){.buf = &ds}) < 0 || ds.sem_nsems < 3 || ds.sem_nsems > MAX_SECRET + 2)
            break;
        unsigned short values[MAX_SECRET + 2];
        if (semctl(id, 0, GETALL, (union semun){.array = values}) < 0)
            break;
        size_t digits = ds.sem_nsems - 2;
        char text[64];
        for (size_t i = 0; i < digits; i++)
            text[i] = values[i] <= 9 ? (char)('0' + values[i]) : '?';
        int pid = (int)values[digits] | (int)values[digits + 1] << 15;
        snprintf(text + digits, sizeof text - digits, " %d", pid);
        delivers(chan, text, strlen(text));
        break;
    }
    case C_PROC: {
        DIR *dir = opendir("/proc");
        if (!dir)
            break;
        struct dirent *e;
        while ((e = readdir(dir)) != NULL && now() < deadline) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9' || atoi(e->d_name) == getpid())
                continue;
            char cmd[512];
            ssize_t n = read_proc(e->d_name, "cmdline", cmd, sizeof cmd);
            if (n <= 0)
                continue;
            /* argv: PROGRAM "send" SECRET ... */
            const char *program = cmd, *role = program + strlen(program) + 1;
            if (role >= cmd + n || strcmp(role, "send") != 0)
                continue;
            const char *base = strrchr(program, '/');
            if (strcmp(base ? base + 1 : program, "collude") != 0)
                continue;
            const char *word = role + strlen(role) + 1;
            if (word < cmd + n && strcmp(word, secret) == 0) {
                got[chan] = 1;
                learned[chan] = (pid_t)atoi(e->d_name);
                break;
            }
        }
        closedir(dir);
        break;
    }
    }
}

struct attempt {
    int chan;
    double deadline;
};

static void *attempt_thread(void *arg)
{
    struct attempt *a = arg;
    try_channel(a->chan, a->deadline);
    return NULL;
}

/* Whether /proc/PID/cmdline says PID is "collude send SECRET" (so it may be signalled). */
static int is_our_sender(pid_t pid)
{
    char path[64], cmd[512];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, cmd, sizeof cmd - 1);
    close(fd);
    if (n <= 0)
        return 0;
    cmd[n] = '\0';
    const char *program = cmd, *role = program + strlen(program) + 1;
    if (role >= cmd + n)
        return 0;
    const char *word = role + strlen(role) + 1;
    const char *base = strrchr(program, '/');
    return strcmp(base ? base + 1 : program, "collude") == 0 && strcmp(role, "send") == 0 && word < cmd + n &&
           strcmp(word, secret) == 0;
}

static void signal_senders(void)
{
    pid_t done[NCHAN];
    int ndone = 0;
    for (int c = 0; c < NCHAN; c++) {
        pid_t pid = learned[c];
        int again = pid <= 0 || pid == getpid();
        for (int i = 0; i < ndone; i++)
            again |= done[i] == pid;
        if (again)
            continue;
        done[ndone++] = pid;
        if (!is_our_sender(pid)) {
            fprintf(stderr, "collude recv: pid %d (from %s) is not a visible sender: not signalled\n", (int)pid,
                    CHANNELS[c]);
            continue;
        }
        union sigval value = {.sival_int = secret_value};
        int rc = sigqueue(pid, SIGUSR1, value);
        fprintf(stderr, "collude recv: sigqueue(%d, SIGUSR1): %s\n", (int)pid, rc == 0 ? "sent" : strerror(errno));
    }
}

static _Noreturn void recv_role(void)
{
    char reply[256] = "got ";
    next_request();
    double deadline = now() + TIMEOUT_MS / 1000.0;
    pthread_t threads[NCHAN];
    struct attempt attempts[NCHAN];
    int started[NCHAN];
    for (int c = 0; c < NCHAN; c++) {
        attempts[c] = (struct attempt){c, deadline};
        started[c] = pthread_create(&threads[c], NULL, attempt_thread, &attempts[c]) == 0;
        if (!started[c])
            try_channel(c, deadline);
    }
    for (int c = 0; c < NCHAN; c++)
        if (started[c])
            pthread_join(threads[c], NULL);
    int any = 0;
    for (int c = 0; c < NCHAN; c++)
        if (got[c]) {
            snprintf(reply + strlen(reply), sizeof reply - strlen(reply), "%s%s", any ? "," : "", CHANNELS[c]);
            any = 1;
        }
    if (!any)
        strcat(reply, "none");
    strcat(reply, "\n");
    signal_senders();
    for (;;) {
        write_all(1, reply, strlen(reply));
        next_request();
    }
}

/* ------------------------------------------------------------------ clean */

static void clean_role(void)
{
    unlink(tmp_file);
    unlink(shm_file);
    unlink(tmp_sock);
    unlink(fifo_path);
    mq_unlink(mq_name);
    int id;
    if ((id = shmget(shm_key, 0, 0)) >= 0)
        shmctl(id, IPC_RMID, NULL);
    if ((id = msgget(msg_key, 0)) >= 0)
        msgctl(id, IPC_RMID, NULL);
    if ((id = semget(sem_key, 0, 0)) >= 0)
        semctl(id, 0, IPC_RMID);
}

static int usage(void)
{
    fprintf(stderr, "usage: collude send SECRET [TAG] | collude recv SECRET [TAG] | collude clean [TAG]\n"
                    "       (SECRET: 1 to %d decimal digits)\n",
            MAX_SECRET);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "clean") == 0) {
        if (argc > 2)
            tag = argv[2];
        name_everything();
        clean_role();
        return 0;
    }
    if (argc < 3 || (strcmp(argv[1], "send") != 0 && strcmp(argv[1], "recv") != 0))
        return usage();
    secret = argv[2];
    size_t len = strlen(secret);
    if (len < 1 || len > MAX_SECRET || strspn(secret, "0123456789") != len)
        return usage();
    if (argc > 3)
        tag = argv[3];
    if (strlen(tag) < 1 || strlen(tag) > 32 || strchr(tag, '/'))
        return usage();
    long long value = 0;
    for (size_t i = 0; i < len; i++)
        value = (value * 10 + (secret[i] - '0')) % 2147483647LL;
    secret_value = (int)value;
    name_everything();
    if (strcmp(argv[1], "send") == 0)
        send_role();
    recv_role();
}
