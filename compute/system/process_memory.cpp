// process_memory.cpp: the resident set size from /proc/self/statm (process_memory.h).
#include "compute/system/process_memory.h"

#include <cstdio>

#include <malloc.h>
#include <sys/mman.h>
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

void advise_huge_pages(void* p, size_t bytes) {
#if defined(MADV_HUGEPAGE)
    constexpr uintptr_t kHuge = uintptr_t(2) << 20;
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

}  // namespace ms
