// command_line.cpp: how every mode parses its command line (CLI11 plus our rules), so that the
// same text means the same thing in every mode: strict numbers (compute/number_text.h) and no
// empty option values. Kept out of main.cpp so the fuzz target of the options links it.
#include <cstdio>
#include <iostream>
#include <string>

#include "app/commands.h"
#include "compute/system/number_text.h"

namespace ms {

namespace {

// Every numeric option of every mode reads its text with compute/number_text.h's grammar, the
// one the centre, the View panel and the PNG reader use: CLI11's own conversion takes hex
// ("0x10"), "inf" and "nan" for floats. Attached by type, so a new option is covered too.
void add_strict_number_checks(CLI::App& app) {
    const CLI::Validator decimal(
        [](std::string& text) -> std::string {
            double value = 0.0;
            return parse_finite_double(text, &value);
        },
        "");
    const CLI::Validator whole(
        [](std::string& text) -> std::string {
            // Sign and digits only (no "1e3", no "0x10"); CLI11 then checks the range of the
            // option's own type, whatever the number of digits.
            const size_t start = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
            if (text.size() == start || text.find_first_not_of("0123456789", start) != std::string::npos)
                return "'" + text + "' is not a whole number";
            return {};
        },
        "");
    for (CLI::Option* option : app.get_options()) {
        const std::string type = option->get_type_name();
        if (type.rfind("FLOAT", 0) == 0) option->check(decimal);
        else if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0) option->check(whole);
    }
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) add_strict_number_checks(*sub);
}

// "--palette=" (or an empty argument) would make CLI11 take the next argument as the value.
std::string empty_value_problem(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--") break;
        if (arg.empty()) return "an argument is empty";
        if (arg.size() > 3 && arg.rfind("--", 0) == 0 && arg.back() == '=' && arg.find('=') == arg.size() - 1)
            return "the option " + arg + " has no value (write " + arg + "VALUE)";
    }
    return {};
}

}  // namespace

#ifndef MANDELSCOPE_VERSION
#define MANDELSCOPE_VERSION "unknown"
#endif

void add_program_help(CLI::App& app) {
    app.footer(
        "Modes (no window; each has its own --help):\n"
        "  mandelscope render ...   one view to a PNG (and its raw values to .npy)\n"
        "  mandelscope video ...    a zoom video into a location: MP4 or PNG sequence, resumable\n"
        "  mandelscope info         this machine's CPU and CUDA devices (--json)\n"
        "  mandelscope bench        the fixed benchmark suite over every path (--quick, --json=FILE)\n"
        "  mandelscope vecadd       vector add on the CPU and the GPU: when does the GPU win?\n"
        "  mandelscope cnn ...      train or evaluate the Fashion-MNIST CNN (cnn train, cnn eval)\n"
        "Without a mode: the explorer window, with the options above.");
    app.set_version_flag("--version", std::string("mandelscope ") + MANDELSCOPE_VERSION, "print the version and exit");
}

void prepare_command_line(CLI::App& app) { add_strict_number_checks(app); }

int parse_command_line(CLI::App& app, int argc, char** argv) {
    prepare_command_line(app);
    return parse_prepared_command_line(app, argc, argv);
}

int parse_prepared_command_line(CLI::App& app, int argc, char** argv) {
    const std::string who = app.get_name() == "mandelscope" ? "mandelscope" : "mandelscope " + app.get_name();
    if (std::string problem = empty_value_problem(argc, argv); !problem.empty()) {
        std::cerr << who << ": " << problem << " (see --help)\n";
        return 2;
    }
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
        std::cerr << who << ": " << e.what() << " (see --help)\n";
        return 2;
    }
    return -1;
}

}  // namespace ms
