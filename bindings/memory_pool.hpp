// bindings/memory_pool.hpp: what the Python pool objects (DeviceMemoryPool,
// PageLockedMemoryPool) hold, for the binders that allocate from a pool in C++.
#pragma once

#include "core/memory_pool.hpp"

#include <memory>

namespace pycuda::bindings {

/// What a Python pool object holds: the core pool, shared with the allocations it lent.
template <typename Allocator>
struct PoolRef {
    std::shared_ptr<MemoryPool<Allocator>> pool;
};
using DevicePoolRef = PoolRef<DeviceBlockAllocator>;
using HostPoolRef = PoolRef<HostBlockAllocator>;

} // namespace pycuda::bindings
