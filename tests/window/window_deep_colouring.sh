#!/usr/bin/env bash
# window_deep_colouring.sh: the window's colouring layers past FP64.
# At the 1E1000 location (assets/locations/e1000.kfr, rust-fractal-core's e1000), with
# --screenshot on the CPU deep path:
#   - smooth,de,slope: the picture differs from the smooth one (the DE band and the relief);
#   - stripe with the period interior, which the deep path cannot give (BLA skips the iterations
#     they need): the window drops them, so the picture is the smooth one, pixel for pixel;
#   - the formula family keeps its DE at depth too: the cubic Julia set of the README's gallery at
#     1E30 with smooth,de differs from its smooth picture (the window keeps DE there).
# And the Export dialog's code (--export, no window) at the same view: smooth,de,slope exports a
# PNG that differs from the smooth export and stores the colouring; a stripe export is refused
# with one sentence, exit 2 and no file.
# Needs a display (the test command starts Xvfb); skipped (77) without one.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
command -v compare >/dev/null || { echo "SKIP: ImageMagick's compare is missing"; exit 77; }
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
export XDG_CONFIG_HOME="$work/config"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The location's view on the command line (--open would replace the colouring with the file's).
kfr="$here/assets/locations/e1000.kfr"
re=$(sed -n 's/^Re: *//p' "$kfr" | tr -d '\r')
im=$(sed -n 's/^Im: *//p' "$kfr" | tr -d '\r')
view=(--center="$re,$im" --zoom=1E1000 --iter=32000)

shot() {  # name, extra options...
    local name=$1; shift
    timeout 300 "$bin" --backend=cpu --no-ui "${view[@]}" --size=160x90 "$@" \
        --screenshot="$work/$name.png" >"$work/$name.log" 2>&1 || { cat "$work/$name.log"; fail "the window exited with $? ($name)"; }
    grep -q "^render path: deep-cpu\$" "$work/$name.log" || { cat "$work/$name.log"; fail "$name did not render on the deep path"; }
}
differing() { compare -metric AE "$work/$1.png" "$work/$2.png" null: 2>&1 | cut -d' ' -f1; }

shot smooth
shot layers --colouring=smooth,de,slope
shot dropped --colouring=stripe --interior=period
n=$(differing smooth layers)
echo "smooth vs smooth,de,slope: $n pixels differ"
[ "${n%.*}" -gt 1000 ] || fail "the DE and slope layers changed only $n of 14,400 pixels at 1E1000"
n=$(differing smooth dropped)
echo "smooth vs stripe + period (dropped past FP64): $n pixels differ"
[ "$n" = 0 ] || fail "stripe and the period interior were not dropped past FP64 ($n pixels differ from smooth)"
echo "ok: the deep path's layers show in the window, and what it cannot give is dropped"

view=(--formula=multibrot3 --julia=0.45,0.6 --zoom=1E30 --iter=3000
      --center=0.247648418338341047906421529181459667544883477384656504257934,0.541116716162761116917770970333425037796599932325729859610076)
shot julia-smooth
shot julia-de --colouring=smooth,de
n=$(differing julia-smooth julia-de)
echo "cubic Julia set at 1E30, smooth vs smooth,de: $n pixels differ"
[ "${n%.*}" -gt 500 ] || fail "DE changed only $n of 14,400 pixels of a cubic Julia set at 1E30 in the window"
view=(--center="$re,$im" --zoom=1E1000 --iter=32000)

export_png() {  # name, extra options...
    local name=$1; shift
    timeout 300 "$bin" --backend=cpu "${view[@]}" "$@" --export="$work/$name.png" --export-size=96x54 \
        >"$work/$name.log" 2>"$work/$name.err"
}
export_png export-smooth || { cat "$work/export-smooth.err"; fail "the smooth deep export failed"; }
export_png export-layers --colouring=smooth,de,slope || { cat "$work/export-layers.err"; fail "the layered deep export failed"; }
n=$(differing export-smooth export-layers)
echo "export: smooth vs smooth,de,slope: $n pixels differ"
[ "${n%.*}" -gt 500 ] || fail "the exported layers changed only $n of 5,184 pixels"
identify -verbose "$work/export-layers.png" | grep -q '"methods":"smooth,de,slope"' \
    || fail "the exported PNG does not store the colouring smooth,de,slope"
export_png export-stripe --colouring=stripe
status=$?
[ "$status" -eq 2 ] || fail "a stripe export past FP64 exited $status, not 2"
[ "$(wc -l < "$work/export-stripe.err")" -eq 1 ] || fail "a stripe export printed more than one line: $(cat "$work/export-stripe.err")"
grep -q "stripe" "$work/export-stripe.err" || fail "the refusal does not name the stripes: $(cat "$work/export-stripe.err")"
[ ! -e "$work/export-stripe.png" ] || fail "a refused export left a file"
echo "ok: the export colours the layers past FP64 and refuses stripes with: $(cat "$work/export-stripe.err")"
