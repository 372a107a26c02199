// core/module.cpp: loading, symbol look-up and unloading of CUDA modules.
#include "core/module.hpp"

#include "core/error.hpp"

#include <cstring>

namespace pycuda {

namespace {

constexpr std::size_t log_size = 32 * 1024;

// A log buffer the driver filled (NUL-terminated within its size) as a string.
std::string log_text(const std::vector<char>& buffer) {
    return std::string(buffer.data(), strnlen(buffer.data(), buffer.size()));
}

} // namespace

std::shared_ptr<Module> Module::from_file(const std::string& filename) {
    auto context = Context::require_current("module_from_file");
    CUmodule handle = nullptr;
    CUresult rc = driver().cuModuleLoad(&handle, filename.c_str());
    if (rc != CUDA_SUCCESS)
        throw CudaError(rc, "cuModuleLoad", "while loading '" + filename + "'");
    return std::shared_ptr<Module>(new Module(std::move(context), handle));
}

std::shared_ptr<Module> Module::from_image(std::span<const std::byte> image,
                                           const std::vector<JitOption>& options, JitLog& log) {
    auto context = Context::require_current("module_from_buffer");
    // PTX must be NUL-terminated; a copy with a trailing NUL is harmless for cubins too.
    std::vector<std::byte> data(image.begin(), image.end());
    data.push_back(std::byte{0});
    std::vector<char> info(log_size, '\0'), error(log_size, '\0');
    std::vector<CUjit_option> keys{CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                                   CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    std::vector<void*> values{info.data(), reinterpret_cast<void*>(log_size), error.data(),
                              reinterpret_cast<void*>(log_size)};
    for (const auto& [key, value] : options) {
        keys.push_back(key);
        values.push_back(value);
    }
    CUmodule handle = nullptr;
    CUresult rc = driver().cuModuleLoadDataEx(
        &handle, data.data(), static_cast<unsigned>(keys.size()), keys.data(), values.data());
    log.info = log_text(info);
    log.error = log_text(error);
    if (rc != CUDA_SUCCESS)
        throw CudaError(rc, "cuModuleLoadDataEx", log.error.empty() ? "" : log.error);
    return std::shared_ptr<Module>(new Module(std::move(context), handle));
}

std::shared_ptr<Module> Module::adopt(CUmodule handle, ContextPtr context) {
    return std::shared_ptr<Module>(new Module(std::move(context), handle));
}

Module::~Module() {
    release_in(*context_, [&] { PYCUDA_CALL_CLEANUP(cuModuleUnload, handle_); });
}

CUfunction Module::function(const std::string& name) const {
    CUfunction fn = nullptr;
    CUresult rc = driver().cuModuleGetFunction(&fn, handle_, name.c_str());
    if (rc == CUDA_ERROR_NOT_FOUND)
        throw CudaError(rc, "cuModuleGetFunction",
                        "no kernel named '" + name +
                            "' in this module. A kernel compiled as C++ has a mangled name: "
                            "declare it extern \"C\" (SourceModule does, unless "
                            "no_extern_c=True) or ask for its mangled name");
    check(rc, "cuModuleGetFunction");
    return fn;
}

std::shared_ptr<const KernelFacts> Module::kernel(const std::string& name) const {
    std::lock_guard lock(kernels_mutex_);
    auto found = kernels_.find(name);
    if (found != kernels_.end())
        return found->second;
    auto facts = std::make_shared<const KernelFacts>(query_kernel_facts(function(name)));
    kernels_.emplace(name, facts);
    return facts;
}

std::pair<CUdeviceptr, std::size_t> Module::global(const std::string& name) const {
    CUdeviceptr ptr = 0;
    std::size_t size = 0;
    CUresult rc = driver().cuModuleGetGlobal(&ptr, &size, handle_, name.c_str());
    if (rc == CUDA_ERROR_NOT_FOUND)
        throw CudaError(rc, "cuModuleGetGlobal",
                        "no __device__ or __constant__ variable named '" + name +
                            "' in this module (C++ names are mangled unless extern \"C\")");
    check(rc, "cuModuleGetGlobal");
    return {ptr, size};
}

} // namespace pycuda
