// core/staged_copy.cpp: the per-context staging sets and the two pipelines (htod, dtoh).
#include "core/staged_copy.hpp"

#include "core/context.hpp"
#include "core/error.hpp"
#include "core/memcpy.hpp"
#include "core/parallel_memcpy.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace pycuda {

namespace {

/// Chunks are whole multiples of this (a page-locked copy's size needs no finer grain).
constexpr size_t k_chunk_granule = size_t{64} << 10;

std::atomic<size_t> held_bytes{0};
std::atomic<size_t> streaming_min{k_staging_streaming_min};
std::atomic<unsigned> min_chunks{k_staging_min_chunks};
std::atomic<size_t> min_chunk{k_staging_min_chunk};

/// One context's staging buffers and, per buffer, the event recorded after the last DMA queued
/// on it: the host may touch a buffer once its event has completed, while the device needs no
/// wait, since every DMA of every set goes to the one legacy stream, in order. One copy at a
/// time uses a set (its mutex); the owner's context is current whenever a set is used.
class StagingSet {
public:
    explicit StagingSet(const Context* owner) : owner_(owner) {}
    StagingSet(const StagingSet&) = delete;
    StagingSet& operator=(const StagingSet&) = delete;

    /// The Context this set was made for (compared, never dereferenced: a newer Context may
    /// hold the same CUcontext handle while the old one is being destroyed).
    const Context* owner() const noexcept { return owner_; }
    std::mutex& mutex() noexcept { return mutex_; }

    /// Makes the first `count` buffers exist. False when the driver cannot give page-locked
    /// memory (or an event) now: the caller then copies without staging.
    bool reserve(unsigned count) noexcept;
    void htod(CUdeviceptr dest, const char* src, size_t bytes);
    void dtoh(char* dest, CUdeviceptr src, size_t bytes);
    /// Frees every buffer and event, after the DMAs queued on them. The owner's context must be
    /// current. Never throws.
    void release() noexcept;

private:
    struct Buffer {
        void* data = nullptr;
        CUevent done = nullptr;
    };
    /// Blocks until no queued DMA uses buffer `i`.
    void host_may_touch(unsigned i) { PYCUDA_CALL(cuEventSynchronize, buffers_[i].done); }
    /// Marks the DMA just queued on the legacy stream as the last one using buffer `i`.
    void dma_queued(unsigned i) { PYCUDA_CALL(cuEventRecord, buffers_[i].done, nullptr); }

    const Context* owner_;
    std::mutex mutex_;
    std::array<Buffer, k_staging_buffers> buffers_{};
};

bool StagingSet::reserve(unsigned count) noexcept {
    try {
        const DriverApi& api = driver();
        for (unsigned i = 0; i < count; ++i) {
            Buffer& b = buffers_[i];
            if (b.data)
                continue;
            if (api.cuEventCreate(&b.done, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) {
                b = Buffer{};
                return false;
            }
            // PORTABLE: page-locked in every context, should a copy reach another device.
            if (api.cuMemHostAlloc(&b.data, k_staging_buffer_bytes, CU_MEMHOSTALLOC_PORTABLE) !=
                CUDA_SUCCESS) {
                PYCUDA_CALL_CLEANUP(cuEventDestroy, b.done);
                b = Buffer{};
                return false;
            }
            held_bytes.fetch_add(k_staging_buffer_bytes, std::memory_order_relaxed);
        }
        return true;
    } catch (const std::exception&) {
        return false; // no driver to be had: the direct call reports why
    }
}

void StagingSet::release() noexcept {
    for (Buffer& b : buffers_) {
        if (!b.data)
            continue;
        PYCUDA_CALL_CLEANUP(cuEventSynchronize, b.done);
        PYCUDA_CALL_CLEANUP(cuMemFreeHost, b.data);
        PYCUDA_CALL_CLEANUP(cuEventDestroy, b.done);
        b = Buffer{};
        held_bytes.fetch_sub(k_staging_buffer_bytes, std::memory_order_relaxed);
    }
}

// Chunk k uses buffer k % k_staging_buffers. Host side: fill buffer k (after the DMA that last
// read it), queue its DMA; the fill of chunk k+1 then runs while that DMA does.
void StagingSet::htod(CUdeviceptr dest, const char* src, size_t bytes) {
    size_t chunk = staging_chunk_bytes(bytes);
    unsigned last = 0;
    for (size_t k = 0, offset = 0; offset < bytes; ++k, offset += chunk) {
        unsigned b = static_cast<unsigned>(k % k_staging_buffers);
        size_t n = std::min(chunk, bytes - offset);
        host_may_touch(b);
        parallel_memcpy(buffers_[b].data, src + offset, n);
        PYCUDA_CALL(cuMemcpyHtoDAsync, dest + offset, buffers_[b].data, n, nullptr);
        dma_queued(b);
        last = b;
    }
    host_may_touch(last); // the last DMA, and so all before it on the stream, is done
}

// The DMAs of the first chunks are queued at once; each time the host has copied chunk k out of
// its buffer, the DMA of chunk k + k_staging_buffers is queued into it, so the device always
// has the next chunks to move while the host copies.
void StagingSet::dtoh(char* dest, CUdeviceptr src, size_t bytes) {
    size_t chunk = staging_chunk_bytes(bytes);
    size_t chunks = (bytes + chunk - 1) / chunk;
    auto queue = [&](size_t k) {
        unsigned b = static_cast<unsigned>(k % k_staging_buffers);
        size_t offset = k * chunk;
        PYCUDA_CALL(cuMemcpyDtoHAsync, buffers_[b].data, src + offset,
                    std::min(chunk, bytes - offset), nullptr);
        dma_queued(b);
    };
    for (size_t k = 0; k < std::min<size_t>(chunks, k_staging_buffers); ++k)
        queue(k);
    bool streaming = bytes >= streaming_min.load(std::memory_order_relaxed);
    for (size_t k = 0; k < chunks; ++k) {
        unsigned b = static_cast<unsigned>(k % k_staging_buffers);
        size_t offset = k * chunk;
        host_may_touch(b);
        parallel_memcpy(dest + offset, buffers_[b].data, std::min(chunk, bytes - offset),
                        streaming);
        if (k + k_staging_buffers < chunks)
            queue(k + k_staging_buffers);
    }
}

// {{{ the sets of all contexts

struct Registry {
    std::mutex mutex;
    std::vector<std::shared_ptr<StagingSet>> sets;
};

Registry& registry() {
    // Leaked on purpose: contexts (and with them their sets) may be destroyed by destructors
    // running after static destruction at exit.
    static Registry* r = new Registry;
    return *r;
}

/// Frees the sets made for `context` (the teardown hook: the context is about to go).
void free_sets_of(const Context& context) noexcept {
    std::vector<std::shared_ptr<StagingSet>> sets;
    try {
        Registry& r = registry();
        std::lock_guard lock(r.mutex);
        for (auto& s : r.sets)
            if (s->owner() == &context)
                sets.push_back(s);
        std::erase_if(r.sets, [&](const auto& s) { return s->owner() == &context; });
    } catch (...) {
        return; // no memory for the list: the buffers go with the context
    }
    for (auto& s : sets) {
        // Uncontended: a copy holds its Context alive (Staging), and this one is going.
        std::lock_guard lock(s->mutex());
        release_in(context, [&] { s->release(); });
    }
}

/// The set of `context` (the current one), made on first use.
std::shared_ptr<StagingSet> set_of(const ContextPtr& context) {
    static std::once_flag hooked;
    std::call_once(hooked, [] { add_context_teardown_hook(&free_sets_of); });
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    for (auto& s : r.sets)
        if (s->owner() == context.get())
            return s;
    return r.sets.emplace_back(std::make_shared<StagingSet>(context.get()));
}

/// True when `p` is host memory the driver does not know (pageable): the driver answers
/// CUDA_ERROR_INVALID_VALUE for it. Any other answer (page-locked, registered, managed
/// memory, or no usable driver) means a direct call.
bool is_pageable(const void* p) noexcept {
    try {
        if (in_forked_child())
            return false;
        unsigned type = 0;
        return driver().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                              reinterpret_cast<CUdeviceptr>(p)) ==
               CUDA_ERROR_INVALID_VALUE;
    } catch (...) {
        return false;
    }
}

/// A staged copy's hold on its set: the context (kept alive for the copy), the set, its lock.
/// Members are released in reverse order: the lock, then the set, then the context.
struct Staging {
    ContextPtr context;
    std::shared_ptr<StagingSet> set;
    std::unique_lock<std::mutex> lock;
};

/// The staging of a copy of `bytes` from or to `host`; an empty one (nothing held) where the
/// copy goes straight to the driver.
Staging staging_for(const void* host, size_t bytes) {
    if (bytes < k_staging_threshold || !is_pageable(host))
        return {};
    Staging s;
    s.context = Context::current();
    if (!s.context)
        return {}; // the driver's call reports the missing context as before
    s.set = set_of(s.context);
    s.lock = std::unique_lock(s.set->mutex());
    size_t chunk = staging_chunk_bytes(bytes);
    size_t chunks = (bytes + chunk - 1) / chunk;
    if (!s.set->reserve(static_cast<unsigned>(std::min<size_t>(chunks, k_staging_buffers))))
        return {};
    return s;
}

// }}}

} // namespace

size_t staging_chunk_bytes(size_t bytes) noexcept {
    unsigned parts = min_chunks.load(std::memory_order_relaxed);
    size_t share = (bytes + parts - 1) / parts;
    size_t chunk = (share + k_chunk_granule - 1) / k_chunk_granule * k_chunk_granule;
    return std::clamp(chunk, min_chunk.load(std::memory_order_relaxed), k_staging_buffer_bytes);
}

bool driver_knows_host_pointer(const void* p) noexcept {
    return !is_pageable(p);
}

void staged_memcpy_htod(CUdeviceptr dest, const void* src, size_t bytes) {
    Staging staging = staging_for(src, bytes);
    if (!staging.set)
        return memcpy_htod(dest, src, bytes);
    staging.set->htod(dest, static_cast<const char*>(src), bytes);
}

void staged_memcpy_dtoh(void* dest, CUdeviceptr src, size_t bytes) {
    Staging staging = staging_for(dest, bytes);
    if (!staging.set)
        return memcpy_dtoh(dest, src, bytes);
    staging.set->dtoh(static_cast<char*>(dest), src, bytes);
}

void set_staging_chunking(unsigned chunks, size_t smallest) {
    if (chunks < 1 || smallest < k_chunk_granule || smallest > k_staging_buffer_bytes ||
        smallest % k_chunk_granule != 0)
        throw std::invalid_argument("staging chunking: need chunks >= 1 and a smallest chunk "
                                    "of whole 64 KiB granules, at most the buffer size");
    min_chunks.store(chunks, std::memory_order_relaxed);
    min_chunk.store(smallest, std::memory_order_relaxed);
}

std::pair<unsigned, size_t> staging_chunking() noexcept {
    return {min_chunks.load(std::memory_order_relaxed), min_chunk.load(std::memory_order_relaxed)};
}

size_t staging_streaming_min() noexcept {
    return streaming_min.load(std::memory_order_relaxed);
}

void set_staging_streaming_min(size_t bytes) noexcept {
    streaming_min.store(bytes, std::memory_order_relaxed);
}

size_t staging_bytes_held() noexcept {
    return held_bytes.load(std::memory_order_relaxed);
}

void free_staging_buffers() {
    ContextPtr context = Context::current();
    if (!context)
        return;
    std::shared_ptr<StagingSet> set;
    {
        Registry& r = registry();
        std::lock_guard lock(r.mutex);
        for (auto& s : r.sets)
            if (s->owner() == context.get())
                set = s;
    }
    if (set) {
        std::lock_guard lock(set->mutex());
        set->release();
    }
}

} // namespace pycuda
