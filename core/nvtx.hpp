// core/nvtx.hpp: NVTX ranges and marks, the annotations profilers (Nsight Systems) show on the
// timeline, through NVTX v3's header-only C API.
//
// Without a profiler attached every call returns at once: NVTX's first call looks for a tool
// ($NVTX_INJECTION64_PATH, which nsys sets) and, finding none, leaves its entry points null.
// Built without NVTX's headers, available() is false and every call does nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>

namespace pycuda {

/// True when this build has NVTX (its headers were found where cuda.h was).
bool nvtx_available() noexcept;

/// Opens a range named `message` on the calling thread's stack (nvtxRangePushEx), colored
/// `argb` (0xAARRGGBB) when given. Returns its nesting level (from 0), or a negative number when
/// no tool is attached or NVTX is not built in.
int nvtx_push_range(const char* message, std::optional<std::uint32_t> argb = {}) noexcept;
/// Closes the calling thread's innermost range (nvtxRangePop); returns the level it had, or a
/// negative number (no tool, or no range open).
int nvtx_pop_range() noexcept;
/// An instant event named `message` (nvtxMarkEx).
void nvtx_mark(const char* message, std::optional<std::uint32_t> argb = {}) noexcept;

/// pycuda's own ranges, in the NVTX domain "pycuda" (so a profiler can show or hide them apart
/// from the program's): the automatic ranges around compiles and array operations.
void nvtx_push_auto_range(const char* message) noexcept;
void nvtx_pop_auto_range() noexcept;

namespace detail {
inline std::atomic<bool> nvtx_auto_ranges{false};
} // namespace detail

/// Whether the automatic ranges are on (off by default): one relaxed load, for hot paths.
inline bool nvtx_auto_ranges() noexcept {
    return detail::nvtx_auto_ranges.load(std::memory_order_relaxed);
}
/// Turns the automatic ranges on or off for the whole process.
inline void set_nvtx_auto_ranges(bool on) noexcept {
    detail::nvtx_auto_ranges.store(on, std::memory_order_relaxed);
}

/// An automatic range for the scope (pycuda's domain), opened whether or not the automatic
/// ranges are on: the caller checks nvtx_auto_ranges() first.
class NvtxAutoRange {
public:
    explicit NvtxAutoRange(const char* message) noexcept { nvtx_push_auto_range(message); }
    ~NvtxAutoRange() { nvtx_pop_auto_range(); }
    NvtxAutoRange(const NvtxAutoRange&) = delete;
    NvtxAutoRange& operator=(const NvtxAutoRange&) = delete;
};

} // namespace pycuda
