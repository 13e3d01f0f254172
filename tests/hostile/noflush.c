/* noflush [GOOD] - after GOOD answers, writes its answer through stdio and never
 * flushes it: stdout is a pipe, so stdio holds the line in its buffer.
 * Expected: timeout (the referee never sees the answer). */
#include "hostile.h"

int main(int argc, char **argv)
{
    behave(good_arg(argc, argv, 1));
    next_request();
    printf("0\n"); /* fully buffered: stays in this process */
    wait_forever();
}
