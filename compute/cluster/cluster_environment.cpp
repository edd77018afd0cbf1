// cluster_environment.cpp: cluster.h's launch facts from the environment that mpirun sets, read
// before (and without) MPI: Open MPI's OMPI_COMM_WORLD_*, else PMIx's and PMI's variables.
#include "compute/cluster/cluster.h"

#include <cstdlib>
#include <string>

namespace ms {

namespace {

// The first of the named variables that holds a number, or -1.
int environment_number(std::initializer_list<const char*> names) {
    for (const char* name : names) {
        const char* text = std::getenv(name);
        if (!text || !*text) continue;
        char* end = nullptr;
        const long value = std::strtol(text, &end, 10);
        if (*end == '\0' && value >= 0 && value < (1L << 30)) return int(value);
    }
    return -1;
}

}  // namespace

ClusterLaunch cluster_launch_from_environment() {
    ClusterLaunch launch;
    const int size = environment_number({"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"});
    const int rank = environment_number({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"});
    if (size < 1 || rank < 0 || rank >= size) return launch;
    launch.size = size;
    launch.rank = rank;
    const int local_size = environment_number({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"});
    const int local_rank = environment_number({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"});
    if (local_size >= 1 && local_rank >= 0 && local_rank < local_size) {
        launch.local_size = local_size;
        launch.local_rank = local_rank;
    }
    return launch;
}

bool cluster_skips_fabric_probe() {
    const int size = environment_number({"OMPI_COMM_WORLD_SIZE"});
    if (size < 1 || environment_number({"OMPI_COMM_WORLD_LOCAL_SIZE"}) != size) return false;
    for (const char* chosen : {"OMPI_MCA_pml", "OMPI_MCA_mtl"})
        if (const char* value = std::getenv(chosen); value && *value) return false;
    return true;
}

}  // namespace ms
