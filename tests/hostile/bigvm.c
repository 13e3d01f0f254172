/* bigvm - a legitimate bot with a Go- or JVM-style address-space reservation: 32 GiB
 * mapped PROT_NONE (reserved, never touched), then it answers every request "0".
 * Expected: no fault under default limits, which cap resident memory, not address
 * space. */
#include "hostile.h"

#include <sys/mman.h>

int main(void)
{
    size_t size = (size_t)32 << 30;
    void *arena = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (arena == MAP_FAILED)
        return 3;
    for (;;) {
        next_request();
        answer();
    }
}
