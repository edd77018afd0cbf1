#!/usr/bin/env bash
# window_center_field.sh: the View panel's centre field follows the view when it is not being
# edited. Types a centre (Backspaces, "-1.25", Enter, as quick taps, which Dear ImGui 1.86 loses
# between two frames unless navigation.h holds the releases back), zooms with the wheel elsewhere,
# clicks the picture once, and quits: --print-view must show the typed centre moved by the two wheel
# notches, not snapped back to -1.25 by the click, and a screenshot of the field must show the
# view's new centre, not the typed text.
# Needs a display (the test command starts Xvfb) and xdotool; skipped (77) without them.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
command -v xdotool >/dev/null || { echo "SKIP: xdotool is missing (package xdotool)"; exit 77; }
work=$(mktemp -d)
export XDG_CONFIG_HOME="$work/config"
# A given view (the default one is fitted beside the panels): centre (-0.5, 0), zoom 2.
"$bin" --backend=cpu --size=1280x720 --iter=100 --center=-0.5,0 --zoom=2 --print-view >"$work/out.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
wid=$(timeout 30 xdotool search --sync --onlyvisible --name '^Mandelscope$' | head -1)
[ -n "$wid" ] || { echo "FAIL: the window did not appear"; cat "$work/out.log"; exit 1; }
sleep 1.5
# The real part's field is the first text field of the View panel (at the default layout).
xdotool mousemove --window "$wid" 195 59 click 1; sleep 0.3
xdotool key End; xdotool key --delay 120 BackSpace BackSpace BackSpace BackSpace BackSpace BackSpace
xdotool type --delay 30 -- "-1.25"; xdotool key Return; sleep 0.5
xdotool mousemove --window "$wid" 900 400; sleep 0.2; xdotool click 4; sleep 0.3; xdotool click 4; sleep 0.5
xdotool mousemove --window "$wid" 900 500 click 1; sleep 0.5
import -window root "$work/field.png" 2>/dev/null
xdotool key ctrl+q
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
wait $pid; rc=$?
cat "$work/out.log"
[ $rc -eq 0 ] || { echo "FAIL: the window exited with $rc"; exit 1; }
line=$(grep '^view: ' "$work/out.log")
echo "$line" | awk '{
    split($2, c, "[=,]"); re = c[2] + 0; im = c[3] + 0
    split($3, z, "="); zoom = z[2] + 0
    # Typed centre (-1.25, 0) at zoom 2, then two notches of 1.25 about (900, 400).
    H = 720; W = 1280; zm = 2; s = 4 / (zm * H)
    px = -1.25 + (900 - W / 2) * s; py = 0 - (400 - H / 2) * s
    f = 1.5625; cr = px + (-1.25 - px) / f; ci = py + (0 - py) / f
    printf "centre %.9g %.9g (expected %.9g %.9g), zoom %.9g (expected %.9g)\n", re, im, cr, ci, zoom, zm * f
    d = 1e-6
    exit !((re - cr < d && cr - re < d) && (im - ci < d && ci - im < d) && (zoom - zm * f < 1e-9 && zm * f - zoom < 1e-9))
}' || { echo "FAIL: the view is not where the typed centre and the wheel put it (snapped back?)"; exit 1; }
echo "OK"
