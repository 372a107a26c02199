// core/event.cpp: event creation, timing and destruction in the owning context.
#include "core/event.hpp"

#include "core/error.hpp"
#include "core/stream.hpp"

namespace pycuda {

Event::Event(unsigned flags) : context_(Context::require_current("Event")) {
    PYCUDA_CALL(cuEventCreate, &handle_, flags);
}

std::unique_ptr<Event> Event::from_ipc_handle(const CUipcEventHandle& ipc) {
    auto context = Context::require_current("Event.from_ipc_handle");
    CUevent handle = nullptr;
    PYCUDA_CALL(cuIpcOpenEventHandle, &handle, ipc);
    return std::unique_ptr<Event>(new Event(std::move(context), handle));
}

Event::~Event() {
    release_in(*context_, [&] { PYCUDA_CALL_CLEANUP(cuEventDestroy, handle_); });
}

void Event::record(CUstream stream) {
    PYCUDA_CALL(cuEventRecord, handle_, stream_or_current(stream));
}

void Event::synchronize() const {
    PYCUDA_CALL(cuEventSynchronize, handle_);
}

bool Event::query() const {
    CUresult rc = driver().cuEventQuery(handle_);
    if (rc == CUDA_ERROR_NOT_READY)
        return false;
    check(rc, "cuEventQuery");
    return true;
}

float Event::time_since(const Event& start) const {
    float ms = 0;
    PYCUDA_CALL(cuEventElapsedTime, &ms, start.handle_, handle_);
    return ms;
}

CUipcEventHandle Event::ipc_handle() const {
    CUipcEventHandle h{};
    PYCUDA_CALL(cuIpcGetEventHandle, &h, handle_);
    return h;
}

} // namespace pycuda
