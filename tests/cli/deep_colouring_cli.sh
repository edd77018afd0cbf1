#!/usr/bin/env bash
# deep_colouring_cli.sh: `mandelscope render`'s colouring layers past FP64 (issues 13 and 14).
#   - the stripe base and the period interior, which need every iteration that BLA skips, are
#     refused at depth: exit 2, one line on stderr, no file; so is DE for a Multibrot and a Julia
#     set at depth (the deep path perturbs the Mandelbrot set's derivative only);
#   - histogram, de and slope render at 1e50 (rust-fractal-core's e50, assets/locations/e50.kfr),
#     say so in the summary, differ from the smooth picture, and store the colouring in the PNG;
#   - the stored view renders the same PNG again.
# Usage: bash deep_colouring_cli.sh /path/to/mandelscope
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
cli_begin deep_colouring_cli.sh "$@"

location=$(dirname "$bin")/assets/locations/e50.kfr
deep=(--location="$location" --size=48x27 --iter=20000 --backend=cpu)

expect_bad "${deep[@]}" --colouring=stripe -o new.png
expect_bad "${deep[@]}" --colouring=stripe,de -o new.png
expect_bad "${deep[@]}" --interior=period -o new.png
family_deep=(--center=-0.5,0.6 --zoom=1e50 --size=48x27 --iter=20000 --backend=cpu --colouring=smooth,de)
expect_bad "${family_deep[@]}" --formula=multibrot3 -o new.png
expect_bad "${family_deep[@]}" --julia=-0.12,0.75 -o new.png
grep -q "BLA" err.txt && fail "a refused colouring still rendered" || true

"$bin" render "${deep[@]}" -o smooth.png > smooth.txt 2> smooth.err || fail "deep smooth render failed: $(cat smooth.err)"
grep -q "perturbation with rebasing" smooth.txt || fail "the smooth render did not take the deep path: $(cat smooth.txt)"
for method in histogram smooth,de smooth,slope smooth,de,slope histogram,de,slope; do
    out="d-${method//,/-}.png"
    "$bin" render "${deep[@]}" --colouring="$method" -o "$out" > m.txt 2> m.err \
        || { fail "deep render --colouring=$method failed: $(cat m.err)"; continue; }
    grep -q "perturbation with rebasing" m.txt || fail "--colouring=$method did not take the deep path"
    grep -q "^colouring  $method  interior flat" m.txt || fail "no colouring line for $method: $(cat m.txt)"
    cmp -s smooth.png "$out" && fail "--colouring=$method gave the smooth picture at depth"
    echo "ok   deep render --colouring=$method"
done

if command -v python3 > /dev/null; then
    view=$(png_view d-smooth-de-slope.png) || fail "no view in d-smooth-de-slope.png"
    methods=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["colouring"]["methods"])' "$view")
    [ "$methods" = "smooth,de,slope" ] || fail "the PNG stores colouring '$methods', not smooth,de,slope"
    args=$(python3 - "$view" <<'PY'
import json, sys
v = json.loads(sys.argv[1]); c = v["colouring"]
print(f"--center={v['center_re']},{v['center_im']} --zoom={v['zoom']} --size={v['width']}x{v['height']} "
      f"--iter={v['iterations']} --palette={v['palette']} --precision={v['precision']} "
      f"--colouring={c['methods']} --de-band={c['de_band_px']!r} --slope-angle={c['slope_angle_deg']!r} "
      f"--slope-strength={c['slope_strength']!r} --interior={c['interior']}")
PY
) || fail "could not read the view back"
    # shellcheck disable=SC2086
    "$bin" render $args --backend=cpu -o again.png > /dev/null 2> again.err || fail "re-render failed: $(cat again.err)"
    cmp -s d-smooth-de-slope.png again.png || fail "re-rendering the stored deep view gave a different PNG"
    echo "ok   the deep colouring reopens from the PNG"
else
    echo "python3 not found: skipping the metadata checks"
fi

cli_end "all deep colouring checks passed"
