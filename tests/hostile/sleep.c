/* sleep [GOOD] - after GOOD answers, sleeps instead of answering.  Expected: timeout. */
#include "hostile.h"

int main(int argc, char **argv)
{
    behave(good_arg(argc, argv, 1));
    next_request();
    for (;;)
        sleep(3600);
}
