#!/usr/bin/env bash
# window_perf_panel.sh: the Performance window with Compare switched on at startup.
# `--panel=perf --compare --backend=cpu --screenshot` must save the screenshot, with the
# Performance window drawn in the top-right corner (that corner differs from the same run
# without --panel=perf, and again with --perf-tab=device), and log one compare line:
#   where CUDA cannot render (CI, no GPU): "compare: unavailable: <the reason, in words>";
#   where it can: "compare: cpu N ms, cuda N ms, speedup Nx, agree P%" after the background
#   CPU render of the view finished (--screenshot waits for it), P >= 99.9.
# Needs a display (the test command starts Xvfb); skipped (77) without one.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
command -v compare >/dev/null || { echo "SKIP: ImageMagick's compare is missing (package imagemagick)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

view=(--backend=cpu --size=1280x720 --iter=300 --frames=5)
timeout 300 "$bin" "${view[@]}" --panel=perf --compare --screenshot="$work/perf.png" >"$work/perf.log" 2>&1
rc=$?
cat "$work/perf.log"
[ $rc -eq 0 ] || { echo "FAIL: the window exited with $rc"; exit 1; }
[ -s "$work/perf.png" ] || { echo "FAIL: no screenshot"; exit 1; }
grep -q '^render path: cpu$' "$work/perf.log" || { echo "FAIL: no 'render path: cpu' line"; exit 1; }

line=$(grep '^compare: ' "$work/perf.log" | head -1)
[ -n "$line" ] || { echo "FAIL: no 'compare:' line in the log"; exit 1; }
case "$line" in
    "compare: unavailable: "?*)
        reason=${line#compare: unavailable: }
        [ ${#reason} -ge 10 ] || { echo "FAIL: the reason '$reason' says nothing"; exit 1; }
        echo "OK: Compare says why it cannot run: $reason" ;;
    "compare: cpu "*)
        echo "$line" | grep -Eq '^compare: cpu [0-9.]+ ms, cuda [0-9.]+ ms, speedup [0-9.]+x, agree [0-9.]+%$' \
            || { echo "FAIL: the compare line is not 'cpu N ms, cuda N ms, speedup Nx, agree P%'"; exit 1; }
        agree=$(echo "$line" | sed 's/.*agree \([0-9.]*\)%$/\1/')
        awk -v a="$agree" 'BEGIN { exit !(a >= 99.9) }' || { echo "FAIL: only $agree% of the pixels agree"; exit 1; }
        echo "OK: CUDA and the CPU compared: $line" ;;
    *) echo "FAIL: unexpected compare line: $line"; exit 1 ;;
esac

# The Performance window is drawn: the top-right corner differs from a run without it.
timeout 300 "$bin" "${view[@]}" --screenshot="$work/plain.png" >"$work/plain.log" 2>&1 \
    || { cat "$work/plain.log"; echo "FAIL: the run without the panel failed"; exit 1; }
corner=(-crop 400x300+860+40 +repage)
convert "$work/perf.png" "${corner[@]}" "$work/perf_corner.png"
convert "$work/plain.png" "${corner[@]}" "$work/plain_corner.png"
psnr=$(compare -metric PSNR "$work/perf_corner.png" "$work/plain_corner.png" null: 2>&1)
echo "PSNR of the top-right corner with and without the Performance window: $psnr dB"
case "$psnr" in
    inf) echo "FAIL: the corner is the same with --panel=perf: no Performance window"; exit 1 ;;
esac
awk -v p="$psnr" 'BEGIN { exit !(p < 25) }' || { echo "FAIL: the corner barely changed ($psnr dB)"; exit 1; }

# --perf-tab=device shows another tab: the Device table, not the timings.
timeout 300 "$bin" "${view[@]}" --panel=perf --perf-tab=device --screenshot="$work/device.png" >"$work/device.log" 2>&1 \
    || { cat "$work/device.log"; echo "FAIL: the run with --perf-tab=device failed"; exit 1; }
convert "$work/device.png" "${corner[@]}" "$work/device_corner.png"
psnr=$(compare -metric PSNR "$work/device_corner.png" "$work/perf_corner.png" null: 2>&1)
echo "PSNR of the corner, Device tab against Timings tab: $psnr dB"
[ "$psnr" != inf ] || { echo "FAIL: --perf-tab=device shows the same as the Timings tab"; exit 1; }
echo "OK"
