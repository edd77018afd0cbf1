#!/usr/bin/env bash
# window_faults.sh: injected faults (compute/system/fault_injection.h) in the window. A scripted
# run that cannot write its file (full disk) exits 2 with one sentence and leaves nothing behind;
# an interactive window stays up through a palette it cannot open and says so. Where the GL
# context is NVIDIA's (the GPU machine), a failed interop mapping falls back to the copy path,
# and a failed cudaMalloc or kernel launch to the CPU, each with the reason, and an export
# that runs out of GPU memory is finished by the CPU and says so.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$work/out"

# Full disk during a scripted export and a screenshot: exit 2 (as `render -o` does), one
# sentence, no file.
MANDELSCOPE_INJECT_FAULTS=png_write "$bin" --backend=cpu --export="$work/out/e.png" --export-size=200x120 \
    > "$work/log" 2>&1; rc=$?
echo "[png_write, --export] exit $rc: $(tail -n 1 "$work/log")"
[ $rc -eq 2 ] && grep -q "No space left on device; no file was written" "$work/log" || fail "a failed export must say why and exit 2"
[ "$(grep -c '^mandelscope:' "$work/log")" = 1 ] || fail "a failed export must say it in one sentence: $(cat "$work/log")"
MANDELSCOPE_INJECT_FAULTS=png_write timeout 120 "$bin" --backend=cpu --no-ui --size=200x120 \
    --screenshot="$work/out/s.png" > "$work/log" 2>&1; rc=$?
echo "[png_write, --screenshot] exit $rc: $(grep -i 'space' "$work/log" | tail -n 1)"
[ $rc -eq 2 ] && grep -q "No space left on device; no file was written" "$work/log" || fail "a failed screenshot must say why and exit 2"
[ "$(grep -c '^mandelscope:' "$work/log")" = 1 ] || fail "a failed screenshot must say it in one sentence: $(cat "$work/log")"
[ -z "$(ls -A "$work/out")" ] || fail "files left behind: $(ls -A "$work/out")"

# A palette that cannot be opened: a scripted run fails with the sentence; an interactive window
# stays up with a built-in gradient, says so, and still draws.
MANDELSCOPE_INJECT_FAULTS=asset_open timeout 120 "$bin" --backend=cpu --size=320x180 --palette=fire --frames=3 \
    --screenshot="$work/out/p.png" > "$work/log" 2>&1; rc=$?
echo "[asset_open, --screenshot] exit $rc: $(grep -i 'palette' "$work/log" | tail -n 1)"
[ $rc -eq 2 ] && grep -q "cannot open palette file" "$work/log" || fail "a scripted run with no palette must fail with 2"
[ -z "$(ls -A "$work/out")" ] || fail "files left behind: $(ls -A "$work/out")"
MANDELSCOPE_INJECT_FAULTS=asset_open "$bin" --backend=cpu --size=320x180 --palette=fire > "$work/log" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "built-in grey" "$work/log" && break; sleep 0.1; done
sleep 2
kill -0 $pid 2>/dev/null || fail "the window closed after a palette failed to open: $(cat "$work/log")"
have_magick=0; command -v import > /dev/null && command -v convert > /dev/null && have_magick=1
[ $have_magick = 1 ] && import -window root "$work/root.png" 2>/dev/null
kill $pid; wait $pid 2>/dev/null
echo "[asset_open, interactive] $(grep -i 'palette' "$work/log" | tail -n 1)"
grep -q "cannot open palette file.*; showing a built-in grey gradient" "$work/log" || fail "the window does not say so"
if [ $have_magick = 1 ]; then
    colours=$(convert "$work/root.png" -format '%k' info: 2>/dev/null)
    [ "${colours:-0}" -gt 10 ] || fail "the window does not draw (colours: ${colours:-none})"
else
    echo "(no ImageMagick here: the picture itself is not checked)"
fi

if ! "$bin" --backend=cuda --no-ui --size=64x64 --screenshot="$work/probe.png" 2>/dev/null | grep -q '^OpenGL: NVIDIA'; then
    echo "ok (the GL context is not NVIDIA's: the CUDA faults run on the GPU machine)"
    exit 0
fi
# window_path FAULT: the render path the window ended on, with the fault injected.
window_path() {
    MANDELSCOPE_INJECT_FAULTS=$1 timeout 120 "$bin" --backend=cuda --no-ui --size=640x360 --frames=5 \
        --screenshot="$work/$1.png" > "$work/$1.log" 2>&1 || fail "$1: the window exited with $?"
    sed -n 's/^render path: //p' "$work/$1.log"
}
[ "$(window_path map_resources)" = copy ] || fail "map_resources: not on the copy path"
grep -q "fallback: CUDA-GL interop unavailable (interop failed" "$work/map_resources.log" || fail "map_resources: no reason"
for fault in cuda_malloc kernel_launch; do
    [ "$(window_path $fault)" = cpu ] || fail "$fault: not on the CPU path"
    grep -q "fallback: CUDA unavailable (CUDA failed while rendering" "$work/$fault.log" || fail "$fault: no reason"
done
MANDELSCOPE_INJECT_FAULTS=cuda_malloc "$bin" --backend=cuda --export="$work/big.png" --export-size=4096x4096 \
    > "$work/export.log" 2>&1 || fail "an export that ran out of GPU memory must be finished by the CPU"
grep -q "CUDA failed: .*the CPU rendered it" "$work/export.log" || fail "the export does not say the CPU took over"
echo "ok: the window fell back interop -> copy -> CPU with a reason each time, and exports finished"
