// core/fork_guard.hpp: refuses CUDA in the child of a fork() made after CUDA was initialised.
//
// The driver's state (contexts, the channels to the GPU, its threads) does not survive fork():
// CUDA calls in such a child fail in undocumented ways or hang. cuInit marks the process; a
// pthread_atfork handler then marks every forked child, and the driver door (driver()) refuses
// there with an error that says what to do. The check on the hot path is one relaxed load.
#pragma once

#include <atomic>

namespace pycuda {

namespace detail {
extern std::atomic<bool> forked_after_cuda_init;
} // namespace detail

/// Records that cuInit succeeded in this process: a child forked from now on (directly or
/// through its own children) is refused CUDA. Idempotent and thread-safe.
void note_cuda_initialized() noexcept;

/// True in a process forked (at any depth) from one where CUDA was initialised.
inline bool in_forked_child() noexcept {
    return detail::forked_after_cuda_init.load(std::memory_order_relaxed);
}

/// Throws CudaError(CUDA_ERROR_NOT_INITIALIZED) explaining that a forked child cannot use CUDA
/// and how to start worker processes instead.
[[noreturn]] void throw_forked_child();

} // namespace pycuda
