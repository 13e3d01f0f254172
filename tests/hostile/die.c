/* die segv|abort|exit1|exit0 [GOOD] - after GOOD answers, dies: a real invalid memory
 * write (SIGSEGV), abort() (SIGABRT), exit(1), or exit(0) before answering.
 * Expected: crash, the detail naming the signal or the exit code. */
#include "hostile.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    behave(good_arg(argc, argv, 2));
    next_request();
    if (strcmp(argv[1], "segv") == 0) {
        /* Both volatile: the compiler can neither drop the store nor turn it into a trap. */
        volatile int *volatile nowhere = NULL;
        *nowhere = 1;
    } else if (strcmp(argv[1], "abort") == 0) {
        abort();
    } else if (strcmp(argv[1], "exit1") == 0) {
        exit(1);
    }
    exit(0);
}
