// core/staged_copy.hpp: synchronous copies between pageable host memory and the device, through
// reusable page-locked staging buffers, chunked so that host memcpy and DMA overlap.
//
// The driver copies pageable memory through its own small staging area, one piece at a time,
// and reaches ~8-15 GB/s where page-locked memory reaches ~55 GB/s (H100, PCIe 5). Here each
// context keeps a few page-locked buffers (allocated on first use, freed with the context): an
// htod copy fills buffer k+1 with host threads (core/parallel_memcpy.hpp) while the DMA of
// chunk k runs from buffer k, and a dtoh copy lets the DMA of chunk k+1 run while chunk k is
// copied out. The copies are queued on the legacy default stream, as cuMemcpyHtoD/DtoH run, so
// they wait for the same earlier work (kernels on the default stream or any blocking stream);
// they return when the whole copy is done.
//
// Small copies, and memory the driver already knows (page-locked, registered, managed), take
// the plain driver call. Async copies from pageable memory are not staged (core/memcpy.hpp).
#pragma once

#include "core/driver_api.hpp"

#include <cstddef>
#include <utility>

namespace pycuda {

/// Copies below this many bytes call the driver directly: one chunk could not overlap
/// anything, and the driver's own path costs less than our set-up there. The lead tunes it
/// (1-4 MiB is the range where the two cross on an H100).
inline constexpr size_t k_staging_threshold = size_t{1} << 20;

/// Bytes of each page-locked staging buffer, the largest chunk. 8 MiB: ~150 us of DMA at 55
/// GB/s, long against the ~10 us a chunk costs in driver calls and thread hand-offs.
inline constexpr size_t k_staging_buffer_bytes = size_t{8} << 20;

/// Staging buffers per context: two overlap host copy and DMA; a third absorbs the jitter of
/// either side. Per context at most k_staging_buffers * k_staging_buffer_bytes are held.
inline constexpr unsigned k_staging_buffers = 3;

/// A copy is cut into at least this many chunks where that keeps chunks at least
/// k_staging_min_chunk bytes, so that the first chunk's host copy and the last one's DMA
/// (which nothing overlaps) are not the whole time. Two: each chunk also costs ~20 us of driver
/// calls and hand-offs, and on the H200 host a 4 MiB copy took 250/238 us (htod/dtoh) in two
/// chunks, 300/285 in four and 370/320 in eight (benchmarks/transfers.py's InOut row: 498,
/// 640 and 730 us).
inline constexpr unsigned k_staging_min_chunks = 2;
inline constexpr size_t k_staging_min_chunk = size_t{512} << 10;

/// dtoh copies of at least this many bytes write the program's array with non-temporal stores
/// (core/parallel_memcpy.hpp): an array this large does not stay in cache, and ordinary stores
/// first read every line they write. 32 MiB: below it the array may well be read again from
/// cache. set_staging_streaming_min() changes it (benchmarks/transfers.py --sweep).
inline constexpr size_t k_staging_streaming_min = size_t{32} << 20;

size_t staging_streaming_min() noexcept;

/// The chunking of later staged copies: at least `chunks` chunks of at least `smallest` bytes
/// (defaults k_staging_min_chunks and k_staging_min_chunk); std::invalid_argument unless
/// chunks >= 1 and `smallest` is a multiple of 64 KiB no larger than a staging buffer.
void set_staging_chunking(unsigned chunks, size_t smallest);
std::pair<unsigned, size_t> staging_chunking() noexcept;
void set_staging_streaming_min(size_t bytes) noexcept;

/// The chunk size of a staged copy of `bytes` bytes: bytes / k_staging_min_chunks rounded up to
/// 64 KiB, clamped to [k_staging_min_chunk, k_staging_buffer_bytes] (the chunking set by
/// set_staging_chunking, where that was called).
size_t staging_chunk_bytes(size_t bytes) noexcept;

/// cuMemcpyHtoD(dest, src, bytes), staged when `bytes` >= k_staging_threshold, a context is
/// current and the driver does not know `src` (pageable memory). Blocks until the data is on
/// the device. Thread-safe: copies in one context take turns on its staging buffers.
void staged_memcpy_htod(CUdeviceptr dest, const void* src, size_t bytes);

/// cuMemcpyDtoH(dest, src, bytes), staged as staged_memcpy_htod when `dest` is pageable.
void staged_memcpy_dtoh(void* dest, CUdeviceptr src, size_t bytes);

/// True when the driver knows host address `p` (cuMemHostAlloc'd, registered or managed
/// memory: CU_POINTER_ATTRIBUTE_MEMORY_TYPE answers); false for pageable memory.
bool driver_knows_host_pointer(const void* p) noexcept;

/// Bytes of page-locked staging memory held now, over all contexts.
size_t staging_bytes_held() noexcept;

/// Frees the staging buffers of the current context now (they are made again on the next
/// staged copy); waits for a copy using them to finish. No context current: nothing.
void free_staging_buffers();

} // namespace pycuda
