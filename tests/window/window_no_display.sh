#!/usr/bin/env bash
# window_no_display.sh: with no display the explorer says so in one sentence and exits 1
# (no crash, no core dump); bad options exit 2 with one sentence.
set -u
bin=$1
out=$(env -u DISPLAY -u WAYLAND_DISPLAY "$bin" --no-ui 2>&1); rc=$?
echo "$out"
[ $rc -eq 1 ] || { echo "FAIL: exit $rc, expected 1"; exit 1; }
echo "$out" | grep -q '^mandelscope: no display is available for the window' || { echo "FAIL: no sentence"; exit 1; }
for bad in --size=0x5 --size=abc --center=1 --center=1,x --zoom=-1 --backend=opencl --vsync=maybe --iter=0 \
    --devices=0,x --devices=99; do
    out=$(env -u DISPLAY "$bin" "$bad" 2>&1); rc=$?
    echo "$bad -> $rc: $out"
    [ $rc -eq 2 ] || { echo "FAIL: $bad gave exit $rc, expected 2"; exit 1; }
    [ "$(echo "$out" | wc -l)" -eq 1 ] || { echo "FAIL: $bad gave more than one line"; exit 1; }
done
