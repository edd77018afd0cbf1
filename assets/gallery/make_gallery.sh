#!/usr/bin/env bash
# make_gallery.sh: renders the README's formula gallery (one picture per formula, three Julia
# sets, and two orbit-feature colourings of the family) with `mandelscope render`, exactly the
# commands the README shows beside the pictures.
# Not a test: run it by hand after changing a
# formula or its default view.
# Usage: bash assets/gallery/make_gallery.sh /path/to/mandelscope OUTPUT_DIR
set -eu
bin=$(realpath "${1:?usage: make_gallery.sh /path/to/mandelscope OUTPUT_DIR}")
out=${2:?usage: make_gallery.sh /path/to/mandelscope OUTPUT_DIR}
mkdir -p "$out"
common=(--size=480x270 --iter=500 --backend=cpu)
for f in mandelbrot multibrot3 multibrot4 multibrot5 multibrot6 multibrot7 multibrot8 burning-ship tricorn; do
    "$bin" render --formula=$f "${common[@]}" -o "$out/$f.png" > /dev/null 2>&1
done
"$bin" render --formula=mandelbrot --julia=-0.8,0.156 "${common[@]}" -o "$out/julia-mandelbrot.png" > /dev/null 2>&1
"$bin" render --formula=multibrot3 --julia=-0.5,0.5 "${common[@]}" -o "$out/julia-multibrot3.png" > /dev/null 2>&1
"$bin" render --formula=burning-ship --julia=-1.5,-0.02 "${common[@]}" -o "$out/julia-burning-ship.png" > /dev/null 2>&1
# The orbit-feature colourings beyond the Mandelbrot set (README, Colouring): a dendrite Julia set
# whose filaments only the distance estimate shows, and a Multibrot's stripes.
feature=(--size=640x360 --supersample=2 --backend=cpu)
"$bin" render --julia=0,1 --colouring=de --iter=2000 "${feature[@]}" -o "$out/colouring-julia-de.png" > /dev/null 2>&1
"$bin" render --formula=multibrot4 --colouring=stripe --stripe-density=3 --iter=1000 "${feature[@]}" \
    -o "$out/colouring-multibrot4-stripe.png" > /dev/null 2>&1
# The atom-domain layer around the period-3 minibrot: each domain's hue points at a minibrot.
"$bin" render --center=-1.7548776662,0 --zoom=60 --iter=3000 --colouring=smooth,atom --atom-strength=0.6 \
    "${feature[@]}" -o "$out/colouring-atom.png" > /dev/null 2>&1
ls -l "$out"
