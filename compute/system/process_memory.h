// process_memory.h: how much memory this process holds, for soak tests and leak checks, and
// how its large buffers ask the kernel for memory.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ms {

// Resident set size in bytes (/proc/self/statm), or -1 where it cannot be read.
int64_t process_resident_bytes();

// The same after handing the heap's free pages back to the system (glibc's malloc_trim), so
// that it follows the memory the program holds rather than what the allocator keeps cached.
// Costs a walk over the heap: for samples, not for every frame.
int64_t process_resident_bytes_trimmed();

// Bytes the program holds from malloc (glibc's mallinfo2: arena and mmapped blocks in use).
int64_t process_heap_in_use_bytes();

// Makes every malloc block of kLargeBlockBytes or more a mapping of its own that free() gives
// straight back to the system (glibc's M_MMAP_THRESHOLD), for a long-running window. By default
// glibc raises that threshold each time such a block is freed, up to 32 MiB: once the first
// export has freed its strips, the next exports' strips and batches (a few to 32 MB each, a new
// size every time) would come from the heap's arenas instead, which grow with much of their
// memory free but fragmented, and resident memory would creep over a soak run.
inline constexpr long kLargeBlockBytes = 256L << 10;
void keep_large_blocks_mapped();

// Asks for 2 MiB pages (transparent huge pages in "madvise" mode) over the whole 2 MiB pages
// inside [p, p + bytes): a large buffer that fills as it is written then faults 512 times less
// often and is freed faster. A hint: where it is refused or unsupported, the pages stay plain.
void advise_huge_pages(void* p, size_t bytes);

}  // namespace ms
