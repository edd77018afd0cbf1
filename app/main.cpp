// main.cpp: entry point. `mandelscope MODE ...` runs a command-line mode without a window;
// anything else opens the explorer window (see README.md for every mode and option).
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>

#include "app/commands.h"
#include "compute/io/image_io.h"

namespace ms {

int parse_command_line(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
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
    // Ctrl+C or a kill during a long render or export removes the unfinished output file.
    ms::install_output_cleanup_on_signals();
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
