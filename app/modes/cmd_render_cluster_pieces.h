// cmd_render_cluster_pieces.h: what a piece of an image is when it renders across ranks or
// shards (cmd_render_cluster.h), what a rank computes for one, and how rank 0 writes them.
//
// A unit is one output row (its K sample rows when supersampling); a piece is a run of rows.
// The direct path's colouring that looks at the whole frame (histogram, slopes) colours the image
// as one band, as one process does, so its image is one unit. A piece's bytes are what rank 0
// needs to write exactly one process's file:
//   direct  the RGBA of its sample rows, coloured where they were computed (every colouring but
//           the whole-frame ones is one pixel's alone), then its smooth values when --raw asks;
//   deep    the number type it ran, then
//           - with a plain colouring at one sample a pixel and no .npy (deep_coloured): the RGBA
//             of its rows, coloured where they were computed (on the rank's GPU where it has
//             one), as one process colours a spread frame's bands;
//           - else its escape counts, smooth values, and the distance estimates and atom
//             periods where the colouring needs them: rank 0 colours the whole frame, as one
//             process does (the histogram needs every sample).
// ClusterImageWriter takes the pieces in any order and writes coloured rows in order, through
// the same writers as one process (the bounded-memory PngStreamWriter where one process
// streams); a deep frame of counts is coloured and written once complete.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/modes/cmd_render_steps.h"
#include "compute/cluster/part_store.h"
#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_device_frame.h"

namespace ms {

struct ClusterImageJob {
    RenderRequest request;
    RenderPlan plan;  // the checked plan (direct: its band_rows and writer choice)
    bool deep = false;
    bool deep_coloured = false;  // deep pieces carry their colours (see above)
    bool whole_frame = false;    // direct: the colouring looks at the whole frame (one unit)
    int units = 0;
    int max_piece_units = 0;  // a piece's memory stays within one process's band
    DeepRenderOptions deep_options;
    std::string view_json;  // direct (the deep path's names the number type that ran)
    std::string key;        // everything that decides the bytes (part_store.h)
    std::shared_ptr<ReferenceCache> cache = std::make_shared<ReferenceCache>();
    // Rank 0's deep reference orbit, computed into `cache` on a thread of its own from the moment
    // the view is known, beside the checks that wait for the CUDA driver and for the other ranks.
    std::shared_ptr<ReferencePrefetch> reference_prefetch;
    // deep_coloured on CUDA: the rank's pieces stay on its device to be coloured there (one
    // thread computes a rank's pieces).
    std::shared_ptr<DeepDeviceFrame> device_frame = std::make_shared<DeepDeviceFrame>();
};

// The output rows a piece covers.
int piece_first_row(const ClusterImageJob& job, ClusterPiece piece);
int piece_rows(const ClusterImageJob& job, ClusterPiece piece);

// A piece's bytes, computed with `threads` OpenMP threads. Throws on a failure (CUDA, memory).
std::vector<uint8_t> compute_cluster_piece(const ClusterImageJob& job, ClusterPiece piece, int threads);

// Rank 0's (or --join's) output: opened before any work, like one process's; accept() hands
// every new piece to the part store (written on the store's own thread, PartStoreWriter), then
// writes what is next in order; finish() once every unit is in. Throws with a sentence on a
// failure. A writer destroyed without finishing leaves every piece it accepted in the store.
class ClusterImageWriter {
public:
    ClusterImageWriter(const ClusterImageJob& job, PartStore store, std::vector<ClusterPiece> finished);
    void accept(ClusterPiece piece, std::vector<uint8_t>&& bytes);
    void finish();
    int rows_done() const { return rows_done_; }
    Precision ran() const { return ran_; }

private:
    // In order (coloured pieces) or in place (a deep frame of counts).
    void take(ClusterPiece piece, const std::vector<uint8_t>& bytes);
    void write_in_order();

    const ClusterImageJob& job_;
    PartStore store_;
    PartStoreWriter store_writer_;
    std::map<int, ClusterPiece> stored_;  // first unit -> a finished piece in the store
    std::map<int, std::pair<ClusterPiece, std::shared_ptr<const std::vector<uint8_t>>>> waiting_;
    int next_unit_ = 0;
    int rows_done_ = 0;
    // direct
    std::unique_ptr<PngStreamWriter> png_stream_;
    std::unique_ptr<NpyStreamWriter> npy_stream_;
    std::vector<uint8_t> image_;  // whole-image writer
    std::vector<uint8_t> filtered_;
    // deep
    DeepFrame frame_;
    Precision ran_ = Precision::DeepDouble;
    // deep_coloured: rows in order not yet given to png_stream_, from byte held_from_ on (see take)
    std::vector<uint8_t> held_;
    size_t held_from_ = 0;
    int held_rows_ = 0;
    int rows_written_ = 0;
};

}  // namespace ms
