// gl_check.cpp: OpenGL error checking and shader building (see gl_check.h).
#include "render/platform/gl_check.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ms {

const char* gl_error_name(GLenum error) {
    switch (error) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    default: return "an unknown GL error";
    }
}

void gl_check(const char* expr, const char* file, int line) {
    GLenum error = glGetError();
    if (error == GL_NO_ERROR) return;
    std::string names = gl_error_name(error);
    // GL may hold several error flags; drain them so the next check starts clean.
    for (int i = 0; i < 8 && (error = glGetError()) != GL_NO_ERROR; ++i)
        names += std::string(", ") + gl_error_name(error);
    throw std::runtime_error(std::string("OpenGL call ") + expr + " failed with " + names + " at " + file + ":" +
                             std::to_string(line));
}

GLuint compile_shader_file(GLenum type, const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read the shader " + path.string());
    std::stringstream text;
    text << in.rdbuf();
    std::string source = text.str();
    const char* source_ptr = source.c_str();
    GLuint shader = glCreateShader(type);
    glShaderSource(shader, 1, &source_ptr, nullptr);
    glCompileShader(shader);
    GLint ok = GL_FALSE;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096] = "";
        glGetShaderInfoLog(shader, sizeof log, nullptr, log);
        glDeleteShader(shader);
        throw std::runtime_error("the shader " + path.string() + " does not compile: " + log);
    }
    gl_check("compile_shader_file", __FILE__, __LINE__);
    return shader;
}

GLuint link_program(GLuint vertex_shader, GLuint fragment_shader) {
    GLuint program = glCreateProgram();
    glAttachShader(program, vertex_shader);
    glAttachShader(program, fragment_shader);
    glLinkProgram(program);
    glDeleteShader(vertex_shader);  // flagged; freed with the program
    glDeleteShader(fragment_shader);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[4096] = "";
        glGetProgramInfoLog(program, sizeof log, nullptr, log);
        glDeleteProgram(program);
        throw std::runtime_error(std::string("the frame shaders do not link: ") + log);
    }
    gl_check("link_program", __FILE__, __LINE__);
    return program;
}

std::string gl_renderer_description() {
    auto text = [](GLenum name) {
        const GLubyte* s = glGetString(name);
        return s ? std::string(reinterpret_cast<const char*>(s)) : std::string("?");
    };
    return text(GL_RENDERER) + " (OpenGL " + text(GL_VERSION) + ")";
}

bool gl_is_software_rasteriser() {
    const GLubyte* r = glGetString(GL_RENDERER);
    if (!r) return false;
    const std::string renderer(reinterpret_cast<const char*>(r));
    for (const char* name : {"llvmpipe", "softpipe", "swrast", "SWR", "lavapipe"})
        if (renderer.find(name) != std::string::npos) return true;
    return false;
}

bool gl_context_is_nvidia() {
    const GLubyte* vendor = glGetString(GL_VENDOR);
    return vendor && std::string(reinterpret_cast<const char*>(vendor)).find("NVIDIA") != std::string::npos;
}

}  // namespace ms
