// main.cpp: entry point. `mandelscope MODE ...` runs a command-line mode without a window;
// anything else opens the explorer window (see README.md for every mode and option).
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>

#include "app/commands.h"

namespace ms {

#ifndef MANDELSCOPE_VERSION
#define MANDELSCOPE_VERSION "unknown"
#endif

void add_program_help(CLI::App& app) {
    app.footer(
        "Modes (no window; each has its own --help):\n"
        "  mandelscope render ...   one view to a PNG (and its raw values to .npy)\n"
        "  mandelscope info         this machine's CPU and CUDA devices (--json)\n"
        "  mandelscope bench        the fixed benchmark suite over every path (--quick, --json=FILE)\n"
        "  mandelscope vecadd       vector add on the CPU and the GPU: when does the GPU win?\n"
        "  mandelscope cnn ...      train or evaluate the Fashion-MNIST CNN (cnn train, cnn eval)\n"
        "Without a mode: the explorer window, with the options above.");
    app.set_version_flag("--version", std::string("mandelscope ") + MANDELSCOPE_VERSION, "print the version and exit");
}

int parse_command_line(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForVersion& e) {
        std::cout << e.what() << "\n";
        return 0;
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return 0;
    } catch (const CLI::CallForAllHelp&) {
        std::cout << app.help("", CLI::AppFormatMode::All);
        return 0;
    } catch (const CLI::ParseError& e) {
        std::string who = app.get_name() == "mandelscope" ? "mandelscope" : "mandelscope " + app.get_name();
        std::cerr << who << ": " << e.what() << " (see --help)\n";
        return 2;
    }
    return -1;
}

}  // namespace ms

int main(int argc, char** argv) {
    struct Mode {
        const char* name;
        int (*run)(int, char**);
    };
    const Mode modes[] = {
        {"render", ms::run_render_command}, {"info", ms::run_info_command},
        {"bench", ms::run_bench_command},   {"vecadd", ms::run_vecadd_command},
        {"cnn", ms::run_cnn_command},
    };
    try {
        if (argc >= 2) {
            for (const Mode& mode : modes)
                if (std::strcmp(argv[1], mode.name) == 0) return mode.run(argc - 1, argv + 1);
        }
        return ms::run_explorer(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mandelscope: %s\n", e.what());
        return 1;
    }
}
