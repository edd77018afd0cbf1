// glfw_errors.h: GLFW error reporting (see glfw_errors.cpp).
#pragma once

#include <string>

namespace ms {

void install_glfw_error_callback();
const std::string& last_glfw_error();

}  // namespace ms
