// core/linker.cpp: creating, feeding and completing a JIT link.
#include "core/linker.hpp"

#include "core/error.hpp"

#include <cstdint>
#include <cstring>

namespace pycuda {

namespace {
constexpr std::size_t log_size = 32 * 1024;
}

Linker::Linker(const std::vector<JitOption>& options, bool log_verbose)
    : context_(Context::require_current("Linker")), info_(log_size, '\0'), error_(log_size, '\0') {
    keys_ = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
             CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
    values_ = {info_.data(), reinterpret_cast<void*>(log_size), error_.data(),
               reinterpret_cast<void*>(log_size),
               reinterpret_cast<void*>(static_cast<std::uintptr_t>(log_verbose))};
    for (const auto& [key, value] : options) {
        keys_.push_back(key);
        values_.push_back(value);
    }
    // The driver docs: with output options (the logs) the option arrays must stay valid for
    // the life of the link state, so they are members, like the log buffers.
    PYCUDA_CALL(cuLinkCreate, static_cast<unsigned>(keys_.size()), keys_.data(), values_.data(),
                &state_);
}

Linker::~Linker() {
    close();
}

void Linker::close() noexcept {
    if (state_ == nullptr)
        return;
    release_in(*context_, [&] { PYCUDA_CALL_CLEANUP(cuLinkDestroy, state_); });
    state_ = nullptr;
}

void Linker::refresh_log() {
    log_.info.assign(info_.data(), strnlen(info_.data(), info_.size()));
    log_.error.assign(error_.data(), strnlen(error_.data(), error_.size()));
}

void Linker::fail(CUresult rc, const char* routine, const std::string& what) {
    refresh_log();
    std::string detail = what;
    if (!log_.error.empty())
        detail += ":\n" + log_.error;
    throw CudaError(rc, routine, detail);
}

void Linker::add_data(std::span<const std::byte> data, CUjitInputType type,
                      const std::string& name) {
    if (state_ == nullptr)
        throw CudaError(CUDA_ERROR_INVALID_HANDLE, "cuLinkAddData", "the linker was completed");
    // PTX input must be NUL-terminated; the extra byte does not disturb binary inputs.
    std::vector<std::byte> copy(data.begin(), data.end());
    copy.push_back(std::byte{0});
    ScopedActivation active(*context_);
    CUresult rc = driver().cuLinkAddData(state_, type, copy.data(), copy.size(), name.c_str(), 0,
                                         nullptr, nullptr);
    if (rc != CUDA_SUCCESS)
        fail(rc, "cuLinkAddData", "adding '" + name + "'");
    refresh_log();
}

void Linker::add_file(const std::string& filename, CUjitInputType type) {
    if (state_ == nullptr)
        throw CudaError(CUDA_ERROR_INVALID_HANDLE, "cuLinkAddFile", "the linker was completed");
    ScopedActivation active(*context_);
    CUresult rc = driver().cuLinkAddFile(state_, type, filename.c_str(), 0, nullptr, nullptr);
    if (rc != CUDA_SUCCESS)
        fail(rc, "cuLinkAddFile", "adding '" + filename + "'");
    refresh_log();
}

ModulePtr Linker::link_module() {
    if (state_ == nullptr)
        throw CudaError(CUDA_ERROR_INVALID_HANDLE, "cuLinkComplete", "the linker was completed");
    ScopedActivation active(*context_);
    void* cubin = nullptr;
    std::size_t size = 0;
    CUresult rc = driver().cuLinkComplete(state_, &cubin, &size);
    if (rc != CUDA_SUCCESS)
        fail(rc, "cuLinkComplete", "linking");
    refresh_log();
    // The cubin belongs to the link state: load it before the state is destroyed.
    CUmodule handle = nullptr;
    rc = driver().cuModuleLoadData(&handle, cubin);
    if (rc != CUDA_SUCCESS)
        fail(rc, "cuModuleLoadData", "loading the linked image");
    ModulePtr module = Module::adopt(handle, context_);
    close();
    return module;
}

} // namespace pycuda
