/* handoff [GOOD] - after GOOD honest answers, the bot hands its pipes to a grandchild
 * and its leader exits at once.
 *
 * The leader forks; the child calls setsid and forks the grandchild, then exits; the
 * leader reaps the child and exits with status 0 without reading another request.
 * The grandchild (new session, out of the process tree, holding the same stdin, stdout
 * and stderr) answers "0" to every later request, exactly as the bot would have, and
 * exits on EOF or after LIFETIME_S in any case.
 * Expected: the referee notices the leader's exit (a crash) and takes no decision from
 * the grandchild; nothing of it is left. */
#include "hostile.h"

#include <sys/wait.h>

#define LIFETIME_S 20

int main(int argc, char **argv)
{
    behave(good_arg(argc, argv, 1));
    pid_t child = fork();
    if (child == 0) {
        setsid();
        if (fork() == 0) {
            alarm(LIFETIME_S);
            for (;;) {
                next_request();
                answer();
            }
        }
        _exit(0);
    }
    if (child > 0)
        waitpid(child, NULL, 0);
    _exit(0);
}
