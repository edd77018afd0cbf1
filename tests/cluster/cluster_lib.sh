#!/usr/bin/env bash
# cluster_lib.sh: what the scripts of tests/cluster/ share, sourced, never run by itself (on top
# of tests/cli/cli_lib.sh's cli_begin, fail, cli_end).
#   need_mpi          exits 77 (skipped, with the reason) where mpirun is missing or the binary
#                     was built without MPI; lets root run mpirun (containers, CI)
#   ranks N ARGS...   mpirun --oversubscribe -q -np N ARGS...: N ranks on this host, without
#                     mpirun's own banners, so that stderr holds what mandelscope says (and
#                     without leak checking in a sanitizer tree: Open MPI's own allocations)
# shellcheck source=../cli/cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cli/cli_lib.sh"

need_mpi() {
    command -v mpirun > /dev/null || { echo "SKIP: mpirun not found (install openmpi-bin)"; exit 77; }
    if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
    ranks 2 "$bin" render --size=16x8 -o probe.png > /dev/null 2> probe.err
    if grep -q "built without MPI" probe.err; then echo "SKIP: this mandelscope was built without MPI"; exit 77; fi
    [ -s probe.png ] || { echo "FAIL: mpirun -np 2 mandelscope render failed: $(cat probe.err)"; exit 1; }
    rm -f probe.png probe.err
}

ranks() {  # N args...
    local n=$1
    shift
    # Open MPI's plugins (loaded and unloaded with dlopen) leave allocations at MPI_Finalize whose
    # stacks end in "<unknown module>", which no suppression can name: in a sanitizer tree the
    # ranks run without leak checking (ASan and UBSan stay on), as .ci/sanitize.sh runs the
    # window tests. The last detect_leaks in ASAN_OPTIONS wins.
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" mpirun --oversubscribe -q -np "$n" "$@"
}
