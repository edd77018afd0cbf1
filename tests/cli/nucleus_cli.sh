#!/usr/bin/env bash
# nucleus_cli.sh: Newton zoom from the command line, end to end.
#   - `nucleus` near the airplane prints period 3, the nucleus (the real root of c^3 + 2c^2 + c + 1,
#     -1.7548776662466927...), the minibrot's size and zooms, and the timings;
#   - `-o` writes a .kfr whose Re/Im are the nucleus and whose Zoom frames the minibrot, and
#     `nucleus --location` on that file finds the same nucleus again;
#   - `--period` and `--after` pick the period; a deep location (5e113) finds its minibrot;
#   - `render --to-minibrot` and `--to-julia-fraction` move the view onto the minibrot before
#     rendering (the printed view says where);
#   - every bad input (a period below 1 or past the limit, a wrong period, a centre with no
#     nucleus near, a Julia set, another formula, a fraction outside (0, 1)) exits 2 with one line
#     on stderr and no file.
# The maths itself is tested in tests/fractal/nucleus/test_nucleus.cpp.
# Usage: bash nucleus_cli.sh /path/to/mandelscope
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
cli_begin nucleus_cli.sh "$@"
locations=$(dirname "$bin")/assets/locations

# nucleus_bad ARGS...: `mandelscope nucleus ARGS -o new.kfr` exits 2, one line on stderr, no file.
nucleus_bad() {
    local status lines
    "$bin" nucleus "$@" -o new.kfr > out.txt 2> err.txt
    status=$?
    lines=$(wc -l < err.txt)
    [ "$status" -eq 2 ] || fail "nucleus $* exited $status, not 2 (stderr: $(head -c 300 err.txt))"
    [ "$lines" -eq 1 ] || fail "nucleus $* printed $lines lines on stderr, not 1: $(head -c 300 err.txt)"
    [ ! -e new.kfr ] || { fail "nucleus $* left new.kfr"; rm -f new.kfr; }
    echo "ok   nucleus $*  ->  $(head -c 200 err.txt)"
}

# --- the airplane ---------------------------------------------------------------------------------
"$bin" nucleus --center=-1.75,0 --zoom=100 -o a.kfr > a.out 2> a.err || fail "nucleus failed: $(cat a.err)"
cat a.out
grep -qx 'period     3' a.out || fail "no 'period 3' line"
grep -q '^nucleus    -1\.754877666246[0-9]*, 0$' a.out || fail "the nucleus is not the airplane's"
grep -Eq '^size       1\.9[0-9]*e-2, angle 0\.0000 rad: fills the half height at zoom ' a.out || fail "no size line"
grep -q '^frame      zoom ' a.out || fail "no frame line"
grep -q '^julia      zoom ' a.out || fail "no julia line"
grep -Eq '^time       period [0-9.]+ ms, Newton [0-9.]+ ms \([0-9]+ steps\)$' a.out || fail "no time line"
[ ! -s a.err ] || fail "a quick search wrote to stderr: $(cat a.err)"
grep -q '^Re: -1\.754877666246' a.kfr || fail "a.kfr's Re is not the nucleus: $(cat a.kfr)"
grep -q '^Im: 0' a.kfr || fail "a.kfr's Im is not 0"
grep -q '^Zoom: 5\.' a.kfr || fail "a.kfr's zoom does not frame the minibrot at twice its size (about 52): $(grep Zoom a.kfr)"
# The .kfr round trip: from the file, the same minibrot.
"$bin" nucleus --location=a.kfr > b.out 2> b.err || fail "nucleus --location failed: $(cat b.err)"
[ "$(grep '^nucleus' a.out)" = "$(grep '^nucleus' b.out)" ] || fail "the .kfr did not find the same nucleus"
grep -qx 'period     3' b.out || fail "the .kfr did not find period 3"

# --- a chosen period, the next period, a deep location ---------------------------------------
"$bin" nucleus --center=-0.16,1.04 --zoom=20 --period=4 > c.out 2> c.err || fail "--period=4 failed: $(cat c.err)"
grep -q '^nucleus    -0\.1565201668337[0-9]*, 1\.0322471089228[0-9]*$' c.out || fail "period 4: $(cat c.out)"
"$bin" nucleus --center=-1.75,0 --zoom=100 --iter=2000 --after=3 > d.out 2> d.err || fail "--after=3 failed: $(cat d.err)"
period=$(sed -n 's/^period     //p' d.out)
{ [ -n "$period" ] && [ "$period" -gt 3 ] && [ $((period % 3)) -ne 0 ]; } || fail "--after=3 found period '$period'"
"$bin" nucleus --location="$locations/e113.kfr" -o deep.kfr > e.out 2> e.err || fail "5e113 failed: $(cat e.err)"
grep -qx 'period     11380' e.out || fail "5e113: $(head -3 e.out)"
tr -d '\r' < deep.kfr | grep -Eq '^Zoom: [0-9.]+E15[0-9]$' || fail "5e113's minibrot is not near 1e152: $(grep Zoom deep.kfr)"
# Its iterations draw the minibrot: at least a hundred of its periods.
deep_period=$(sed -n 's/^period *//p' e.out)
deep_iterations=$(tr -d '\r' < deep.kfr | sed -n 's/^Iterations: //p')
[ -n "$deep_period" ] && [ "${deep_iterations:-0}" -ge $((100 * deep_period)) ] ||
    fail "5e113's .kfr has $deep_iterations iterations for period $deep_period"

# --- video --to-minibrot: the dive's target is the minibrot --------------------------------------
"$bin" video --center=-1.75,0 --zoom=100 --to-minibrot --size=32x18 --fps=5 --seconds=1 --backend=cpu -o dive.mp4 \
    > v.out 2> v.err || fail "video --to-minibrot failed: $(cat v.err)"
tail -n 1 dive.manifest.jsonl | grep -q '"center_re":"-1\.754877666246[0-9]*","center_im":"0","zoom":"52\.5' ||
    fail "video --to-minibrot's last frame is not the minibrot: $(tail -n 1 dive.manifest.jsonl | cut -c1-160)"

# --- render --to-minibrot and --to-julia-fraction ---------------------------------------------
"$bin" render --center=-1.75,0 --zoom=100 --size=32x18 --backend=cpu --to-minibrot --print-view -o m.png \
    > m.out 2> m.err || fail "render --to-minibrot failed: $(cat m.err)"
grep -q '^view: center=-1\.754877666246[0-9]*,0 zoom=52\.5' m.out || fail "--to-minibrot: $(grep '^view' m.out)"
"$bin" render --center=-1.75,0 --zoom=100 --size=32x18 --backend=cpu --to-julia-fraction=0.5 --print-view -o j.png \
    > j.out 2> j.err || fail "render --to-julia-fraction failed: $(cat j.err)"
grep -q '^view: center=-1\.754877666246[0-9]*,0 zoom=102\.5' j.out || fail "--to-julia-fraction: $(grep '^view' j.out)"

# --- bad input: one sentence, exit 2, no file ---------------------------------------------------
nucleus_bad --center=-1.75,0 --zoom=100 --period=0
nucleus_bad --center=-1.75,0 --zoom=100 --period=-3
nucleus_bad --center=-1.75,0 --zoom=100 --period=5000
nucleus_bad --center=-1.75,0 --zoom=100 --period=6
nucleus_bad --center=1,1 --zoom=100
nucleus_bad --center=-0.1,0 --zoom=1e6 --iter=3000
nucleus_bad --center=-1.75,0 --zoom=100 --period=3 --after=2
printf 'Re: 0\r\nIm: 0\r\nZoom: 1\r\nIterations: 100\r\nMandelscopeJuliaRe: -0.5\r\nMandelscopeJuliaIm: 0.5\r\n' > julia.kfr
nucleus_bad --location=julia.kfr
printf 'Re: -1.75\r\nIm: 0\r\nZoom: 100\r\nIterations: 100\r\nFractalType: 1\r\nPower: 2\r\n' > ship.kfr
nucleus_bad --location=ship.kfr
grep -q 'supports the Mandelbrot set' err.txt || fail "the Burning Ship refusal does not say what is supported"
expect_bad --center=-1.75,0 --zoom=100 --size=32x18 --to-minibrot --julia=-0.5,0.5 -o new.png
expect_bad --center=-1.75,0 --zoom=100 --size=32x18 --to-julia-fraction=1.5 -o new.png
expect_bad --center=-1.75,0 --zoom=100 --size=32x18 --to-julia-fraction=0 -o new.png
expect_bad --center=1,1 --zoom=100 --size=32x18 --to-minibrot -o new.png

cli_end "nucleus: all checks passed"
