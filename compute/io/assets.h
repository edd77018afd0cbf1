// assets.h: finds the data files (palettes, CNN weights, shaders) wherever the program is
// launched from and wherever it was installed or moved. The places tried, in order:
//   1. beside the executable:        <exe dir>/assets, <exe dir>/shaders   (build/bin, copied
//                                    there by the build)
//   2. the install prefix, relative: <exe dir>/../share/mandelscope/<sub>  (an installed tree,
//                                    even after it was moved as a whole)
//   3. the install prefix, absolute: <CMAKE_INSTALL_PREFIX>/share/mandelscope/<sub> (the binary
//                                    alone copied elsewhere)
//   4. the source tree the binary was built from.
// The first place that has what is asked for wins.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ms {

// The places tried for `sub` ("assets" or "shaders"), in order (some may not exist).
std::vector<std::filesystem::path> data_dir_candidates(const char* sub);

// Directory holding `sub`; throws std::runtime_error naming every place tried if none exists.
std::filesystem::path find_data_dir(const char* sub);

// A file under `sub` ("assets", "cnn/fashion_mnist.msw"): the first candidate directory that
// holds it; throws std::runtime_error naming every place tried if none does.
std::filesystem::path find_data_file(const char* sub, const std::filesystem::path& relative);

}  // namespace ms
