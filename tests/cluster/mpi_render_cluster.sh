#!/usr/bin/env bash
# mpi_render_cluster.sh: `mpirun -np 3 mandelscope render ...` on this host writes the same files
# as one process, byte for byte: a direct view (plain, supersampled with --raw, band by band
# through the streaming writer, with per-pixel colouring layers), and deep views at 1e50 (its
# pieces coloured where they are computed; with the histogram, DE and atom layers, rank 0
# colours the whole frame) and 1e1086 (FloatExp deltas: the reference orbit broadcast from rank
# 0), also with two pieces held by each worker rank; the summary names the ranks and rank 0's
# time (the checks and the orbit, the pieces, the writing), and the parts folder is gone
# afterwards. And a short video:
# its segments made across the ranks, muxed by rank 0 into the same MP4 as one process's.
# Usage: bash mpi_render_cluster.sh /path/to/mandelscope
# shellcheck source=cluster_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster_lib.sh"
cli_begin mpi_render_cluster.sh "$@"
need_mpi
locations=$(dirname "$bin")/assets/locations

same_as_one_process() {  # name args...
    local name=$1
    shift
    "$bin" render "$@" -o "one-$name.png" > one.out 2> one.err || { fail "$name: one process failed: $(cat one.err)"; return; }
    ranks 3 "$bin" render "$@" -o "three-$name.png" > three.out 2> three.err ||
        { fail "$name: mpirun -np 3 failed: $(cat three.err)"; return; }
    cmp -s "one-$name.png" "three-$name.png" || fail "$name: the PNG of 3 ranks differs from one process's"
    grep -q '^ranks      3 ranks' three.out || fail "$name: the summary does not name the ranks: $(cat three.out)"
    [ ! -e "three-$name.png.parts" ] || fail "$name: the parts folder was left behind"
    echo "ok   $name: $(grep '^ranks' three.out | cut -c 12-140)"
}

same_as_one_process direct --size=64x48 --iter=500 --backend=cpu
same_as_one_process direct-layers --center=-0.745,0.113 --zoom=60 --size=64x48 --iter=1500 --backend=cpu \
    --colouring=smooth,de,atom
same_as_one_process direct-bands --size=64x48 --iter=500 --backend=cpu --band-rows=8
"$bin" render --size=48x32 --supersample=2 --iter=500 --backend=cpu -o one-k2.png --raw=one-k2.npy > /dev/null 2>&1
ranks 3 "$bin" render --size=48x32 --supersample=2 --iter=500 --backend=cpu -o three-k2.png --raw=three-k2.npy \
    > /dev/null 2> k2.err || fail "supersampled: mpirun failed: $(cat k2.err)"
{ cmp -s one-k2.png three-k2.png && cmp -s one-k2.npy three-k2.npy; } ||
    fail "supersampled with --raw: the PNG or the .npy of 3 ranks differs from one process's"
same_as_one_process deep-e50 --location="$locations/e50.kfr" --iter=20000 --size=64x48 --backend=cpu
same_as_one_process deep-e50-layers --location="$locations/e50.kfr" --iter=20000 --size=64x48 --backend=cpu \
    --colouring=histogram,de,atom
same_as_one_process deep-e1086 --location="$locations/e1086.kfr" --size=48x32 --backend=cpu
# Two pieces held by each worker rank (CUDA's way: the next computes while a result is sent).
same_as_one_process deep-e50-two-in-flight --location="$locations/e50.kfr" --iter=20000 --size=64x48 --backend=cpu \
    --pieces-in-flight=2
same_as_one_process direct-two-in-flight --size=64x48 --iter=500 --backend=cpu --band-rows=4 --pieces-in-flight=2
# Coloured deep pieces reach rank 0's PNG writer in the calls one process makes (more than two of
# its encoder parts here, at one thread), or the file's bytes would differ.
OMP_NUM_THREADS=1 same_as_one_process deep-parts --size=4096x3000 --precision=deep-double --iter=200 --backend=cpu
grep -q 'reference orbit broadcast in [0-9]* bytes' three.out || fail "the deep summary does not give the broadcast's size"
# Rank 0's time line: where its time went, its parts adding up to no more than the whole.
time_line=$(grep '^time' three.out)
awk '{ sum = $2 + $9 + $15 + $24; if (!($4 == "checks" && $32 == "all" && sum <= $29 + 0.5)) exit 1 }' <<< "$time_line" ||
    fail "the deep summary's time line does not give its parts: $time_line"
video=(--size=64x48 --seconds=2 --fps=15 --segment-frames=5 --center=-0.745,0.113 --zoom=1000 --method=direct
       --backend=cpu)
"$bin" video "${video[@]}" -o one.mp4 > /dev/null 2> one.err || fail "video: one process failed: $(cat one.err)"
ranks 3 "$bin" video "${video[@]}" -o three.mp4 > three.out 2> three.err || fail "video: mpirun failed: $(cat three.err)"
cmp -s one.mp4 three.mp4 || fail "video: the MP4 of 3 ranks differs from one process's"
[ ! -e .three.mp4.parts ] || fail "video: the parts folder was left behind"
echo "ok   video: $(grep '^ranks' three.out | cut -c 12-140)"
cli_end "mpirun -np 3 renders the same files as one process"
