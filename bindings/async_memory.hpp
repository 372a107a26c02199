// bindings/async_memory.hpp: what the Python MemPool and StreamOrderedAllocator objects hold, for
// the binders that allocate from them in C++ (the flat launches).
#pragma once

#include "core/async_memory.hpp"

#include <memory>

namespace pycuda::bindings {

/// What a Python MemPool holds: the core pool, shared with the allocators and blocks using it.
struct MemPoolRef {
    std::shared_ptr<MemPool> pool;
};

/// What a Python StreamOrderedAllocator holds: the core allocator (whose stream owner is the
/// Python stream object), shared with the blocks it lent.
struct StreamOrderedAllocatorRef {
    std::shared_ptr<StreamOrderedAllocator> allocator;
};

} // namespace pycuda::bindings
