#!/usr/bin/env bash
# window_xdotool_navigation.sh: the real window, driven by xdotool like a user.
# Left-drag by (+100, +50) pixels moves the view so the grabbed point follows the mouse;
# two wheel notches up at another point zoom 1.25^2 about that point; the Right arrow pans
# a tenth of the width; Ctrl+Q quits; --print-view tells where the view ended up, and the
# expected place is worked out here independently (awk). Then, with the panels shown, the
# wheel over the View panel belongs to ImGui and leaves the view alone.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
command -v xdotool >/dev/null || { echo "SKIP: xdotool is missing (package xdotool)"; exit 77; }
work=$(mktemp -d)
"$bin" --no-ui --backend=cpu --center=-0.75,0 --zoom=1 --size=800x600 --iter=100 --print-view >"$work/out.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT

wid=$(timeout 30 xdotool search --sync --onlyvisible --name '^Mandelscope$' | head -1)
[ -n "$wid" ] || { echo "FAIL: the window did not appear"; cat "$work/out.log"; exit 1; }
sleep 0.5
at() { xdotool mousemove --window "$wid" "$1" "$2"; }
# Drag: press at (400,300), move in steps, release at (500,350).
at 400 300; xdotool mousedown 1
for step in 1 2 3 4; do at $((400 + 25 * step)) $((300 + 25 * step / 2)); sleep 0.05; done
xdotool mouseup 1; sleep 0.3
# Wheel: two notches up (zoom in) at (600,200).
at 600 200; xdotool click 4; sleep 0.1; xdotool click 4; sleep 0.3
# Keyboard: Right arrow (the pointer is over the window, which has the focus).
xdotool windowfocus "$wid" 2>/dev/null; xdotool key Right; sleep 0.3
xdotool key ctrl+q
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
wait $pid; rc=$?
cat "$work/out.log"
[ $rc -eq 0 ] || { echo "FAIL: the window exited with $rc"; exit 1; }
line=$(grep '^view: ' "$work/out.log")
[ -n "$line" ] || { echo "FAIL: no view printed"; exit 1; }
echo "$line" | awk '
function check(name, got, want, tol) {
    printf "%s: got %.9g, expected %.9g\n", name, got, want
    if (got - want > tol || want - got > tol) { bad = 1; print "  ^ MISMATCH" }
}
{
    split($2, c, "[=,]"); re = c[2] + 0; im = c[3] + 0
    split($3, z, "="); zoom = z[2] + 0
    W = 800; H = 600
    # Start: centre (-0.75, 0), zoom 1. Pixel step = 4 / (zoom * H).
    cr = -0.75; ci = 0; zm = 1; s = 4 / (zm * H)
    # Drag by (+100, +50): the picture follows the hand, the centre moves the other way
    # (screen y points down, the imaginary axis up).
    cr -= 100 * s; ci += 50 * s
    # Two notches of 1.25 about (600, 200): that point stays put.
    px = cr + (600 - W / 2) * s; py = ci - (200 - H / 2) * s
    f = 1.25 * 1.25; cr = px + (cr - px) / f; ci = py + (ci - py) / f; zm *= f; s = 4 / (zm * H)
    # Right arrow: a tenth of the width.
    cr += 0.1 * W * s
    check("zoom", zoom, zm, 1e-9)
    check("centre re", re, cr, 1e-4 * s)
    check("centre im", im, ci, 1e-4 * s)
    exit bad
}' || { echo "FAIL: the view did not move as the mouse and keys asked"; exit 1; }

# With the panels: the wheel over the View panel (top left) must not zoom; one notch over the
# picture must.
"$bin" --backend=cpu --center=-0.75,0 --zoom=1 --size=800x600 --iter=100 --print-view >"$work/ui.log" 2>&1 &
pid=$!
wid=$(timeout 30 xdotool search --sync --onlyvisible --name '^Mandelscope$' | head -1)
[ -n "$wid" ] || { echo "FAIL: the window did not appear"; exit 1; }
sleep 0.5
at 100 100; xdotool click 4; sleep 0.2; xdotool click 4; sleep 0.3
at 700 300; xdotool click 4; sleep 0.3
xdotool key ctrl+q
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
wait $pid
cat "$work/ui.log"
grep -q '^view: .* zoom=1.25 ' "$work/ui.log" || { echo "FAIL: the wheel over the panel zoomed the picture"; exit 1; }
