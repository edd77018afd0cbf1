// exr_write.cpp: Kalles Fraktaler's EXR layout through OpenEXR (exr_write.h).
#include "compute/io/exr_write.h"

#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfInputFile.h>
#include <ImfIntAttribute.h>
#include <ImfOutputFile.h>
#include <ImfStringAttribute.h>

#include <climits>
#include <cmath>
#include <exception>

namespace ms {

namespace {

namespace IMF = OPENEXR_IMF_NAMESPACE;
constexpr char kKfAttribute[] = "KallesFraktaler2+";
constexpr uint32_t kInside = 0xFFFFFFFFu;
// log2(ln 256): compute/fractal/maths/escape.h's kLog2LnBailout (io/ sits below fractal/, so it
// is written out here; tests/io/test_exr_write.cpp holds the two equal).
constexpr double kLog2LnBailout = 2.4712336270551023;

// An attribute that KF writes as an int where it fits and as decimal text past that.
int64_t read_int_attribute(const IMF::Header& header, const char* name, int64_t fallback) {
    if (const auto* a = header.findTypedAttribute<IMF::IntAttribute>(name)) return a->value();
    if (const auto* s = header.findTypedAttribute<IMF::StringAttribute>(name)) return std::atoll(s->value().c_str());
    return fallback;
}

}  // namespace

float exr_smooth_fraction(int64_t n, double mu) {
    if (n < 0 || mu < 0.0) return 0.0f;
    const double f = mu + kLog2LnBailout - double(n);
    // Below 1 as a float too (the next iteration's 0 is the count's).
    return f <= 0.0 ? 0.0f : f < 1.0 ? std::fmin(float(f), 0.99999994f) : 0.99999994f;
}

std::string write_exr(const std::string& path, const ExrFrame& frame) {
    if (frame.width < 1 || frame.height < 1 || !frame.escape_count || !frame.mu)
        return "The EXR frame needs a size and its escape counts and smooth values.";
    const size_t pixels = size_t(frame.width) * size_t(frame.height);
    // Two 32-bit halves where the biased count may not fit one (KF's rule).
    const bool two_words = frame.max_iterations + kExrIterationsBias >= int64_t(0xFFFFFFFFll);
    std::vector<uint32_t> n0(pixels), n1(two_words ? pixels : 0);
    std::vector<float> nf(pixels), dex(frame.distance ? pixels : 0), dey(frame.distance ? pixels : 0);
    for (size_t i = 0; i < pixels; ++i) {
        const int64_t n = frame.escape_count[i];
        if (n < 0) {
            n0[i] = kInside;
            if (two_words) n1[i] = kInside;
            nf[i] = 0.0f;
        } else {
            const uint64_t biased = uint64_t(n) + uint64_t(kExrIterationsBias);
            n0[i] = uint32_t(biased & 0xFFFFFFFFu);
            if (two_words) n1[i] = uint32_t(biased >> 32);
            nf[i] = exr_smooth_fraction(n, frame.mu[i]);
        }
        if (frame.distance) {
            dex[i] = n < 0 ? 0.0f : frame.distance[i];
            dey[i] = 0.0f;
        }
    }
    try {
        IMF::Header header(frame.width, frame.height);
        header.compression() = IMF::ZIPS_COMPRESSION;
        if (!frame.kfr_text.empty()) header.insert(kKfAttribute, IMF::StringAttribute(frame.kfr_text));
        if (frame.max_iterations + kExrIterationsBias < INT_MAX - 1)
            header.insert("Iterations", IMF::IntAttribute(int(frame.max_iterations)));
        else
            header.insert("Iterations", IMF::StringAttribute(std::to_string(frame.max_iterations)));
        header.insert("IterationsBias", IMF::IntAttribute(int(kExrIterationsBias)));
        IMF::FrameBuffer buffer;
        auto add = [&](const char* name, IMF::PixelType type, void* data, size_t bytes) {
            header.channels().insert(name, IMF::Channel(type));
            buffer.insert(name, IMF::Slice(type, static_cast<char*>(data), bytes, bytes * size_t(frame.width)));
        };
        if (two_words) {
            add("N0", IMF::UINT, n0.data(), sizeof(uint32_t));
            add("N1", IMF::UINT, n1.data(), sizeof(uint32_t));
        } else {
            add("N", IMF::UINT, n0.data(), sizeof(uint32_t));
        }
        add("NF", IMF::FLOAT, nf.data(), sizeof(float));
        if (frame.distance) {
            add("DEX", IMF::FLOAT, dex.data(), sizeof(float));
            add("DEY", IMF::FLOAT, dey.data(), sizeof(float));
        }
        IMF::OutputFile file(path.c_str(), header);
        file.setFrameBuffer(buffer);
        file.writePixels(frame.height);
    } catch (const std::exception& e) {
        std::string what = e.what();
        if (!what.empty() && what.back() == '.') what.pop_back();
        return "Could not write the EXR file " + path + " (" + what + ").";
    }
    return "";
}

std::string read_exr(const std::string& path, ExrRawImage* out) {
    try {
        IMF::InputFile file(path.c_str());
        const IMF::Header& header = file.header();
        const auto window = header.dataWindow();
        const int width = window.max.x - window.min.x + 1, height = window.max.y - window.min.y + 1;
        const size_t pixels = size_t(width) * size_t(height);
        *out = ExrRawImage{};
        out->width = width;
        out->height = height;
        out->max_iterations = read_int_attribute(header, "Iterations", 0);
        out->bias = read_int_attribute(header, "IterationsBias", kExrIterationsBias);
        if (const auto* s = header.findTypedAttribute<IMF::StringAttribute>(kKfAttribute)) out->kfr_text = s->value();
        const bool two_words = header.channels().findChannel("N0") != nullptr;
        const bool has_de = header.channels().findChannel("DEX") != nullptr;
        std::vector<uint32_t> n0(pixels), n1(two_words ? pixels : 0);
        out->nf.assign(pixels, 0.0f);
        if (has_de) {
            out->dex.assign(pixels, 0.0f);
            out->dey.assign(pixels, 0.0f);
        }
        IMF::FrameBuffer buffer;
        // The data window may not start at (0, 0): OpenEXR addresses slices from there.
        const ptrdiff_t origin = ptrdiff_t(window.min.x) + ptrdiff_t(window.min.y) * width;
        auto add = [&](const char* name, IMF::PixelType type, void* data, size_t bytes) {
            char* base = static_cast<char*>(data) - origin * ptrdiff_t(bytes);
            buffer.insert(name, IMF::Slice(type, base, bytes, bytes * size_t(width)));
        };
        add(two_words ? "N0" : "N", IMF::UINT, n0.data(), sizeof(uint32_t));
        if (two_words) add("N1", IMF::UINT, n1.data(), sizeof(uint32_t));
        add("NF", IMF::FLOAT, out->nf.data(), sizeof(float));
        if (has_de) {
            add("DEX", IMF::FLOAT, out->dex.data(), sizeof(float));
            add("DEY", IMF::FLOAT, out->dey.data(), sizeof(float));
        }
        file.setFrameBuffer(buffer);
        file.readPixels(window.min.y, window.max.y);
        out->escape_count.resize(pixels);
        for (size_t i = 0; i < pixels; ++i) {
            const bool inside = n0[i] == kInside && (!two_words || n1[i] == kInside);
            const int64_t biased = int64_t(n0[i]) | (two_words ? int64_t(n1[i]) << 32 : 0);
            out->escape_count[i] = inside ? -1 : biased - out->bias;
        }
    } catch (const std::exception& e) {
        std::string what = e.what();
        if (!what.empty() && what.back() == '.') what.pop_back();
        return "Could not read the EXR file " + path + " (" + what + ").";
    }
    return "";
}

}  // namespace ms
