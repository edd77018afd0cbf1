#!/usr/bin/env bash
# window_cuda_fallback.sh: --backend=cuda where CUDA cannot reach the window's GL context.
# Under Xvfb with Mesa (CI, no GPU) the window must still show the picture, say in the log
# why it fell back (no CUDA device, or cudaGraphicsGLRegisterBuffer's "unknown error" on a
# Mesa context), and name the path that ran: copy or cpu, never a black window. On a machine
# whose GL context is NVIDIA's, interop must be the path instead.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

timeout 300 "$bin" --no-ui --backend=cuda --size=320x240 --iter=200 --screenshot="$work/shot.png" >"$work/out.log" 2>"$work/err.log"
rc=$?
cat "$work/out.log" "$work/err.log"
[ $rc -eq 0 ] || { echo "FAIL: the window exited with $rc"; exit 1; }
path=$(sed -n 's/^render path: //p' "$work/out.log")
if grep -q '^OpenGL: NVIDIA' "$work/out.log"; then
    [ "$path" = interop ] || { echo "FAIL: an NVIDIA GL context, yet the path is '$path', not interop"; exit 1; }
else
    case "$path" in copy|cpu) ;; *) echo "FAIL: render path '$path', expected copy or cpu"; exit 1 ;; esac
    grep -q '^mandelscope: fallback: CUDA.*(.\+)' "$work/err.log" || { echo "FAIL: no fallback reason in the log"; exit 1; }
fi
# Not a black window: the picture has more than one colour.
colours=$(convert "$work/shot.png" -format '%k' info:)
echo "colours in the screenshot: $colours"
[ "${colours:-0}" -gt 10 ] || { echo "FAIL: the screenshot is (nearly) uniform"; exit 1; }
