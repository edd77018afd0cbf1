#!/usr/bin/env bash
# window_no_gpu_start.sh: started without --backend where CUDA cannot run, the window selects
# the CPU and says why ("backend: CPU (no GPU: <reason>)" in the log, the same words begin the
# status line: test_render_status_line), renders on the cpu path, and logs no fallback warning
# (nothing fell back: the CPU was chosen). Where CUDA can run, it must start on CUDA instead.
# Needs a display (the test command starts Xvfb); skipped (77) without one.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config"
timeout 300 "$bin" --size=320x240 --iter=100 --screenshot="$work/shot.png" >"$work/out.log" 2>"$work/err.log"
rc=$?
cat "$work/out.log" "$work/err.log"
[ $rc -eq 0 ] || { echo "FAIL: the window exited with $rc"; exit 1; }
path=$(sed -n 's/^render path: //p' "$work/out.log")
if grep -q '^backend: CPU (no GPU: .\{10,\})$' "$work/out.log"; then
    [ "$path" = cpu ] || { echo "FAIL: CPU chosen, yet the path is '$path'"; exit 1; }
    grep -q 'fallback' "$work/err.log" && { echo "FAIL: a fallback warning although the CPU was chosen"; exit 1; }
    echo "OK: no GPU here, the window chose the CPU and said why"
else
    case "$path" in interop|copy) echo "OK: CUDA can run here and the window started on it ($path)" ;;
        *) echo "FAIL: no 'backend: CPU (no GPU: reason)' line, and the path is '$path'"; exit 1 ;; esac
fi
