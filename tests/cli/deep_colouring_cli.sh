#!/usr/bin/env bash
# deep_colouring_cli.sh: `mandelscope render`'s colouring layers past FP64.
#   - the stripe base and the period interior, which need every iteration that BLA skips, are
#     refused at depth: exit 2, one line on stderr, no file;
#   - DE at depth for the formula family too: a Multibrot at 1e20, the Burning Ship, the
#     Tricorn and a Julia set at 1e50, each on its set's boundary, render on the deep path, and
#     their pixels differ from the smooth picture's;
#   - histogram, de, slope and atom render at 1e50 (rust-fractal-core's e50, assets/locations/e50.kfr),
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
grep -q "BLA" out.txt && fail "a refused colouring still rendered" || true

# Whether two PNGs' pixels differ (their image data decompressed; the view in tEXt aside).
pixels_differ() {  # a.png b.png
    python3 - "$1" "$2" <<'PY'
import sys, zlib
def image_data(path):
    data, i, idat = open(path, "rb").read(), 8, b""
    while i < len(data):
        n = int.from_bytes(data[i:i + 4], "big")
        if data[i + 4:i + 8] == b"IDAT":
            idat += data[i + 8:i + 8 + n]
        i += 12 + n
    return zlib.decompress(idat)
sys.exit(0 if image_data(sys.argv[1]) != image_data(sys.argv[2]) else 1)
PY
}

# Boundary points: bisection from 0 (tests/fractal/deep/deep_family_locations.h, 60 digits kept) for
# the Multibrot and the Julia set; the real tip -2 (the antenna's end) for the Burning Ship and
# the Tricorn (their bisection toward a deltoid edge meets a parabolic one, where the estimate at
# 1e20 is 1e13 pixels: no band to see).
family=(
    "multibrot3|--formula=multibrot3 --center=-2.05564534728285202868572964325645908280074129334229639484118e-01,9.59301162065330946720007166853014238640345936893071650925886e-01 --zoom=1e20"
    "burning-ship|--formula=burning-ship --center=-2,0 --zoom=1e50"
    "tricorn|--formula=tricorn --center=-2,0 --zoom=1e50"
    "julia|--julia=-0.123,0.745 --center=2.23053142488685986032178959567209125223331637440891274176082e-01,2.72620507486171760705996506137700041939627556872200446215211e-01 --zoom=1e50"
)
for entry in "${family[@]}"; do
    name=${entry%%|*}
    read -r -a args <<< "${entry#*|}"
    for method in smooth smooth,de; do
        "$bin" render "${args[@]}" --size=48x27 --iter=1000 --backend=cpu --colouring=$method -o "f-$name-$method.png" \
            > f.txt 2> f.err || { fail "$name at depth with --colouring=$method failed: $(cat f.err)"; continue 2; }
        grep -q "perturbation with rebasing" f.txt || fail "$name with --colouring=$method did not take the deep path"
    done
    if command -v python3 > /dev/null; then
        pixels_differ "f-$name-smooth.png" "f-$name-smooth,de.png" || fail "$name: DE at depth gave the smooth picture"
    fi
    echo "ok   deep render of $name with --colouring=smooth,de"
done

"$bin" render "${deep[@]}" -o smooth.png > smooth.txt 2> smooth.err || fail "deep smooth render failed: $(cat smooth.err)"
grep -q "perturbation with rebasing" smooth.txt || fail "the smooth render did not take the deep path: $(cat smooth.txt)"
for method in histogram smooth,de smooth,slope smooth,de,slope histogram,de,slope smooth,atom smooth,de,atom; do
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
