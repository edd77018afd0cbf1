#!/usr/bin/env bash
# formulas_cli.sh: `mandelscope render --formula=... --julia=RE,IM` end to end.
#   - bad input (--formula=nope, --julia=1, and friends) exits 2 with one sentence on stderr
#     and writes no file (family views past FP64 take the deep path: deep_cli.sh);
#   - each formula renders, opening on its own default view when --center and --zoom are not
#     given, and the PNG's metadata names the formula (and the Julia parameter, verbatim);
#   - reopening: rendering again from the view stored in the PNG gives the same file;
#   - the distance estimate, stripes and period interior colour every formula and Julia set;
#   - a .kfr written by --save-location carries the formula and the Julia parameter back.
# Usage: bash formulas_cli.sh /path/to/mandelscope
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
cli_begin formulas_cli.sh "$@"

expect_bad --formula=nope -o new.png
expect_bad --formula=multibrot9 -o new.png
expect_bad --formula= -o new.png
expect_bad --julia=1, -o new.png
expect_bad --julia=1 -o new.png
expect_bad --julia=,0.5 -o new.png
expect_bad --julia=abc,0 -o new.png
expect_bad --julia=0x1p-1,0 -o new.png
expect_bad --julia=1,2,3 -o new.png
expect_bad --julia= -o new.png
grep -q "mandelbrot|multibrot3" <("$bin" render --formula=nope -o new.png 2>&1) \
    || fail "the refusal of an unknown formula does not list the formulas"

# The view stored in a PNG as render arguments (python3 reads the tEXt chunk).
stored_args() {
    python3 - "$(png_view "$1")" <<'PY'
import json, sys
view = json.loads(sys.argv[1])
v = view
zoom = v["zoom"] if isinstance(v["zoom"], str) else repr(v["zoom"])  # text, or a plain JSON number
args = (f"--formula={v['formula']} --center={v['center_re']},{v['center_im']} --zoom={zoom} "
        f"--size={v['width']}x{v['height']} --iter={v['iterations']} --palette={v['palette']} "
        f"--precision={v['precision']}")
if "julia_re" in v:
    args += f" --julia={v['julia_re']},{v['julia_im']}"
print(args)
PY
}

for formula in mandelbrot multibrot3 multibrot8 burning-ship tricorn; do
    "$bin" render --formula=$formula --size=96x54 --iter=200 --backend=cpu -o $formula.png > $formula.txt 2> $formula.err \
        || fail "render --formula=$formula failed: $(cat $formula.err)"
    grep -q "^formula    $formula" $formula.txt || fail "no formula line for $formula: $(cat $formula.txt)"
    if command -v python3 > /dev/null; then
        args=$(stored_args $formula.png) || fail "no view in $formula.png"
        case "$args" in *"--formula=$formula "*) ;; *) fail "$formula.png stores $args" ;; esac
        # shellcheck disable=SC2086
        "$bin" render $args --backend=cpu -o again.png > /dev/null 2>&1 || fail "re-render of $formula failed"
        cmp -s $formula.png again.png || fail "re-rendering $formula from its stored view gave a different PNG"
    fi
done
# Each formula opens on its own frame: the Burning Ship's is not Mandelbrot's.
grep -q "centre -0.5, 0 " mandelbrot.txt || fail "Mandelbrot's default centre changed: $(grep view mandelbrot.txt)"
grep -q "centre -0.5, 0 " burning-ship.txt && fail "the Burning Ship opened on Mandelbrot's frame"

# A Julia set: the parameter is kept verbatim (more digits than a double holds) and reopens.
"$bin" render --formula=tricorn --julia=-0.10000000000000000000000001,0.1 --size=96x54 --iter=200 --backend=cpu \
    -o julia.png > julia.txt 2> julia.err || fail "Julia render failed: $(cat julia.err)"
grep -q "Julia set of c = -0.10000000000000000000000001, 0.1" julia.txt || fail "no Julia line: $(cat julia.txt)"
if command -v python3 > /dev/null; then
    args=$(stored_args julia.png)
    case "$args" in *"--julia=-0.10000000000000000000000001,0.1"*) ;; *) fail "Julia parameter not kept: $args" ;; esac
    # shellcheck disable=SC2086
    "$bin" render $args --backend=cpu -o again.png > /dev/null 2>&1 || fail "re-render of the Julia set failed"
    cmp -s julia.png again.png || fail "re-rendering the Julia set from its stored view gave a different PNG"
fi

# The orbit-feature colourings (distance estimate, stripes, period interior) for every formula and
# a Julia set: each renders, stores its colouring in the PNG, and reopens to the same file.
for case in "--formula=multibrot3" "--formula=burning-ship" "--formula=tricorn" "--julia=-0.1226,0.7449" \
            "--formula=multibrot4 --julia=0.2,0.3"; do
    name=$(echo "$case" | tr -c 'a-z0-9\n' '_')
    # shellcheck disable=SC2086
    "$bin" render $case --colouring=stripe,de --interior=period --size=96x54 --iter=300 --backend=cpu \
        -o "c$name.png" > c.txt 2> c.err || { fail "render $case --colouring=stripe,de failed: $(cat c.err)"; continue; }
    grep -q "^colouring  stripe,de  interior period" c.txt || fail "no colouring line for $case: $(cat c.txt)"
    if command -v python3 > /dev/null; then
        args=$(stored_args "c$name.png")
        methods=$(python3 -c 'import json,sys; c=json.loads(sys.argv[1])["colouring"]; print(c["methods"], c["interior"])' \
            "$(png_view "c$name.png")")
        [ "$methods" = "stripe,de period" ] || fail "c$name.png stores colouring '$methods'"
        # shellcheck disable=SC2086
        "$bin" render $args --colouring=stripe,de --interior=period --backend=cpu -o again.png > /dev/null 2>&1 \
            || fail "re-render of $case with its colouring failed"
        cmp -s "c$name.png" again.png || fail "re-rendering $case with its colouring gave a different PNG"
    fi
    echo "ok   render $case --colouring=stripe,de --interior=period"
done

# A .kfr carries the formula and the Julia parameter: --save-location, then --location, gives
# the same picture (KF's FractalType / Power, and Mandelscope's keys for c).
"$bin" render --formula=tricorn --julia=-0.2,0.1 --zoom=3 --size=96x54 --iter=300 --backend=cpu \
    --save-location=tj.kfr -o tj.png > /dev/null 2> tj.err || fail "render with --save-location failed: $(cat tj.err)"
grep -q "^FractalType: 4" tj.kfr || fail "the .kfr does not say KF's Mandelbar (type 4): $(cat tj.kfr)"
grep -q "^MandelscopeJuliaRe: -0.2" tj.kfr || fail "the .kfr does not carry the Julia parameter: $(cat tj.kfr)"
"$bin" render --location=tj.kfr --size=96x54 --backend=cpu -o tj-again.png > /dev/null 2> tj.err \
    || fail "render --location of a Julia .kfr failed: $(cat tj.err)"
cmp -s tj.png tj-again.png || fail "the Julia set reopened from its .kfr gave a different PNG"
expect_bad --location=tj.kfr --formula=mandelbrot -o new.png

cli_end "all formula checks passed"
