/* midline [GOOD] - after GOOD answers, prints "1" without a newline and exits.
 * Expected: crash ("exited with code 0"), not a half line taken as an answer. */
#include "hostile.h"

int main(int argc, char **argv)
{
    behave(good_arg(argc, argv, 1));
    next_request();
    write_all(1, "1", 1);
    _exit(0);
}
