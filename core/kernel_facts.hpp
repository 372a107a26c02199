// core/kernel_facts.hpp: what a kernel of a loaded module is, queried from the driver once per
// module and name and shared by every Function made of it.
#pragma once

#include "core/driver_api.hpp"

#include <cstddef>
#include <vector>

namespace pycuda {

/// Offset and size of one kernel parameter in the launch buffer (cuFuncGetParamInfo).
struct ParamInfo {
    std::size_t offset = 0;
    std::size_t size = 0;
};

/// A kernel's handle and the facts launches read: its thread limit and, where the driver tells
/// them (CUDA 12.4+), its parameters. None of them changes while the module is loaded, so a
/// program asking for the same kernel again (the tutorials compile and get_function in a loop)
/// pays for the queries once.
struct KernelFacts {
    CUfunction handle = nullptr;
    unsigned max_threads_per_block = 0;
    bool params_known = false;
    std::vector<ParamInfo> params;
};

/// Queries `handle`'s facts (in its module's context).
KernelFacts query_kernel_facts(CUfunction handle);

} // namespace pycuda
