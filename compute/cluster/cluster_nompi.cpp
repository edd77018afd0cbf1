// cluster_nompi.cpp: cluster.h in a build without MPI. The launch facts still come from the
// environment (so that a run under mpirun is recognised and refused with a sentence); every MPI
// call throws that sentence.
#include <cstdlib>
#include <stdexcept>

#include "compute/cluster/cluster.h"

namespace ms {

namespace {

[[noreturn]] void no_mpi() {
    throw std::runtime_error(
        "this mandelscope was built without MPI (install libopenmpi-dev and build again to run it under mpirun)");
}

}  // namespace

bool cluster_built_with_mpi() { return false; }
void cluster_start() { no_mpi(); }
void cluster_stop() {}
int cluster_rank() { return 0; }
int cluster_size() { return 1; }
std::string cluster_host_name() { return {}; }
void cluster_send(int, int, const std::vector<uint8_t>&) { no_mpi(); }
bool cluster_try_receive(ClusterMessage*) { no_mpi(); }
ClusterMessage cluster_receive_from(int) { no_mpi(); }
void cluster_broadcast(std::vector<uint8_t>*, int) { no_mpi(); }
std::string cluster_first_text(const std::string& text, int* from_rank) {
    *from_rank = text.empty() ? -1 : 0;
    return text;
}
void cluster_abort(int status) { std::exit(status); }

}  // namespace ms
