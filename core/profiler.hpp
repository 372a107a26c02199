// core/profiler.hpp: starting and stopping the profiler's collection (cuProfilerStart/Stop).
#pragma once

#include <string>

namespace pycuda {

/// cuProfilerStart in the current context.
void start_profiler();
/// cuProfilerStop in the current context.
void stop_profiler();
/// cuProfilerInitialize is gone from CUDA 12 drivers: always CudaError(NOT_SUPPORTED)
/// explaining what replaces it.
[[noreturn]] void initialize_profiler(const std::string& config_file,
                                      const std::string& output_file, int output_mode);

} // namespace pycuda
