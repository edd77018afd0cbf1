#!/usr/bin/env bash
# window_screenshot_matches_render.sh: the window's picture is the computed picture.
# The explorer with --no-ui --backend=cpu --screenshot shows a view; `mandelscope render` of
# the same view must match it with PSNR >= 35 dB (ImageMagick's compare). This checks the
# whole display chain: texture upload, row order, the shaders' mapping, colours.
# Needs a display (the test command starts Xvfb); skipped (77) without one.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
command -v compare >/dev/null || { echo "SKIP: ImageMagick's compare is missing (package imagemagick)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# Seahorse valley, off-centre and asymmetric, so a flipped or shifted picture cannot match.
view=(--center=-0.7436,0.1318 --zoom=40 --iter=600 --size=640x480)
timeout 300 "$bin" --no-ui --backend=cpu "${view[@]}" --frames=3 --screenshot="$work/window.png" >"$work/window.log" 2>&1
rc=$?
cat "$work/window.log"
[ $rc -eq 0 ] || { echo "FAIL: the window exited with $rc"; exit 1; }
grep -q '^render path: cpu$' "$work/window.log" || { echo "FAIL: no 'render path: cpu' line"; exit 1; }

timeout 300 "$bin" render "${view[@]}" --palette=classic --backend=cpu -o "$work/render.png" >"$work/render.log" 2>&1 \
    || { cat "$work/render.log"; echo "FAIL: mandelscope render failed"; exit 1; }
reference="mandelscope render"
psnr=$(compare -metric PSNR "$work/window.png" "$work/render.png" null: 2>&1)
echo "PSNR window vs $reference: $psnr dB"
case "$psnr" in
    inf) exit 0 ;;
    *[!0-9.]*|"") echo "FAIL: compare did not give a PSNR"; exit 1 ;;
esac
awk -v p="$psnr" 'BEGIN { exit !(p >= 35) }' || { echo "FAIL: PSNR $psnr dB < 35 dB"; exit 1; }
