// core/profiler.cpp: profiler control.
#include "core/profiler.hpp"

#include "core/context.hpp"
#include "core/error.hpp"

namespace pycuda {

void start_profiler() {
    Context::require_current("start_profiler");
    PYCUDA_CALL(cuProfilerStart);
}

void stop_profiler() {
    Context::require_current("stop_profiler");
    PYCUDA_CALL(cuProfilerStop);
}

void initialize_profiler(const std::string&, const std::string&, int) {
    throw CudaError(CUDA_ERROR_NOT_SUPPORTED, "cuProfilerInitialize",
                    "CUDA 12 removed the command-line profiler this configured; run the program "
                    "under Nsight Systems (nsys profile) or Nsight Compute (ncu) instead, and "
                    "use start_profiler()/stop_profiler() to limit what they capture");
}

} // namespace pycuda
