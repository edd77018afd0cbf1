// gl_check.h: checked OpenGL calls and shader building, so a GL failure reaches the user as a
// sentence ("glTexSubImage2D(...) failed with GL_INVALID_OPERATION at render/x.cpp:12")
// instead of a black frame. Include this instead of <glad/gl.h> in render/ files.
#pragma once

#include <glad/gl.h>

#include <filesystem>
#include <string>

namespace ms {

const char* gl_error_name(GLenum error);
// Throws std::runtime_error naming the call, the error and the place if glGetError reports one.
void gl_check(const char* expr, const char* file, int line);

// Compiles a shader from a file; throws std::runtime_error with the file name and the
// compiler's log as the message.
GLuint compile_shader_file(GLenum type, const std::filesystem::path& path);
// Links a program from compiled shaders (deleting them); throws with the linker's log.
GLuint link_program(GLuint vertex_shader, GLuint fragment_shader);

// "NVIDIA H100 80GB HBM3/PCIe/SSE2 (OpenGL 3.3.0 NVIDIA 580.x)"
std::string gl_renderer_description();
// True when the context belongs to NVIDIA's driver, the only one CUDA can share buffers with.
bool gl_context_is_nvidia();
// Whether GL_RENDERER names a software rasteriser (Mesa's llvmpipe, softpipe, swrast): one that
// draws on the CPU's cores.
bool gl_is_software_rasteriser();

}  // namespace ms

#define GL_CHECK(expr)                             \
    do {                                           \
        expr;                                      \
        ::ms::gl_check(#expr, __FILE__, __LINE__); \
    } while (0)
