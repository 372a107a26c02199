// bindings/profiler.cpp: start_profiler, stop_profiler and the retired initialize_profiler.
#include "core/profiler.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace pycuda::bindings {

void bind_profiler(nb::module_& m) {
    m.def("start_profiler", &start_profiler,
          "Start profiler data collection (cuProfilerStart), e.g. under nsys --capture-range.");
    m.def("stop_profiler", &stop_profiler, "Stop profiler data collection (cuProfilerStop).");
    m.def("initialize_profiler", &initialize_profiler, nb::arg("config_file"),
          nb::arg("output_file"), nb::arg("output_mode"),
          "Removed from CUDA 12: always raises, pointing to Nsight Systems / Nsight Compute.");
}

} // namespace pycuda::bindings
