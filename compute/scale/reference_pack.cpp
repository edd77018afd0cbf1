// reference_pack.cpp: a ReferenceOrbit as bytes and back (see reference_pack.h for the layout
// and why each Z_m travels once, as 8 bytes a coordinate).
#include "compute/scale/reference_pack.h"

#include <zlib.h>

#include <cstring>

namespace ms {

namespace {

constexpr char kMagic[4] = {'M', 'S', 'R', 'O'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kFlagCompressed = 1;
constexpr uint32_t kFlagShuffled = 2;
constexpr size_t kHeaderBytes = 12;

// --- writing ---------------------------------------------------------------------------------

struct Writer {
    std::vector<uint8_t> bytes;

    void u8(uint8_t v) { bytes.push_back(v); }
    void u32(uint32_t v) {
        for (int i = 0; i < 4; ++i) bytes.push_back(uint8_t(v >> (8 * i)));
    }
    void u64(uint64_t v) {
        for (int i = 0; i < 8; ++i) bytes.push_back(uint8_t(v >> (8 * i)));
    }
    void varint(uint64_t v) {
        while (v >= 0x80) {
            bytes.push_back(uint8_t(v | 0x80));
            v >>= 7;
        }
        bytes.push_back(uint8_t(v));
    }
    void signed_varint(int64_t v) { varint((uint64_t(v) << 1) ^ uint64_t(v >> 63)); }  // zigzag
    void f64(double v) { u64(fe_bits(v)); }
    void floatexp(FloatExp v) {
        f64(v.mantissa);
        signed_varint(v.exponent);
    }
    void text(const std::string& s) {
        varint(s.size());
        bytes.insert(bytes.end(), s.begin(), s.end());
    }
};

// Whether the FloatExp is exactly the double it rounds to, read back (every normalised value in
// double's normal range, and zero).
bool travels_as_double(FloatExp v) {
    const FloatExp back = fe_from_double(fe_to_double(v));
    return fe_bits(back.mantissa) == fe_bits(v.mantissa) && back.exponent == v.exponent;
}

// The coordinates re, im of each value in order: 2 n FloatExp.
void write_orbit(Writer* w, const std::vector<DeepComplex<FloatExp>>& values, bool shuffle) {
    const size_t n = values.size();
    w->varint(n);
    auto coordinate = [&](size_t i) { return i % 2 == 0 ? values[i / 2].re : values[i / 2].im; };
    std::vector<size_t> exceptions;
    for (size_t i = 0; i < 2 * n; ++i) {
        if (!travels_as_double(coordinate(i))) exceptions.push_back(i);
    }
    w->varint(exceptions.size());
    size_t last = 0;
    for (size_t i : exceptions) {
        w->varint(i - last);
        w->floatexp(coordinate(i));
        last = i;
    }
    // The doubles (0 where an exception stands), whole or as eight byte planes.
    const size_t start = w->bytes.size();
    w->bytes.resize(start + 16 * n);
    uint8_t* out = w->bytes.data() + start;
    size_t next_exception = 0;
    for (size_t i = 0; i < 2 * n; ++i) {
        uint64_t bits = 0;
        if (next_exception < exceptions.size() && exceptions[next_exception] == i) {
            ++next_exception;
        } else {
            bits = fe_bits(fe_to_double(coordinate(i)));
        }
        for (int b = 0; b < 8; ++b) {
            const uint8_t byte = uint8_t(bits >> (8 * b));
            if (shuffle) {
                out[size_t(b) * 2 * n + i] = byte;
            } else {
                out[8 * i + size_t(b)] = byte;
            }
        }
    }
}

// Whether the double copy is fe_to_double of the FloatExp copy, value for value.
bool doubles_follow(const std::vector<DeepComplex<double>>& z, const std::vector<DeepComplex<FloatExp>>& z_fe) {
    if (z.size() != z_fe.size()) return false;
    for (size_t i = 0; i < z.size(); ++i) {
        if (fe_bits(z[i].re) != fe_bits(fe_to_double(z_fe[i].re))) return false;
        if (fe_bits(z[i].im) != fe_bits(fe_to_double(z_fe[i].im))) return false;
    }
    return true;
}

void write_doubles(Writer* w, const std::vector<DeepComplex<double>>& z) {
    w->varint(z.size());
    for (const DeepComplex<double>& v : z) {
        w->f64(v.re);
        w->f64(v.im);
    }
}

// --- reading ---------------------------------------------------------------------------------

struct Reader {
    const uint8_t* data;
    size_t size;
    size_t at = 0;
    bool ok = true;

    size_t left() const { return size - at; }
    bool need(size_t n) {
        if (!ok || left() < n) ok = false;
        return ok;
    }
    uint8_t u8() { return need(1) ? data[at++] : 0; }
    uint32_t u32() {
        if (!need(4)) return 0;
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= uint32_t(data[at++]) << (8 * i);
        return v;
    }
    uint64_t u64() {
        if (!need(8)) return 0;
        uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v |= uint64_t(data[at++]) << (8 * i);
        return v;
    }
    uint64_t varint() {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            const uint8_t byte = u8();
            if (!ok) return 0;
            v |= uint64_t(byte & 0x7f) << shift;
            if (!(byte & 0x80)) return v;
        }
        ok = false;
        return 0;
    }
    int64_t signed_varint() {
        const uint64_t v = varint();
        return int64_t(v >> 1) ^ -int64_t(v & 1);
    }
    double f64() { return fe_from_bits(u64()); }
    FloatExp floatexp() {
        FloatExp v;
        v.mantissa = f64();
        v.exponent = signed_varint();
        return v;
    }
    std::string text() {
        const uint64_t n = varint();
        if (!need(n)) return {};
        std::string s(reinterpret_cast<const char*>(data + at), size_t(n));
        at += n;
        return s;
    }
};

bool read_orbit(Reader* r, bool shuffle, std::vector<DeepComplex<FloatExp>>* z_fe, std::vector<DeepComplex<double>>* z) {
    const uint64_t n = r->varint();
    if (!r->ok || n > r->left() / 16) return false;  // each value takes 16 bytes
    const uint64_t exception_count = r->varint();
    if (!r->ok || exception_count > 2 * n) return false;
    std::vector<std::pair<size_t, FloatExp>> exceptions(exception_count);
    size_t last = 0;
    for (auto& [index, value] : exceptions) {
        index = last + size_t(r->varint());
        value = r->floatexp();
        if (!r->ok || index >= 2 * n) return false;
        last = index;
    }
    if (!r->need(16 * n)) return false;
    const uint8_t* in = r->data + r->at;
    r->at += 16 * n;
    z_fe->resize(n);
    z->resize(n);
    size_t next_exception = 0;
    for (size_t i = 0; i < 2 * n; ++i) {
        FloatExp value;
        if (next_exception < exceptions.size() && exceptions[next_exception].first == i) {
            value = exceptions[next_exception++].second;
        } else {
            uint64_t bits = 0;
            for (int b = 0; b < 8; ++b) {
                const uint8_t byte = shuffle ? in[size_t(b) * 2 * n + i] : in[8 * i + size_t(b)];
                bits |= uint64_t(byte) << (8 * b);
            }
            value = fe_from_double(fe_from_bits(bits));
        }
        (i % 2 == 0 ? (*z_fe)[i / 2].re : (*z_fe)[i / 2].im) = value;
        (i % 2 == 0 ? (*z)[i / 2].re : (*z)[i / 2].im) = fe_to_double(value);
    }
    return true;
}

bool read_doubles(Reader* r, std::vector<DeepComplex<double>>* z) {
    const uint64_t n = r->varint();
    if (!r->ok || n > r->left() / 16) return false;
    z->resize(n);
    for (DeepComplex<double>& v : *z) {
        v.re = r->f64();
        v.im = r->f64();
    }
    return r->ok;
}

bool same_floatexp(FloatExp a, FloatExp b) {
    return fe_bits(a.mantissa) == fe_bits(b.mantissa) && a.exponent == b.exponent;
}

template <typename T>
bool same_values(const std::vector<DeepComplex<T>>& a, const std::vector<DeepComplex<T>>& b) {
    if (a.size() != b.size()) return false;
    return a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(DeepComplex<T>)) == 0;
}

}  // namespace

std::vector<uint8_t> pack_reference_orbit(const ReferenceOrbit& orbit, const ReferencePackOptions& options) {
    const bool shuffle = options.compress && options.shuffle;  // planes help zlib alone
    Writer body;
    body.text(orbit.center_re);
    body.text(orbit.center_im);
    body.u8(uint8_t(orbit.map.formula));
    body.u8(orbit.map.julia ? 1 : 0);
    body.text(orbit.map.julia_re);
    body.text(orbit.map.julia_im);
    body.signed_varint(orbit.precision_bits);
    body.signed_varint(orbit.max_iterations);
    body.u8(orbit.escaped ? 1 : 0);
    body.u8(orbit.critical_escaped ? 1 : 0);
    body.signed_varint(orbit.period);
    body.floatexp(orbit.nucleus_distance);
    body.floatexp(orbit.min_abs);
    body.f64(orbit.compute_ms);
    const bool follow = doubles_follow(orbit.z, orbit.z_fe) && doubles_follow(orbit.critical_z, orbit.critical_z_fe);
    body.u8(follow ? 1 : 0);
    write_orbit(&body, orbit.z_fe, shuffle);
    write_orbit(&body, orbit.critical_z_fe, shuffle);
    if (!follow) {
        write_doubles(&body, orbit.z);
        write_doubles(&body, orbit.critical_z);
    }

    Writer out;
    out.bytes.insert(out.bytes.end(), kMagic, kMagic + 4);
    out.u32(kVersion);
    out.u32((options.compress ? kFlagCompressed : 0) | (shuffle ? kFlagShuffled : 0));
    if (!options.compress) {
        out.bytes.insert(out.bytes.end(), body.bytes.begin(), body.bytes.end());
        return std::move(out.bytes);
    }
    out.u64(body.bytes.size());
    const size_t start = out.bytes.size();
    uLongf compressed = compressBound(uLong(body.bytes.size()));
    out.bytes.resize(start + compressed);
    if (compress2(out.bytes.data() + start, &compressed, body.bytes.data(), uLong(body.bytes.size()),
                  options.zlib_level) != Z_OK) {
        // Only a bad level or no memory fail here; the body then travels as it is.
        ReferencePackOptions plain = options;
        plain.compress = false;
        return pack_reference_orbit(orbit, plain);
    }
    out.bytes.resize(start + compressed);
    return std::move(out.bytes);
}

std::string unpack_reference_orbit(const uint8_t* data, size_t size, ReferenceOrbit* out) {
    if (size < kHeaderBytes || std::memcmp(data, kMagic, 4) != 0) return "These bytes are not a packed reference orbit.";
    Reader header{data, size};
    header.at = 4;
    const uint32_t version = header.u32();
    const uint32_t flags = header.u32();
    if (version != kVersion) {
        return "The packed reference orbit is of version " + std::to_string(version) + "; this build reads version " +
               std::to_string(kVersion) + ".";
    }
    std::vector<uint8_t> inflated;
    Reader r{data + kHeaderBytes, size - kHeaderBytes};
    if (flags & kFlagCompressed) {
        const uint64_t raw = header.u64();
        // zlib expands at most ~1032:1; a larger claim is a damaged header, not an allocation to try.
        if (!header.ok || raw / 1032 > size) return "The packed reference orbit is cut short.";
        inflated.resize(size_t(raw));
        uLongf length = uLongf(raw);
        if (uncompress(inflated.data(), &length, data + header.at, uLong(size - header.at)) != Z_OK || length != raw) {
            return "The packed reference orbit's compressed bytes are damaged.";
        }
        r = Reader{inflated.data(), inflated.size()};
    }
    const bool shuffle = (flags & kFlagShuffled) != 0;

    ReferenceOrbit orbit;
    orbit.center_re = r.text();
    orbit.center_im = r.text();
    orbit.map.formula = Formula(r.u8());
    orbit.map.julia = r.u8() != 0;
    orbit.map.julia_re = r.text();
    orbit.map.julia_im = r.text();
    orbit.precision_bits = r.signed_varint();
    orbit.max_iterations = r.signed_varint();
    orbit.escaped = r.u8() != 0;
    orbit.critical_escaped = r.u8() != 0;
    orbit.period = r.signed_varint();
    orbit.nucleus_distance = r.floatexp();
    orbit.min_abs = r.floatexp();
    orbit.compute_ms = r.f64();
    const bool follow = r.u8() != 0;
    if (!r.ok || int(orbit.map.formula) >= kFormulaCount) return "The packed reference orbit is cut short.";
    if (!read_orbit(&r, shuffle, &orbit.z_fe, &orbit.z) ||
        !read_orbit(&r, shuffle, &orbit.critical_z_fe, &orbit.critical_z)) {
        return "The packed reference orbit is cut short.";
    }
    if (!follow && !(read_doubles(&r, &orbit.z) && read_doubles(&r, &orbit.critical_z))) {
        return "The packed reference orbit is cut short.";
    }
    if (r.left() != 0) return "The packed reference orbit has bytes past its end.";
    *out = std::move(orbit);
    return "";
}

bool reference_orbits_identical(const ReferenceOrbit& a, const ReferenceOrbit& b) {
    // The map field by field: OrbitMap's == ignores the Julia c of a parameter-plane map.
    return a.center_re == b.center_re && a.center_im == b.center_im && a.map.formula == b.map.formula &&
           a.map.julia == b.map.julia && a.map.julia_re == b.map.julia_re && a.map.julia_im == b.map.julia_im &&
           a.precision_bits == b.precision_bits && a.max_iterations == b.max_iterations && a.escaped == b.escaped &&
           a.period == b.period && same_floatexp(a.nucleus_distance, b.nucleus_distance) &&
           a.critical_escaped == b.critical_escaped && same_floatexp(a.min_abs, b.min_abs) &&
           fe_bits(a.compute_ms) == fe_bits(b.compute_ms) && same_values(a.z, b.z) && same_values(a.z_fe, b.z_fe) &&
           same_values(a.critical_z, b.critical_z) && same_values(a.critical_z_fe, b.critical_z_fe);
}

}  // namespace ms
