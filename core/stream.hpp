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

} // namespace pycuda
