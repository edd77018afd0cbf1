#!/usr/bin/env bash
# video_cli.sh: `mandelscope video` end to end, on the CPU (the pictures and the decoding are
# tests/video/test_video_dive.cpp's):
#   - a 64x36, 10 fps, 3 s dive to 1e50 writes an MP4 and its manifest (30 lines), and leaves no
#     parts folder; the same command again writes the same bytes;
#   - killed with SIGKILL mid-segment (--test-kill-after-frames) or interrupted (SIGTERM, as Ctrl+C), it
#     leaves no MP4 (the finished segments stay in the hidden parts folder), and the same command
#     run again continues from them (removing a killed mux's temporary file) and writes the same
#     bytes as the uninterrupted run;
#   - -o FOLDER/ writes a PNG sequence, each frame's view in its tEXt (the manifest's line), and
#     a rerun renders only the missing frames, into the same bytes;
#   - every bad input (fps 0 or above 240, seconds negative or 0 or missing, sizes 0, odd or past
#     8192, an unreadable location, a missing folder, histogram colouring, a soundtrack MP4 cannot
#     hold by stream copy, a full disk, --format=exr into an MP4 name or with the exponential map,
#     --devices with --backend=cpu or a device list that is not one)
#     exits 2 with one line on stderr, a capitalised sentence ending in a full stop, and writes no
#     file.
# Usage: bash video_cli.sh /path/to/mandelscope
# shellcheck source=../cli/cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cli/cli_lib.sh"
cli_begin video_cli.sh "$@"
locations=$(dirname "$bin")/assets/locations
dive=(--location="$locations/e50.kfr" --size=64x36 --fps=10 --seconds=3 --backend=cpu)

# --- a whole dive, twice ------------------------------------------------------------------------
"$bin" video "${dive[@]}" -o a.mp4 > a.out 2> a.err || fail "the e50 dive failed: $(cat a.err)"
cat a.out
[ -s a.mp4 ] || fail "no a.mp4"
[ "$(wc -l < a.manifest.jsonl)" -eq 30 ] || fail "the manifest has $(wc -l < a.manifest.jsonl) lines, not 30"
[ ! -e .a.mp4.parts ] || fail "the parts folder stayed after the mux"
grep -q '^frames     30 at 10 fps' a.out || fail "the summary does not count 30 frames"
"$bin" video "${dive[@]}" -o b.mp4 > /dev/null 2>&1 || fail "the second dive failed"
cmp -s a.mp4 b.mp4 || fail "the same command wrote different bytes"
cmp -s a.manifest.jsonl b.manifest.jsonl || fail "the same command wrote a different manifest"

# --- SIGKILL at several points, then the same command again -------------------------------------
for frames in 5 15 25; do
    rm -rf c.mp4 .c.mp4.parts
    "$bin" video "${dive[@]}" -o c.mp4 --test-kill-after-frames=$frames > /dev/null 2>&1
    status=$?
    [ "$status" -eq 137 ] || fail "the kill after $frames frames exited $status, not 137"
    [ ! -e c.mp4 ] || fail "a killed run left c.mp4"
    parts=$(ls .c.mp4.parts 2> /dev/null | grep -c '^segment-')
    touch .c.mp4.tmp-KILLED  # what a SIGKILL during the mux leaves (AtomicFile's temporary name)
    "$bin" video "${dive[@]}" -o c.mp4 > c.out 2> c.err || fail "the resumed run failed: $(cat c.err)"
    grep -q "resumed" c.out || fail "no resumed count"
    [ ! -e .c.mp4.tmp-KILLED ] || fail "the rerun left a killed run's temporary MP4"
    cmp -s a.mp4 c.mp4 || fail "killed after $frames frames and resumed, the MP4 differs from the uninterrupted one"
    echo "ok   killed after $frames frames ($parts segments finished), resumed: $(grep '^frames' c.out)"
done

# --- Ctrl+C: no MP4, the parts stay, the rerun finishes. A script's background job ignores SIGINT,
# so SIGTERM stands in for it: the same handler (compute/io/image_io.h), exit 128 + the signal. ---
rm -rf d.mp4 .d.mp4.parts
"$bin" video "${dive[@]}" -o d.mp4 > /dev/null 2> d.err &
pid=$!
for _ in $(seq 200); do
    [ -n "$(ls .d.mp4.parts 2> /dev/null | grep '^segment-')" ] && break
    sleep 0.05
done
kill -TERM $pid
wait $pid
status=$?
if [ "$status" -eq 143 ]; then
    [ ! -e d.mp4 ] || fail "Ctrl+C left d.mp4"
    [ -d .d.mp4.parts ] || fail "Ctrl+C removed the parts"
    "$bin" video "${dive[@]}" -o d.mp4 > /dev/null 2>&1 || fail "the run after Ctrl+C failed"
    cmp -s a.mp4 d.mp4 || fail "after Ctrl+C and a rerun the MP4 differs"
    echo "ok   SIGTERM left the parts and no MP4; the rerun gives the same bytes"
else
    fail "SIGTERM mid-run exited $status, not 143"
fi

# --- a PNG sequence -----------------------------------------------------------------------------
seq_dive=(--location="$locations/e50.kfr" --size=48x27 --fps=4 --seconds=1 --backend=cpu)
"$bin" video "${seq_dive[@]}" -o seq/ > s.out 2> s.err || fail "the PNG sequence failed: $(cat s.err)"
[ "$(ls seq | grep -c '^frame_.*\.png$')" -eq 4 ] || fail "the sequence has $(ls seq) , not 4 frames"
[ "$(wc -l < seq/manifest.jsonl)" -eq 4 ] || fail "the sequence's manifest does not have 4 lines"
view=$(png_view seq/frame_000003.png)
line=$(sed -n 4p seq/manifest.jsonl)
python3 - "$view" "$line" <<'PY' || fail "frame 3's tEXt is not the manifest's view"
import json, sys
assert json.loads(sys.argv[1]) == json.loads(sys.argv[2])["view"]
PY
cp seq/frame_000002.png frame2.png
rm seq/frame_000002.png
"$bin" video "${seq_dive[@]}" -o seq/ > s2.out 2>&1 || fail "the sequence's rerun failed"
grep -q ' 1 rendered, 3 resumed' s2.out || fail "the rerun did not render only the missing frame: $(grep frames s2.out)"
cmp -s frame2.png seq/frame_000002.png || fail "the re-rendered frame differs"

# --- bad input ----------------------------------------------------------------------------------
expect_bad_video() {  # args...
    local status lines args="$*"
    "$bin" video "$@" > out.txt 2> err.txt
    status=$?
    lines=$(wc -l < err.txt)
    [ "$status" -eq 2 ] || fail "video $* exited $status, not 2 (stderr: $(head -c 300 err.txt))"
    [ "$lines" -eq 1 ] || fail "video $* printed $lines lines on stderr, not 1: $(head -c 300 err.txt)"
    grep -q '^mandelscope video: [A-Z].*\.$' err.txt || fail "video $* printed no capitalised sentence: $(head -c 300 err.txt)"
    [ -z "$(ls -A | grep -e '^new' -e '^\.new')" ] || { fail "video $* left a file: $(ls -A)"; rm -rf new* .new*; }
    echo "ok   video ${args:0:70}  ->  $(head -c 200 err.txt)"
}
loc=--location="$locations/e50.kfr"
expect_bad_video "$loc" --size=64x36 --fps=0 --seconds=3 -o new.mp4
expect_bad_video "$loc" --size=64x36 --fps=241 --seconds=3 -o new.mp4
expect_bad_video "$loc" --size=64x36 --fps=10 --seconds=-1 -o new.mp4
expect_bad_video "$loc" --size=64x36 --fps=10 --seconds=0 -o new.mp4
expect_bad_video "$loc" --size=64x36 --fps=10 -o new.mp4
expect_bad_video "$loc" --size=64x36 --fps=10 --seconds-per-doubling=-2 -o new.mp4
expect_bad_video "$loc" --size=0x36 --fps=10 --seconds=3 -o new.mp4
expect_bad_video "$loc" --size=65x36 --fps=10 --seconds=3 -o new.mp4
expect_bad_video "$loc" --size=9000x36 --fps=10 --seconds=3 -o new.mp4
expect_bad_video --location=missing.kfr --size=64x36 --fps=10 --seconds=3 -o new.mp4
expect_bad_video "$loc" --size=64x36 --fps=10 --seconds=3 -o no/such/folder/new.mp4
expect_bad_video "$loc" --size=64x36 --fps=10 --seconds=3 -o no/such/folder/
expect_bad_video "$loc" --size=64x36 --fps=10 --seconds=3 -o new.avi
expect_bad_video "$loc" --size=64x36 --fps=10 --seconds=3 --colouring=histogram -o new.mp4
expect_bad_video "$loc" --size=64x36 --fps=10 --seconds=3 --from-zoom=1e60 -o new.mp4
expect_bad_video "$loc" --size=64x36 --fps=10 --seconds=3 --crf=52 -o new.mp4
expect_bad_video "$loc" --size=64x36 --fps=10 --seconds=3 --preset=quick -o new.mp4
expect_bad_video "$loc" --size=64x36 --fps=10 --seconds=3 --backend=cpu --devices=0 -o new.mp4
expect_bad_video "$loc" --size=64x36 --fps=10 --seconds=3 --devices=zero -o new.mp4
python3 -c "
import struct, wave
w = wave.open('sound.wav', 'wb'); w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
w.writeframes(struct.pack('<800h', *([0] * 800))); w.close()"
expect_bad_video "$loc" --size=64x36 --fps=10 --seconds=3 --audio=sound.wav -o new.mp4
expect_bad_video "$loc" --size=64x36 --fps=10 --seconds=3 --audio=missing.m4a -o new.mp4
expect_bad_video "$loc" --size=32x18 --fps=10 --seconds=1 --format=exr -o new.mp4
expect_bad_video "$loc" --size=32x18 --fps=10 --seconds=1 --format=exr --method=expmap -o new/
# A full disk (the test seam compute/system/fault_injection.h: every write fails as with ENOSPC).
MANDELSCOPE_INJECT_FAULTS=png_write expect_bad_video "$loc" --size=64x36 --fps=10 --seconds=3 -o new.mp4

# --- a soundtrack, where this machine has ffmpeg to make one (by hand; CI may not) --------------
if command -v ffmpeg > /dev/null; then
    ffmpeg -v error -f lavfi -i sine=frequency=440:duration=5 -c:a aac sound.m4a
    "$bin" video "${dive[@]}" --audio=sound.m4a -o e.mp4 > /dev/null 2> e.err || fail "the soundtrack failed: $(cat e.err)"
    if command -v ffprobe > /dev/null; then
        streams=$(ffprobe -v error -show_entries stream=codec_type -of csv=p=0 e.mp4 | sort | tr '\n' ' ')
        [ "$streams" = "audio video " ] || fail "e.mp4's streams are '$streams'"
    fi
    echo "ok   --audio=sound.m4a (AAC) is muxed beside the video"
fi

cli_end "video: dive, resume after SIGKILL and Ctrl+C, PNG sequence, bad input"
