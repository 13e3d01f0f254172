/* sigstop [GOOD] - after GOOD answers, stops itself with SIGSTOP.  A stopped process
 * uses no CPU, so only the wall-clock limit catches it.  Expected: timeout. */
#include "hostile.h"

int main(int argc, char **argv)
{
    behave(good_arg(argc, argv, 1));
    next_request();
    raise(SIGSTOP);
    wait_forever();
}
