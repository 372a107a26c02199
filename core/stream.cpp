// core/stream.cpp: stream creation, queries and destruction in the owning context.
#include "core/stream.hpp"

#include "core/error.hpp"
#include "core/event.hpp"

namespace pycuda {

namespace {
thread_local CUstream t_current_stream = nullptr;
} // namespace

CUstream current_stream() noexcept {
    return t_current_stream;
}

CUstream exchange_current_stream(CUstream stream) noexcept {
    CUstream previous = t_current_stream;
    t_current_stream = stream;
    return previous;
}

Stream::Stream(unsigned flags, int priority) : context_(Context::require_current("Stream")) {
    PYCUDA_CALL(cuStreamCreateWithPriority, &handle_, flags, priority);
}

Stream::~Stream() {
    release_in(*context_, [&] { PYCUDA_CALL_CLEANUP(cuStreamDestroy, handle_); });
}

void Stream::synchronize() const {
    PYCUDA_CALL(cuStreamSynchronize, handle_);
}

bool Stream::is_done() const {
    CUresult rc = driver().cuStreamQuery(handle_);
    if (rc == CUDA_ERROR_NOT_READY)
        return false;
    check(rc, "cuStreamQuery");
    return true;
}

void Stream::wait_for_event(const Event& event) const {
    PYCUDA_CALL(cuStreamWaitEvent, handle_, event.handle(), 0u);
}

unsigned Stream::flags() const {
    unsigned flags = 0;
    PYCUDA_CALL(cuStreamGetFlags, handle_, &flags);
    return flags;
}

int Stream::priority() const {
    int priority = 0;
    PYCUDA_CALL(cuStreamGetPriority, handle_, &priority);
    return priority;
}

} // namespace pycuda
