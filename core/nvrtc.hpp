// core/nvrtc.hpp: NVRTC, the in-process CUDA C++ compiler: one compile, its log and its output.
#pragma once

#include "core/driver_api.hpp"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pycuda {

/// An NVRTC call that failed for a reason other than the source (bad arguments, out of memory).
/// A source that does not compile is not an exception: see NvrtcResult::success.
class NvrtcError : public std::runtime_error {
public:
    NvrtcError(nvrtcResult code, const char* routine);
    nvrtcResult code() const noexcept { return code_; }

private:
    nvrtcResult code_;
};

/// A header handed to NVRTC in memory: `#include "name"` finds `contents`.
struct NvrtcHeader {
    std::string name;
    std::string contents;
};

/// What one compile produced. `ptx` is always set on success; `cubin` only when the
/// architecture was a real one (sm_XY), not a virtual one (compute_XY).
struct NvrtcResult {
    bool success = false;
    std::string log;
    std::string ptx;
    std::string cubin;
};

/// RAII owner of one nvrtcProgram. A NUL byte in the source, a name, a header or an option is
/// std::invalid_argument (NVRTC would cut the string there).
class NvrtcProgram {
public:
    NvrtcProgram(const std::string& source, const std::string& name,
                 const std::vector<NvrtcHeader>& headers);
    ~NvrtcProgram();
    NvrtcProgram(const NvrtcProgram&) = delete;
    NvrtcProgram& operator=(const NvrtcProgram&) = delete;

    /// Compiles with NVRTC options; false when the source does not compile (see log()).
    bool compile(const std::vector<std::string>& options);
    std::string log() const;
    std::string ptx() const;
    /// Empty when the program was compiled for a virtual architecture.
    std::string cubin() const;

private:
    nvrtcProgram program_ = nullptr;
};

/// Compiles `source` (called `name` in messages) with NVRTC `options` and in-memory headers.
/// Thread-safe: each call owns its program. Throws NvrtcError only for API failures, and
/// std::invalid_argument for a NUL byte in any of the strings.
NvrtcResult nvrtc_compile(const std::string& source, const std::string& name,
                          const std::vector<std::string>& options,
                          const std::vector<NvrtcHeader>& headers = {});

/// NVRTC's (major, minor) version.
std::pair<int, int> nvrtc_version();

/// The SM numbers (e.g. 75, 80, 90) this NVRTC can compile for; empty if it cannot say.
std::vector<int> nvrtc_supported_archs();

} // namespace pycuda
