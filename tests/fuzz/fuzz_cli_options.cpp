// fuzz_cli_options.cpp: the window's command line (app/explorer_options.h) through the parser
// every mode shares (parse_command_line: CLI11 plus strict numbers and no empty values), then
// apply_explorer_options, which checks what CLI11 cannot (sizes, centre, panels, zoom range).
// Input: arguments separated by NUL or newline. Whatever the arguments, the result is an exit
// status or a sentence, never an exception, a crash or UB; an accepted view is valid.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/commands.h"
#include "app/explorer/explorer_options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<std::string> args{"mandelscope"};
    std::string current;
    for (size_t i = 0; i < size && args.size() < 32; ++i) {
        const char ch = char(data[i]);
        if (ch == '\0' || ch == '\n') {
            args.push_back(current);
            current.clear();
        } else {
            current += ch;
        }
    }
    if (!current.empty()) args.push_back(current);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    // One App for the process, as the window builds it, reset before each input: CLI11 clears the
    // previous parse's results, and the options go back to their defaults. Building the App
    // would be most of each input's time under ASan, and the 1e7-execution campaign needs the
    // inputs a second that reusing it gives.
    static ms::ExplorerOptions options;
    static CLI::App& app = []() -> CLI::App& {
        static CLI::App a{"fuzz", "mandelscope"};
        ms::add_explorer_options(a, options);
        ms::prepare_command_line(a);
        return a;
    }();
    options = ms::ExplorerOptions{};
    const int status = ms::parse_prepared_command_line(app, int(args.size()), argv.data());
    if (status >= 0) return 0;  // help or a parse error, printed as one sentence
    ms::View view;
    ms::ExplorerSettings settings;
    const std::string problem = ms::apply_explorer_options(options, &view, &settings);
    if (problem.empty() && !ms::validate_view(view).empty()) std::abort();
    int w = 0, h = 0;
    ms::parse_size(options.size, &w, &h);
    return 0;
}
