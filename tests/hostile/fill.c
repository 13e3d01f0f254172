/* fill [MIB] [GOOD] - after GOOD answers, writes one file of MIB MiB (default 256) in its
 * working directory.  Expected: crash, killed by SIGXFSZ when the file reaches the
 * RLIMIT_FSIZE limit. */
#include "hostile.h"

#include <fcntl.h>

int main(int argc, char **argv)
{
    static char chunk[1 << 20];
    long mib = argc > 1 ? atol(argv[1]) : 256;
    behave(good_arg(argc, argv, 2));
    next_request();
    int fd = open("fill.dat", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return 3;
    memset(chunk, 'f', sizeof chunk);
    for (long i = 0; i < mib; i++)
        write_all(fd, chunk, sizeof chunk);
    close(fd);
    answer(); /* reached only if the limit did not stop it */
    wait_forever();
}
