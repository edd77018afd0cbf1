#!/usr/bin/env bash
# window_panel_layout.sh: with every panel open (--panel=perf,vecadd,cnn) at 1280x720,
# 1920x1080 and 640x360, the window saves its screenshot; the column of tabs on the right is
# drawn (the top-right corner differs from the same view without panels); the status line is
# never covered (the bottom strip matches the run without panels); and the panels' layout is
# kept in $XDG_CONFIG_HOME/mandelscope/imgui.ini (the View panel and the column are in it), not
# in the working directory. render/panel_layout.h's geometry is checked by
# test_render_panel_layout; these screenshots are the ones to look at (kept with KEEP=DIR).
# Needs a display (the test command starts Xvfb); skipped (77) without one.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
command -v compare >/dev/null || { echo "SKIP: ImageMagick's compare is missing (package imagemagick)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config"
cd "$work"

for size in 1280x720 1920x1080 640x360; do
    w=${size%x*}; h=${size#*x}
    view=(--backend=cpu --size=$size --iter=200 --frames=5)
    timeout 300 "$bin" "${view[@]}" --panel=perf,vecadd,cnn --screenshot="$work/all_$size.png" >"$work/all.log" 2>&1 \
        || { cat "$work/all.log"; echo "FAIL: $size with every panel open"; exit 1; }
    timeout 300 "$bin" "${view[@]}" --no-ui --screenshot="$work/none_$size.png" >"$work/none.log" 2>&1 \
        || { cat "$work/none.log"; echo "FAIL: $size without panels"; exit 1; }
    [ -n "${KEEP:-}" ] && cp "$work/all_$size.png" "$KEEP/"
    # The column: the top-right corner (below the tab bar) is not the fractal.
    corner=(-crop $((w / 5))x$((h / 4))+$((w - w / 5 - 10))+40 +repage)
    convert "$work/all_$size.png" "${corner[@]}" "$work/a.png"; convert "$work/none_$size.png" "${corner[@]}" "$work/b.png"
    psnr=$(compare -metric PSNR "$work/a.png" "$work/b.png" null: 2>&1)
    echo "$size: top-right corner with and without panels: PSNR $psnr dB"
    [ "$psnr" != inf ] && awk -v p="$psnr" 'BEGIN { exit !(p < 25) }' || { echo "FAIL: $size: no column of tabs on the right"; exit 1; }
    # The status line: the bottom 8 pixel rows hold its background in both, never a panel.
    strip=(-crop ${w}x8+0+$((h - 8)) +repage -resize 1x1! -format '%[fx:int(255*mean)]' info:)
    a=$(convert "$work/all_$size.png" "${strip[@]}"); b=$(convert "$work/none_$size.png" -crop ${w}x8+0+$((h - 8)) +repage -resize 1x1! -format '%[fx:int(255*mean)]' info:)
    echo "$size: bottom strip mean $a with panels (status line drawn), fractal there without: $b"
    [ "$a" -le 40 ] || { echo "FAIL: $size: the bottom strip is not the status line's dark background ($a)"; exit 1; }
done
ini="$work/config/mandelscope/imgui.ini"
[ -s "$ini" ] || { echo "FAIL: no $ini"; exit 1; }
grep -q '^\[Window\]\[View\]' "$ini" && grep -q '^\[Window\]\[Panels\]' "$ini" \
    || { cat "$ini"; echo "FAIL: imgui.ini does not keep the View panel and the column"; exit 1; }
[ ! -e "$work/imgui.ini" ] || { echo "FAIL: an imgui.ini was written in the working directory"; exit 1; }
echo "OK"
