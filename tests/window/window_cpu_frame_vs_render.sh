#!/usr/bin/env bash
# window_cpu_frame_vs_render.sh: the window's CPU frame is as fast as `mandelscope render`'s
# compute (issue 15, item 1: the window once took 10 to 40 times as long).
# `--bench-drag` on the CPU backend renders each view of a drag completely, then computes the
# same view as `render` does (one mandelbrot_cpu call, no window), alternating the two in one
# run, and prints the ratio of the medians. Seahorse valley at 1280x720 with 2,000 iterations,
# as in the issue. Goal 1.3. On the shared 2-core development machine (load average 6 to 11
# from other builds) the ratio measured 1.20 to 1.33 with the SIMD colouring and the reused
# frame buffers, 1.70 to 1.81 just before them (scalar colouring), 8 to 12 before the first fix;
# the test allows 3.0, a margin for a loaded CI machine, where the window's extra threads
# (Xvfb, llvmpipe, the UI) take their turns on the same two cores: with a build and the fuzz
# targets' compile beside it, it measured 2.21 (it is a guard against the 8-12x regression, not
# the benchmark: the goal's figure comes from --bench-drag, README "Measured performance").
# A `render` of the first view in its own process is printed beside it.
# Needs a display (the test command starts Xvfb); skipped (77) without one.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config"
view=(--backend=cpu --center=-0.7453,0.1127 --zoom=150 --iter=2000 --size=1280x720)

timeout 300 "$bin" "${view[@]}" --vsync=off --bench-drag=15 >"$work/out.log" 2>&1
rc=$?
cat "$work/out.log"
[ $rc -eq 0 ] || { echo "FAIL: the window exited with $rc"; exit 1; }
ratio=$(sed -n 's/^bench-drag: window CPU frame \/ render compute = \([0-9.]*\) .*/\1/p' "$work/out.log")
[ -n "$ratio" ] || { echo "FAIL: --bench-drag on the CPU backend printed no window/render ratio"; exit 1; }
"$bin" render "${view[@]}" -o "$work/render.png" 2>/dev/null | grep '^time'
awk -v r="$ratio" 'BEGIN { exit !(r > 0.5 && r <= 3.0) }' \
    || { echo "FAIL: the window's CPU frame takes $ratio times render's compute (goal 1.3, allowed 3.0)"; exit 1; }
echo "OK: the window's CPU frame takes $ratio times render's compute"
