// assets.h: finds the data files (palettes, CNN weights, shaders) wherever the program is
// launched from: first beside the executable (build/bin/assets, build/bin/shaders, copied there
// by the build), then in the source tree the binary was built from.
#pragma once

#include <filesystem>

namespace ms {

// Directory holding `sub` ("assets" or "shaders"); throws std::runtime_error if none exists.
std::filesystem::path find_data_dir(const char* sub);

}  // namespace ms
