// commands.h: the command-line modes of the `mandelscope` executable. Each takes the
// arguments after the program name (argv[0] is the mode's name) and returns the exit status:
// 0 success, 1 failure while working, 2 bad input (one sentence on stderr).
#pragma once

#include <CLI/CLI.hpp>

namespace ms {

int run_render_command(int argc, char** argv);  // cmd_render.cpp
int run_info_command(int argc, char** argv);    // cmd_info.cpp
int run_bench_command(int argc, char** argv);   // cmd_bench.cpp
int run_vecadd_command(int argc, char** argv);  // cmd_vecadd.cpp
int run_cnn_command(int argc, char** argv);     // cmd_cnn.cpp
int run_video_command(int argc, char** argv);   // cmd_video.cpp
int run_explorer(int argc, char** argv);        // explorer.cpp: the window (no mode given)

// Parses with CLI11. Returns -1 when the program should go on, else the exit status to return
// at once: 0 after --help or --version, 2 after a parse error (printed as one sentence on stderr).
int parse_command_line(CLI::App& app, int argc, char** argv);
// The same in two halves, for a caller that parses one App many times (the fuzz target, which
// builds its App once: CLI11 clears the previous results at each parse). prepare_command_line
// adds the strict number checks (once per App); parse_prepared_command_line parses.
void prepare_command_line(CLI::App& app);
int parse_prepared_command_line(CLI::App& app, int argc, char** argv);

// The top level's --help footer (the modes, one line each) and its --version flag.
void add_program_help(CLI::App& app);

}  // namespace ms
