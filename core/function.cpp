// core/function.cpp: kernel attributes, occupancy, parameter info, dimension checks and the
// launches.
#include "core/function.hpp"

#include "core/error.hpp"
#include "core/stream.hpp"
#include "core/stream_capture.hpp"

#include <stdexcept>
#include <string>

namespace pycuda {

// The facts are queried (by the module, once per name) now, while the module's context is
// current for certain, so that launches (from any thread) only read them.
Function::Function(ModulePtr module, const std::string& name)
    : module_(std::move(module)), facts_(module_->kernel(name)), handle_(facts_->handle),
      name_(name) {}

namespace {

// The driver reads a function attribute out of range as an index: it crashes, not refuses.
void check_function_attribute(CUfunction_attribute attr) {
    if (attr < 0 || attr >= CU_FUNC_ATTRIBUTE_MAX)
        throw std::invalid_argument("function attribute " + std::to_string(int(attr)) +
                                    " is not a function_attribute (0 to " +
                                    std::to_string(int(CU_FUNC_ATTRIBUTE_MAX) - 1) + ")");
}

} // namespace

int Function::attribute(CUfunction_attribute attr) const {
    check_function_attribute(attr);
    int value = 0;
    PYCUDA_CALL(cuFuncGetAttribute, &value, attr, handle_);
    return value;
}

void Function::set_attribute(CUfunction_attribute attr, int value) {
    check_function_attribute(attr);
    PYCUDA_CALL(cuFuncSetAttribute, handle_, attr, value);
}

void Function::set_cache_config(CUfunc_cache config) {
    PYCUDA_CALL(cuFuncSetCacheConfig, handle_, config);
}

void Function::set_shared_config(CUsharedconfig config) {
    if (driver().cuFuncSetSharedMemConfig == nullptr)
        return;
    PYCUDA_CALL(cuFuncSetSharedMemConfig, handle_, config);
}

int Function::max_active_blocks_per_multiprocessor(int block_size, std::size_t dynamic_smem) const {
    int blocks = 0;
    PYCUDA_CALL(cuOccupancyMaxActiveBlocksPerMultiprocessor, &blocks, handle_, block_size,
                dynamic_smem);
    return blocks;
}

std::pair<int, int> Function::suggested_block_size(std::size_t dynamic_smem,
                                                   int block_limit) const {
    int min_grid = 0, block = 0;
    // No block-size-to-shared-memory callback: the dynamic size is the same for every block.
    PYCUDA_CALL(cuOccupancyMaxPotentialBlockSize, &min_grid, &block, handle_, nullptr, dynamic_smem,
                block_limit);
    return {min_grid, block};
}

namespace {

CUlaunchConfig launch_config(const Dim3& grid, const Dim3& block, unsigned shared_bytes,
                             CUstream stream) {
    CUlaunchConfig config{};
    config.gridDimX = grid[0];
    config.gridDimY = grid[1];
    config.gridDimZ = grid[2];
    config.blockDimX = block[0];
    config.blockDimY = block[1];
    config.blockDimZ = block[2];
    config.sharedMemBytes = shared_bytes;
    config.hStream = stream;
    return config;
}

CUlaunchAttribute cluster_attribute(const Dim3& cluster) {
    CUlaunchAttribute attr{};
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cluster[0];
    attr.value.clusterDim.y = cluster[1];
    attr.value.clusterDim.z = cluster[2];
    return attr;
}

std::string dims_text(const Dim3& d) {
    return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
           ")";
}

} // namespace

void Function::require_device_capability(CUdevice_attribute attr, const char* routine,
                                         const char* what) const {
    const Device device = module_->context()->device();
    if (device.attribute(attr) != 0)
        return;
    auto [major, minor] = device.compute_capability();
    throw CudaError(CUDA_ERROR_NOT_SUPPORTED, routine,
                    "device '" + device.name() + "' (compute capability " + std::to_string(major) +
                        "." + std::to_string(minor) + ") " + what);
}

int Function::max_potential_cluster_size(const Dim3& block, unsigned dynamic_smem) const {
    require_device_capability(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH,
                              "cuOccupancyMaxPotentialClusterSize",
                              "has no thread block clusters: they need compute capability 9.0 "
                              "or newer");
    // The driver ignores the configuration's cluster shape here, and its grid is any valid one.
    CUlaunchConfig config = launch_config({1, 1, 1}, block, dynamic_smem, nullptr);
    int size = 0;
    PYCUDA_CALL(cuOccupancyMaxPotentialClusterSize, &size, handle_, &config);
    return size;
}

int Function::max_active_clusters(const Dim3& cluster, const Dim3& block,
                                  unsigned dynamic_smem) const {
    require_device_capability(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, "cuOccupancyMaxActiveClusters",
                              "has no thread block clusters: they need compute capability 9.0 "
                              "or newer");
    CUlaunchConfig config = launch_config(cluster, block, dynamic_smem, nullptr);
    CUlaunchAttribute attr = cluster_attribute(cluster);
    config.attrs = &attr;
    config.numAttrs = 1;
    int clusters = 0;
    PYCUDA_CALL(cuOccupancyMaxActiveClusters, &clusters, handle_, &config);
    return clusters;
}

const std::vector<ParamInfo>* Function::param_info() const {
    return facts_->params_known ? &facts_->params : nullptr;
}

unsigned Function::max_threads_per_block() const {
    return facts_->max_threads_per_block;
}

void Function::launch(const Dim3& grid, const Dim3& block, unsigned shared_bytes, CUstream stream,
                      void* params, std::size_t params_size) const {
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, params, CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &params_size, CU_LAUNCH_PARAM_END};
    stream = stream_or_current(stream);
    // A kernel without parameters gets no parameter buffer at all.
    CUresult rc =
        driver().cuLaunchKernel(handle_, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                shared_bytes, stream, nullptr, params_size != 0 ? extra : nullptr);
    if (rc != CUDA_SUCCESS) [[unlikely]]
        throw_launch_failure(rc, "cuLaunchKernel", grid, block, shared_bytes, nullptr);
    // A captured launch runs whenever its graph does: the module must stay loaded until then.
    if (captures_running()) [[unlikely]]
        capture_uses(stream, module_);
}

void Function::launch(const Dim3& grid, const Dim3& block, unsigned shared_bytes, CUstream stream,
                      void* params, std::size_t params_size, const LaunchAttributes& attrs) const {
    auto launch_ex = driver().cuLaunchKernelEx;
    if (launch_ex == nullptr)
        throw CudaError(CUDA_ERROR_NOT_SUPPORTED, "cuLaunchKernelEx",
                        "this driver has no cuLaunchKernelEx (CUDA 11.6 and later drivers "
                        "have it): cluster and cooperative launches need it");
    CUlaunchAttribute list[2]{};
    unsigned n = 0;
    if (attrs.cluster[0] != 0)
        list[n++] = cluster_attribute(attrs.cluster);
    if (attrs.cooperative) {
        list[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        list[n++].value.cooperative = 1;
    }
    stream = stream_or_current(stream);
    CUlaunchConfig config = launch_config(grid, block, shared_bytes, stream);
    config.attrs = list;
    config.numAttrs = n;
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, params, CU_LAUNCH_PARAM_BUFFER_SIZE,
                     &params_size, CU_LAUNCH_PARAM_END};
    CUresult rc = launch_ex(&config, handle_, nullptr, params_size != 0 ? extra : nullptr);
    if (rc != CUDA_SUCCESS)
        throw_launch_failure(rc, "cuLaunchKernelEx", grid, block, shared_bytes, &attrs);
    if (captures_running()) [[unlikely]]
        capture_uses(stream, module_);
}

void Function::throw_launch_failure(CUresult rc, const char* routine, const Dim3& grid,
                                    const Dim3& block, unsigned shared_bytes,
                                    const LaunchAttributes* attrs) const {
    CUcontext current = nullptr;
    if (driver().cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == nullptr)
        throw CudaError(rc, routine,
                        "no current context in this thread: make one current "
                        "(import pycuda.autoinit, or ctx.push()) before launching '" +
                            name_ + "'");
    const std::string launching = "launching '" + name_ + "'";
    if (attrs != nullptr) {
        bool cluster = attrs->cluster[0] != 0;
        if (cluster)
            require_device_capability(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, routine,
                                      "has no thread block clusters (compute capability 9.0 "
                                      "and newer have them)");
        if (attrs->cooperative)
            require_device_capability(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, routine,
                                      "cannot launch cooperative kernels");
        if (rc == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE) {
            unsigned long long blocks = 1ull * grid[0] * grid[1] * grid[2];
            int threads = static_cast<int>(block[0] * block[1] * block[2]);
            int per_sm = max_active_blocks_per_multiprocessor(threads, shared_bytes);
            int sms =
                module_->context()->device().attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
            throw CudaError(rc, routine,
                            launching + " cooperatively: its grid of " + std::to_string(blocks) +
                                " blocks exceeds the " + std::to_string(per_sm * sms) +
                                " that can be resident at once (" + std::to_string(per_sm) +
                                " per multiprocessor x " + std::to_string(sms) +
                                " multiprocessors, by max_active_blocks_per_multiprocessor)");
        }
        if (cluster && rc == CUDA_ERROR_INVALID_CLUSTER_SIZE)
            throw CudaError(rc, routine,
                            launching + " with clusters of " + dims_text(attrs->cluster) +
                                " blocks: more than the kernel can run in one cluster "
                                "(max_potential_cluster_size(block) says how many)");
    }
    throw CudaError(rc, routine, launching);
}

void check_cluster_dims(const Dim3& grid, const Dim3& cluster) {
    const char* axis = "xyz";
    for (int i = 0; i < 3; ++i) {
        if (cluster[i] == 0)
            throw std::invalid_argument("cluster " + std::string(1, axis[i]) +
                                        " must be a positive int");
        if (grid[i] % cluster[i] != 0)
            throw std::invalid_argument(
                "grid " + dims_text(grid) + " is not a whole number of clusters " +
                dims_text(cluster) + ": grid " + std::string(1, axis[i]) + " = " +
                std::to_string(grid[i]) + " is not divisible by cluster " +
                std::string(1, axis[i]) + " = " + std::to_string(cluster[i]));
    }
}

void check_launch_dims(const Dim3& grid, const Dim3& block, unsigned max_threads,
                       const std::string& kernel) {
    static constexpr Dim3 block_limit{1024, 1024, 64};
    static constexpr Dim3 grid_limit{2147483647u, 65535, 65535};
    const char* axis = "xyz";
    for (int i = 0; i < 3; ++i) {
        if (block[i] > block_limit[i])
            throw std::invalid_argument("block " + std::string(1, axis[i]) + " = " +
                                        std::to_string(block[i]) + " exceeds the limit of " +
                                        std::to_string(block_limit[i]));
        if (grid[i] > grid_limit[i])
            throw std::invalid_argument("grid " + std::string(1, axis[i]) + " = " +
                                        std::to_string(grid[i]) + " exceeds the limit of " +
                                        std::to_string(grid_limit[i]));
    }
    unsigned long long threads = 1ull * block[0] * block[1] * block[2];
    if (max_threads != 0 && threads > max_threads)
        throw std::invalid_argument("block of " + std::to_string(threads) + " threads: kernel '" +
                                    kernel + "' can run at most " + std::to_string(max_threads) +
                                    " threads per block");
}

} // namespace pycuda
