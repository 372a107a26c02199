// core/linker.hpp: the JIT linker (cuLink*), RAII owner of CUlinkState.
#pragma once

#include "core/module.hpp"

#include <span>
#include <string>
#include <vector>

namespace pycuda {

/// Links cubins, PTX, fatbins and libraries (libcudadevrt.a) into one module.
class Linker {
public:
    /// cuLinkCreate with 32 KiB info/error logs, CU_JIT_LOG_VERBOSE when `log_verbose`, and
    /// the caller's `options`.
    Linker(const std::vector<JitOption>& options, bool log_verbose);
    ~Linker();
    Linker(const Linker&) = delete;
    Linker& operator=(const Linker&) = delete;

    /// cuLinkAddData; a failure throws CudaError carrying the error log.
    void add_data(std::span<const std::byte> data, CUjitInputType type, const std::string& name);
    /// cuLinkAddFile.
    void add_file(const std::string& filename, CUjitInputType type);
    /// cuLinkComplete, then loads the image as a module; the linker is closed afterwards.
    ModulePtr link_module();

    /// The logs so far (updated after every call).
    const JitLog& log() const noexcept { return log_; }

private:
    void refresh_log();
    [[noreturn]] void fail(CUresult rc, const char* routine, const std::string& what);
    void close() noexcept;

    ContextPtr context_;
    CUlinkState state_ = nullptr;
    std::vector<char> info_, error_;
    std::vector<CUjit_option> keys_;
    std::vector<void*> values_;
    JitLog log_;
};

} // namespace pycuda
