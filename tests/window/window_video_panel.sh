#!/usr/bin/env bash
# window_video_panel.sh: the Video panel renders a zoom video from the window.
# --video-render drives the panel as a user does (Dive to here on the start view, then Render):
# a 2-second 64x36 dive at 10 fps on the CPU, rendered on the panel's worker thread while the
# window keeps drawing. The window exits 0 and says "video: Wrote ...: 20 frames"; the MP4
# decodes (ffprobe, from .ci/setup.sh's ffmpeg) to 20 frames of 64x36 H.264, and its manifest
# lists 20 frames, the last at the start view's zoom. An output in a folder that does not exist
# is refused with the job's sentence, exit 1, and no file.
set -u
bin=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${DISPLAY:-}" ] || { echo "SKIP: no DISPLAY for the window"; exit 77; }
command -v ffprobe > /dev/null || { echo "SKIP: no ffprobe to decode the video (.ci/setup.sh installs ffmpeg)"; exit 77; }

view=(--backend=cpu --size=960x540 --center=-0.743643887037158704752191506114774,0.131825904205311970493132056385139
      --zoom=1e6 --iter=3000)
out=$("$bin" "${view[@]}" --video-render="$work/dive.mp4" --video-size=64x36 --video-fps=10 --video-seconds=2 2>&1); rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "the Video panel's render failed (rc $rc)"
echo "$out" | grep -q "^video: Wrote $work/dive.mp4: 20 frames" || fail "no 'video: Wrote ... 20 frames' line"
[ -s "$work/dive.mp4" ] || fail "no MP4 written"

decoded=$(ffprobe -v error -count_frames -select_streams v:0 \
          -show_entries stream=codec_name,width,height,pix_fmt,nb_read_frames -of csv=p=0 "$work/dive.mp4")
echo "decoded: $decoded"
[ "$decoded" = "h264,64,36,yuv420p,20" ] || fail "the MP4 should decode to 20 frames of 64x36 H.264 yuv420p"

manifest="$work/dive.manifest.jsonl"
[ -s "$manifest" ] || fail "no manifest beside the video"
[ "$(wc -l < "$manifest")" -eq 20 ] || fail "the manifest should list 20 frames"
tail -n 1 "$manifest" | grep -q '"frame":19' || fail "the manifest's last line is not frame 19"
tail -n 1 "$manifest" | grep -q '"zoom":"1000000"' || fail "the last frame is not at the start view's zoom 1e6"

# Bad output: the job refuses it before any work, with its sentence; the window exits 1.
out=$("$bin" "${view[@]}" --video-render="$work/missing/dive.mp4" 2>&1); rc=$?
echo "$out"
[ $rc -eq 1 ] || fail "an output in a missing folder must end the scripted run with 1 (rc $rc)"
echo "$out" | grep -q "^video: " || fail "no 'video:' sentence for the refused output"
[ ! -e "$work/missing" ] || fail "a refused output must leave no file"
echo "ok: the Video panel rendered and the video decodes"
