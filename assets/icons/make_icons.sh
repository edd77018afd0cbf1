#!/usr/bin/env bash
# make_icons.sh: renders the desktop icon (assets/desktop/mandelscope.desktop's Icon=mandelscope)
# with `mandelscope render`: the whole Mandelbrot set, lit from the upper right (the slope layer),
# at each size the install puts in the hicolor theme (app/CMakeLists.txt), each rendered at its
# own size rather than scaled down, so the small one stays sharp.
# Not a test: run it by hand to change the icon.
# Usage: bash assets/icons/make_icons.sh /path/to/mandelscope
set -eu
bin=$(realpath "${1:?usage: make_icons.sh /path/to/mandelscope}")
cd "$(dirname "$0")"
for size in 48 256; do
    "$bin" render --size=${size}x${size} --center=-0.74,0 --zoom=1.55 --iter=1000 --palette=classic --density=4 \
        --colouring=smooth,slope --supersample=4 --backend=cpu -o mandelscope-$size.png > /dev/null
done
ls -l mandelscope-*.png
