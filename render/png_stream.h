// png_stream.h: PNG files written a strip at a time, and the view read back from them.
//
// TEMPORARY home, until compute/image_io.h (foundation branch) is merged: that module writes
// whole images with stb_image_write and owns the tEXt format of the view. The window needs a
// writer that takes rows as they are computed, so a 16384x16384 export never holds the whole
// image (1 GiB) in memory; the lead either moves this writer into compute/image_io or makes
// both agree on one tEXt format (view_to_png_text / view_from_png_text below).
//
// Safety: the file is written as NAME.partial beside the target and renamed over it only once
// complete, so a failure, a cancel or a full disk never destroys a file already on disk.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "compute/view.h"

namespace ms {

// The view in a PNG tEXt chunk: keyword kPngViewKeyword, text a JSON object of the View's
// fields (center_re and center_im as the decimal strings they are).
inline constexpr const char* kPngViewKeyword = "mandelscope-view";
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
