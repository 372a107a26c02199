// core/error.hpp: CudaError, the one exception type carrying a CUresult, and the checked call.
#pragma once

#include "core/driver_api.hpp"
#include "core/fork_guard.hpp"

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pycuda {

/// A failed driver call: the CUresult, its name, the routine and an optional detail.
/// what() reads "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY: out of memory[ - detail]".
class CudaError : public std::runtime_error {
public:
    CudaError(CUresult code, std::string_view routine, std::string_view detail = {});
    /// An error whose whole message is `message` (for failures before any driver call, such as
    /// a missing libcuda, where "routine failed: CODE" would mislead).
    static CudaError with_message(CUresult code, std::string_view routine, std::string message);

    CUresult code() const noexcept { return code_; }
    /// "CUDA_ERROR_OUT_OF_MEMORY" (from the driver when loaded, else from our own table).
    const std::string& name() const noexcept { return name_; }
    const std::string& routine() const noexcept { return routine_; }

private:
    struct Verbatim {};
    CudaError(Verbatim, CUresult code, std::string_view routine, std::string message);
    CUresult code_;
    std::string name_;
    std::string routine_;
};

/// The symbolic name of a CUresult, also when no driver is loaded.
std::string error_name(CUresult code);
/// The driver's description of a CUresult, also when no driver is loaded.
std::string error_description(CUresult code);

/// True for the kernel faults that leave the context unusable ("sticky" errors: every later call
/// in the process or context returns the same code): an illegal address, a trap, a failed device
/// assert, a timeout and their kin (cuda.h: "This leaves the process in an inconsistent state").
bool is_sticky_fault(CUresult code) noexcept;

/// Throws CudaError(code, routine) unless code is CUDA_SUCCESS.
inline void check(CUresult code, const char* routine) {
    if (code != CUDA_SUCCESS) [[unlikely]]
        throw CudaError(code, routine);
}

/// Calls a driver entry point that may be null on older drivers; a missing one is
/// CUDA_ERROR_NOT_SUPPORTED naming the routine.
template <typename Fn, typename... Args>
void checked_call(Fn fn, const char* routine, Args... args) {
    if (fn == nullptr) [[unlikely]]
        throw CudaError(CUDA_ERROR_NOT_SUPPORTED, routine, "this driver does not provide it");
    check(fn(args...), routine);
}

/// Receives messages about failed clean-up (a free in a destructor). The bindings route them to
/// Python warnings; the default prints to stderr. Destructors never throw.
using CleanupWarningHandler = std::function<void(std::string_view message)>;
void set_cleanup_warning_handler(CleanupWarningHandler handler);

/// Reports a failed clean-up call, except for the codes that mean the driver or context is
/// already gone at process exit, or poisoned by a kernel fault that was already raised (neither
/// can leak anything: the memory goes with the context).
void report_cleanup_failure(CUresult code, const char* routine) noexcept;

} // namespace pycuda

/// The checked call: PYCUDA_CALL(cuMemAlloc, &ptr, size) throws CudaError on failure.
#define PYCUDA_CALL(fn, ...)                                                                       \
    ::pycuda::checked_call(::pycuda::driver().fn, #fn __VA_OPT__(, ) __VA_ARGS__)

/// For destructors: calls, reports a failure as a clean-up warning, never throws. In a child
/// forked after cuInit nothing is called: the handle belongs to the parent.
#define PYCUDA_CALL_CLEANUP(fn, ...)                                                               \
    do {                                                                                           \
        if (::pycuda::in_forked_child())                                                           \
            break;                                                                                 \
        CUresult pycuda_cleanup_rc_ = ::pycuda::driver().fn(__VA_ARGS__);                          \
        if (pycuda_cleanup_rc_ != CUDA_SUCCESS)                                                    \
            ::pycuda::report_cleanup_failure(pycuda_cleanup_rc_, #fn);                             \
    } while (0)
