// core/function.hpp: a kernel of a loaded module: attributes, occupancy, parameter info and
// launching (plain, or with cluster and cooperative attributes).
#pragma once

#include "core/kernel_facts.hpp"
#include "core/kernel_params.hpp"
#include "core/module.hpp"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pycuda {

/// Grid or block dimensions (x, y, z).
using Dim3 = std::array<unsigned, 3>;

/// What cuLaunchKernelEx adds to a launch here: a thread block cluster shape and cooperative
/// scheduling (every block resident at once, as grid-wide synchronization needs).
struct LaunchAttributes {
    /// Blocks per cluster (x, y, z); all zero: no cluster attribute.
    Dim3 cluster{0, 0, 0};
    bool cooperative = false;
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
    /// cuOccupancyMaxPotentialBlockSize with a fixed dynamic shared memory size: (the smallest
    /// grid that reaches full occupancy, the block size that does). `block_limit` 0: no limit.
    std::pair<int, int> suggested_block_size(std::size_t dynamic_smem, int block_limit) const;
    /// cuOccupancyMaxPotentialClusterSize: the largest cluster (in blocks) of `block`-shaped
    /// blocks this kernel can launch with. CudaError(NOT_SUPPORTED) saying why on a device
    /// without clusters (compute capability below 9.0) or a driver without the call.
    int max_potential_cluster_size(const Dim3& block, unsigned dynamic_smem) const;
    /// cuOccupancyMaxActiveClusters: how many `cluster`-shaped clusters can be resident at once.
    int max_active_clusters(const Dim3& cluster, const Dim3& block, unsigned dynamic_smem) const;

    /// The kernel's parameters as the driver describes them, or null when the driver cannot
    /// (older than CUDA 12.4). Queried once, on first use.
    const std::vector<ParamInfo>* param_info() const;
    /// Threads per block this kernel can launch with (registers included), queried once.
    unsigned max_threads_per_block() const;

    /// cuLaunchKernel with a packed parameter buffer on `stream` (null: this thread's current
    /// stream, core/stream.hpp). A launch with no current context is CudaError(INVALID_CONTEXT)
    /// saying so.
    void launch(const Dim3& grid, const Dim3& block, unsigned shared_bytes, CUstream stream,
                void* params, std::size_t params_size) const;
    /// cuLaunchKernelEx with `attrs` (a cluster shape that tiles the grid, checked by
    /// check_cluster_dims first). A failure says what the device or kernel allows: a
    /// cooperative grid larger than the blocks that fit at once, a device without clusters or
    /// cooperative launches, a cluster larger than the kernel can run.
    void launch(const Dim3& grid, const Dim3& block, unsigned shared_bytes, CUstream stream,
                void* params, std::size_t params_size, const LaunchAttributes& attrs) const;

    /// The layout set by prepare(), if any, and its format string.
    std::optional<ParamLayout> prepared_layout;
    std::string prepared_format;

private:
    /// Throws NOT_SUPPORTED naming the device unless it has `attr` (a capability flag).
    void require_device_capability(CUdevice_attribute attr, const char* routine,
                                   const char* what) const;
    /// Why a launch with `attrs` failed with `rc`, in the user's terms.
    [[noreturn]] void throw_launch_failure(CUresult rc, const char* routine, const Dim3& grid,
                                           const Dim3& block, unsigned shared_bytes,
                                           const LaunchAttributes* attrs) const;

    ModulePtr module_;
    std::shared_ptr<const KernelFacts> facts_;
    CUfunction handle_ = nullptr;
    std::string name_;
};

/// Rejects grid and block dimensions the hardware cannot run (std::invalid_argument naming
/// the limit): block x, y <= 1024, z <= 64, at most `max_threads` threads; grid x < 2^31,
/// y, z <= 65535; every entry at least 1.
void check_launch_dims(const Dim3& grid, const Dim3& block, unsigned max_threads,
                       const std::string& kernel);

/// Rejects a cluster shape that does not divide the grid, or has a zero entry
/// (std::invalid_argument naming the axis).
void check_cluster_dims(const Dim3& grid, const Dim3& cluster);

} // namespace pycuda
