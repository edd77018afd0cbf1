#!/usr/bin/env bash
# video_keyframes_cli.sh: `mandelscope video --keyframes=FILE` end to end on the CPU: a three-
# keyframe flight (4 s at 10 fps) writes 40 frames, its manifest's first and last frames are the
# first and last keyframes exactly (centre texts, zoom), and the MP4 decodes to 40 frames; a bad
# keyframe file, a missing one, and --keyframes with --seconds are each refused with one sentence,
# exit 2 and no output.
set -u
bin=$(realpath "$1")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work" || exit 1

cat > path.keyframes <<'KEYS'
mandelscope-keyframes 1
# time_s  centre_re  centre_im  zoom  palette_offset  iterations
0  -0.75                          0                 1      0    300
2  -0.66415358                    0.46120288        13.7   0.5  1700
4  -0.651422178000000000000001    0.465543121       127.5  1    2300
KEYS
out=$("$bin" video --keyframes=path.keyframes --size=64x36 --fps=10 --backend=cpu -o flight.mp4 2>&1); rc=$?
echo "$out" | grep -v '^\[' | tail -4
[ $rc -eq 0 ] || fail "the keyframed video failed (rc $rc)"
[ "$(wc -l < flight.manifest.jsonl)" -eq 40 ] || fail "the manifest should list 40 frames"
head -n 1 flight.manifest.jsonl | grep -q '"center_re":"-0.75","center_im":"0","zoom":"1"' \
    || fail "frame 0 is not the first keyframe"
tail -n 1 flight.manifest.jsonl | grep -q '"center_re":"-0.651422178000000000000001","center_im":"0.465543121","zoom":"127.5"' \
    || fail "the last frame is not the last keyframe, digit for digit"
if command -v ffprobe > /dev/null; then
    frames=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 flight.mp4)
    [ "$frames" = 40 ] || fail "the MP4 decodes to $frames frames, not 40"
fi

expect_refused() {  # WHAT PATTERN ARGS...
    local what=$1 pattern=$2
    shift 2
    local err rc
    err=$("$bin" video "$@" --size=64x36 --fps=10 --backend=cpu -o refused.mp4 2>&1 > /dev/null); rc=$?
    echo "$err"
    [ $rc -eq 2 ] || fail "$what: exit $rc, not 2"
    [ "$(echo "$err" | wc -l)" -eq 1 ] || fail "$what: not one line"
    echo "$err" | grep -qe "$pattern" || fail "$what: no sentence matching '$pattern'"
    [ ! -e refused.mp4 ] && [ ! -e refused.manifest.jsonl ] || fail "$what: left a file"
}
printf 'mandelscope-keyframes 1\n0 -0.5 0 1 0 100\n1 -0.5 0 big 0 100\n' > bad.keyframes
expect_refused "a bad zoom" 'Line 3 of the keyframe file bad.keyframes: the zoom "big"' --keyframes=bad.keyframes
expect_refused "a missing file" 'Cannot read the keyframe file missing.keyframes' --keyframes=missing.keyframes
expect_refused "--seconds beside --keyframes" '--keyframes sets the path and its times' --keyframes=path.keyframes --seconds=3
echo "ok: keyframed videos"
