#!/usr/bin/env bash
# window_deep_zoom.sh: the window past FP64.
# 1. --open=assets/locations/e1000.kfr (zoom 1E1000, Kalles Fraktaler's file format) with
#    --screenshot: the picture is rendered on the deep path (perturbation in floatexp), is not
#    blank (many colours) and not blocky (few pixels equal to both neighbours: the coarse pass's
#    8x8 blocks would make ~77% so), and the status line names the path, the number type, the
#    reference (digits, iterations, new) and the BLA levels and skipped share.
#    The same view exported (the Export dialog's code, --export): a PNG with colours and the
#    zoom in its metadata.
# 2. xdotool at zoom 1e500: a left-drag by (+100, +50) and two wheel notches at (600, 200); the
#    centre printed by --print-view is checked in 600-digit decimal arithmetic (python's decimal)
#    against the drag moving by exactly the dragged pixels and the wheel keeping its point fixed.
# 3. --bench-drag=3 at the 1e50 location (20,000 iterations, 320x180): the view moves every UI
#    frame and the views that arrive complete at full resolution are counted (at least the last
#    one, which the bench waits for) while the UI draws; prints the views/s and the
#    UI frames/s meanwhile (figures, not asserted: the machine is shared) and checks they came,
#    and that the whole-pixel drag reused over 90% of the pixels (only the exposed strips computed).
# Parts 1 and 3 run on the CPU; DEEP_BACKEND=cuda runs them on CUDA (the GPU machine), where the
# path must then be deep-cuda.
# Needs a display (the test command starts Xvfb); skipped (77) without one.
set -u
bin=$1
backend=${DEEP_BACKEND:-cpu}
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY (the test command runs window tests under Xvfb)"; exit 77; }
command -v convert >/dev/null || { echo "SKIP: ImageMagick's convert is missing"; exit 77; }
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
export XDG_CONFIG_HOME="$work/config"
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# --- 1. A deep location opened from a .kfr file --------------------------------------------
timeout 300 "$bin" --backend=$backend --no-ui --open="$here/assets/locations/e1000.kfr" --size=320x180 \
    --screenshot="$work/e1000.png" >"$work/open.log" 2>&1 || { cat "$work/open.log"; fail "the window exited with $?"; }
cat "$work/open.log"
grep -q "^render path: deep-$backend\$" "$work/open.log" || fail "the 1E1000 view did not render on the deep-$backend path"
status=$(sed -n 's/^status: //p' "$work/open.log")
# The BLA table is built where the pixels run: on the GPU for deep-cuda.
bla_on=CPU; [ "$backend" = cuda ] && bla_on=GPU
for want in "path: deep-$backend" 'perturbation floatexp' 'zoom 1E1000' '32000 iterations' \
            'reference [0-9]* digits, 4498 iterations (stopped at a period), [0-9]* ms, new' "BLA [0-9]* levels ($bla_on), [0-9.]*% of iterations skipped"; do
    echo "$status" | grep -q "$want" || fail "the status line lacks '$want': $status"
done
convert "$work/e1000.png" -depth 8 rgb:- | python3 -c '
import sys
w, h = 320, 180
data = sys.stdin.buffer.read()
assert len(data) == w * h * 3, len(data)
px = [data[i:i + 3] for i in range(0, len(data), 3)]
colours = len(set(px))
same = sum(1 for y in range(h - 1) for x in range(w - 1)
           if px[y * w + x] == px[y * w + x + 1] and px[y * w + x] == px[(y + 1) * w + x])
share = same / ((w - 1) * (h - 1))
print(f"picture: {colours} colours, {100 * share:.1f}% of pixels equal to both neighbours")
sys.exit(0 if colours >= 100 and share < 0.5 else 1)
' || fail "the deep picture is blank or blocky"

# The Export dialog's code at that depth (--export: no window): a deep PNG whose metadata
# carries the zoom as text.
timeout 300 "$bin" --backend=$backend --open="$here/assets/locations/e1000.kfr" --export="$work/export.png" \
    --export-size=96x54 >"$work/export.log" 2>&1 || { cat "$work/export.log"; fail "the deep export failed"; }
grep -q 'exported 96x54' "$work/export.log" || { cat "$work/export.log"; fail "the deep export said nothing"; }
identify -verbose "$work/export.png" | grep -q '"zoom":"1e+1000"\|"zoom":"1.00000000000E1000"' \
    || { identify -verbose "$work/export.png" | grep mandelscope-view; fail "the exported PNG lacks the deep zoom"; }
convert "$work/export.png" -depth 8 rgb:- | python3 -c '
import sys
data = sys.stdin.buffer.read()
colours = len(set(data[i:i + 3] for i in range(0, len(data), 3)))
print(f"export: {colours} colours")
sys.exit(0 if colours >= 50 else 1)
' || fail "the deep export is blank"

# --- 2. Drag and wheel at zoom 1e500 --------------------------------------------------------
re=$(sed -n 's/^Re: *//p' "$here/assets/locations/e533.kfr" | tr -d '\r')
im=$(sed -n 's/^Im: *//p' "$here/assets/locations/e533.kfr" | tr -d '\r')
command -v xdotool >/dev/null || { echo "SKIP (part 2 and 3): xdotool is missing"; exit 77; }
"$bin" --no-ui --backend=cpu --center="$re,$im" --zoom=1e500 --size=800x600 --iter=2000 --print-view >"$work/nav.log" 2>&1 &
pid=$!
wid=$(timeout 30 xdotool search --sync --onlyvisible --name '^Mandelscope$' | head -1)
[ -n "$wid" ] || { cat "$work/nav.log"; fail "the window did not appear"; }
sleep 0.5
at() { xdotool mousemove --window "$wid" "$1" "$2"; }
at 400 300; xdotool mousedown 1
for step in 1 2 3 4; do at $((400 + 25 * step)) $((300 + 25 * step / 2)); sleep 0.05; done
xdotool mouseup 1; sleep 0.3
at 600 200; xdotool click 4; sleep 0.1; xdotool click 4; sleep 0.3
xdotool key ctrl+q
for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
wait $pid; rc=$?; pid=
[ $rc -eq 0 ] || { cat "$work/nav.log"; fail "the window exited with $rc"; }
line=$(grep '^view: ' "$work/nav.log")
[ -n "$line" ] || fail "no view printed"
python3 - "$re" "$im" "$line" <<'PY' || fail "the view did not move as the mouse asked at zoom 1e500"
import sys
from decimal import Decimal, getcontext
getcontext().prec = 700
re0, im0, line = Decimal(sys.argv[1]), Decimal(sys.argv[2]), sys.argv[3]
fields = dict(f.split("=", 1) for f in line.split()[1:])
got_re, got_im = (Decimal(t) for t in fields["center"].split(","))
got_zoom = Decimal(fields["zoom"].replace("E", "e"))
W, H = Decimal(800), Decimal(600)
zoom = Decimal("1e500")
s = 4 / (zoom * H)
# Drag by (+100, +50): the centre moves the other way (screen y down, imaginary axis up).
cr, ci = re0 - 100 * s, im0 + 50 * s
# Two wheel notches of 1.25 about (600, 200): that point stays where it is.
px, py = cr + (600 - W / 2) * s, ci - (200 - H / 2) * s
f = Decimal("1.5625")
cr, ci = px + (cr - px) / f, py + (ci - py) / f
zoom *= f
s = 4 / (zoom * H)
err_re, err_im = (got_re - cr) / s, (got_im - ci) / s
print(f"zoom {got_zoom:.6e} (expected {zoom:.6e}); centre off by ({float(err_re):.2e}, {float(err_im):.2e}) pixels")
ok = abs(got_zoom / zoom - 1) < Decimal("1e-9") and abs(err_re) < Decimal("1e-3") and abs(err_im) < Decimal("1e-3")
sys.exit(0 if ok else 1)
PY

# --- 3. The UI while deep frames compute ----------------------------------------------------
re=$(sed -n 's/^Re: *//p' "$here/assets/locations/e50.kfr" | tr -d '\r')
im=$(sed -n 's/^Im: *//p' "$here/assets/locations/e50.kfr" | tr -d '\r')
timeout 600 "$bin" --no-ui --backend=$backend --center="$re,$im" --zoom=1e50 --iter=20000 --size=320x180 --vsync=off \
    --bench-drag=3 >"$work/bench.log" 2>&1 || { cat "$work/bench.log"; fail "--bench-drag exited with $?"; }
cat "$work/bench.log"
grep -Eq "^bench-drag: the view moved 3 times at 320x180 on the deep-$backend path .* [1-9][0-9]* views arrived complete at full resolution: [0-9.]+ views/s .* UI [0-9.]+ frames/s meanwhile" \
    "$work/bench.log" || fail "--bench-drag on the deep path printed no figures"
# The drag moves by whole pixels: each view takes the one before's pixels but for a strip of 1
# or 2 columns (deep_pan.h), so over 99% of the pixels are reused.
reused=$(sed -n 's/^bench-drag: .* reused \([0-9.]*\)% of pixels.*/\1/p' "$work/bench.log")
[ -n "$reused" ] && python3 -c "import sys; sys.exit(0 if float('$reused') > 90 else 1)" \
    || fail "the whole-pixel drag reused ${reused:-no}% of its pixels (want > 90%)"
echo "OK: deep location opened, navigated at 1e500, dragged at 1e50"
