// frame_texture.h: the picture on screen. One RGBA8 texture the size of the framebuffer,
// drawn as a full-screen triangle by shaders/fullscreen.{vert,frag}. Pixels arrive either
// from host memory (CPU path, CUDA copy path) or from a pixel buffer object that CUDA wrote
// (interop path). Owned by the main loop through FrameRenderer; panels never touch it.
#pragma once

#include <cstdint>
#include <filesystem>

#include "render/frame/view_math.h"
#include "render/platform/gl_check.h"

namespace ms {

struct FrameTexture {
    GLuint texture = 0;
    GLuint program = 0;
    GLuint vertex_array = 0;  // empty: the core profile wants one bound to draw
    int width = 0;            // texture pixels (0: not allocated yet)
    int height = 0;
    GLint window_size_location = -1;
    GLint frame_size_location = -1;
    GLint frame_scale_location = -1;
    GLint frame_offset_location = -1;
    GLint background_location = -1;
};

// Loads the shaders from `shader_dir` (compute/io/assets.h: find_data_dir("shaders")). Throws
// std::runtime_error with a sentence.
FrameTexture create_frame_texture(const std::filesystem::path& shader_dir);
// (Re)allocates the texture storage, black until uploaded.
void resize_frame_texture(FrameTexture& frame, int width, int height);
// Rows [first_row, first_row + rows) from tightly packed RGBA8 host memory (row 0 = top).
void upload_frame_rows(FrameTexture& frame, const uint8_t* rgba, int first_row, int rows);
// The whole frame from a pixel buffer object holding width*height RGBA8 pixels.
void upload_frame_from_pixel_buffer(FrameTexture& frame, GLuint pixel_buffer);
// Draws the frame over the whole viewport, placed by `mapping` (identity: as computed).
void draw_frame_texture(const FrameTexture& frame, int window_width, int window_height, const FrameMapping& mapping);
void destroy_frame_texture(FrameTexture& frame);

}  // namespace ms
