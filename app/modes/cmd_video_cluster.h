// cmd_video_cluster.h: `mpirun -np N mandelscope video ... -o OUT.mp4`: the video's segments
// rendered across ranks (cmd_video_cluster.cpp), muxed by rank 0 into the same bytes as one
// process's.
#pragma once

#include <string>

#include "compute/video/video_job.h"

namespace ms {

// Whether mpirun started more than one process.
bool video_cluster_wanted();

// The checked job (problem: the sentence the options gave, "" for none, agreed on by every rank
// before any work). Returns the exit status.
int video_cluster_command(const VideoJob& job, const std::string& problem);

}  // namespace ms
