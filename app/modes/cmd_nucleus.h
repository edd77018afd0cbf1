// cmd_nucleus.h: Newton zoom on the command line (cmd_nucleus.cpp): `mandelscope nucleus`, and
// the step `render --to-minibrot` / `--to-julia-fraction` takes before its checks.
#pragma once

#include <string>

#include "compute/fractal/view/view.h"

namespace ms {

// Finds the minibrot nearest the view's centre (the lowest period whose nucleus lies within the
// image's half diagonal) and moves the view onto it: the centre to its nucleus, the zoom to frame
// it (julia_fraction 0), or that fraction of the way in log zoom from the view's zoom to the
// minibrot's size (0 < julia_fraction < 1; 0.5: its embedded Julia set). Progress on stderr
// while it takes long. Returns "" or one sentence.
std::string move_view_to_minibrot(View* view, double julia_fraction);

}  // namespace ms
