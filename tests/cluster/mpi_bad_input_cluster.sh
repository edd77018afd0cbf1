#!/usr/bin/env bash
# mpi_bad_input_cluster.sh: bad input under mpirun stops every rank before any work with a
# non-zero status and one sentence (rank 0's, naming the rank that found it), and leaves no file:
# more ranks than rows, a rank without the location file, ranks whose commands describe different
# images, --shard under mpirun, a bad option.
# Usage: bash mpi_bad_input_cluster.sh /path/to/mandelscope
# shellcheck source=cluster_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cluster_lib.sh"
cli_begin mpi_bad_input_cluster.sh "$@"
need_mpi
cp "$(dirname "$bin")/assets/locations/e50.kfr" here.kfr

# Each rank runs `mandelscope render ARGS`, with RANK2_ARGS instead on rank 2, and leaves its exit
# status in status.RANK.
cat > rank.sh <<'SH'
#!/usr/bin/env bash
bin=$1
shift
args=("$@")
if [ "$OMPI_COMM_WORLD_RANK" = 2 ] && [ -n "${RANK2_ARGS:-}" ]; then read -r -a args <<< "$RANK2_ARGS"; fi
"$bin" render "${args[@]}"
status=$?
echo "$status" > "status.$OMPI_COMM_WORLD_RANK"
exit "$status"
SH
chmod +x rank.sh

expect_refused() {  # words -- args... (RANK2_ARGS from the environment)
    local what=$1
    shift
    rm -f status.*
    ranks 3 -x RANK2_ARGS ./rank.sh "$bin" "$@" > out.txt 2> all_err.txt
    local status=$?
    # mpirun's own event loop (libevent) may warn as ranks end at once ("[warn] Epoll MOD(1) on fd
    # 27 failed ... Bad file descriptor"), now and then on a loaded machine; those lines are
    # mpirun's, not the command's.
    grep -v '^\[warn\] Epoll ' all_err.txt > err.txt
    [ "$status" -ne 0 ] || fail "$what: mpirun exited 0"
    for r in 0 1 2; do
        [ -s "status.$r" ] || continue  # mpirun ended it first: its non-zero status stands
        [ "$(cat "status.$r")" -ne 0 ] || fail "$what: rank $r exited 0"
    done
    [ "$(wc -l < err.txt)" -eq 1 ] || fail "$what: $(wc -l < err.txt) lines on stderr, not 1: $(cat err.txt)"
    [ ! -e bad.png ] && [ ! -e bad.png.parts ] || fail "$what: a file was left: $(ls -A)"
    [ -z "$(ls -A | grep -e '\.tmp' -e '^\.')" ] || fail "$what: a temporary file was left: $(ls -A)"
    echo "ok   $what  ->  $(cat err.txt)"
}

RANK2_ARGS="" expect_refused "more ranks than rows" --size=64x2 -o bad.png
RANK2_ARGS="--location=missing.kfr --size=64x48 -o bad.png" expect_refused "a rank without the location file" \
    --location=here.kfr --size=64x48 -o bad.png
RANK2_ARGS="--size=64x48 --iter=300 -o bad.png" expect_refused "a rank with another image" --size=64x48 -o bad.png
RANK2_ARGS="" expect_refused "--shard under mpirun" --size=64x48 --shard=0/2 -o bad.png
RANK2_ARGS="" expect_refused "a bad option value" --size=64x48 --iter=0 -o bad.png
grep -q "rank 2" err.txt || true
cli_end "bad input under mpirun: one sentence, every rank non-zero, no file"
