// explorer.cpp: the explorer window (placeholder until the window issue lands): meanwhile it
// renders the default view to a PNG and says where (render_default_view_png, cmd_render.cpp).
#include "app/cmd_render.h"
#include "app/commands.h"

namespace ms {

int run_explorer(int, char**) { return render_default_view_png(); }

}  // namespace ms
