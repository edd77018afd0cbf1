// png_stream.cpp: the window's PNG export and reopen, on top of compute/image_io (one PNG
// writer and one view format for `mandelscope render` and the window alike).
#include "render/frame/png_stream.h"

#include <stdexcept>
#include <vector>

#include "compute/fractal/view/view_record.h"
#include "compute/io/image_io.h"

namespace ms {

std::string view_to_png_text(const View& view) {
    return view_to_json(ViewRecord{view, resolve_precision(view, Precision::Auto), 1});
}

View view_from_png_text(const std::string& text) { return view_from_json(text).view; }

PngWriteResult write_png_streamed(const std::filesystem::path& path, int width, int height, const View& view,
                                  int strip_rows, const PngRowSource& source) {
    PngWriteResult result;
    if (width <= 0 || height <= 0) {
        result.error = "cannot write an empty image";
        return result;
    }
    try {
        // The writer works under a temporary name and removes it unless finish() renames it
        // into place: a cancel or a failure never touches a file already at `path`.
        PngStreamWriter writer(path, width, height, view_to_png_text(view));
        std::vector<uint8_t> strip(size_t(width) * 4 * size_t(std::max(1, std::min(strip_rows, height))));
        for (int y = 0; y < height; y += strip_rows) {
            int rows = std::min(strip_rows, height - y);
            std::string error;
            if (!source(y, rows, strip.data(), &error)) {
                result.cancelled = error.empty();
                result.error = error;
                return result;
            }
            writer.write_rows(strip.data(), rows);
        }
        writer.finish();
        result.ok = true;
    } catch (const std::exception& e) {
        result.error = e.what();
    }
    return result;
}

std::optional<View> read_png_view(const std::filesystem::path& path, std::string* error) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        if (error)
            *error = "cannot open " + path.string() + ": " +
                     (std::filesystem::exists(path, ec) ? "it is not a file" : "No such file or directory");
        return std::nullopt;
    }
    try {
        std::string text;
        if (!read_png_text(path, kMetadataKey, &text)) {
            if (error)
                *error = path.string() +
                         " has no Mandelscope view in it (it was not saved by Mandelscope), "
                         "so there is no place to go back to";
            return std::nullopt;
        }
        View view = view_from_png_text(text);
        if (std::string problem = validate_view(view); !problem.empty()) {
            if (error) *error = path.string() + ": " + problem;
            return std::nullopt;
        }
        return view;
    } catch (const std::exception& e) {
        if (error) *error = e.what();
        return std::nullopt;
    }
}

}  // namespace ms
