// png_stream.h: the window's PNG export (strip by strip, so a 16384x16384 export never holds
// the whole image) and reopening a PNG's view; a thin layer over compute/io/image_io.h, which owns
// the PNG writer and the view's tEXt format shared with `mandelscope render`.
//
// Safety: the file is written under a temporary name beside the target and renamed over it
// only once complete, so a failure, a cancel or a full disk never destroys a file on disk.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "compute/fractal/view/view.h"

namespace ms {

// The view as the text of the PNG's tEXt chunk (compute/io/image_io.h: view_to_json).
std::string view_to_png_text(const View& view);
// Throws std::runtime_error with a sentence when the text is not a valid view.
View view_from_png_text(const std::string& text);

// Asked for rows [first_row, first_row + rows) as RGBA8 (row 0 = top) into `rgba`; returns
// false to stop (cancelled or failed: it sets *error to the sentence, or leaves it empty for
// a cancel).
using PngRowSource = std::function<bool(int first_row, int rows, uint8_t* rgba, std::string* error)>;

struct PngWriteResult {
    bool ok = false;
    bool cancelled = false;
    std::string error;  // a sentence when !ok && !cancelled
};

// Writes an RGB PNG of width x height (alpha is dropped: the frames are opaque) with the view
// in a tEXt chunk, pulling strips of `strip_rows` rows from `source`. Memory: one strip.
PngWriteResult write_png_streamed(const std::filesystem::path& path, int width, int height, const View& view,
                                  int strip_rows, const PngRowSource& source);

// The view saved in a Mandelscope PNG. On failure returns nothing and sets *error to a
// sentence: the file cannot be read, is not a PNG, or carries no Mandelscope view.
std::optional<View> read_png_view(const std::filesystem::path& path, std::string* error);

}  // namespace ms
