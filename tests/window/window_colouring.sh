#!/usr/bin/env bash
# window_colouring.sh: the colouring layers in the window.
#   - the explorer with --colouring=histogram,de,slope --interior=period --no-ui --backend=cpu
#     shows the picture `mandelscope render` makes of the same view (PSNR >= 35 dB);
#   - with the palette editor open (--panel=palette) it draws, and a screenshot's view reopens
#     (--open) with its colouring (--print-view);
#   - a Multibrot's Julia set keeps stripes, DE and the period interior: render's picture, reopened;
#   - a bad --colouring is one sentence and exit 2.
# Needs a display (the test command starts Xvfb); skipped (77) without one.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
command -v compare >/dev/null || { echo "SKIP: ImageMagick's compare is missing (package imagemagick)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

view=(--center=-0.7436,0.1318 --zoom=40 --iter=600 --size=640x480)
colour=(--colouring=histogram,de,slope --interior=period)
timeout 300 "$bin" --no-ui --backend=cpu "${view[@]}" "${colour[@]}" --frames=3 --screenshot="$work/window.png" \
    >"$work/window.log" 2>&1
rc=$?
cat "$work/window.log"
[ $rc -eq 0 ] || { echo "FAIL: the window exited with $rc"; exit 1; }
timeout 300 "$bin" render "${view[@]}" "${colour[@]}" --backend=cpu -o "$work/render.png" >"$work/render.log" 2>&1 \
    || { cat "$work/render.log"; echo "FAIL: mandelscope render failed"; exit 1; }
psnr=$(compare -metric PSNR "$work/window.png" "$work/render.png" null: 2>&1)
echo "PSNR window vs mandelscope render: $psnr dB"
case "$psnr" in
    inf) ;;
    *[!0-9.]*|"") echo "FAIL: compare did not give a PSNR"; exit 1 ;;
    *) awk -v p="$psnr" 'BEGIN { exit !(p >= 35) }' || { echo "FAIL: PSNR $psnr dB < 35 dB"; exit 1; } ;;
esac

# The palette editor open; the screenshot's view reopens with its colouring.
timeout 300 "$bin" --backend=cpu "${view[@]}" --colouring=stripe,de --panel=palette --frames=3 \
    --screenshot="$work/editor.png" >"$work/editor.log" 2>&1 || { cat "$work/editor.log"; echo "FAIL: editor run"; exit 1; }
out=$(timeout 300 "$bin" --backend=cpu --open="$work/editor.png" --frames=2 --print-view 2>&1) \
    || { echo "$out"; echo "FAIL: --open of the screenshot"; exit 1; }
echo "$out" | grep -q ' colouring=stripe,de interior=flat$' || { echo "$out"; echo "FAIL: the colouring did not reopen"; exit 1; }

# Another formula's Julia set keeps the orbit-feature layers (DE, stripes, period interior): the
# window shows render's picture and its screenshot reopens with them.
family=(--formula=multibrot3 --julia=0.2,0.3 --iter=400 --size=480x270 --colouring=stripe,de --interior=period)
timeout 300 "$bin" --no-ui --backend=cpu "${family[@]}" --frames=3 --screenshot="$work/family.png" \
    >"$work/family.log" 2>&1 || { cat "$work/family.log"; echo "FAIL: the Multibrot Julia window run"; exit 1; }
timeout 300 "$bin" render "${family[@]}" --backend=cpu -o "$work/family-render.png" >"$work/family-render.log" 2>&1 \
    || { cat "$work/family-render.log"; echo "FAIL: render of the Multibrot Julia set"; exit 1; }
psnr=$(compare -metric PSNR "$work/family.png" "$work/family-render.png" null: 2>&1)
echo "PSNR window vs render, Multibrot 3 Julia set with stripe,de and the period interior: $psnr dB"
case "$psnr" in
    inf) ;;
    *[!0-9.]*|"") echo "FAIL: compare did not give a PSNR"; exit 1 ;;
    *) awk -v p="$psnr" 'BEGIN { exit !(p >= 35) }' || { echo "FAIL: PSNR $psnr dB < 35 dB"; exit 1; } ;;
esac
out=$(timeout 300 "$bin" --backend=cpu --open="$work/family.png" --frames=2 --print-view 2>&1) \
    || { echo "$out"; echo "FAIL: --open of the Multibrot Julia screenshot"; exit 1; }
echo "$out" | grep -q ' colouring=stripe,de interior=period$' || { echo "$out"; echo "FAIL: the family colouring did not reopen"; exit 1; }

"$bin" --colouring=glow --frames=1 >"$work/bad.log" 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$work/bad.log")" -eq 1 ] || { cat "$work/bad.log"; echo "FAIL: --colouring=glow exited $rc"; exit 1; }
echo "all window colouring checks passed"
