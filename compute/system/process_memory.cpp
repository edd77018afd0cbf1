// process_memory.cpp: the resident set size from /proc/self/statm (process_memory.h).
#include "compute/system/process_memory.h"

#include <cstdio>

#include <malloc.h>
#include <unistd.h>

namespace ms {

int64_t process_resident_bytes() {
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f) return -1;
    long long size_pages = 0, resident_pages = 0;
    const int read = std::fscanf(f, "%lld %lld", &size_pages, &resident_pages);
    std::fclose(f);
    if (read != 2) return -1;
    return int64_t(resident_pages) * int64_t(sysconf(_SC_PAGESIZE));
}

int64_t process_resident_bytes_trimmed() {
    malloc_trim(0);
    return process_resident_bytes();
}

int64_t process_heap_in_use_bytes() {
    const struct mallinfo2 info = mallinfo2();
    return int64_t(info.uordblks + info.hblkhd);
}

void keep_large_blocks_mapped() { mallopt(M_MMAP_THRESHOLD, int(kLargeBlockBytes)); }

}  // namespace ms
