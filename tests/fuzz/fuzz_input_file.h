// fuzz_input_file.h: hands a fuzz input to a reader that takes a path, without touching the
// disk: the bytes go into an anonymous memory file (memfd) and the reader opens it as
// /proc/self/fd/N. One file per process, rewritten for every input.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace ms_fuzz {

inline std::string input_file(const uint8_t* data, size_t size) {
    static int fd = memfd_create("mandelscope-fuzz", 0);
    if (fd < 0) std::abort();
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != ssize_t(size)) std::abort();
    return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace ms_fuzz
