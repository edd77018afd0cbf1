#!/usr/bin/env bash
# window_panel_layout.sh: with every panel open (--panel=perf,vecadd,cnn) at 1280x720,
# 1920x1080 and 640x360, the window saves its screenshot; the column of tabs on the right is
# drawn (the top-right corner differs from the same view without panels); the status line is
# never covered (the bottom strip matches the run without panels); and the panels' layout is
# kept in $XDG_CONFIG_HOME/mandelscope/imgui.ini (the View panel and the column are in it), not
# in the working directory. The default view at start shows the set whole in the part of the
# window the panels leave free: at 1280x720 with the View panel alone, and with the column at
# 1280x720 and 1920x1080, the set's interior in the window's view (rendered without panels by
# `render`) lies right of the View panel, left of the column and above the status line, and the
# screenshot shows it there. render/panel_layout.h's geometry is checked by
# test_render_panel_layout, the framing's maths by test_render_default_framing; these
# screenshots are the ones to look at (kept with KEEP=DIR).
# Needs a display (the test command starts Xvfb); skipped (77) without one.
set -u
bin=$1
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
command -v compare >/dev/null || { echo "SKIP: ImageMagick's compare is missing (package imagemagick)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config"
cd "$work"

# check_set_whole SHOT LOG RIGHT: the set of the view in LOG (--print-view), rendered without
# panels, has its interior (pure black) clear of the View panel (the default 380 pixels wide, at
# x = 6: panel_layout.h), of the column (from x = RIGHT) and of the status line; and the
# screenshot SHOT shows as much of that interior there as the render does.
check_set_whole() {
    local shot=$1 log=$2 right=$3 w h line center zoom box bw bh bx by rendered shown
    w=$(identify -format %w "$shot"); h=$(identify -format %h "$shot")
    line=$(grep '^view: ' "$log") || { cat "$log"; echo "FAIL: no view printed"; exit 1; }
    center=$(echo "$line" | sed -n 's/.* center=\([^ ]*\) .*/\1/p'); zoom=$(echo "$line" | sed -n 's/.* zoom=\([^ ]*\) .*/\1/p')
    timeout 300 "$bin" render --backend=cpu --center="$center" --zoom="$zoom" --size=${w}x$h --iter=200 -o "$work/plain.png" \
        >"$work/render.log" 2>&1 || { cat "$work/render.log"; echo "FAIL: render of the window's view"; exit 1; }
    box=$(convert "$work/plain.png" -fill white +opaque black -format %@ info:)
    bw=${box%%x*}; bh=${box#*x}; bh=${bh%%+*}; bx=${box#*+}; bx=${bx%%+*}; by=${box##*+}
    echo "$(basename "$shot"): view centre $center zoom $zoom; the set's interior spans x $bx..$((bx + bw)), y $by..$((by + bh)) of ${w}x$h"
    [ "$bw" -gt $((w / 8)) ] || { echo "FAIL: the set is hardly there (${bw} pixels wide)"; exit 1; }
    [ "$bx" -gt 386 ] || { echo "FAIL: the set's west reaches under the View panel (x $bx <= 386)"; exit 1; }
    [ $((bx + bw)) -lt "$right" ] || { echo "FAIL: the set's east reaches x $((bx + bw)), the column or the edge at $right"; exit 1; }
    [ "$by" -gt 0 ] && [ $((by + bh)) -lt $((h - 20)) ] || { echo "FAIL: the set's interior reaches the top or the status line"; exit 1; }
    # The interior's share of that box, in the render and on screen.
    share() { convert "$1" -crop "$box" +repage -fill white +opaque black -format '%[fx:1-mean]' info:; }
    rendered=$(share "$work/plain.png"); shown=$(share "$shot")
    echo "  interior share of that box: $rendered rendered, $shown on screen"
    awk -v r="$rendered" -v s="$shown" 'BEGIN { exit !(s >= 0.95 * r) }' || { echo "FAIL: the window does not show the set there"; exit 1; }
}

# The start as a user sees it first: the View panel alone.
timeout 300 "$bin" --backend=cpu --size=1280x720 --iter=200 --frames=5 --print-view --screenshot="$work/start_1280x720.png" \
    >"$work/start.log" 2>&1 || { cat "$work/start.log"; echo "FAIL: the start at 1280x720"; exit 1; }
[ -n "${KEEP:-}" ] && cp "$work/start_1280x720.png" "$KEEP/"
check_set_whole "$work/start_1280x720.png" "$work/start.log" 1280

for size in 1280x720 1920x1080 640x360; do
    w=${size%x*}; h=${size#*x}
    view=(--backend=cpu --size=$size --iter=200 --frames=5)
    timeout 300 "$bin" "${view[@]}" --panel=perf,vecadd,cnn --print-view --screenshot="$work/all_$size.png" >"$work/all.log" 2>&1 \
        || { cat "$work/all.log"; echo "FAIL: $size with every panel open"; exit 1; }
    # The column: the default 560 pixels wide, 6 from the right edge. At 640x360 the panels leave
    # no room and the view takes the whole window.
    [ "$size" != 640x360 ] && check_set_whole "$work/all_$size.png" "$work/all.log" $((w - 6 - 560))
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
