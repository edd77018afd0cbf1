// process_memory.h: how much memory this process holds, for soak tests and leak checks.
#pragma once

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

}  // namespace ms
