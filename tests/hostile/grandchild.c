/* grandchild cpu [GOOD] | grandchild memory|shm|disk N [GOOD] - an innocent-looking bot
 * whose grandchild does the damage.
 *
 * After GOOD honest answers, on the next request the bot double-forks a grandchild in
 * a new session (out of its process group and its process tree, its stdin, stdout and
 * stderr on /dev/null, so that it holds none of the bot's pipes), answers "0" at once,
 * and goes on answering "0" promptly to every request.  The grandchild:
 *
 *   cpu       burns CPU until LIFETIME_S from its start
 *   memory N  allocates and touches N MiB (at most 900), holds them LIFETIME_S
 *   shm N     writes N MiB (at most 1024) into /dev/shm/referee-hostile-shm-<pid>,
 *             holds it LIFETIME_S, then deletes it (also on SIGTERM/SIGINT/SIGHUP)
 *   disk N    writes N MiB (at most 400) into files of 32 MiB each,
 *             <dir>/referee-hostile-disk-<pid>-<k>, in each of the working directory,
 *             /tmp and /var/tmp where it can; keeps them (the test removes them), and
 *             ignores SIGXFSZ: at a file-size limit it starts the next file
 *
 * and in every mode exits by itself after LIFETIME_S (alarm as a backstop).
 * Expected: the referee charges the grandchild to the bot. */
#include "hostile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#define LIFETIME_S 20
#define MiB (1024L * 1024L)
#define FILE_MIB 32

static double deadline;
static char shm_path[128];

static void hold_until_deadline(void)
{
    double left;
    while ((left = deadline - now()) > 0) {
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

static void remove_shm(int sig)
{
    (void)sig;
    if (shm_path[0])
        unlink(shm_path);
    _exit(0);
}

static void burn_cpu(void)
{
    volatile unsigned long x = 0;
    while (now() < deadline)
        for (int i = 0; i < 1000000; i++)
            x += (unsigned long)i;
}

static void hog_memory(long mib)
{
    char *p = malloc((size_t)(mib * MiB));
    if (p)
        for (long i = 0; i < mib * MiB; i += 4096)
            p[i] = 1;
    hold_until_deadline();
    free(p);
}

/* Writes up to `bytes` bytes of buf-sized chunks to fd; returns what was written, and
 * leaves errno set by the failing write, if any. */
static long write_some(int fd, const char *buf, long bytes)
{
    long done = 0;
    errno = 0;
    while (done < bytes) {
        long chunk = bytes - done < MiB ? bytes - done : MiB;
        ssize_t n = write(fd, buf, (size_t)chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += n;
    }
    return done;
}

static void fill_shm(long mib, const char *buf)
{
    snprintf(shm_path, sizeof shm_path, "/dev/shm/referee-hostile-shm-%d", (int)getpid());
    signal(SIGTERM, remove_shm);
    signal(SIGINT, remove_shm);
    signal(SIGHUP, remove_shm);
    int fd = open(shm_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
        write_some(fd, buf, mib * MiB);
        close(fd);
    } else {
        shm_path[0] = '\0';
    }
    hold_until_deadline();
    remove_shm(0);
}

static void fill_disk(long mib, const char *buf)
{
    static const char *const dirs[] = {".", "/tmp", "/var/tmp"};
    signal(SIGXFSZ, SIG_IGN); /* a file-size limit: EFBIG, and on to the next file */
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0] && now() < deadline; d++) {
        long left = mib * MiB;
        for (int k = 0; left > 0 && now() < deadline; k++) {
            char path[256];
            snprintf(path, sizeof path, "%s/referee-hostile-disk-%d-%d", dirs[d], (int)getpid(), k);
            int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
            if (fd < 0)
                break; /* not writable: the next directory */
            long want = left < FILE_MIB * MiB ? left : FILE_MIB * MiB;
            long done = write_some(fd, buf, want);
            int err = errno;
            close(fd);
            left -= done;
            if (done == 0 || (done < want && err != EFBIG))
                break; /* full, or no progress: the next directory */
        }
    }
    hold_until_deadline();
}

static void grandchild(const char *mode, long mib)
{
    alarm(LIFETIME_S + 1);
    deadline = now() + LIFETIME_S;
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        if (null > 2)
            close(null);
    }
    close_range(3, ~0U, 0); /* nothing of the bot's but what it chose to keep */
    if (strcmp(mode, "cpu") == 0) {
        burn_cpu();
    } else if (strcmp(mode, "memory") == 0) {
        hog_memory(mib);
    } else {
        static char buf[1024 * 1024];
        memset(buf, 'x', sizeof buf); /* not zeros: nothing sparse or deduplicated */
        if (strcmp(mode, "shm") == 0)
            fill_shm(mib, buf);
        else
            fill_disk(mib, buf);
    }
    _exit(0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    long mib = 0, cap = 0;
    int good_index = 2;
    if (strcmp(mode, "memory") == 0)
        cap = 900;
    else if (strcmp(mode, "shm") == 0)
        cap = 1024;
    else if (strcmp(mode, "disk") == 0)
        cap = 400;
    else if (strcmp(mode, "cpu") != 0)
        cap = -1;
    if (cap > 0) {
        if (argc < 3)
            cap = -1;
        else
            mib = atol(argv[2]);
        good_index = 3;
    }
    if (cap < 0) {
        fprintf(stderr, "usage: grandchild cpu [GOOD] | grandchild memory|shm|disk MIB [GOOD]\n");
        return 2;
    }
    if (mib < 0)
        mib = 0;
    if (cap > 0 && mib > cap)
        mib = cap;
    behave(good_arg(argc, argv, good_index));
    next_request();
    pid_t child = fork();
    if (child == 0) {
        setsid();
        if (fork() == 0)
            grandchild(mode, mib);
        _exit(0);
    }
    if (child > 0)
        waitpid(child, NULL, 0);
    answer_forever();
}
