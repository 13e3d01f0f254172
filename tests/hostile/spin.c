/* spin [GOOD] - after GOOD answers, an infinite loop on one core.
 * Expected: timeout under a short decision limit; cpu when the wall limit is long. */
#include "hostile.h"

int main(int argc, char **argv)
{
    behave(good_arg(argc, argv, 1));
    next_request();
    volatile unsigned long n = 0;
    for (;;)
        n++;
}
