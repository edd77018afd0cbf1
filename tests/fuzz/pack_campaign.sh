#!/usr/bin/env bash
# pack_campaign.sh: the fuzz targets of BIN_DIR, the shared libraries they load (all but glibc's),
# the seed corpora and campaign.sh, as one .tar.xz for a machine with many cores and no Debian
# packages (the lent GPU hosts). There:  tar -xJf campaign.tar.xz -C /tmp &&
#   LD_LIBRARY_PATH=/tmp/campaign/lib bash /tmp/campaign/tests/fuzz/campaign.sh /tmp/campaign/bin OUT RUNS JOBS
#   bash tests/fuzz/pack_campaign.sh BIN_DIR OUT.tar.xz
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(realpath "${1:?usage: pack_campaign.sh BIN_DIR OUT.tar.xz}")
out=$(realpath -m "${2:?OUT.tar.xz}")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
dest=$stage/campaign
mkdir -p "$dest/bin" "$dest/lib" "$dest/tests/fuzz"
cp "$bin"/fuzz_* "$dest/bin/"
ldd "$bin"/fuzz_* | awk '$3 ~ /^\// {print $3}' | sort -u | while read -r lib; do
    case $(basename "$lib") in libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*) continue ;; esac
    cp -L "$lib" "$dest/lib/"
done
cp -r "$root/tests/fuzz/corpus" "$root"/tests/fuzz/*.dict "$root/tests/fuzz/campaign.sh" "$dest/tests/fuzz/"
tar -C "$stage" -cf - campaign | xz -T2 -6 > "$out"
du -h "$out"
