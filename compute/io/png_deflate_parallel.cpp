// png_deflate_parallel.cpp: the host emulation of the GPU's deflate (png_encode_cuda.h): the
// phases of png_deflate_parallel.h run for each of a segment's kPngDeflateThreads "threads" in
// turn, in the order the GPU's barriers impose, so its bytes are the GPU's bytes.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "compute/io/png_deflate_parallel.h"
#include "compute/io/png_encode.h"
#include "compute/io/png_encode_cuda.h"

namespace ms {

using namespace pdeflate;

void png_deflate_segment_emulated(const uint8_t* data, size_t n, std::vector<uint8_t>* out, uint32_t* adler) {
    constexpr int T = kPngDeflateThreads;
    const int threads = chunk_threads(n);
    auto lo = [&](int t) { return chunk_start(n, t, threads); };
    // Phase 1a: each thread's greedy parse, tokens stored by position; its Adler-32 sums.
    // Phase 0: the match masks.
    std::vector<uint32_t> eq1(mask_words(n)), eq3(mask_words(n));
    for (size_t w = 0; w < mask_words(n); ++w) mask_word(data, n, w, eq1.data(), eq3.data());
    std::vector<uint16_t> tokens(n);
    std::vector<size_t> end(T), start(T + 1);
    uint32_t a_sum = 0, b_sum = 0;  // the threads' Adler-32 terms, summed as the GPU's reduction sums them
    for (int t = 0; t < T; ++t) {
        end[size_t(t)] = parse_chunk(data, eq1.data(), eq3.data(), lo(t), lo(t + 1), n, tokens.data());
        const AdlerPart term = adler_term(adler_part(data, lo(t), lo(t + 1)), n - lo(t + 1));
        a_sum += term.a;
        b_sum += term.b;
    }
    *adler = adler_from_terms(a_sum, b_sum, n);
    // Phase 1b: each thread's parse joined to the next one's.
    start[0] = 0;
    const uint16_t* read = tokens.data();
    for (int t = 0; t < T; ++t)
        start[size_t(t) + 1] = t + 1 < threads ? join_chunks(data, eq1.data(), eq3.data(), lo(t + 1), end[size_t(t)],
                                                             read, tokens.data())
                                               : n;
    auto walk = [&](int t, auto visit) {
        if (t < threads) walk_tokens(read, start[size_t(t)], start[size_t(t) + 1], visit);
    };

    // Phase 2: the counts, and the block's plan.
    std::vector<uint32_t> histogram(kTokenSymbols, 0);
    for (int t = 0; t < T; ++t) walk(t, [&](uint16_t token) { ++histogram[token]; });
    uint32_t lit_freq[kLitLenSymbols] = {}, dist_freq[kDistSymbols] = {};
    for (int s = 0; s < kTokenSymbols; ++s)
        fold_token_count(s, histogram[size_t(s)], lit_freq, dist_freq,
                         [](uint32_t* counter, uint32_t c) { *counter += c; });
    auto plan = std::make_unique<BlockPlan>();
    auto scratch = std::make_unique<HuffmanScratch>();
    plan_block(lit_freq, dist_freq, n, *plan, *scratch);

    std::vector<uint32_t> words(segment_slot_bytes(n) / 4, 0);
    uint8_t* const bytes = reinterpret_cast<uint8_t*>(words.data());
    size_t size = 0;
    if (plan->stored) {
        stored_headers(n, bytes);
        for (int t = 0; t < T; ++t) stored_copy(data, lo(t), lo(t + 1), bytes);
        size = stored_size(n);
    } else {
        // Phases 3 and 4: the header, each thread's bits behind the ones before; then the end.
        std::vector<uint32_t> table(kTokenSymbols);
        for (int s = 0; s < kTokenSymbols; ++s) table[size_t(s)] = token_code(*plan, s);
        WordSink header(words.data(), 0, plan->header_bits);
        write_header(*plan, header);
        header.flush();
        uint64_t offset = plan->header_bits;
        for (int t = 0; t < T; ++t) {
            uint64_t bits = 0;
            walk(t, [&](uint16_t token) { bits += table[token] & 31; });
            WordSink sink(words.data(), offset, bits);
            walk(t, [&](uint16_t token) { sink.put(table[token] >> 5, table[token] & 31); });
            sink.flush();
            offset += bits;
        }
        const uint32_t eob = table[kEndOfBlock];
        WordSink last(words.data(), offset, eob & 31);
        last.put(eob >> 5, eob & 31);
        last.flush();
        offset += eob & 31;
        if (offset != plan->total_bits) throw std::logic_error("png_deflate_segment_emulated: the bits do not add up");
        size = end_segment(words.data(), offset);
    }
    out->insert(out->end(), bytes, bytes + size);
}

uint32_t png_segment_crc_emulated(const uint8_t* bytes, size_t n) {
    uint32_t table[256];
    for (uint32_t b = 0; b < 256; ++b) table[b] = crc32_table_entry(b);
    uint32_t crc = 0;
    for (int t = 0; t < kPngDeflateThreads; ++t) {
        const size_t lo = crc_part_start(n, t, kPngDeflateThreads), hi = crc_part_start(n, t + 1, kPngDeflateThreads);
        crc ^= crc32_shift(crc32_part(bytes, lo, hi, table), n - hi);
    }
    return crc;
}

void png_encode_rows_emulated(const uint8_t* rgba, const uint8_t* above_rgba, int width, int rows,
                              std::vector<uint8_t>* bytes, std::vector<uint32_t>* segment_bytes,
                              std::vector<uint32_t>* segment_adler, std::vector<uint32_t>* segment_crc) {
    bytes->clear();
    segment_bytes->clear();
    segment_adler->clear();
    if (segment_crc) segment_crc->clear();
    if (rows <= 0) return;
    const size_t row_bytes = size_t(width) * 3 + 1;
    const int rows_per_segment = png_rows_per_segment(width, rows);
    std::vector<uint8_t> filtered;
    for (int first = 0; first < rows; first += rows_per_segment) {
        const int count = std::min(rows_per_segment, rows - first);
        filtered.resize(size_t(count) * row_bytes);
        for (int r = 0; r < count; ++r) {
            const uint8_t* row = rgba + size_t(first + r) * size_t(width) * 4;
            const uint8_t* above = first + r == 0 ? above_rgba : row - size_t(width) * 4;
            png_filter_row_reference(row, above, width, filtered.data() + size_t(r) * row_bytes);
        }
        const size_t before = bytes->size();
        uint32_t adler = 1;
        png_deflate_segment_emulated(filtered.data(), filtered.size(), bytes, &adler);
        segment_bytes->push_back(uint32_t(bytes->size() - before));
        segment_adler->push_back(adler);
        if (segment_crc)
            segment_crc->push_back(png_segment_crc_emulated(bytes->data() + before, bytes->size() - before));
    }
}

}  // namespace ms
