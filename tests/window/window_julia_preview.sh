#!/usr/bin/env bash
# window_julia_preview.sh: the Julia preview inset, driven by xdotool like a user. With
# --julia-preview the inset shows the Julia set of the point under the mouse; the mouse rests on
# a point of the picture, then jumps onto the inset (over a panel the point stays) and clicks it:
# the main view becomes that Julia set. --print-view says so, with c the point that was under the
# mouse (worked out here independently, awk), and Back (Backspace) returns to the parameter plane.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
command -v xdotool >/dev/null || { echo "SKIP: xdotool is missing (package xdotool)"; exit 77; }
work=$(mktemp -d)
run() {  # $1: log file; then: keys to press after the click
    "$bin" --backend=cpu --center=-0.75,0 --zoom=1 --size=960x540 --iter=200 --julia-preview --print-view \
        >"$1" 2>&1 &
    pid=$!
    wid=$(timeout 30 xdotool search --sync --onlyvisible --name '^Mandelscope$' | head -1)
    [ -n "$wid" ] || { echo "FAIL: the window did not appear"; cat "$1"; exit 1; }
    sleep 0.5
    # The point: pixel (800, 150), right of the View panel and above the inset.
    xdotool mousemove --window "$wid" 800 150; sleep 0.5
    # The inset: bottom left of the picture, right of the View panel (380 wide at 960x540), above
    # the status line; its picture is 320x180.
    xdotool mousemove --window "$wid" 560 420; sleep 0.5
    xdotool click 1; sleep 0.5
    shift
    for key in "$@"; do xdotool key "$key"; sleep 0.3; done
    xdotool key ctrl+q
    for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    wait $pid
}
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT

run "$work/click.log"
cat "$work/click.log"
line=$(grep '^view: ' "$work/click.log")
[ -n "$line" ] || { echo "FAIL: no view printed"; exit 1; }
echo "$line" | grep -q ' formula=mandelbrot julia=' || { echo "FAIL: the click did not open a Julia set"; exit 1; }
echo "$line" | awk '
{
    match($0, /julia=[^ ]*/); split(substr($0, RSTART + 6, RLENGTH - 6), c, ",")
    # Pixel (800, 150) of a 960x540 view centred on (-0.75, 0) at zoom 1: step 4 / 540.
    s = 4 / 540; want_re = -0.75 + (800 + 0.5 - 480) * s; want_im = -(150 + 0.5 - 270) * s
    printf "julia c: got %s, %s; expected %.9f, %.9f\n", c[1], c[2], want_re, want_im
    # Within a pixel: the cursor position is whole window pixels.
    if (c[1] - want_re > s || want_re - c[1] > s || c[2] - want_im > s || want_im - c[2] > s) exit 1
}' || { echo "FAIL: the Julia parameter is not the point that was under the mouse"; exit 1; }

run "$work/back.log" BackSpace
cat "$work/back.log"
grep -q '^view: center=-0.75,0 zoom=1 .* formula=mandelbrot colouring=smooth interior=flat$' "$work/back.log" \
    || { echo "FAIL: Back did not return to the parameter plane"; exit 1; }
echo "the Julia preview follows the mouse, a click opens it, Back returns"
