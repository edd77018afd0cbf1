#!/usr/bin/env bash
# shard_cluster.sh: a scheduler's job array without MPI: `render ... --shard=I/N` renders part I
# of the rows into OUTPUT.parts/, in any order, and `render ... --join` writes the file from the
# parts, the same bytes as one process (direct, supersampled with --raw, deep), then removes them;
# joining before every shard is done, a bad shard or both options give one sentence and exit 2.
# Usage: bash shard_cluster.sh /path/to/mandelscope
# shellcheck source=../cli/cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cli/cli_lib.sh"
cli_begin shard_cluster.sh "$@"
locations=$(dirname "$bin")/assets/locations

shards_joined() {  # name n args...
    local name=$1 n=$2
    shift 2
    "$bin" render "$@" -o "one-$name.png" > /dev/null 2> one.err || { fail "$name: one process failed: $(cat one.err)"; return; }
    for ((i = n - 1; i >= 0; --i)); do
        "$bin" render "$@" -o "$name.png" --shard="$i/$n" > shard.out 2> shard.err ||
            fail "$name: --shard=$i/$n failed: $(cat shard.err)"
    done
    [ ! -e "$name.png" ] || fail "$name: a shard wrote the output itself"
    "$bin" render "$@" -o "$name.png" --join > join.out 2> join.err || fail "$name: --join failed: $(cat join.err)"
    cmp -s "one-$name.png" "$name.png" || fail "$name: the joined PNG differs from one process's"
    [ ! -e "$name.png.parts" ] || fail "$name: the parts folder was left after --join"
    echo "ok   $name: $n shards joined"
}

shards_joined direct 3 --size=64x48 --iter=500 --backend=cpu
shards_joined direct-k2 4 --size=48x32 --supersample=2 --iter=500 --backend=cpu
shards_joined deep 2 --location="$locations/e50.kfr" --iter=20000 --size=64x48 --backend=cpu

# Joining with a shard missing, bad shards, both options: one sentence, exit 2, no file.
"$bin" render --size=64x48 --iter=500 -o new.png --shard=0/2 > /dev/null 2>&1 || fail "--shard=0/2 failed"
expect_bad --size=64x48 --iter=500 -o new.png --join
rm -rf new.png.parts
expect_bad --size=64x48 -o new.png --shard=2/2
expect_bad --size=64x48 -o new.png --shard=-1/2
expect_bad --size=64x48 -o new.png --shard=1
expect_bad --size=64x48 -o new.png --shard=0/100
expect_bad --size=64x48 -o new.png --shard=0/2 --join
rm -rf new.png.parts
cli_end "shards joined give the same file as one process"
