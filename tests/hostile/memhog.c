/* memhog heap|child [MIB] [GOOD] - after GOOD answers, allocates MIB MiB (default 400,
 * at most 1024) and touches every page, either itself ("heap") or in a forked child
 * ("child") while the parent waits.  Expected: memory (the whole tree's RSS counts). */
#include "hostile.h"

#define MAX_MIB 1024

static void hog(size_t mib)
{
    size_t size = mib << 20;
    volatile char *p = malloc(size);
    if (p == NULL)
        exit(3);
    long page = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < size; i += (size_t)page)
        p[i] = 1;
    wait_forever();
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    size_t mib = argc > 2 ? (size_t)atol(argv[2]) : 400;
    if (mib > MAX_MIB)
        mib = MAX_MIB;
    behave(good_arg(argc, argv, 3));
    next_request();
    if (strcmp(argv[1], "heap") == 0)
        hog(mib);
    pid_t pid = fork();
    if (pid == 0)
        hog(mib);
    wait_forever();
}
