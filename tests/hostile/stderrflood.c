/* stderrflood [MIB] - before each answer writes MIB MiB (default 1) to stderr, then
 * answers "0" correctly.  Expected: no fault; the referee keeps draining stderr (or this
 * bot would block) and keeps only a bounded head and tail of it. */
#include "hostile.h"

int main(int argc, char **argv)
{
    static char junk[1 << 16];
    long mib = argc > 1 ? atol(argv[1]) : 1;
    memset(junk, 'e', sizeof junk);
    junk[sizeof junk - 1] = '\n';
    for (;;) {
        next_request();
        for (long i = 0; i < mib * 16; i++)
            write_all(2, junk, sizeof junk);
        answer();
    }
}
