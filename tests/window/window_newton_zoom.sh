#!/usr/bin/env bash
# window_newton_zoom.sh: deep by hand with the Newton zoom, driven by xdotool like a user.
# 1. From the default view (CPU, 320x180, no panels), a scripted series of Newton zooms (move the
#    mouse, press M, J or N, or right-click and pick from the menu) reaches a minibrot past zoom
#    1e100 in under 20 actions: each search runs on the worker, the view flies there and the log
#    says "arrived"; no failure is reported. Backspace then returns to where the last flight
#    started, and Ctrl+Y comes back. --print-view says where the view ended.
# 2. That view round-trips through a .kfr location file (written by `render --save-location`,
#    opened by the window with --open): the window reopens at the same centre and zoom, and its
#    screenshot shows the minibrot centred: the middle of the picture is the interior colour
#    (dark), the picture is not flat.
# Needs a display (the test command starts Xvfb), xdotool and ImageMagick; skipped (77) without.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
command -v xdotool >/dev/null || { echo "SKIP: xdotool is missing (package xdotool)"; exit 77; }
command -v convert >/dev/null || { echo "SKIP: ImageMagick's convert is missing"; exit 77; }
work=$(mktemp -d)
export XDG_CONFIG_HOME="$work/config"
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; [ -f "$work/nav.log" ] && tail -n 30 "$work/nav.log"; exit 1; }

# --- 1. Newton zooms from the default view ------------------------------------------------
"$bin" --no-ui --backend=cpu --size=320x180 --print-view >"$work/nav.log" 2>&1 &
pid=$!
wid=$(timeout 30 xdotool search --sync --onlyvisible --name '^Mandelscope$' | head -1)
[ -n "$wid" ] || fail "the window did not appear"
sleep 0.5
xdotool windowfocus "$wid" 2>/dev/null
actions=0
arrivals() { grep -c 'Newton zoom: arrived' "$work/nav.log"; }
# wait_arrival N: waits until the log has N arrivals (a failure or 90 s: FAIL).
wait_arrival() {
    for _ in $(seq 900); do
        [ "$(arrivals)" -ge "$1" ] && return 0
        grep -q 'mandelscope: Newton zoom to ' "$work/nav.log" && fail "a Newton zoom failed"
        kill -0 $pid 2>/dev/null || fail "the window exited"
        sleep 0.1
    done
    fail "no arrival $1 within 90 s"
}
# zoom X Y KEY: the mouse to window pixel (X, Y), then KEY; waits for the flight to land.
zoom() {
    actions=$((actions + 1))
    xdotool mousemove --window "$wid" "$1" "$2"; sleep 0.1
    xdotool key "$3"
    wait_arrival "$actions"
    echo "action $actions: $3 at ($1, $2): $(grep 'Newton zoom: arrived' "$work/nav.log" | tail -1 | sed 's/^mandelscope: //')"
}
# menu X Y ITEM: right click at (X, Y), then the ITEM-th entry of the Newton menu. ImGui puts the
# popup's top at the mouse, pushed left to fit the window (it reaches the right edge at 320 wide);
# a title line, then one entry every 18 pixels.
menu() {
    actions=$((actions + 1))
    xdotool mousemove --window "$wid" "$1" "$2"; sleep 0.6
    xdotool click 3; sleep 0.5
    xdotool mousemove --window "$wid" 200 $(($2 + 32 + 18 * ($3 - 1))); sleep 0.3
    xdotool click 1
    wait_arrival "$actions"
    echo "action $actions: menu entry $3 at ($1, $2): $(grep 'Newton zoom: arrived' "$work/nav.log" | tail -1 | sed 's/^mandelscope: //')"
}
# The route: the period-7 minibrot's neighbourhood at the default view, then points beside each
# minibrot (the lowest period near them is a much deeper minibrot), its embedded Julia set, and
# the minibrot at its middle.
zoom 110 50 m
zoom 130 110 m
menu 130 70 1
zoom 70 90 m
zoom 170 150 j
zoom 160 90 m
xdotool key BackSpace; sleep 0.5
xdotool key ctrl+y; sleep 0.5
xdotool key ctrl+q
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
wait $pid; rc=$?; pid=
grep -E 'Newton zoom|^view: ' "$work/nav.log"
[ $rc -eq 0 ] || fail "the window exited with $rc"
[ $actions -lt 20 ] || fail "$actions actions: not under 20"
line=$(grep '^view: ' "$work/nav.log")
[ -n "$line" ] || fail "no view printed"
re=$(echo "$line" | sed 's/^view: center=\([^,]*\),.*/\1/')
im=$(echo "$line" | sed 's/^view: center=[^,]*,\([^ ]*\) .*/\1/')
zoom=$(echo "$line" | sed 's/.* zoom=\([^ ]*\) .*/\1/')
iter=$(echo "$line" | sed 's/.* iterations=\([^ ]*\) .*/\1/')
exponent=$(echo "$zoom" | sed 's/.*[eE]+*//')
echo "reached zoom $zoom in $actions actions"
[ "${exponent:-0}" -gt 100 ] 2>/dev/null || fail "the zoom $zoom is not past 1e100"
last=$(grep 'Newton zoom: arrived' "$work/nav.log" | tail -1)
echo "$last" | grep -q "zoom $zoom, $iter iterations)" || fail "Back then Forward did not return to the last minibrot ($last)"

# --- 2. Through a .kfr file and back, and the picture --------------------------------------
"$bin" render --backend=cpu --center="$re,$im" --zoom="$zoom" --iter="$iter" --size=16x9 -o "$work/tiny.png" \
    --save-location="$work/minibrot.kfr" >"$work/save.log" 2>&1 || { cat "$work/save.log"; fail "render --save-location failed"; }
head -c 300 "$work/minibrot.kfr"; echo
timeout 300 "$bin" --no-ui --backend=cpu --size=320x180 --open="$work/minibrot.kfr" --screenshot="$work/minibrot.png" \
    --print-view >"$work/open.log" 2>&1 || { cat "$work/open.log"; fail "the window could not open the .kfr"; }
reopened=$(grep '^view: ' "$work/open.log")
echo "$reopened"
echo "$reopened" | grep -qF "center=$re,$im zoom=" || fail "the centre did not round-trip through the .kfr"
rezoom=$(echo "$reopened" | sed 's/.* zoom=\([^ ]*\) .*/\1/')
python3 -c "
import sys
a, b = sys.argv[1].upper().split('E'), sys.argv[2].upper().split('E')
same = int(a[1]) == int(b[1]) and abs(float(a[0]) / float(b[0]) - 1) < 1e-9
print('zoom', sys.argv[1], 'reopened as', sys.argv[2])
sys.exit(0 if same else 1)" "$zoom" "$rezoom" || fail "the zoom did not round-trip through the .kfr"
convert "$work/minibrot.png" -depth 8 rgb:- | python3 -c '
import sys
w, h = 320, 180
data = sys.stdin.buffer.read()
assert len(data) == w * h * 3, len(data)
px = lambda x, y: data[3 * (y * w + x):3 * (y * w + x) + 3]
colours = len(set(data[i:i + 3] for i in range(0, len(data), 3)))
# The nucleus is the middle pixel; the minibrot spans about half the height (margin 2), so a
# few pixels around the middle are inside its cardioid: the interior colour, dark.
middle = [px(x, y) for x in range(w // 2 - 2, w // 2 + 2) for y in range(h // 2 - 2, h // 2 + 2)]
dark = all(sum(p) < 60 for p in middle)
print(f"picture: {colours} colours; middle 4x4 pixels: {sorted(set(middle))[:3]}")
sys.exit(0 if colours >= 50 and dark else 1)
' || fail "the screenshot does not show a minibrot in the middle"
echo "Newton zooms reached zoom $zoom in $actions actions; the view round-trips through a .kfr"
