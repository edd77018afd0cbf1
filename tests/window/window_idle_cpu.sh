#!/usr/bin/env bash
# window_idle_cpu.sh: an idle window sleeps instead of redrawing.
# Opens the window with the Performance panel shown, on the CPU path at 1280x720, lets it finish its
# view, then reads the CPU time of the whole process (every thread: UI, render workers,
# Mesa's llvmpipe) from /proc/PID/stat over 4 s without input. It must stay under 5% of one
# core. (A window that redraws 60 times a second takes well over a core under Xvfb.)
# Then the loop must still answer input while it waits: '+' zooms in 2x, Ctrl+Q quits, and
# --print-view shows the zoom doubled.
# Needs a display (the test command starts Xvfb); skipped (77) without one or without xdotool.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
command -v xdotool >/dev/null || { echo "SKIP: xdotool is missing (package xdotool)"; exit 77; }
work=$(mktemp -d)
export XDG_CONFIG_HOME="$work/config"
"$bin" --backend=cpu --center=-0.75,0 --zoom=1 --size=1280x720 --iter=300 --panel=perf --print-view >"$work/out.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT

wid=$(timeout 30 xdotool search --sync --onlyvisible --name '^Mandelscope$' | head -1)
[ -n "$wid" ] || { echo "FAIL: the window did not appear"; cat "$work/out.log"; exit 1; }
sleep 3  # the view (well under a second of CPU) is finished and shown
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
t0=$(ticks); s0=$(date +%s.%N)
sleep 4
t1=$(ticks); s1=$(date +%s.%N)
percent=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s0="$s0" -v s1="$s1" 'BEGIN { printf "%.2f", 100 * (b - a) / hz / (s1 - s0) }')
echo "idle window: $percent% of one core over $(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.1f", b - a }') s ($((t1 - t0)) ticks of 1/$hz s)"
awk -v p="$percent" 'BEGIN { exit !(p < 5) }' || { echo "FAIL: an idle window must use under 5% of one core"; exit 1; }

# Still answering: '+' zooms in 2x, Ctrl+Q quits.
xdotool mousemove --window "$wid" 640 360
xdotool windowfocus "$wid" 2>/dev/null; xdotool key plus; sleep 0.5
xdotool key ctrl+q
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
wait $pid; rc=$?
cat "$work/out.log"
[ $rc -eq 0 ] || { echo "FAIL: the window exited with $rc"; exit 1; }
grep -q '^view: .* zoom=2 ' "$work/out.log" || { echo "FAIL: '+' did not zoom the idle window in 2x"; exit 1; }
echo "OK"
