// bindings/profiler.cpp: start_profiler, stop_profiler, the retired initialize_profiler, and the
// NVTX ranges and marks pycuda.profiler offers.
#include "core/profiler.hpp"
#include "core/nvtx.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <optional>
#include <string>

namespace nb = nanobind;

namespace pycuda::bindings {

void bind_profiler(nb::module_& m) {
    m.def("start_profiler", &start_profiler,
          "Start profiler data collection (cuProfilerStart), e.g. under nsys --capture-range.");
    m.def("stop_profiler", &stop_profiler, "Stop profiler data collection (cuProfilerStop).");
    m.def("initialize_profiler", &initialize_profiler, nb::arg("config_file"),
          nb::arg("output_file"), nb::arg("output_mode"),
          "Removed from CUDA 12: always raises, pointing to Nsight Systems / Nsight Compute.");

    m.def("nvtx_available", &nvtx_available,
          "Whether this build has NVTX (else the nvtx_* calls do nothing).");
    m.def(
        "nvtx_push_range",
        [](const std::string& message, std::optional<std::uint32_t> argb) {
            return nvtx_push_range(message.c_str(), argb);
        },
        nb::arg("message"), nb::arg("argb").none() = nb::none(),
        "Open an NVTX range on this thread (color 0xAARRGGBB); its nesting level, or negative "
        "when no profiler is attached.");
    m.def("nvtx_pop_range", &nvtx_pop_range,
          "Close this thread's innermost NVTX range; its level, or negative.");
    m.def(
        "nvtx_mark",
        [](const std::string& message, std::optional<std::uint32_t> argb) {
            nvtx_mark(message.c_str(), argb);
        },
        nb::arg("message"), nb::arg("argb").none() = nb::none(), "An NVTX instant event.");
    m.def(
        "nvtx_push_auto_range",
        [](const std::string& message) { nvtx_push_auto_range(message.c_str()); },
        nb::arg("message"), "Open one of pycuda's own ranges (NVTX domain 'pycuda').");
    m.def("nvtx_pop_auto_range", &nvtx_pop_auto_range, "Close one of pycuda's own ranges.");
    m.def("nvtx_auto_ranges", &nvtx_auto_ranges,
          "Whether pycuda's automatic ranges are on (the flag the C++ launches read).");
    m.def("set_nvtx_auto_ranges", &set_nvtx_auto_ranges, nb::arg("on"),
          "Turn the automatic ranges of the C++ launches on or off (pycuda.profiler."
          "set_auto_ranges sets this and Python's flag together).");
}

} // namespace pycuda::bindings
