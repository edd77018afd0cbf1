#!/usr/bin/env bash
# devices_cli.sh: `--devices=LIST` of `render` and `bench --deep`, end to end.
#   - a bad list (empty, not numbers, a device that does not exist, with --backend=cpu) exits 2
#     with one sentence and no file; so does --devices without --deep in bench;
#   - where CUDA is usable, a deep frame's PNG is byte-identical whether it renders on one
#     device (no --devices on one GPU; --devices=0), on device 0 named twice (two slots sharing
#     the bands), on every visible device, or with the last slot failing mid-run
#     (MANDELSCOPE_INJECT_FAULTS=device_fail: the render finishes, says so in one line on stderr,
#     and the summary names the failed device), with layers and with a plain colouring (whose
#     rows are coloured and written as the bands land); without CUDA those cases are skipped,
#     saying so.
# Usage: bash devices_cli.sh /path/to/mandelscope
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
cli_begin devices_cli.sh "$@"
locations=$(dirname "$bin")/assets/locations

deep=(--location="$locations/e227.kfr" --size=320x180)
expect_bad "${deep[@]}" --devices= -o new.png
expect_bad "${deep[@]}" --devices=0,x -o new.png
expect_bad "${deep[@]}" --devices=-1 -o new.png
expect_bad "${deep[@]}" --devices=4096 -o new.png
expect_bad "${deep[@]}" --devices=0 --backend=cpu -o new.png
grep -q "leave out --backend=cpu" err.txt || fail "--devices with --backend=cpu does not say why"
"$bin" bench --devices=0 > out.txt 2> err.txt
[ $? -eq 2 ] || fail "bench --devices without --deep did not exit 2"
grep -q "apply to --deep only" err.txt || fail "bench --devices without --deep does not say why: $(cat err.txt)"
"$bin" bench --deep --backend=cpu --devices=0 --size=8x8 > out.txt 2> err.txt
[ $? -eq 2 ] || fail "bench --deep --backend=cpu --devices=0 did not exit 2"

if ! "$bin" info 2>/dev/null | grep -q "^  device 0 "; then
    expect_bad "${deep[@]}" --devices=0 -o new.png
    grep -q "there is no CUDA device 0" err.txt || fail "--devices=0 without a GPU does not say so: $(cat err.txt)"
    echo "no CUDA device here: the byte-identity and fault cases run on the GPU machine"
    cli_end "ok: every bad device list gave one sentence and status 2"
    exit 0
fi

count=$("$bin" info 2>/dev/null | grep -c "^  device [0-9]")
all=$(seq -s, 0 $((count - 1)))
view=(--location="$locations/e227.kfr" --size=640x360 --colouring=smooth,de,atom --backend=cuda)
CUDA_VISIBLE_DEVICES=0 "$bin" render "${view[@]}" -o one.png > one.out 2>&1 || fail "one-device render failed: $(tail -2 one.out)"
for list in 0 0,0 "$all" "$(seq -s, $((count - 1)) -1 0)" 0,0,0; do
    "$bin" render "${view[@]}" --devices="$list" -o "d$list.png" > "d$list.out" 2>&1 \
        || fail "--devices=$list failed: $(tail -2 "d$list.out")"
    cmp -s one.png "d$list.png" && echo "same --devices=$list: $(grep '^devices' "d$list.out")" \
        || fail "--devices=$list: the PNG differs from one device's"
done
"$bin" render "${view[@]}" -o every.png > every.out 2>&1 || fail "the default (every device) failed"
cmp -s one.png every.png || fail "every visible device (the default): the PNG differs from one device's"
# Without --devices, a frame this small stays on one device (spreading pays from 16M samples).
! grep -q '^devices' every.out || fail "the default spread a 640x360 frame over the devices"

# A plain colouring: the rows are coloured and written to the PNG as the bands land.
plain=(--location="$locations/e227.kfr" --size=1024x2048 --backend=cuda)
CUDA_VISIBLE_DEVICES=0 "$bin" render "${plain[@]}" -o plain_one.png > plain_one.out 2>&1 || fail "plain one-device render failed"
"$bin" render "${plain[@]}" --devices=0,0 -o plain_00.png > plain_00.out 2>&1 || fail "plain --devices=0,0 failed"
"$bin" render "${plain[@]}" --devices="$all" -o plain_all.png > plain_all.out 2>&1 || fail "plain --devices=$all failed"
cmp -s plain_one.png plain_00.png || fail "plain colouring, --devices=0,0: the PNG differs from one device's"
cmp -s plain_one.png plain_all.png || fail "plain colouring, --devices=$all: the PNG differs from one device's"

list=$([ "$count" -ge 2 ] && echo "$all" || echo 0,0)
# Bands small enough that every worker takes one at the start, the failing device's included.
MANDELSCOPE_INJECT_FAULTS=device_fail "$bin" render "${view[@]}" --band-rows=16 --devices="$list" -o fault.png > fault.out 2> fault.err
rc=$?
echo "[device_fail, --devices=$list] exit $rc: $(grep -v '%' fault.err | tail -n 1)"
[ $rc -eq 0 ] || fail "device_fail: exit $rc, expected 0 (the other devices finish the frame)"
[ "$(grep -v '%' fault.err | grep -c 'failed: injected fault')" -eq 1 ] || fail "device_fail: not one line on stderr"
grep -q '(failed)' fault.out || fail "device_fail: the summary does not name the failed device"
cmp -s one.png fault.png || fail "device_fail: the PNG differs from one device's"
MANDELSCOPE_INJECT_FAULTS=device_fail "$bin" render "${plain[@]}" --band-rows=64 --devices="$list" -o fault_plain.png \
    > fault_plain.out 2> fault_plain.err || fail "device_fail, plain colouring: the render did not finish"
cmp -s plain_one.png fault_plain.png || fail "device_fail, plain colouring: the PNG differs from one device's"
cli_end "ok: bad device lists give one sentence; every split gives one device's PNG; a failed device's bands went to the others"
