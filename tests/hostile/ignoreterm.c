/* ignoreterm - ignores SIGTERM, SIGINT and SIGHUP, as does a child it forks, answers
 * every request, and stays after EOF on stdin.  Expected: no fault, and close() still
 * ends both within its bound (it uses SIGKILL, which cannot be ignored). */
#include "hostile.h"

int main(void)
{
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    if (fork() == 0)
        wait_forever(); /* inherits the ignored signals */
    char c;
    for (;;) {
        ssize_t n = read(0, &c, 1);
        if (n == 0)
            break;
        if (n == 1 && c == '\n')
            answer();
    }
    wait_forever(); /* EOF: a polite bot would exit now */
}
