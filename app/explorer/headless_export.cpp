// headless_export.cpp: see headless_export.h.
#include "app/explorer/headless_export.h"

#include <unistd.h>

#include <cstdio>

namespace ms {

int export_without_window(const View& view, const PaletteTable& palette, const ExportSettings& settings) {
    bool tty = isatty(2);
    int last_tenth = -1;
    ExportResult result = export_view_png(view, palette, settings, nullptr, [&](double p) {
        if (tty) {
            std::fprintf(stderr, "\rexporting %3.0f%%", 100.0 * p);
        } else if (int(p * 10) != last_tenth) {
            last_tenth = int(p * 10);
            std::fprintf(stderr, "exporting %d%%\n", last_tenth * 10);
        }
    });
    if (tty) std::fprintf(stderr, "\n");
    if (result.ok) {
        std::printf("mandelscope: %s\n", result.message.c_str());
        return 0;
    }
    std::fprintf(stderr, "mandelscope: %s; no file was written.\n", result.message.c_str());
    return 2;
}

}  // namespace ms
