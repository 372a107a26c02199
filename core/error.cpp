// core/error.cpp: CudaError messages and the clean-up warning channel.
#include "core/error.hpp"

#include <cstdio>
#include <mutex>

namespace pycuda {

namespace {

// Used when the driver cannot be asked (it failed to load): the codes we raise ourselves.
const char* fallback_name(CUresult code) {
    switch (code) {
    case CUDA_SUCCESS:
        return "CUDA_SUCCESS";
    case CUDA_ERROR_INVALID_VALUE:
        return "CUDA_ERROR_INVALID_VALUE";
    case CUDA_ERROR_OUT_OF_MEMORY:
        return "CUDA_ERROR_OUT_OF_MEMORY";
    case CUDA_ERROR_NOT_INITIALIZED:
        return "CUDA_ERROR_NOT_INITIALIZED";
    case CUDA_ERROR_DEINITIALIZED:
        return "CUDA_ERROR_DEINITIALIZED";
    case CUDA_ERROR_NO_DEVICE:
        return "CUDA_ERROR_NO_DEVICE";
    case CUDA_ERROR_INVALID_CONTEXT:
        return "CUDA_ERROR_INVALID_CONTEXT";
    case CUDA_ERROR_NOT_FOUND:
        return "CUDA_ERROR_NOT_FOUND";
    case CUDA_ERROR_NOT_SUPPORTED:
        return "CUDA_ERROR_NOT_SUPPORTED";
    case CUDA_ERROR_INVALID_HANDLE:
        return "CUDA_ERROR_INVALID_HANDLE";
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
        return "CUDA_ERROR_CONTEXT_IS_DESTROYED";
    case CUDA_ERROR_ILLEGAL_ADDRESS:
        return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case CUDA_ERROR_ASSERT:
        return "CUDA_ERROR_ASSERT";
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
        return "CUDA_ERROR_ILLEGAL_INSTRUCTION";
    case CUDA_ERROR_LAUNCH_FAILED:
        return "CUDA_ERROR_LAUNCH_FAILED";
    default:
        return "CUDA_ERROR_UNKNOWN";
    }
}

const char* fallback_description(CUresult code) {
    switch (code) {
    case CUDA_ERROR_NO_DEVICE:
        return "no CUDA-capable device is detected";
    case CUDA_ERROR_NOT_FOUND:
        return "named symbol not found";
    case CUDA_ERROR_NOT_SUPPORTED:
        return "operation not supported";
    case CUDA_ERROR_INVALID_CONTEXT:
        return "invalid device context";
    case CUDA_ERROR_INVALID_VALUE:
        return "invalid argument";
    default:
        return "unknown error";
    }
}

std::mutex handler_mutex;
CleanupWarningHandler cleanup_handler;

// The driver's own tables, except in a forked child, where driver() refuses (and would recurse
// into the error being built).
bool can_ask_driver() noexcept {
    return !in_forked_child() && driver_loadable();
}

} // namespace

bool is_sticky_fault(CUresult code) noexcept {
    switch (code) {
    case CUDA_ERROR_CONTAINED:
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_EXTERNAL_DEVICE:
        return true;
    default:
        return false;
    }
}

std::string error_name(CUresult code) {
    const char* name = nullptr;
    if (can_ask_driver() && driver().cuGetErrorName(code, &name) == CUDA_SUCCESS && name)
        return name;
    return fallback_name(code);
}

std::string error_description(CUresult code) {
    const char* text = nullptr;
    if (can_ask_driver() && driver().cuGetErrorString(code, &text) == CUDA_SUCCESS && text)
        return text;
    return fallback_description(code);
}

static std::string compose(CUresult code, std::string_view routine, std::string_view detail) {
    std::string msg(routine);
    msg += " failed: ";
    msg += error_name(code);
    msg += ": ";
    msg += error_description(code);
    if (!detail.empty()) {
        msg += " - ";
        msg += detail;
    }
    // Calls a running stream capture forbids fail far from the capture: say what it is.
    if (code == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
        msg += " (a stream capture is running, and this call is not stream-ordered (allocating, "
               "freeing, synchronous copies, synchronizing): do it before the capture, or "
               "capture in 'relaxed' mode)";
    else if (code == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)
        msg += " (a stream capture is running, and this work on the legacy default stream would "
               "wait for the capturing stream: queue it on the capturing stream; inside `with "
               "stream.capture()` work given no stream goes there)";
    if (is_sticky_fault(code))
        msg += " (a kernel fault: this CUDA context cannot be used any more, and every later call "
               "in it fails the same way; start a new process to use the GPU again)";
    return msg;
}

CudaError::CudaError(CUresult code, std::string_view routine, std::string_view detail)
    : std::runtime_error(compose(code, routine, detail)), code_(code), name_(error_name(code)),
      routine_(routine) {}

CudaError::CudaError(Verbatim, CUresult code, std::string_view routine, std::string message)
    : std::runtime_error(std::move(message)), code_(code), name_(error_name(code)),
      routine_(routine) {}

CudaError CudaError::with_message(CUresult code, std::string_view routine, std::string message) {
    return CudaError(Verbatim{}, code, routine, std::move(message));
}

void set_cleanup_warning_handler(CleanupWarningHandler handler) {
    std::lock_guard lock(handler_mutex);
    cleanup_handler = std::move(handler);
}

void report_cleanup_failure(CUresult code, const char* routine) noexcept {
    // At process exit the driver tears itself down before static destructors and Python's
    // finalizers run; frees then report DEINITIALIZED or a destroyed context. The memory is
    // gone with the context, so there is nothing to say.
    if (code == CUDA_ERROR_DEINITIALIZED || code == CUDA_ERROR_CONTEXT_IS_DESTROYED)
        return;
    // After a kernel fault every call in the context fails with the fault's code, which the
    // program was already given; each free repeating it would bury that one report.
    if (is_sticky_fault(code))
        return;
    try {
        std::string msg = "pycuda: a clean-up operation failed (dead context maybe?): ";
        msg += CudaError(code, routine).what();
        CleanupWarningHandler handler;
        {
            std::lock_guard lock(handler_mutex);
            handler = cleanup_handler;
        }
        if (handler)
            handler(msg);
        else
            std::fprintf(stderr, "%s\n", msg.c_str());
    } catch (...) {
        // Reporting must never throw out of a destructor.
    }
}

} // namespace pycuda
