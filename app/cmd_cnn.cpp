// cmd_cnn.cpp: `mandelscope cnn` (placeholder until its issue lands; prints that it is missing).
#include <cstdio>

#include "app/commands.h"

namespace ms {

int run_cnn_command(int, char**) {
    std::fprintf(stderr, "mandelscope cnn: not built yet\n");
    return 1;
}

}  // namespace ms
