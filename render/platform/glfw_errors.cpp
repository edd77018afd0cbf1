// glfw_errors.cpp: GLFW reports its errors through a callback; this one prints them as a
// sentence on stderr and keeps the last one so the window can show it.
#include "render/platform/glfw_errors.h"

#include <GLFW/glfw3.h>

#include <cstdio>

namespace ms {

namespace {
std::string g_last_glfw_error;  // GLFW's callback carries no user pointer
}

static void on_glfw_error(int code, const char* description) {
    std::fprintf(stderr, "GLFW error %d: %s\n", code, description);
    g_last_glfw_error = description;
}

void install_glfw_error_callback() { glfwSetErrorCallback(on_glfw_error); }

const std::string& last_glfw_error() { return g_last_glfw_error; }

}  // namespace ms
