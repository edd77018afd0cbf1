// explorer.cpp: the explorer window (placeholder until the window issue lands).
#include <cstdio>

#include "app/commands.h"

namespace ms {

int run_explorer(int, char**) {
    std::fprintf(stderr, "mandelscope: the window is not built yet\n");
    return 1;
}

}  // namespace ms
