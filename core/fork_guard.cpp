// core/fork_guard.cpp: the pthread_atfork handler that marks children forked after cuInit.
#include "core/fork_guard.hpp"

#include "core/error.hpp"

#include <pthread.h>
#include <unistd.h>

#include <mutex>
#include <string>

namespace pycuda {

namespace detail {
std::atomic<bool> forked_after_cuda_init{false};
} // namespace detail

namespace {

std::atomic<bool> cuda_initialized{false};
// The pid that called cuInit, for the message (the child's parent may have exited since).
std::atomic<long> initializing_pid{0};

// Runs in the child right after fork(), before fork() returns there: only async-signal-safe
// work (atomic stores).
void mark_child() {
    if (cuda_initialized.load(std::memory_order_relaxed))
        detail::forked_after_cuda_init.store(true, std::memory_order_relaxed);
}

} // namespace

void note_cuda_initialized() noexcept {
    static std::once_flag registered;
    try {
        std::call_once(registered, [] {
            initializing_pid.store(static_cast<long>(getpid()), std::memory_order_relaxed);
            pthread_atfork(nullptr, nullptr, mark_child);
        });
    } catch (...) {
        // call_once only throws for a failing callable; pthread_atfork reports by return code.
    }
    cuda_initialized.store(true, std::memory_order_relaxed);
}

void throw_forked_child() {
    throw CudaError::with_message(
        CUDA_ERROR_NOT_INITIALIZED, "fork",
        "CUDA_ERROR_NOT_INITIALIZED: this process was forked from one that had initialised CUDA "
        "(pid " +
            std::to_string(initializing_pid.load(std::memory_order_relaxed)) +
            "), and CUDA cannot be used in such a child: the driver's state does not survive "
            "fork(). Start worker processes with multiprocessing's 'spawn' or 'forkserver' "
            "method (multiprocessing.get_context('spawn')), or initialise CUDA only in the "
            "children.");
}

} // namespace pycuda
