// cmd_render.cpp: `mandelscope render` (placeholder until its issue lands; prints that it is missing).
#include <cstdio>

#include "app/commands.h"

namespace ms {

int run_render_command(int, char**) {
    std::fprintf(stderr, "mandelscope render: not built yet\n");
    return 1;
}

}  // namespace ms
