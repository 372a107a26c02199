// core/module.hpp: CUDA modules (cubin, PTX, fatbin), RAII owner of CUmodule.
#pragma once

#include "core/context.hpp"
#include "core/kernel_facts.hpp"

#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pycuda {

/// What the JIT compiler said while loading an image (info and error logs).
struct JitLog {
    std::string info;
    std::string error;
};

/// A JIT option and its value as cuModuleLoadDataEx/cuLinkCreate take it (an integer or a
/// float stored in the pointer-sized slot).
using JitOption = std::pair<CUjit_option, void*>;

/// A loaded module in the context current at load time; unloaded in that context.
/// enable_shared_from_this: nanobind then hands C++ the module's own shared_ptr (not a new one
/// owning the Python object), so weak references to a module (texture references) stay valid.
class Module : public std::enable_shared_from_this<Module> {
public:
    /// cuModuleLoad of a cubin, PTX or fatbin file.
    static std::shared_ptr<Module> from_file(const std::string& filename);
    /// cuModuleLoadDataEx of an in-memory image with 32 KiB info/error logs plus `options`.
    /// The logs are stored into `log` whether or not loading succeeds; a failure throws
    /// CudaError with the error log as its detail.
    static std::shared_ptr<Module> from_image(std::span<const std::byte> image,
                                              const std::vector<JitOption>& options, JitLog& log);
    /// Takes ownership of a module loaded elsewhere (the linker) in the current context.
    static std::shared_ptr<Module> adopt(CUmodule handle, ContextPtr context);
    ~Module();
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;

    CUmodule handle() const noexcept { return handle_; }
    const ContextPtr& context() const noexcept { return context_; }
    /// The kernel named `name`; a missing one is CudaError(NOT_FOUND) explaining name mangling.
    CUfunction function(const std::string& name) const;
    /// The facts of the kernel named `name`, queried at the first request for that name and
    /// kept while the module lives (a missing kernel is CudaError(NOT_FOUND) as function()).
    std::shared_ptr<const KernelFacts> kernel(const std::string& name) const;
    /// Address and size of the __device__/__constant__ variable `name`.
    std::pair<CUdeviceptr, std::size_t> global(const std::string& name) const;

private:
    Module(ContextPtr context, CUmodule handle) : context_(std::move(context)), handle_(handle) {}
    ContextPtr context_;
    CUmodule handle_ = nullptr;
    mutable std::mutex kernels_mutex_;
    mutable std::unordered_map<std::string, std::shared_ptr<const KernelFacts>> kernels_;
};

using ModulePtr = std::shared_ptr<Module>;

} // namespace pycuda
