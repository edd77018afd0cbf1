#!/usr/bin/env bash
# window_export_reopen.sh: export and reopen, and their failures.
# --export writes a PNG through the Export dialog's tiled path with the view in a tEXt chunk;
# supersampling works; --open of that PNG restores the view; a PNG that Mandelscope did not
# write, a missing file, and an unwritable export path each give a clear sentence, no crash,
# no stray file, and a file already on disk survives.
set -u
bin=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

view=(--backend=cpu --center=-0.10109636384562,0.95628651080914 --zoom=300 --iter=700 --palette=ocean)
"$bin" "${view[@]}" --export="$work/a.png" --export-size=300x200 --supersample=2 || fail "export failed"
[ -s "$work/a.png" ] || fail "no PNG written"
[ -z "$(ls -A "$work" | grep -v '^a.png$')" ] || fail "a temporary file was left behind: $(ls -A "$work")"
identify "$work/a.png" 2>/dev/null | grep -q ' 300x200 ' || fail "wrong size: $(identify "$work/a.png")"
identify -verbose "$work/a.png" | grep -q 'mandelscope-view: {"center_re":"-0.10109636384562","center_im":"0.95628651080914"' \
    || fail "the view is not in the tEXt chunk"

# Unwritable paths: a directory that does not exist, and a directory in the file's place. Both are
# bad input, found before the export starts: exit 2.
out=$("$bin" "${view[@]}" --export="$work/missing/dir/b.png" 2>&1); rc=$?
echo "$out"
[ $rc -eq 2 ] && echo "$out" | grep -q "cannot write .*b.png.*: the directory .* does not exist" \
    || fail "an unwritable path must fail with a sentence (rc $rc)"
mkdir "$work/isdir.png"
out=$("$bin" "${view[@]}" --export="$work/isdir.png" 2>&1); rc=$?
echo "$out"
[ $rc -eq 2 ] && [ -d "$work/isdir.png" ] || fail "exporting onto a directory must fail and leave it (rc $rc)"
# Overwriting a file replaces it only once the new one is complete.
cp "$work/a.png" "$work/keep.png"
"$bin" "${view[@]}" --export="$work/keep.png" --export-size=30x20 || fail "re-export failed"
identify "$work/keep.png" | grep -q ' 30x20 ' || fail "the re-export did not replace the file"

[ -n "${DISPLAY:-}" ] || { echo "SKIP (rest): no DISPLAY for the reopen checks"; exit 77; }
# Reopen: the window comes back to the saved place (centre text exactly, zoom, iterations).
out=$("$bin" --no-ui --backend=cpu --size=200x150 --open="$work/a.png" --screenshot="$work/shot.png" --print-view 2>&1); rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "reopening failed (rc $rc)"
echo "$out" | grep -qE '^view: center=-0.10109636384562,0.95628651080914 zoom=(300|3e\+02) iterations=700 size=200x150 formula=mandelbrot colouring=smooth interior=flat$' \
    || fail "the reopened view is not the saved one"
# The screenshot carries its view too, so it reopens as well.
out=$("$bin" --no-ui --backend=cpu --size=200x150 --open="$work/shot.png" --screenshot="$work/shot2.png" --print-view 2>&1)
echo "$out" | grep -qE '^view: center=-0.10109636384562,0.95628651080914 zoom=(300|3e\+02) ' || fail "a screenshot does not reopen"

# Not a Mandelscope PNG, and no file at all: a scripted run (--screenshot) fails with the
# sentence and exit 2, before any window and without a screenshot.
convert -size 16x16 xc:red "$work/plain.png"
out=$("$bin" --no-ui --backend=cpu --size=200x150 --open="$work/plain.png" --screenshot="$work/shot3.png" --print-view 2>&1); rc=$?
echo "$out"
[ $rc -eq 2 ] && echo "$out" | grep -q 'has no Mandelscope view in it' || fail "a plain PNG must give a clear message and exit 2 (rc $rc)"
[ ! -e "$work/shot3.png" ] || fail "a refused --open must not leave a screenshot"
out=$("$bin" --no-ui --backend=cpu --size=200x150 --open="$work/none.png" --screenshot="$work/shot4.png" 2>&1); rc=$?
echo "$out"
[ $rc -eq 2 ] && echo "$out" | grep -q "cannot open $work/none.png: No such file or directory" || fail "a missing file must give a clear message (rc $rc)"
echo "$out" | grep -q . && exit 0
