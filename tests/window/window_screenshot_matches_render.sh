#!/usr/bin/env bash
# window_screenshot_matches_render.sh: the window's picture is the computed picture.
# The explorer with --no-ui --backend=cpu --screenshot shows a view; `mandelscope render` of
# the same view must match it with PSNR >= 35 dB (ImageMagick's compare). This checks the
# whole display chain: texture upload, row order, the shaders' mapping, colours. Then a .kfr
# opened with --colouring and --interior from the command line: the window draws them.
# Needs a display (the test command starts Xvfb); skipped (77) without one.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
command -v compare >/dev/null || { echo "SKIP: ImageMagick's compare is missing (package imagemagick)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# Seahorse valley, off-centre and asymmetric, so a flipped or shifted picture cannot match.
view=(--center=-0.7436,0.1318 --zoom=40 --iter=600 --size=640x480)
timeout 300 "$bin" --no-ui --backend=cpu "${view[@]}" --frames=3 --screenshot="$work/window.png" >"$work/window.log" 2>&1
rc=$?
cat "$work/window.log"
[ $rc -eq 0 ] || { echo "FAIL: the window exited with $rc"; exit 1; }
grep -q '^render path: cpu$' "$work/window.log" || { echo "FAIL: no 'render path: cpu' line"; exit 1; }

timeout 300 "$bin" render "${view[@]}" --palette=classic --backend=cpu -o "$work/render.png" >"$work/render.log" 2>&1 \
    || { cat "$work/render.log"; echo "FAIL: mandelscope render failed"; exit 1; }
# psnr A B: ImageMagick's PSNR of two PNGs ("inf" where they are equal), or FAIL.
psnr() {
    local p
    p=$(compare -metric PSNR "$1" "$2" null: 2>&1)
    case "$p" in
        inf) echo inf ;;
        *[!0-9.]*|"") echo "FAIL: compare did not give a PSNR for $1 and $2: $p" >&2; exit 1 ;;
        *) echo "$p" ;;
    esac
}
at_least_35() { [ "$1" = inf ] || awk -v p="$1" 'BEGIN { exit !(p >= 35) }'; }

p=$(psnr "$work/window.png" "$work/render.png") || exit 1
echo "PSNR window vs mandelscope render: $p dB"
at_least_35 "$p" || { echo "FAIL: PSNR $p dB < 35 dB"; exit 1; }

# A Kalles Fraktaler location opened in the window with colouring layers from the command line:
# they apply to the opened view (a .kfr carries none), so the window shows what
# `render --location` draws with the same options, not the plain colouring.
printf 'Re: -0.7436\r\nIm: 0.1318\r\nZoom: 40\r\nIterations: 600\r\n' > "$work/seahorse.kfr"
layers=(--colouring=de,slope --interior=period)
timeout 300 "$bin" --no-ui --backend=cpu --size=640x480 --open="$work/seahorse.kfr" "${layers[@]}" --frames=3 \
    --screenshot="$work/window_layers.png" > "$work/window_layers.log" 2>&1 \
    || { cat "$work/window_layers.log"; echo "FAIL: the window with --open and --colouring failed"; exit 1; }
for colouring in layers plain; do
    extra=("${layers[@]}"); [ $colouring = plain ] && extra=()
    timeout 300 "$bin" render --location="$work/seahorse.kfr" --size=640x480 --palette=classic --backend=cpu "${extra[@]}" \
        -o "$work/render_$colouring.png" > "$work/render_$colouring.log" 2>&1 \
        || { cat "$work/render_$colouring.log"; echo "FAIL: render --location failed"; exit 1; }
done
p=$(psnr "$work/window_layers.png" "$work/render_layers.png") || exit 1
echo "PSNR window (--open .kfr, ${layers[*]}) vs render --location with them: $p dB"
at_least_35 "$p" || { echo "FAIL: the opened view did not take the command line's colouring (PSNR $p dB < 35 dB)"; exit 1; }
p=$(psnr "$work/window_layers.png" "$work/render_plain.png") || exit 1
echo "PSNR the same window vs the plain colouring: $p dB"
at_least_35 "$p" && { echo "FAIL: the window with layers looks like the plain colouring"; exit 1; }
exit 0
