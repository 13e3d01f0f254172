/* forkbomb [CHILDREN] [GOOD] - after GOOD answers, forks CHILDREN children (default and
 * at most 200) that sleep; every other child also calls setsid() to leave the process
 * group, so killpg alone would miss it.  The parent then never answers.
 *
 * BOUNDED ON PURPOSE: the suite runs as root, where RLIMIT_NPROC does not apply, so an
 * unbounded fork bomb would take the machine down until a uid or pid layer exists.
 * Children never fork.  Expected: timeout, and after close not one child left. */
#include "hostile.h"

#define MAX_CHILDREN 200

int main(int argc, char **argv)
{
    int children = argc > 1 ? atoi(argv[1]) : MAX_CHILDREN;
    if (children > MAX_CHILDREN)
        children = MAX_CHILDREN;
    behave(good_arg(argc, argv, 2));
    next_request();
    for (int i = 0; i < children; i++) {
        pid_t pid = fork();
        if (pid < 0)
            break;
        if (pid == 0) {
            if (i % 2)
                setsid();
            wait_forever(); /* a child never forks */
        }
    }
    wait_forever();
}
