// core/function.hpp: a kernel of a loaded module: attributes, parameter info and launching.
#pragma once

#include "core/kernel_params.hpp"
#include "core/module.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace pycuda {

/// Grid or block dimensions (x, y, z).
using Dim3 = std::array<unsigned, 3>;

/// Offset and size of one kernel parameter as the driver reports it (cuFuncGetParamInfo).
struct ParamInfo {
    std::size_t offset = 0;
    std::size_t size = 0;
};

/// A kernel; holds its module (and so its context) alive.
class Function {
public:
    Function(ModulePtr module, const std::string& name);

    CUfunction handle() const noexcept { return handle_; }
    const std::string& name() const noexcept { return name_; }
    const ModulePtr& module() const noexcept { return module_; }

    int attribute(CUfunction_attribute attr) const;
    void set_attribute(CUfunction_attribute attr, int value);
    void set_cache_config(CUfunc_cache config);
    /// Bank-size preference; a no-op where the driver no longer has the call (CUDA 13 removed
    /// it: devices since Maxwell have fixed 4-byte banks).
    void set_shared_config(CUsharedconfig config);
    /// cuOccupancyMaxActiveBlocksPerMultiprocessor.
    int max_active_blocks_per_multiprocessor(int block_size, std::size_t dynamic_smem) const;

    /// The kernel's parameters as the driver describes them, or null when the driver cannot
    /// (older than CUDA 12.4). Queried once, on first use.
    const std::vector<ParamInfo>* param_info();
    /// Threads per block this kernel can launch with (registers included), queried once.
    unsigned max_threads_per_block();

    /// cuLaunchKernel with a packed parameter buffer on `stream` (null: this thread's current
    /// stream, core/stream.hpp). A launch with no current context is CudaError(INVALID_CONTEXT)
    /// saying so.
    void launch(const Dim3& grid, const Dim3& block, unsigned shared_bytes, CUstream stream,
                void* params, std::size_t params_size) const;

    /// The layout set by prepare(), if any, and its format string.
    std::optional<ParamLayout> prepared_layout;
    std::string prepared_format;

private:
    ModulePtr module_;
    CUfunction handle_ = nullptr;
    std::string name_;
    bool param_info_queried_ = false;
    bool param_info_known_ = false;
    std::vector<ParamInfo> param_info_;
    unsigned max_threads_ = 0;
};

/// Rejects grid and block dimensions the hardware cannot run (std::invalid_argument naming
/// the limit): block x, y <= 1024, z <= 64, at most `max_threads` threads; grid x < 2^31,
/// y, z <= 65535; every entry at least 1.
void check_launch_dims(const Dim3& grid, const Dim3& block, unsigned max_threads,
                       const std::string& kernel);

} // namespace pycuda
