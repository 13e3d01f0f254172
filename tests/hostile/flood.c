/* flood [GOOD] - after GOOD answers, floods stdout with short lines forever.
 * Expected: protocol (more than one line per request), referee memory bounded. */
#include "hostile.h"

int main(int argc, char **argv)
{
    static char lines[1 << 16];
    behave(good_arg(argc, argv, 1));
    next_request();
    for (size_t i = 0; i < sizeof lines; i += 2)
        memcpy(lines + i, "0\n", 2);
    for (;;)
        write_all(1, lines, sizeof lines);
}
