// deep_bla_cuda.h: the BLA table (deep_bla.h) built on the GPU, deep_cuda's sibling of the CPU's
// build_bla_table. Level 0 comes from the reference orbit already on the device (one thread per
// step), then each level from the one below (one launch per level, one thread per entry), through
// deep_bla.h's per-entry functions, the ones the CPU build runs: no FMA contraction on either side
// (--fmad=false, -ffp-contract=off) and IEEE +, -, *, /, sqrt on both, so the device table equals
// the CPU's bit for bit (tests/fractal/deep/test_deep_bla_cuda.cpp holds them to it, entry by entry).
// The table never crosses the bus: it is built where the pixels read it, and deep_cuda keeps it in
// the ReferenceCache beside its orbit (a DeviceBlaTable is the cached object), under the same
// rules as a host table (deep_frame_bla).
//
//   build_bla_table_cuda         complex tables (the Mandelbrot set, the Multibrots, their Julia sets)
//   build_bla_table_matrix_cuda  2x2 real matrices (the Tricorn, the Burning Ship)
//   copy_bla_table_to_host       a device table's entries on the host (tests)
//   DeviceOrbit                  an orbit copied to the device (tests and the benchmark)
//   upload_bla_table_ms          a host table copied to the device and freed: what deep_cuda did
//                                before building on the GPU (the benchmark's baseline)
// DeviceOrbit throws std::runtime_error with a sentence where CUDA cannot run (deep_cuda checks
// before it builds); every function throws std::runtime_error on a CUDA error.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "compute/fractal/deep/deep_bla.h"

namespace ms {

// A table in device memory, freed with the object. view.entries points into the device; the
// level offsets and sizes are the CPU table's for the same orbit.
template <typename T, typename L = DeepComplex<T>>
class DeviceBlaTable {
public:
    BlaView<T, L> view;       // entries: device memory
    int64_t steps = 0;        // level-0 entries
    size_t bytes = 0;         // of the entries
    int device = -1;          // the CUDA device holding it
    double build_ms = 0.0;    // wall time: allocation, launches and the wait for them
    double kernels_ms = 0.0;  // the kernels alone (CUDA events)
    void* memory = nullptr;   // the allocation behind view.entries, freed by the destructor

    DeviceBlaTable() = default;
    ~DeviceBlaTable();
    DeviceBlaTable(const DeviceBlaTable&) = delete;
    DeviceBlaTable& operator=(const DeviceBlaTable&) = delete;
};

// The table for Z_0..Z_last (z_device: the orbit in device memory) of z^degree + c and frames whose
// |dc| <= max_dc, built on `stream` (a cudaStream_t; null: the default stream) and complete on
// return (another stream may read it at once). Null when `cancel` was set (polled between levels);
// a table with no levels where the orbit is too short for one step (as build_bla_table).
template <typename T>
std::shared_ptr<DeviceBlaTable<T>> build_bla_table_cuda(const DeepComplex<T>* z_device, int64_t last_index, T max_dc,
                                                        double epsilon, int degree, void* stream,
                                                        const std::atomic<bool>* cancel = nullptr);
// The same for the Tricorn (burning_ship false) or the Burning Ship.
template <typename T>
std::shared_ptr<DeviceBlaTable<T, DeepMatrix<T>>> build_bla_table_matrix_cuda(
    const DeepComplex<T>* z_device, int64_t last_index, T max_dc, double epsilon, bool burning_ship, void* stream,
    const std::atomic<bool>* cancel = nullptr);

// The device table's entries, levels and radii in *host (as build_bla_table fills it).
template <typename T, typename L>
void copy_bla_table_to_host(const DeviceBlaTable<T, L>& device, BlaTable<T, L>* host);

// An orbit (or any array of DeepComplex<T>) copied to the device, freed with the object.
template <typename T>
class DeviceOrbit {
public:
    DeviceOrbit(const DeepComplex<T>* z, size_t count);
    ~DeviceOrbit();
    DeviceOrbit(const DeviceOrbit&) = delete;
    DeviceOrbit& operator=(const DeviceOrbit&) = delete;
    const DeepComplex<T>* data() const { return data_; }
    double copy_ms = 0.0;  // allocation and copy, wall time

private:
    DeepComplex<T>* data_ = nullptr;
};

// Copies the host table's entries to a new device allocation (pageable memory, as deep_cuda's
// device cache copies a host table), waits, frees it; returns the milliseconds of the allocation
// and the copy.
template <typename T, typename L>
double upload_bla_table_ms(const BlaTable<T, L>& table);

// The instantiations deep_bla_cuda.cu and its CPU-only stand-in (deep_bla_cuda_nocuda.cpp) both
// provide, for T = double and FloatExp.
#define MS_DEEP_BLA_CUDA_INSTANTIATE(T)                                                                            \
    template class DeviceBlaTable<T, DeepComplex<T>>;                                                              \
    template class DeviceBlaTable<T, DeepMatrix<T>>;                                                               \
    template class DeviceOrbit<T>;                                                                                 \
    template std::shared_ptr<DeviceBlaTable<T>> build_bla_table_cuda<T>(const DeepComplex<T>*, int64_t, T, double, \
                                                                        int, void*, const std::atomic<bool>*);     \
    template std::shared_ptr<DeviceBlaTable<T, DeepMatrix<T>>> build_bla_table_matrix_cuda<T>(                     \
        const DeepComplex<T>*, int64_t, T, double, bool, void*, const std::atomic<bool>*);                         \
    template void copy_bla_table_to_host(const DeviceBlaTable<T, DeepComplex<T>>&, BlaTable<T, DeepComplex<T>>*);  \
    template void copy_bla_table_to_host(const DeviceBlaTable<T, DeepMatrix<T>>&, BlaTable<T, DeepMatrix<T>>*);    \
    template double upload_bla_table_ms(const BlaTable<T, DeepComplex<T>>&);                                       \
    template double upload_bla_table_ms(const BlaTable<T, DeepMatrix<T>>&);

}  // namespace ms
