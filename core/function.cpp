// core/function.cpp: kernel attributes, parameter info, dimension checks and the launch.
#include "core/function.hpp"

#include "core/error.hpp"
#include "core/stream.hpp"
#include "core/stream_capture.hpp"

#include <stdexcept>

namespace pycuda {

Function::Function(ModulePtr module, const std::string& name)
    : module_(std::move(module)), handle_(module_->function(name)), name_(name) {
    // Queried now, while the module's context is current for certain, so that launches (from
    // any thread) only read them.
    max_threads_per_block();
    param_info();
}

int Function::attribute(CUfunction_attribute attr) const {
    int value = 0;
    PYCUDA_CALL(cuFuncGetAttribute, &value, attr, handle_);
    return value;
}

void Function::set_attribute(CUfunction_attribute attr, int value) {
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

const std::vector<ParamInfo>* Function::param_info() {
    if (!param_info_queried_) {
        param_info_queried_ = true;
        auto get = driver().cuFuncGetParamInfo;
        if (get != nullptr) {
            // The driver answers INVALID_VALUE one past the last parameter.
            for (std::size_t i = 0;; ++i) {
                std::size_t offset = 0, size = 0;
                CUresult rc = get(handle_, i, &offset, &size);
                if (rc == CUDA_ERROR_INVALID_VALUE) {
                    param_info_known_ = true;
                    break;
                }
                if (rc != CUDA_SUCCESS) // e.g. NOT_SUPPORTED for some images: no validation
                    break;
                param_info_.push_back(ParamInfo{offset, size});
            }
        }
        if (!param_info_known_)
            param_info_.clear();
    }
    return param_info_known_ ? &param_info_ : nullptr;
}

unsigned Function::max_threads_per_block() {
    if (max_threads_ == 0)
        max_threads_ = static_cast<unsigned>(attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
    return max_threads_;
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
    if (rc != CUDA_SUCCESS) [[unlikely]] {
        CUcontext current = nullptr;
        if (driver().cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == nullptr)
            throw CudaError(rc, "cuLaunchKernel",
                            "no current context in this thread: make one current "
                            "(import pycuda.autoinit, or ctx.push()) before launching '" +
                                name_ + "'");
        throw CudaError(rc, "cuLaunchKernel", "launching '" + name_ + "'");
    }
    // A captured launch runs whenever its graph does: the module must stay loaded until then.
    if (captures_running()) [[unlikely]]
        capture_uses(stream, module_);
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
