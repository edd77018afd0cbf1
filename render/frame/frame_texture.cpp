// frame_texture.cpp: the frame texture and its full-screen triangle (see frame_texture.h).
#include "render/frame/frame_texture.h"

#include <cstdint>
#include <vector>

namespace ms {

FrameTexture create_frame_texture(const std::filesystem::path& shader_dir) {
    FrameTexture frame;
    frame.program = link_program(compile_shader_file(GL_VERTEX_SHADER, shader_dir / "fullscreen.vert"),
                                 compile_shader_file(GL_FRAGMENT_SHADER, shader_dir / "fullscreen.frag"));
    frame.window_size_location = glGetUniformLocation(frame.program, "window_size");
    frame.frame_size_location = glGetUniformLocation(frame.program, "frame_size");
    frame.frame_scale_location = glGetUniformLocation(frame.program, "frame_scale");
    frame.frame_offset_location = glGetUniformLocation(frame.program, "frame_offset");
    frame.background_location = glGetUniformLocation(frame.program, "background");
    GL_CHECK(glGenVertexArrays(1, &frame.vertex_array));
    GL_CHECK(glGenTextures(1, &frame.texture));
    GL_CHECK(glBindTexture(GL_TEXTURE_2D, frame.texture));
    // Linear filtering for the preview of a moved view; at scale 1 every window pixel samples
    // its texel's exact centre, which linear filtering returns unchanged.
    GL_CHECK(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR));
    GL_CHECK(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR));
    GL_CHECK(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE));
    GL_CHECK(glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE));
    GL_CHECK(glBindTexture(GL_TEXTURE_2D, 0));
    return frame;
}

void resize_frame_texture(FrameTexture& frame, int width, int height) {
    // Zeros, not undefined storage: the CPU path uploads a frame of a new size row by row as
    // the rows finish, and the ones still coming show black meanwhile.
    const std::vector<uint8_t> black(size_t(width) * height * 4);
    GL_CHECK(glBindTexture(GL_TEXTURE_2D, frame.texture));
    GL_CHECK(glPixelStorei(GL_UNPACK_ALIGNMENT, 4));
    GL_CHECK(glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, black.data()));
    GL_CHECK(glBindTexture(GL_TEXTURE_2D, 0));
    frame.width = width;
    frame.height = height;
}

void upload_frame_rows(FrameTexture& frame, const uint8_t* rgba, int first_row, int rows) {
    GL_CHECK(glBindTexture(GL_TEXTURE_2D, frame.texture));
    GL_CHECK(glPixelStorei(GL_UNPACK_ALIGNMENT, 4));
    GL_CHECK(glTexSubImage2D(GL_TEXTURE_2D, 0, 0, first_row, frame.width, rows, GL_RGBA, GL_UNSIGNED_BYTE,
                             rgba + size_t(first_row) * frame.width * 4));
    GL_CHECK(glBindTexture(GL_TEXTURE_2D, 0));
}

void upload_frame_from_pixel_buffer(FrameTexture& frame, GLuint pixel_buffer) {
    GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pixel_buffer));
    GL_CHECK(glBindTexture(GL_TEXTURE_2D, frame.texture));
    GL_CHECK(glPixelStorei(GL_UNPACK_ALIGNMENT, 4));
    // With a buffer bound to GL_PIXEL_UNPACK_BUFFER the pointer is an offset into it: the copy
    // stays on the GPU.
    GL_CHECK(glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, frame.width, frame.height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr));
    GL_CHECK(glBindTexture(GL_TEXTURE_2D, 0));
    GL_CHECK(glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0));
}

void draw_frame_texture(const FrameTexture& frame, int window_width, int window_height, const FrameMapping& mapping) {
    GL_CHECK(glUseProgram(frame.program));
    GL_CHECK(glActiveTexture(GL_TEXTURE0));
    GL_CHECK(glBindTexture(GL_TEXTURE_2D, frame.texture));
    glUniform2f(frame.window_size_location, float(window_width), float(window_height));
    glUniform2f(frame.frame_size_location, float(frame.width), float(frame.height));
    glUniform1f(frame.frame_scale_location, float(mapping.scale));
    glUniform2f(frame.frame_offset_location, float(mapping.offset.x), float(mapping.offset.y));
    glUniform3f(frame.background_location, 0.08f, 0.08f, 0.09f);
    GL_CHECK(glBindVertexArray(frame.vertex_array));
    GL_CHECK(glDrawArrays(GL_TRIANGLES, 0, 3));
    GL_CHECK(glBindVertexArray(0));
    GL_CHECK(glBindTexture(GL_TEXTURE_2D, 0));
    GL_CHECK(glUseProgram(0));
}

void destroy_frame_texture(FrameTexture& frame) {
    if (frame.texture) glDeleteTextures(1, &frame.texture);
    if (frame.vertex_array) glDeleteVertexArrays(1, &frame.vertex_array);
    if (frame.program) glDeleteProgram(frame.program);
    frame = FrameTexture{};
}

}  // namespace ms
