// assets.cpp: locating the data directories beside the executable, in the install prefix or in
// the source tree (the order is in assets.h).
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

std::string places(const std::vector<std::filesystem::path>& candidates) {
    std::string text;
    for (size_t i = 0; i < candidates.size(); ++i)
        text += (i == 0 ? "" : i + 1 == candidates.size() ? " or " : ", ") + candidates[i].string();
    return text;
}

}  // namespace

std::vector<std::filesystem::path> data_dir_candidates(const char* sub) {
    std::vector<std::filesystem::path> dirs;
    const std::filesystem::path exe = executable_dir();
    if (!exe.empty()) {
        dirs.push_back(exe / sub);
        dirs.push_back((exe / ".." / "share" / "mandelscope" / sub).lexically_normal());
    }
    dirs.push_back(std::filesystem::path(MANDELSCOPE_INSTALL_DATADIR) / sub);
    dirs.push_back(std::filesystem::path(MANDELSCOPE_SOURCE_DIR) / sub);
    return dirs;
}

std::filesystem::path find_data_dir(const char* sub) {
    const auto candidates = data_dir_candidates(sub);
    for (const auto& dir : candidates) {
        std::error_code ec;
        if (std::filesystem::is_directory(dir, ec)) return dir;
    }
    throw std::runtime_error(std::string("cannot find the '") + sub + "' directory (looked in " + places(candidates) +
                             ")");
}

std::filesystem::path find_data_file(const char* sub, const std::filesystem::path& relative) {
    auto candidates = data_dir_candidates(sub);
    for (auto& dir : candidates) {
        dir /= relative;
        std::error_code ec;
        if (std::filesystem::is_regular_file(dir, ec)) return dir;
    }
    throw std::runtime_error("cannot find '" + relative.string() + "' (looked in " + places(candidates) + ")");
}

}  // namespace ms
