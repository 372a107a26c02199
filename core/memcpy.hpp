// core/memcpy.hpp: the linear memset and memcpy family (host, device, peer), sync and async.
//
// Sizes are in elements for memset (of 1, 2 or 4 bytes) and in bytes for memcpy. A null
// `stream` is this thread's current stream (core/stream.hpp): the legacy default stream, except
// in a capture scope, where the synchronous device-side calls (memset, dtod) are queued on the
// capturing stream too. Synchronous calls block; callers release the GIL around them.
// Async copies from pageable host memory are legal: CUDA then stages them and returns only once
// the host buffer has been read (htod) or written (dtoh), so the buffer must live until the call
// returns; for page-locked memory it must live until the stream reaches the copy.
//
// memcpy_htod and memcpy_dtoh are the driver's plain calls; pycuda's synchronous copies go
// through core/staged_copy.hpp, which calls them for small or page-locked buffers. The async
// forms are never staged: from pageable memory the driver returns from an htod copy once it has
// taken the data, without waiting for the stream to reach the copy, and a staging buffer of
// ours could not be reused before the stream got there (a copy queued behind a long kernel
// would then block the next one); a dtoh copy to pageable memory is synchronous either way.
// Async callers who want the link's speed use page-locked memory, which is the direct path.
#pragma once

#include "core/driver_api.hpp"

#include <cstddef>

namespace pycuda {

/// memset of `count` elements of `element_size` (1, 2 or 4) bytes.
void memset_1d(CUdeviceptr dest, unsigned value, size_t count, unsigned element_size);
void memset_1d_async(CUdeviceptr dest, unsigned value, size_t count, unsigned element_size,
                     CUstream stream);
/// 2D memset: `height` rows of `width` elements, rows `pitch` bytes apart.
void memset_2d(CUdeviceptr dest, size_t pitch, unsigned value, size_t width, size_t height,
               unsigned element_size);
void memset_2d_async(CUdeviceptr dest, size_t pitch, unsigned value, size_t width, size_t height,
                     unsigned element_size, CUstream stream);

void memcpy_htod(CUdeviceptr dest, const void* src, size_t bytes);
void memcpy_htod_async(CUdeviceptr dest, const void* src, size_t bytes, CUstream stream);
void memcpy_dtoh(void* dest, CUdeviceptr src, size_t bytes);
void memcpy_dtoh_async(void* dest, CUdeviceptr src, size_t bytes, CUstream stream);
void memcpy_dtod(CUdeviceptr dest, CUdeviceptr src, size_t bytes);
void memcpy_dtod_async(CUdeviceptr dest, CUdeviceptr src, size_t bytes, CUstream stream);

/// Copy between contexts (devices). A null context means the one `dest`/`src` belongs to
/// (CU_POINTER_ATTRIBUTE_CONTEXT), else the current one.
void memcpy_peer(CUdeviceptr dest, CUdeviceptr src, size_t bytes, CUcontext dest_context,
                 CUcontext src_context);
void memcpy_peer_async(CUdeviceptr dest, CUdeviceptr src, size_t bytes, CUcontext dest_context,
                       CUcontext src_context, CUstream stream);

} // namespace pycuda
