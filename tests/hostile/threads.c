/* threads [GOOD] - after GOOD answers, two threads burn CPU in parallel.  Each reports
 * its own CPU time on stderr every 50 ms ("thread N cpu S"), so a test can tell that
 * neither thread alone reached the budget.
 * Expected: cpu, because the budget counts the CPU of every thread (and every process)
 * of the bot: on an idle machine it is reached in about half the wall time. */
#include "hostile.h"

#include <pthread.h>
#include <time.h>

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *burn(void *arg)
{
    int id = (int)(long)arg;
    double next_report = 0.05;
    for (;;) {
        for (volatile unsigned long n = 0; n < 100000; n++)
            ;
        double used = thread_cpu();
        if (used >= next_report) {
            char line[64];
            int len = snprintf(line, sizeof line, "thread %d cpu %.3f\n", id, used);
            write_all(2, line, (size_t)len);
            next_report += 0.05;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    behave(good_arg(argc, argv, 1));
    next_request();
    pthread_t a, b;
    if (pthread_create(&a, NULL, burn, (void *)1L) != 0 || pthread_create(&b, NULL, burn, (void *)2L) != 0)
        return 2;
    pthread_join(a, NULL);
    return 0;
}
