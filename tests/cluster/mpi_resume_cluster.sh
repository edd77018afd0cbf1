#!/usr/bin/env bash
# mpi_resume_cluster.sh: a rank that dies mid-piece (MANDELSCOPE_CLUSTER_KILL, a build with fault
# injection) ends the job with a non-zero status and rank 0's sentence saying where the finished
# pieces are; no output file (nor a temporary) is left, the finished pieces are; the same command
# run again resumes from them and writes the same file as one process, then removes them. On the
# deep path (pieces coloured where they are computed; also with two pieces held by each worker
# rank), on the direct path through the streaming writer, and for a video (its finished
# segments stay in its parts folder).
# Usage: bash mpi_resume_cluster.sh /path/to/mandelscope
# shellcheck source=cluster_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster_lib.sh"
cli_begin mpi_resume_cluster.sh "$@"
need_mpi
locations=$(dirname "$bin")/assets/locations

# When a rank dies, mpirun sends the others SIGTERM and, odls_base_sigkill_timeout seconds later
# (1 by default), SIGKILL. Rank 0 says its sentence on SIGTERM; on a loaded CI machine a second
# is not always enough for it to be scheduled, so the killed runs give it three.
grace=(--mca odls_base_sigkill_timeout 3)

kill_and_resume() {  # name args...
    local name=$1 status
    shift
    "$bin" render "$@" -o "one-$name.png" > /dev/null 2> one.err || { fail "$name: one process failed: $(cat one.err)"; return; }
    MANDELSCOPE_CLUSTER_KILL=1:0 ranks 3 "${grace[@]}" -x MANDELSCOPE_CLUSTER_KILL "$bin" render "$@" -o "$name.png" \
        > killed.out 2> killed.err
    status=$?
    [ "$status" -ne 0 ] || fail "$name: the job with a killed rank exited 0"
    grep -q "^mandelscope render: the job was ended before the output was complete" killed.err ||
        fail "$name: rank 0 did not say the job was ended: $(cat killed.err)"
    [ "$(grep -c '^mandelscope' killed.err)" -eq 1 ] || fail "$name: more than one sentence: $(cat killed.err)"
    [ ! -e "$name.png" ] || fail "$name: a killed job left $name.png"
    [ -z "$(ls -A | grep -e '\.tmp' -e '^\.')" ] || fail "$name: a killed job left a temporary file: $(ls -A)"
    local pieces
    pieces=$(ls "$name.png.parts" 2> /dev/null | grep -c '\.part$')
    [ "$pieces" -gt 0 ] || fail "$name: no finished piece was kept"
    ranks 3 "$bin" render "$@" -o "$name.png" > resumed.out 2> resumed.err || fail "$name: the rerun failed: $(cat resumed.err)"
    cmp -s "one-$name.png" "$name.png" || fail "$name: the resumed PNG differs from one process's"
    [ ! -e "$name.png.parts" ] || fail "$name: the parts folder was left after the rerun"
    echo "ok   $name: killed with $pieces pieces kept (exit $status), resumed: $(grep '^ranks' resumed.out | cut -c 12-120)"
}

kill_and_resume deep --location="$locations/e50.kfr" --iter=20000 --size=64x48 --backend=cpu
kill_and_resume direct --center=-0.745,0.113 --zoom=60 --size=64x48 --iter=20000 --backend=cpu --band-rows=4
kill_and_resume deep-two-in-flight --location="$locations/e50.kfr" --iter=20000 --size=64x48 --backend=cpu \
    --pieces-in-flight=2
video=(--size=64x48 --seconds=2 --fps=15 --segment-frames=5 --center=-0.745,0.113 --zoom=1000 --method=direct
       --backend=cpu)
"$bin" video "${video[@]}" -o one.mp4 > /dev/null 2> one.err || fail "video: one process failed: $(cat one.err)"
MANDELSCOPE_CLUSTER_KILL=1:0 ranks 3 "${grace[@]}" -x MANDELSCOPE_CLUSTER_KILL "$bin" video "${video[@]}" -o v.mp4 > killed.out 2> killed.err
status=$?
[ "$status" -ne 0 ] || fail "video: the job with a killed rank exited 0"
grep -q "^mandelscope video: the job was ended before the output was complete" killed.err ||
    fail "video: rank 0 did not say the job was ended: $(cat killed.err)"
[ ! -e v.mp4 ] || fail "video: a killed job left v.mp4"
segments=$(ls .v.mp4.parts 2> /dev/null | grep -c '\.seg$')
[ "$segments" -gt 0 ] || fail "video: no finished segment was kept"
ranks 3 "$bin" video "${video[@]}" -o v.mp4 > resumed.out 2> resumed.err || fail "video: the rerun failed: $(cat resumed.err)"
cmp -s one.mp4 v.mp4 || fail "video: the resumed MP4 differs from one process's"
[ ! -e .v.mp4.parts ] || fail "video: the parts folder was left after the rerun"
echo "ok   video: killed with $segments segments kept (exit $status), resumed: $(grep '^ranks' resumed.out | cut -c 12-120)"
cli_end "a killed rank loses nothing: the rerun resumes and writes the same file"
