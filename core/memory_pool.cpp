// core/memory_pool.cpp: pool bin arithmetic and the device and page-locked block allocators.
#include "core/memory_pool.hpp"

#include <bit>
#include <mutex>
#include <vector>

namespace pycuda {

unsigned bitlog2(uint64_t n) noexcept {
    return n == 0 ? 0u : static_cast<unsigned>(std::bit_width(n) - 1);
}

unsigned PoolBins::bin_number(size_t size) noexcept {
    constexpr size_t lead = size_t{1} << mantissa_bits; // 16
    if (size < 2 * lead) // exact; 0 shares bin 0 with 1, so no bin holds nothing
        return size <= 1 ? 0u : static_cast<unsigned>(size);
    unsigned shift = bitlog2(size) - mantissa_bits;
    size_t top = size >> shift; // in [16, 32)
    if (size & ((size_t{1} << shift) - 1))
        ++top; // round up: the block must hold `size`
    if (top == 2 * lead) {
        top = lead;
        ++shift;
    }
    return static_cast<unsigned>(lead * (shift + 1) + (top - lead));
}

size_t PoolBins::alloc_size(unsigned bin) noexcept {
    constexpr unsigned lead = 1u << mantissa_bits;
    if (bin < 2 * lead)
        return bin <= 1 ? 1 : bin;
    unsigned shift = bin / lead - 1;
    return size_t{lead + bin % lead} << shift;
}

namespace {
template <typename Allocate>
auto in_pool_context(ContextPtr& context, Allocate&& allocate) {
    if (!context)
        context = Context::require_current("memory pool allocate");
    ScopedActivation active(*context);
    return allocate();
}
} // namespace

CUdeviceptr DeviceBlockAllocator::allocate(size_t bytes) {
    return in_pool_context(context_, [&] {
        CUdeviceptr p = 0;
        PYCUDA_CALL(cuMemAlloc, &p, bytes);
        return p;
    });
}

void DeviceBlockAllocator::free(CUdeviceptr p) noexcept {
    release_in(*context_, [&] { PYCUDA_CALL_CLEANUP(cuMemFree, p); });
}

void* HostBlockAllocator::allocate(size_t bytes) {
    return in_pool_context(context_, [&] {
        void* p = nullptr;
        PYCUDA_CALL(cuMemHostAlloc, &p, bytes, flags_);
        return p;
    });
}

void HostBlockAllocator::free(void* p) noexcept {
    release_in(*context_, [&] { PYCUDA_CALL_CLEANUP(cuMemFreeHost, p); });
}

namespace {
struct PoolRegistry {
    std::mutex mutex;
    std::vector<std::weak_ptr<DeviceMemoryPool>> pools;
    // The batch of the stream captures running now, and how many of them joined it.
    std::shared_ptr<DevicePoolBatch> open_batch;
    unsigned joined = 0;
};

PoolRegistry& pool_registry() {
    // Leaked on purpose: pools may be destroyed by destructors running after static destruction.
    static PoolRegistry* r = new PoolRegistry;
    return *r;
}
} // namespace

std::shared_ptr<DeviceMemoryPool> make_device_pool() {
    auto pool = std::make_shared<DeviceMemoryPool>();
    PoolRegistry& r = pool_registry();
    std::lock_guard lock(r.mutex);
    std::erase_if(r.pools, [](const auto& p) { return p.expired(); });
    r.pools.push_back(pool);
    if (r.open_batch) // made during a capture (a context's first pool): its blocks count too
        r.open_batch->members.emplace_back(pool, pool->open_batch());
    return pool;
}

DevicePoolBatch::~DevicePoolBatch() {
    for (auto& [pool, id] : members)
        pool->release_batch(id);
}

std::shared_ptr<DevicePoolBatch> join_device_pool_batch() {
    PoolRegistry& r = pool_registry();
    std::lock_guard lock(r.mutex);
    if (!r.open_batch) {
        auto batch = std::make_shared<DevicePoolBatch>();
        for (const auto& p : r.pools)
            if (auto pool = p.lock())
                batch->members.emplace_back(pool, pool->open_batch());
        r.open_batch = std::move(batch);
    }
    ++r.joined;
    return r.open_batch;
}

void leave_device_pool_batch() noexcept {
    std::shared_ptr<DevicePoolBatch> closing;
    PoolRegistry& r = pool_registry();
    {
        std::lock_guard lock(r.mutex);
        if (r.joined == 0 || --r.joined != 0)
            return;
        closing = std::move(r.open_batch);
    }
    if (closing)
        for (auto& [pool, id] : closing->members)
            pool->close_batch();
    // `closing` may be the last reference (no capture kept it): released here, unlocked.
}

size_t free_held_device_pools() noexcept {
    std::vector<std::shared_ptr<DeviceMemoryPool>> live;
    try {
        PoolRegistry& r = pool_registry();
        std::lock_guard lock(r.mutex);
        live.reserve(r.pools.size());
        for (const auto& p : r.pools)
            if (auto pool = p.lock())
                live.push_back(std::move(pool));
    } catch (...) {
        // No memory for the list: free nothing rather than throw on an error path.
        return 0;
    }
    // Outside the registry's lock: freeing takes each pool's own lock and calls the driver.
    size_t bytes = 0;
    for (const auto& pool : live)
        bytes += pool->free_held();
    return bytes;
}

} // namespace pycuda
