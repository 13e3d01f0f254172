/* noread [GOOD] - after GOOD answers, never reads stdin again, so a large request fills
 * the pipe and the referee's write cannot complete.
 * Expected: timeout ("did not read its input"); startup when GOOD is 0. */
#include "hostile.h"

int main(int argc, char **argv)
{
    behave(good_arg(argc, argv, 1));
    wait_forever();
}
