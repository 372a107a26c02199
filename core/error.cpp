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

} // namespace

std::string error_name(CUresult code) {
    const char* name = nullptr;
    if (driver_loadable() && driver().cuGetErrorName(code, &name) == CUDA_SUCCESS && name)
        return name;
    return fallback_name(code);
}

std::string error_description(CUresult code) {
    const char* text = nullptr;
    if (driver_loadable() && driver().cuGetErrorString(code, &text) == CUDA_SUCCESS && text)
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
