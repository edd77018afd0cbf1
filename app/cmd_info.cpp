// cmd_info.cpp: `mandelscope info` (placeholder until its issue lands; prints that it is missing).
#include <cstdio>

#include "app/commands.h"

namespace ms {

int run_info_command(int, char**) {
    std::fprintf(stderr, "mandelscope info: not built yet\n");
    return 1;
}

}  // namespace ms
