/* closestdin [GOOD] - closes stdin while answering request GOOD (before writing the
 * answer, so the referee's next write surely fails) and keeps running.
 * Expected: crash ("its input pipe is closed but kept running").  GOOD 0 closes at once. */
#include "hostile.h"

int main(int argc, char **argv)
{
    int good = good_arg(argc, argv, 1);
    if (good > 0) {
        behave(good - 1);
        next_request();
    }
    close(0);
    if (good > 0)
        answer();
    wait_forever();
}
