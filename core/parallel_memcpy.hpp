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

/// Threads that share one copy by default, the caller included (fewer where the machine has
/// fewer hardware threads). Eight: on the H200 host four threads left a 256 MiB dtoh copy at 18
/// GB/s against the link's 55; set_parallel_memcpy_threads() changes it (PYCUDA_MEMCPY_THREADS).
inline constexpr unsigned k_memcpy_threads = 8;

/// The most threads a copy may be given (the size of the worker pool, plus the caller).
inline constexpr unsigned k_memcpy_max_threads = 16;

/// A copy is split only into parts of at least this many bytes: below it, waking a worker costs
/// more than the copy it would take over.
inline constexpr size_t k_memcpy_min_part = size_t{256} << 10;

/// memcpy(dest, src, bytes) split over up to parallel_memcpy_threads() threads; returns once
/// every byte is copied. The ranges must not overlap. Thread-safe: concurrent calls share the
/// workers (each caller also copies its own parts, so a call never waits on a busy pool to make
/// progress). With `streaming`, the destination is written with non-temporal stores where the
/// CPU has them: no read of each destination line before it is written and no eviction of the
/// program's cache, for a destination too large to stay in cache anyway.
void parallel_memcpy(void* dest, const void* src, size_t bytes, bool streaming = false);

/// The number of threads parallel_memcpy uses now: k_memcpy_threads unless changed, at most
/// the machine's hardware threads, at least 1.
unsigned parallel_memcpy_threads() noexcept;

/// Sets the threads of later copies (clamped to [1, min(k_memcpy_max_threads, hardware)]).
void set_parallel_memcpy_threads(unsigned threads) noexcept;

} // namespace pycuda
