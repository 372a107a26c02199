// core/parallel_memcpy.hpp: one large host memcpy shared by a few threads (the caller and a
// small pool of workers), for the copies into and out of page-locked staging buffers.
//
// One thread does not fill a PCIe 5 link: a single-threaded memcpy of cold pageable memory runs
// at roughly 8-15 GB/s on server CPUs, the link at ~55 GB/s. Splitting each copy over a few
// threads lets the host side keep up with the DMA it overlaps with (core/staged_copy.hpp).
// Only plain memory is touched here: no CUDA call, no Python.
#pragma once

#include <cstddef>

namespace pycuda {

/// Threads that share one copy, the caller included (fewer where the machine has fewer cores).
/// Four: enough memory-level parallelism to outrun the link on current servers without taking
/// every core from the program; the lead tunes it on the GPU host.
inline constexpr unsigned k_memcpy_threads = 4;

/// A copy is split only into parts of at least this many bytes: below it, waking a worker costs
/// more than the copy it would take over.
inline constexpr size_t k_memcpy_min_part = size_t{256} << 10;

/// memcpy(dest, src, bytes) split over up to k_memcpy_threads threads; returns once every byte
/// is copied. The ranges must not overlap. Thread-safe: concurrent calls share the workers (each
/// caller also copies its own parts, so a call never waits on a busy pool to make progress).
void parallel_memcpy(void* dest, const void* src, size_t bytes);

/// The number of threads parallel_memcpy may use: k_memcpy_threads, at most the machine's
/// hardware threads, at least 1.
unsigned parallel_memcpy_threads() noexcept;

} // namespace pycuda
