/* hopper rename|hop TAG [GOOD] - a daemon built to evade the referee's sweeps.
 *
 * After GOOD honest answers, on the next request the bot starts the daemon, answers
 * "0" at once and goes on answering "0" promptly.  The daemon is double-forked into a
 * new session (out of the bot's process group and tree), with stdin, stdout and stderr
 * on /dev/null and every other descriptor closed, then:
 *
 *   rename  re-executes itself (fexecve of its own binary) with an EMPTY environment,
 *           so that no environment token finds it, and the argv "kworker/0:1" TAG; then
 *           names itself "kw-TAG" (prctl PR_SET_NAME; the name is cut at 15 bytes, so a
 *           TAG of at most 12 characters survives whole), moves to "/" and sleeps.
 *           Should the exec fail, it scrubs its environment and argv in place instead.
 *   hop     names itself "hop-TAG" and forks every ~1 ms, the parent exiting each time,
 *           so that its pid keeps changing (its argv keeps TAG; its environment stays).
 *           Each hop leaves a zombie to whoever reaps orphans; to bound them it pauses
 *           while ZOMBIE_CAP zombies of its current parent exist (counted in /proc every
 *           50 hops), and, when it cannot count them (no /proc, or a parent outside its
 *           pid namespace), it stops hopping after BLIND_HOPS hops.
 *
 * Either daemon exits by itself LIFETIME_S after it started.
 * Expected: nothing of it survives the match; the test looks for TAG in every
 * /proc/PID/cmdline and /proc/PID/comm. */
#include "hostile.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#define LIFETIME_S 20
#define DAEMON_ARGV0 "kworker/0:1"
#define ZOMBIE_CAP 200
#define BLIND_HOPS 300

extern char **environ;

static void sleep_until(double deadline)
{
    double left;
    while ((left = deadline - now()) > 0)
        sleep_ms(left > 1.0 ? 1000 : (long)(left * 1000) + 1);
}

static void set_name(const char *prefix, const char *tag)
{
    char name[16];
    snprintf(name, sizeof name, "%s%s", prefix, tag);
    prctl(PR_SET_NAME, name, 0, 0, 0);
}

static void detach_stdio(void)
{
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
    }
    close_range(3, ~0U, 0);
}

/* ------------------------------------------------------------------ rename */

/* The last stage, after the exec: argv is "kworker/0:1" TAG, the environment empty. */
static _Noreturn void renamed(const char *tag)
{
    alarm(LIFETIME_S + 1);
    double deadline = now() + LIFETIME_S;
    set_name("kw-", tag);
    if (chdir("/") < 0) {
        /* stays where it is */
    }
    sleep_until(deadline);
    _exit(0);
}

/* No exec possible: overwrite the argv and environment areas where /proc reads them. */
static _Noreturn void scrub_in_place(int argc, char **argv, char **env, const char *tag)
{
    char tag_copy[64];
    snprintf(tag_copy, sizeof tag_copy, "%s", tag);
    for (char **e = env; e && *e; e++)
        memset(*e, 0, strlen(*e));
    clearenv();
    char *start = argv[0];
    char *end = argv[argc - 1] + strlen(argv[argc - 1]); /* the last NUL */
    size_t room = (size_t)(end - start);
    memset(start, 0, room);
    char wanted[96];
    int len = snprintf(wanted, sizeof wanted, "%s%c%s", DAEMON_ARGV0, '\0', tag_copy);
    memcpy(start, wanted, (size_t)len < room ? (size_t)len : room);
    renamed(tag_copy);
}

static _Noreturn void rename_daemon(int argc, char **argv, char **env, const char *tag, const char *self)
{
    detach_stdio();
    int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (exe < 0 && self[0])
        exe = open(self, O_RDONLY | O_CLOEXEC);
    if (exe >= 0) {
        char *new_argv[] = {DAEMON_ARGV0, (char *)tag, NULL};
        char *empty_env[] = {NULL};
        clearenv();
        fexecve(exe, new_argv, empty_env);
    }
    scrub_in_place(argc, argv, env, tag);
}

/* ------------------------------------------------------------------ hop */

/* Zombies whose parent is `parent`, or -1 when they cannot be counted. */
static int zombies_of(pid_t parent)
{
    if (parent <= 0)
        return -1;
    DIR *dir = opendir("/proc");
    if (!dir)
        return -1;
    int zombies = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char buf[512];
        if (read_proc(e->d_name, "stat", buf, sizeof buf) <= 0)
            continue;
        char *paren = strrchr(buf, ')');
        char state;
        int ppid;
        if (paren && sscanf(paren + 1, " %c %d", &state, &ppid) == 2 && state == 'Z' && ppid == parent)
            zombies++;
    }
    closedir(dir);
    return zombies;
}

static _Noreturn void hop(const char *tag)
{
    detach_stdio();
    set_name("hop-", tag);
    double deadline = now() + LIFETIME_S; /* inherited by every hop */
    long hops = 0;
    int blind = 0;
    for (;;) {
        if (now() >= deadline)
            _exit(0);
        if (hops % 50 == 0 && !blind) {
            int zombies;
            while ((zombies = zombies_of(getppid())) >= ZOMBIE_CAP && now() < deadline)
                sleep_ms(5);
            blind = zombies < 0;
        }
        if (blind && hops >= BLIND_HOPS) {
            sleep_until(deadline);
            _exit(0);
        }
        pid_t child = fork();
        if (child < 0) {
            sleep_ms(1);
            continue;
        }
        if (child > 0)
            _exit(0);
        hops++;
        sleep_ms(1);
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[0], DAEMON_ARGV0) == 0)
        renamed(argv[1]); /* the rename daemon, re-executed */
    if (argc < 3 || (strcmp(argv[1], "rename") != 0 && strcmp(argv[1], "hop") != 0)) {
        fprintf(stderr, "usage: hopper rename|hop TAG [GOOD]\n");
        return 2;
    }
    char **env = environ;
    char self[4096] = "";
    if (!realpath(argv[0], self))
        self[0] = '\0';
    behave(good_arg(argc, argv, 3));
    next_request();
    pid_t child = fork();
    if (child == 0) {
        setsid();
        if (fork() == 0) {
            if (strcmp(argv[1], "rename") == 0)
                rename_daemon(argc, argv, env, argv[2], self);
            hop(argv[2]);
        }
        _exit(0);
    }
    if (child > 0)
        waitpid(child, NULL, 0);
    answer_forever();
}
