/* pause [GOOD] - after GOOD answers, waits in pause() for a signal that never comes.
 * Expected: timeout. */
#include "hostile.h"

int main(int argc, char **argv)
{
    behave(good_arg(argc, argv, 1));
    next_request();
    wait_forever();
}
