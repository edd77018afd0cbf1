// cluster.h: the processes of one job started by mpirun, through MPI, behind a plain C++
// interface (no MPI header here: only cluster_mpi.cpp includes mpi.h, so only this library links
// MPI, and a build without MPI has cluster_nompi.cpp's same functions, which refuse).
//
// A process learns from its environment alone whether mpirun started it
// (cluster_launch_from_environment), so `mandelscope render` run by hand never touches MPI.
// Under mpirun, cluster_start() initialises MPI with errors returned, not aborting: every call
// here throws std::runtime_error with a sentence when MPI reports one. Only the calling thread
// that started MPI calls these (MPI_THREAD_FUNNELED): other threads compute, never talk.
//
// Messages are bytes with a tag; a message from any rank is received whole (probe, then receive
// the size it has). Ranks are 0..size-1; rank 0 coordinates (cluster_job.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ms {

// What mpirun (Open MPI, or a PMI/PMIx launcher) put in the environment: rank and size in the
// job, and among the ranks of this host. A process started by hand is rank 0 of 1.
struct ClusterLaunch {
    int rank = 0;
    int size = 1;
    int local_rank = 0;
    int local_size = 1;
};
ClusterLaunch cluster_launch_from_environment();

// Whether Open MPI may start this job's ranks on its shared-memory messaging (the ob1 layer)
// without probing for network fabrics: Open MPI's mpirun started the job (OMPI_COMM_WORLD_*), every
// rank runs on this host, and neither OMPI_MCA_pml nor OMPI_MCA_mtl (mpirun --mca pml|mtl) makes
// another choice. The probe (libfabric's and PSM's providers) costs each rank about 0.2 s of
// MPI_Init on a host without such a network, and ranks on one host talk through shared memory
// either way. cluster_start then sets OMPI_MCA_pml=ob1 before MPI_Init.
bool cluster_skips_fabric_probe();

// Whether this build links MPI (false: cluster_start throws with the sentence that says so).
bool cluster_built_with_mpi();

// MPI_Init (MPI_THREAD_FUNNELED) and errors returned on MPI_COMM_WORLD; cluster_stop puts SIGINT
// and SIGTERM back to their default actions (the ranks' outputs are done with) and finalises.
// cluster_start throws with a sentence when MPI cannot start or the build has none.
void cluster_start();
void cluster_stop();
int cluster_rank();
int cluster_size();
// The host's name as MPI knows it.
std::string cluster_host_name();

struct ClusterMessage {
    int source = -1;
    int tag = 0;
    std::vector<uint8_t> bytes;
};

void cluster_send(int destination, int tag, const std::vector<uint8_t>& bytes);
// A message from any rank with any tag if one has arrived: true and *message filled; else false
// at once.
bool cluster_try_receive(ClusterMessage* message);
// Waits for a message from `source` (any tag).
ClusterMessage cluster_receive_from(int source);
// root's bytes to every rank (resized there).
void cluster_broadcast(std::vector<uint8_t>* bytes, int root);
// On every rank: the text of the lowest rank whose text is not empty, and that rank (-1 and ""
// when every text is empty). Every rank must call it.
std::string cluster_first_text(const std::string& text, int* from_rank);
// Ends every rank of the job with this exit status (MPI_Abort).
[[noreturn]] void cluster_abort(int status);

}  // namespace ms
