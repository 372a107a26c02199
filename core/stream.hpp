// core/stream.hpp: CUDA streams, RAII owner of CUstream.
#pragma once

#include "core/context.hpp"

namespace pycuda {

class Event;

/// A stream in the context current at construction; destroyed in that context.
class Stream {
public:
    /// cuStreamCreateWithPriority; flags from stream_flags (0 = synchronizes with the null
    /// stream), lower priority numbers run first.
    explicit Stream(unsigned flags = 0, int priority = 0);
    ~Stream();
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    CUstream handle() const noexcept { return handle_; }
    const ContextPtr& context() const noexcept { return context_; }
    void synchronize() const;
    /// True when all work queued so far has finished (cuStreamQuery).
    bool is_done() const;
    void wait_for_event(const Event& event) const;
    unsigned flags() const;
    int priority() const;

private:
    ContextPtr context_;
    CUstream handle_ = nullptr;
};

/// The stream that work queued with no stream (a null CUstream) goes to in this thread: null,
/// the legacy default stream, except inside a capture scope (core/stream_capture.hpp), where it
/// is the capturing stream, since the legacy stream cannot be captured.
CUstream current_stream() noexcept;

/// Makes `stream` this thread's current stream (null: the legacy default stream again); returns
/// the one it replaces.
CUstream exchange_current_stream(CUstream stream) noexcept;

/// `stream`, or this thread's current stream where `stream` is null.
inline CUstream stream_or_current(CUstream stream) noexcept {
    return stream ? stream : current_stream();
}

} // namespace pycuda
