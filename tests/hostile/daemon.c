/* daemon exit|stay [GOOD] - after GOOD answers, double-forks a daemon in a new session
 * (setsid: out of the bot's process group; the double fork: out of its process tree)
 * that keeps the stdout pipe open and sleeps.  Then the bot itself exits ("exit") or
 * sleeps ("stay").  The referee must not wait for an EOF that never comes, and must
 * still find the daemon afterwards (the sweep by token, as the subreaper).
 * Expected: crash ("exit") or timeout ("stay"); no process left. */
#include "hostile.h"

#include <sys/wait.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    behave(good_arg(argc, argv, 2));
    next_request();
    pid_t child = fork();
    if (child == 0) {
        setsid();
        if (fork() == 0)
            wait_forever(); /* the daemon: holds fds 0, 1, 2 */
        _exit(0);
    }
    if (child > 0)
        waitpid(child, NULL, 0);
    if (strcmp(argv[1], "exit") == 0)
        _exit(0);
    wait_forever();
}
