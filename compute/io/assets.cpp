// assets.cpp: locating data directories beside the executable or in the source tree.
#include "compute/io/assets.h"

#include <stdexcept>
#include <system_error>

namespace ms {

namespace {

std::filesystem::path executable_dir() {
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : exe.parent_path();
}

}  // namespace

std::filesystem::path find_data_dir(const char* sub) {
    const std::filesystem::path candidates[] = {
        executable_dir() / sub,
        std::filesystem::path(MANDELSCOPE_SOURCE_DIR) / sub,
    };
    for (const auto& dir : candidates) {
        std::error_code ec;
        if (!dir.empty() && std::filesystem::is_directory(dir, ec)) return dir;
    }
    throw std::runtime_error(std::string("cannot find the '") + sub + "' directory beside " +
                             executable_dir().string() + " or in " + MANDELSCOPE_SOURCE_DIR);
}

}  // namespace ms
