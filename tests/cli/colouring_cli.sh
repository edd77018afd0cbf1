#!/usr/bin/env bash
# colouring_cli.sh: `mandelscope render`'s colouring options end to end.
#   - bad input (an unknown method, two bases, an interior that does not exist, a stripe density,
#     DE band or atom strength out of range, a palette file with one stop or with garbage, a .kfr-like file
#     given as a palette) exits 2 with exactly one line on stderr and creates no file;
#   - every method renders, says so in its summary, and differs from the smooth picture;
#   - the colouring stored in the PNG's metadata renders the same PNG again.
# Usage: bash colouring_cli.sh /path/to/mandelscope
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
cli_begin colouring_cli.sh "$@"

printf '0.25 10 20 30\n' > one-stop.txt
printf 'this is not a palette\n' > garbage.txt
printf 'Re: -0.75\r\nIm: 0.1\r\nZoom: 1E3\r\nColors: 255,0,0,0,0,255,\r\n' > location.kfr
expect_bad --colouring=glow -o new.png
expect_bad --colouring=smooth,histogram -o new.png
expect_bad --colouring=de,de -o new.png
expect_bad --colouring=atom,atom -o new.png
expect_bad --atom-strength=1.5 -o new.png
expect_bad --colouring=smooth, -o new.png
expect_bad --interior=black -o new.png
expect_bad --stripe-density=0 -o new.png
expect_bad --stripe-density=2.5 -o new.png
expect_bad --de-band=0 -o new.png
expect_bad --de-band=abc -o new.png
expect_bad --slope-strength=-1 -o new.png
expect_bad --palette-file=one-stop.txt -o new.png
expect_bad --palette-file=garbage.txt -o new.png
expect_bad --palette-file=location.kfr -o new.png
expect_bad --palette-file=no-such-file.txt -o new.png
# Histogram and slopes colour the image as one frame: forced bands are refused.
expect_bad --colouring=histogram --size=64x48 --band-rows=8 -o new.png

# --- every method renders ----------------------------------------------------------------------
common=(--center=-0.745,0.113 --zoom=60 --size=96x64 --iter=1500 --backend=cpu)
"$bin" render "${common[@]}" -o smooth.png > smooth.txt 2> smooth.err || fail "smooth render failed: $(cat smooth.err)"
for method in histogram stripe smooth,de smooth,slope histogram,de,slope stripe,de smooth,atom histogram,de,slope,atom; do
    out="m-${method//,/-}.png"
    "$bin" render "${common[@]}" --colouring="$method" --interior=period -o "$out" > m.txt 2> m.err \
        || { fail "render --colouring=$method failed: $(cat m.err)"; continue; }
    grep -q "^colouring  $method  interior period" m.txt || fail "no colouring line for $method: $(cat m.txt)"
    cmp -s smooth.png "$out" && fail "--colouring=$method gave the smooth picture"
    echo "ok   render --colouring=$method"
done

# --- the colouring reopens from the PNG ---------------------------------------------------------
"$bin" render "${common[@]}" --colouring=stripe,de,slope,atom --stripe-density=7 --de-band=3.5 --slope-angle=-30 \
    --slope-strength=2.25 --atom-strength=0.3 --interior=period -o a.png > /dev/null 2> a.err || fail "render a.png failed: $(cat a.err)"
if command -v python3 > /dev/null; then
    args=$(python3 - "$(png_view a.png)" <<'PY'
import json, sys
view = json.loads(sys.argv[1])
v, c = view, view["colouring"]
print(f"--center={v['center_re']},{v['center_im']} --zoom={v['zoom']} --size={v['width']}x{v['height']} "
      f"--iter={v['iterations']} --palette={v['palette']} --precision={v['precision']} "
      f"--colouring={c['methods']} --stripe-density={c['stripe_density']} --de-band={c['de_band_px']!r} "
      f"--slope-angle={c['slope_angle_deg']!r} --slope-strength={c['slope_strength']!r} --interior={c['interior']} "
      f"--atom-strength={c['atom_strength']!r}")
PY
) || fail "could not read the colouring back from a.png"
    echo "view read back: $args"
    case "$args" in *"--colouring=stripe,de,slope,atom --stripe-density=7 --de-band=3.5 --slope-angle=-30"*) ;;
        *) fail "colouring not stored: $args" ;; esac
    # shellcheck disable=SC2086
    "$bin" render $args --backend=cpu -o b.png > /dev/null 2> b.err || fail "re-render failed: $(cat b.err)"
    cmp -s a.png b.png || fail "re-rendering the stored colouring gave a different PNG"
else
    echo "python3 not found: skipping the metadata round trip here (test_colouring covers it)"
fi

cli_end "all colouring checks passed"
