// cmd_vecadd.cpp: `mandelscope vecadd` (placeholder until its issue lands; prints that it is missing).
#include <cstdio>

#include "app/commands.h"

namespace ms {

int run_vecadd_command(int, char**) {
    std::fprintf(stderr, "mandelscope vecadd: not built yet\n");
    return 1;
}

}  // namespace ms
