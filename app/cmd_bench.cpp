// cmd_bench.cpp: `mandelscope bench` (placeholder until its issue lands; prints that it is missing).
#include <cstdio>

#include "app/commands.h"

namespace ms {

int run_bench_command(int, char**) {
    std::fprintf(stderr, "mandelscope bench: not built yet\n");
    return 1;
}

}  // namespace ms
