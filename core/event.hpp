// core/event.hpp: CUDA events, RAII owner of CUevent, including IPC event handles.
#pragma once

#include "core/context.hpp"

#include <array>

namespace pycuda {

/// An event in the context current at construction; destroyed in that context.
class Event {
public:
    /// cuEventCreate with event_flags.
    explicit Event(unsigned flags = 0);
    /// Opens an event another process exported with ipc_handle().
    static std::unique_ptr<Event> from_ipc_handle(const CUipcEventHandle& handle);
    ~Event();
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;

    CUevent handle() const noexcept { return handle_; }
    /// Records the event on `stream` (null: this thread's current stream, core/stream.hpp).
    void record(CUstream stream = nullptr);
    void synchronize() const;
    /// True once the recorded work has completed (cuEventQuery).
    bool query() const;
    /// Milliseconds from `start` to this event.
    float time_since(const Event& start) const;
    CUipcEventHandle ipc_handle() const;

private:
    Event(ContextPtr context, CUevent handle) : context_(std::move(context)), handle_(handle) {}
    ContextPtr context_;
    CUevent handle_ = nullptr;
};

} // namespace pycuda
