#!/usr/bin/env bash
# window_vecadd_panel.sh: the Vector-add demo panel in the explorer window.
# - Bad --panel / --vecadd-sweep values exit 2 with one sentence (no display needed).
# - `--panel=vecadd --vecadd-sweep=100,400,1e4,2^40 --screenshot` measures the machine and sweeps
#   on the worker thread while the window keeps drawing; the screenshot waits for the sweep,
#   the log says it finished with every size and variant, and the size beyond memory is
#   reported as such (nothing crashes). The GPU rows say why where there is no GPU.
# - The screenshot shows the panel: the right part of the window differs from the picture
#   alone (--no-ui) in most pixels (with ImageMagick's compare; without it, that part is left out).
# Needs a display for the window part (the test command starts Xvfb); skipped (77) without one.
set -u
bin=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

for bad in --panel=nonsense --vecadd-sweep=abc --vecadd-sweep=100,,200 --vecadd-sweep=0; do
    out=$(env -u DISPLAY "$bin" "$bad" 2>&1); rc=$?
    echo "$bad -> $rc: $out"
    [ $rc -eq 2 ] || fail "$bad gave exit $rc, expected 2"
    [ "$(echo "$out" | wc -l)" -eq 1 ] || fail "$bad gave more than one line"
done

[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }

size=1280x720
common=(--backend=cpu --size=$size --iter=200)
timeout 300 "$bin" "${common[@]}" --panel=vecadd --vecadd-sweep='100,400,1e4,2^40' \
    --screenshot="$work/panel.png" >"$work/panel.log" 2>&1
rc=$?
cat "$work/panel.log"
[ $rc -eq 0 ] || fail "the window exited with $rc"
[ -s "$work/panel.png" ] || fail "no screenshot"
grep -q '^vecadd machine: CPU [0-9]* threads' "$work/panel.log" || fail "the machine was not measured"
grep -q '^vecadd sweep: 4 sizes x 7 variants in ' "$work/panel.log" || fail "no 'vecadd sweep: 4 sizes x 7 variants' line"
grep -q '^vecadd sweep: .*28 results' "$work/panel.log" || fail "the sweep did not report 28 results"
grep -q "^vecadd sweep: .*7: 1.1T elements need .* of host memory" "$work/panel.log" ||
    fail "the size beyond memory was not reported on its 7 rows"
grep -q '^vecadd lesson: .' "$work/panel.log" || fail "no lesson"
# The sweep line comes before the screenshot: --screenshot waited for it.
[ "$(grep -n '^vecadd sweep:' "$work/panel.log" | cut -d: -f1)" -lt "$(grep -n '^screenshot after' "$work/panel.log" | cut -d: -f1)" ] ||
    fail "the screenshot was taken before the sweep finished"

if ! command -v compare >/dev/null; then
    echo "NOTE: ImageMagick's compare is missing (package imagemagick): the screenshot was not compared"
    exit 0
fi
timeout 300 "$bin" "${common[@]}" --no-ui --screenshot="$work/plain.png" >"$work/plain.log" 2>&1 || fail "the --no-ui window failed"
# The panel sits in the right part of the window, beside the View panel.
crop=$((${size%x*} - 440))x$((${size#*x} - 60))+430+10
convert "$work/panel.png" -crop "$crop" +repage "$work/panel_area.png" || fail "cannot crop the screenshot"
convert "$work/plain.png" -crop "$crop" +repage "$work/plain_area.png" || fail "cannot crop the plain screenshot"
differ=$(compare -metric AE -fuzz 5% "$work/panel_area.png" "$work/plain_area.png" null: 2>&1)
total=$(( (${size%x*} - 440) * (${size#*x} - 60) ))
echo "panel area: $differ of $total pixels differ from the picture alone"
case "$differ" in *[!0-9]*|"") fail "compare gave no pixel count: $differ" ;; esac
[ "$differ" -gt $((total / 2)) ] || fail "the panel is not in the screenshot"
echo "window_vecadd_panel: all checks passed"
