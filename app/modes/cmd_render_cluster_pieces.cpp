// cmd_render_cluster_pieces.cpp: a piece's computing and rank 0's writing for renders across
// ranks or shards (cmd_render_cluster_pieces.h). Every call here is the one a single process
// makes for the same rows (cmd_render_bands.cpp, cmd_render_deep.cpp), so the file is the same.
#include "app/modes/cmd_render_cluster_pieces.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "compute/fractal/colour/box_filter.h"
#include "compute/fractal/colour/colourize.h"
#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/direct/coloured_frame.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/view/view_record.h"

namespace ms {

namespace {

// Pieces handed to the store's thread and not yet on the disk: a CUDA rank's piece of a 16384²
// poster is about 64 MB, and the disk takes one in a few tens of milliseconds.
constexpr size_t kMaxWaitingPieceBytes = size_t(512) << 20;

template <typename T>
void append(std::vector<uint8_t>& bytes, const std::vector<T>& values) {
    const size_t at = bytes.size();
    bytes.resize(at + values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(bytes.data() + at, values.data(), values.size() * sizeof(T));
}

template <typename T>
void take_values(const std::vector<uint8_t>& bytes, size_t* at, size_t count, T* out) {
    if (*at + count * sizeof(T) > bytes.size()) throw std::runtime_error("a piece of the image is shorter than it should be");
    std::memcpy(out, bytes.data() + *at, count * sizeof(T));
    *at += count * sizeof(T);
}

// The direct path: the piece's sample rows coloured, as cmd_render_bands.cpp's compute_band
// colours a band (CUDA colours on the device; the CPU colours after the kernels).
std::vector<uint8_t> direct_piece(const ClusterImageJob& job, ClusterPiece piece) {
    const RenderPlan& plan = job.plan;
    const RenderRequest& request = job.request;
    const int k = plan.k;
    const PixelRect rect{0, piece_first_row(job, piece) * k, plan.samples.width, piece_rows(job, piece) * k};
    const size_t samples = size_t(rect.width) * size_t(rect.height);
    const bool raw = !request.raw_path.empty();
    std::vector<uint8_t> rgba(samples * 4);
    std::vector<float> mu(plan.cuda && !raw ? 0 : samples);
    float* mu_out = mu.empty() ? nullptr : mu.data();
    const bool plain = colouring_is_plain(plan.view.colouring);
    if (plan.cuda && plain) {
        direct_cuda_to_host(plan.samples, plan.precision, request.shortcuts, plan.table, rect, rgba.data(), mu_out);
    } else if (plan.cuda) {
        render_coloured_cuda_to_host(plan.samples, plan.precision, request.shortcuts, plan.table, rect, 1.0 / k,
                                     rgba.data(), mu_out);
    } else if (!plain) {
        render_coloured_cpu(plan.samples, plan.precision, request.shortcuts, plan.table, rect, 1.0 / k, mu.data(),
                            rgba.data());
    } else {
        direct_cpu(plan.samples, plan.precision, request.shortcuts, rect, mu.data());
        colourize_parallel(mu.data(), int64_t(samples), plan.table, plan.view, rgba.data());
    }
    if (!raw) return rgba;
    append(rgba, mu);
    return rgba;
}

// The deep path: the piece's region of the whole frame (the whole frame's reference and BLA
// table, from the rank's cache after its first piece).
std::vector<uint8_t> deep_piece(const ClusterImageJob& job, ClusterPiece piece, int threads) {
    const RenderPlan& plan = job.plan;
    const int k = plan.k;
    DeepRenderOptions options = job.deep_options;
    options.threads = threads;
    options.cache = job.cache.get();
    options.region = DeepPixelRect{0, piece_first_row(job, piece) * k, plan.samples.width, piece_rows(job, piece) * k};
    const DeepLocation location = deep_location(plan.samples);
    if (job.deep_coloured && plan.cuda) {
        options.device_frame = job.device_frame.get();
        options.host_outputs = false;
    }
    const DeepFrame frame = plan.cuda ? deep_cuda(location, plan.samples.width, plan.samples.height, options)
                                      : deep_cpu(location, plan.samples.width, plan.samples.height, options);
    if (frame.stats.cancelled) throw std::runtime_error("the deep frame was cancelled");
    std::vector<uint8_t> bytes{uint8_t(frame.stats.number_type == DeepNumberType::FloatExp ? 1 : 0)};
    if (job.deep_coloured) {
        bytes.resize(1 + size_t(frame.width) * size_t(frame.height) * 4);
        if (plan.cuda)
            colour_deep_frame_cuda_to_host(*job.device_frame, plan.table, plan.view, 1.0, bytes.data() + 1, nullptr);
        else
            colour_deep_frame(frame, plan.table, plan.view, 1.0, bytes.data() + 1);
        return bytes;
    }
    append(bytes, frame.escape_count);
    append(bytes, frame.mu);
    if (options.distance) append(bytes, frame.distance);
    if (options.atom) append(bytes, frame.atom);
    return bytes;
}

}  // namespace

int piece_first_row(const ClusterImageJob& job, ClusterPiece piece) {
    return job.whole_frame ? 0 : piece.first;
}

int piece_rows(const ClusterImageJob& job, ClusterPiece piece) {
    return job.whole_frame ? job.plan.view.height : piece.count;
}

std::vector<uint8_t> compute_cluster_piece(const ClusterImageJob& job, ClusterPiece piece, int threads) {
    // The thread count is this thread's own (OpenMP keeps it per thread): rank 0 computes on a
    // helper thread and writes with every core on its main thread.
    omp_set_num_threads(std::max(1, threads));
    return job.deep ? deep_piece(job, piece, threads) : direct_piece(job, piece);
}

ClusterImageWriter::ClusterImageWriter(const ClusterImageJob& job, PartStore store, std::vector<ClusterPiece> finished)
    : job_(job), store_(std::move(store)), store_writer_(store_, kMaxWaitingPieceBytes) {
    for (ClusterPiece piece : finished) stored_[piece.first] = piece;
    const RenderPlan& plan = job.plan;
    if (job.deep_coloured) return;  // the PNG opens with the first rows: its metadata names the number type
    if (job.deep) {
        frame_.width = plan.samples.width;
        frame_.height = plan.samples.height;
        frame_.region = DeepPixelRect{0, 0, frame_.width, frame_.height};
        const size_t samples = size_t(frame_.width) * size_t(frame_.height);
        frame_.escape_count.assign(samples, -1);
        frame_.mu.assign(samples, -1.0);
        if (job.deep_options.distance) frame_.distance.assign(samples, 0.0f);
        if (job.deep_options.atom) frame_.atom.assign(samples, 0.0f);
        return;
    }
    if (plan.stream_png)
        png_stream_ = std::make_unique<PngStreamWriter>(job.request.png_path, plan.view.width, plan.view.height,
                                                        job.view_json);
    else
        image_.resize(size_t(plan.view.width) * plan.view.height * 4);
    if (!job.request.raw_path.empty())
        npy_stream_ = std::make_unique<NpyStreamWriter>(job.request.raw_path, plan.samples.height, plan.samples.width);
}

void ClusterImageWriter::accept(ClusterPiece piece, std::vector<uint8_t>&& bytes) {
    auto shared = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
    store_writer_.put(piece, shared);
    if (job_.deep && !job_.deep_coloured) {
        take(piece, *shared);
        return;
    }
    waiting_[piece.first] = {piece, std::move(shared)};
    write_in_order();
}

void ClusterImageWriter::write_in_order() {
    while (next_unit_ < job_.units) {
        ClusterPiece piece;
        if (auto w = waiting_.find(next_unit_); w != waiting_.end()) {
            piece = w->second.first;
            take(piece, *w->second.second);
            waiting_.erase(w);
        } else if (auto s = stored_.find(next_unit_); s != stored_.end()) {
            piece = s->second;
            take(piece, part_store_read(store_, piece));
        } else {
            break;
        }
        next_unit_ = piece.first + piece.count;
    }
}

void ClusterImageWriter::take(ClusterPiece piece, const std::vector<uint8_t>& bytes) {
    const RenderPlan& plan = job_.plan;
    const int k = plan.k;
    const int y0 = piece_first_row(job_, piece), rows = piece_rows(job_, piece);
    const size_t samples = size_t(plan.samples.width) * size_t(rows) * k;
    const size_t frame_at = size_t(y0) * k * plan.samples.width;
    size_t at = 0;
    rows_done_ += rows;
    if (job_.deep_coloured) {
        if (bytes.size() != 1 + samples * 4)
            throw std::runtime_error("a piece of the image has " + std::to_string(bytes.size()) + " bytes, not " +
                                     std::to_string(1 + samples * 4));
        ran_ = bytes[0] == 1 ? Precision::DeepFloatExp : Precision::DeepDouble;
        if (!png_stream_)
            png_stream_ = std::make_unique<PngStreamWriter>(job_.request.png_path, plan.view.width, plan.view.height,
                                                            view_to_json(ViewRecord{plan.view, ran_, 1}));
        // The writer takes the rows as one process's StreamedPng gives them, so that the file is
        // its bytes (and write_png's): calls of part_rows() rows while two parts or more are left,
        // then all the rest in one call (finish). Its encoder parts depend on the calls' sizes.
        const size_t row_bytes = size_t(plan.view.width) * 4;
        held_.insert(held_.end(), bytes.begin() + 1, bytes.end());
        held_rows_ += rows;
        const int part = png_stream_->part_rows();
        while (held_rows_ >= part && plan.view.height - rows_written_ >= 2 * part) {
            png_stream_->write_rows(held_.data() + held_from_, part);
            held_from_ += size_t(part) * row_bytes;
            held_rows_ -= part;
            rows_written_ += part;
        }
        if (held_from_ > held_.size() / 2) {  // the written rows' bytes go, now and then
            held_.erase(held_.begin(), held_.begin() + ptrdiff_t(held_from_));
            held_from_ = 0;
        }
        return;
    }
    if (job_.deep) {
        uint8_t type = 0;
        take_values(bytes, &at, 1, &type);
        if (type == 1) ran_ = Precision::DeepFloatExp;
        take_values(bytes, &at, samples, frame_.escape_count.data() + frame_at);
        take_values(bytes, &at, samples, frame_.mu.data() + frame_at);
        if (job_.deep_options.distance) take_values(bytes, &at, samples, frame_.distance.data() + frame_at);
        if (job_.deep_options.atom) take_values(bytes, &at, samples, frame_.atom.data() + frame_at);
        return;
    }
    if (bytes.size() != samples * (npy_stream_ ? 8 : 4))
        throw std::runtime_error("a piece of the image has " + std::to_string(bytes.size()) + " bytes, not " +
                                 std::to_string(samples * (npy_stream_ ? 8 : 4)));
    const uint8_t* rgba = bytes.data();
    if (npy_stream_) npy_stream_->write_rows(reinterpret_cast<const float*>(bytes.data() + samples * 4), int64_t(rows) * k);
    const size_t out_bytes = size_t(plan.view.width) * rows * 4;
    uint8_t* out = png_stream_ ? nullptr : image_.data() + size_t(y0) * plan.view.width * 4;
    if (k > 1) {
        if (png_stream_) {
            filtered_.resize(out_bytes);
            out = filtered_.data();
        }
        box_filter_rgba(rgba, plan.samples.width, k, plan.view.width, rows, out);
        rgba = out;
    } else if (!png_stream_) {
        std::memcpy(out, rgba, out_bytes);
    }
    if (png_stream_) png_stream_->write_rows(rgba, rows);
}

void ClusterImageWriter::finish() {
    const RenderPlan& plan = job_.plan;
    const RenderRequest& request = job_.request;
    const View& view = plan.view;
    if (job_.deep && !job_.deep_coloured) {
        for (const auto& [first, piece] : stored_) take(piece, part_store_read(store_, piece));
        if (rows_done_ != view.height) throw std::runtime_error("the pieces of the image do not cover it");
        write_deep_frame(request, view, plan.samples, plan.table, frame_, ran_);  // the .kfr too
        store_writer_.drop();  // the output is whole: the store goes next
        return;
    }
    write_in_order();
    if (next_unit_ != job_.units) throw std::runtime_error("the pieces of the image do not cover it");
    if (job_.deep_coloured && held_rows_ > 0) {
        png_stream_->write_rows(held_.data() + held_from_, held_rows_);
        rows_written_ += held_rows_;
        held_rows_ = 0;
    }
    if (npy_stream_) npy_stream_->finish();
    if (png_stream_) png_stream_->finish();
    else write_png(request.png_path, image_.data(), view.width, view.height, job_.view_json);
    if (!request.save_location.empty())
        if (std::string error = write_kfr(request.save_location.string(), deep_location(view)); !error.empty())
            throw std::runtime_error(error);
    store_writer_.drop();
}

}  // namespace ms
