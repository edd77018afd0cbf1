// cluster_mpi.cpp: cluster.h over MPI's C interface. Errors return (MPI_ERRORS_RETURN) and
// become std::runtime_error with MPI's own text, so the caller can say what happened in a
// sentence instead of MPI's default abort.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "compute/cluster/cluster.h"

namespace ms {

namespace {

void check(int code, const char* what) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw std::runtime_error(std::string("MPI failed in ") + what + ": " + std::string(text, size_t(length)));
}

int byte_count(size_t bytes) {
    if (bytes > size_t(INT_MAX)) throw std::runtime_error("a message of the job is over 2 GiB; use more, smaller pieces");
    return int(bytes);
}

ClusterMessage receive_probed(const MPI_Status& status) {
    int count = 0;
    check(MPI_Get_count(&status, MPI_BYTE, &count), "MPI_Get_count");
    ClusterMessage message;
    message.source = status.MPI_SOURCE;
    message.tag = status.MPI_TAG;
    message.bytes.resize(size_t(count));
    check(MPI_Recv(message.bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE),
          "MPI_Recv");
    return message;
}

}  // namespace

bool cluster_built_with_mpi() { return true; }

void cluster_start() {
    if (cluster_skips_fabric_probe()) setenv("OMPI_MCA_pml", "ob1", 0);
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
}

void cluster_stop() {
    // Once one rank has left, mpirun ends the others with SIGTERM. By now every rank has finished
    // or removed its outputs, so a rank ended in its last moments goes quietly instead of saying
    // it was interrupted (a second line beside rank 0's sentence).
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}

int cluster_rank() {
    int rank = 0;
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    return rank;
}

int cluster_size() {
    int size = 1;
    check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
    return size;
}

std::string cluster_host_name() {
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    check(MPI_Get_processor_name(name, &length), "MPI_Get_processor_name");
    return std::string(name, size_t(length));
}

void cluster_send(int destination, int tag, const std::vector<uint8_t>& bytes) {
    check(MPI_Send(bytes.data(), byte_count(bytes.size()), MPI_BYTE, destination, tag, MPI_COMM_WORLD), "MPI_Send");
}

bool cluster_try_receive(ClusterMessage* message) {
    int flag = 0;
    MPI_Status status;
    check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
    if (!flag) return false;
    *message = receive_probed(status);
    return true;
}

ClusterMessage cluster_receive_from(int source) {
    MPI_Status status;
    check(MPI_Probe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &status), "MPI_Probe");
    return receive_probed(status);
}

void cluster_broadcast(std::vector<uint8_t>* bytes, int root) {
    unsigned long long size = bytes->size();
    check(MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD), "MPI_Bcast");
    bytes->resize(size_t(size));
    // In pieces of at most 1 GiB (MPI counts are ints).
    const size_t piece = size_t(1) << 30;
    for (size_t at = 0; at < bytes->size(); at += piece) {
        const size_t n = std::min(piece, bytes->size() - at);
        check(MPI_Bcast(bytes->data() + at, int(n), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
    }
}

std::string cluster_first_text(const std::string& text, int* from_rank) {
    const int mine = text.empty() ? INT_MAX : cluster_rank();
    int first = INT_MAX;
    check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
    if (first == INT_MAX) {
        *from_rank = -1;
        return {};
    }
    std::vector<uint8_t> bytes(text.begin(), text.end());
    cluster_broadcast(&bytes, first);
    *from_rank = first;
    return std::string(bytes.begin(), bytes.end());
}

void cluster_abort(int status) {
    MPI_Abort(MPI_COMM_WORLD, status);
    std::_Exit(status);
}

}  // namespace ms
