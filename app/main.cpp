// main.cpp: entry point. `mandelscope MODE ...` runs a command-line mode without a window;
// anything else opens the explorer window (see README.md for every mode and option).
#include <malloc.h>

#include <cstdio>
#include <cstring>
#include <exception>

#include "app/commands.h"
#include "compute/io/image_io.h"
#include "compute/system/cuda_start.h"

int main(int argc, char** argv) {
    struct Mode {
        const char* name;
        int (*run)(int, char**);
    };
    const Mode modes[] = {
        {"render", ms::run_render_command}, {"info", ms::run_info_command}, {"bench", ms::run_bench_command},
        {"vecadd", ms::run_vecadd_command}, {"cnn", ms::run_cnn_command},   {"nucleus", ms::run_nucleus_command},
        {"video", ms::run_video_command},
    };
    // Frames of the same size follow each other (the window's, bench's and exports' rounds): their
    // buffers (a deep frame's counts and smooth values, tens to hundreds of MB) go back to the
    // heap when freed and the next frame takes them again, instead of glibc returning them to the
    // system (mmap and munmap for blocks over its default threshold) and every page faulting in
    // anew, which costs a deep frame milliseconds (see docs/performance.md). Blocks over 256 MB
    // are still mapped and unmapped on their own, and at most 512 MB of free heap is kept.
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    // Ctrl+C or a kill during a long render or export removes the unfinished output file.
    ms::install_output_cleanup_on_signals();
    int status = 1;
    try {
        const Mode* chosen = nullptr;
        if (argc >= 2)
            for (const Mode& mode : modes)
                if (std::strcmp(argv[1], mode.name) == 0) chosen = &mode;
        status = chosen ? chosen->run(argc - 1, argv + 1) : ms::run_explorer(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mandelscope: %s\n", e.what());
        status = 1;
    }
    // A mode may have started CUDA, or be releasing its devices, on a helper thread
    // (cuda_start.h): it finishes before the exit handlers tear CUDA down.
    ms::cuda_finish_background_work();
    return status;
}
