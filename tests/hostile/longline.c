/* longline [GOOD] - after GOOD answers, writes 10 MB of digits and no newline, then
 * waits.  Expected: protocol (over-long line), with the referee's buffer bounded. */
#include "hostile.h"

int main(int argc, char **argv)
{
    static char chunk[1 << 16];
    behave(good_arg(argc, argv, 1));
    next_request();
    memset(chunk, '7', sizeof chunk);
    for (size_t sent = 0; sent < 10u * 1000 * 1000; sent += sizeof chunk)
        write_all(1, chunk, sizeof chunk);
    wait_forever();
}
