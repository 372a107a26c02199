// core/stream_capture.hpp: recording a stream's work into a Graph (stream capture), and the
// capture scope that sends work queued with no stream to the capturing stream.
//
// While a stream captures, work queued on it is recorded, not run; cuStreamEndCapture returns the
// record as a graph. The legacy default stream cannot be captured, and a capture in global or
// thread-local mode forbids calls that are not stream-ordered (cuMemAlloc, cuMemFree,
// synchronization): they fail with CUDA_ERROR_STREAM_CAPTURE_* and invalidate the capture.
// A capture begun here also keeps what its graph will use alive with that graph: the modules of
// the kernels launched into it, and every device-pool block allocated or freed while it runs
// (core/memory_pool.hpp), so that no later allocation is handed memory the graph writes to.
#pragma once

#include "core/graph.hpp"
#include "core/memory_pool.hpp"

#include <memory>

namespace pycuda {

/// How a capture treats calls that are not stream-ordered (cuThreadExchangeStreamCaptureMode):
/// forbidden in every thread (Global), in the capturing thread (ThreadLocal), or allowed.
enum class CaptureMode : int {
    Global = CU_STREAM_CAPTURE_MODE_GLOBAL,
    ThreadLocal = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
    Relaxed = CU_STREAM_CAPTURE_MODE_RELAXED,
};

/// cuStreamBeginCapture in the current context. A null stream (the legacy default stream) is
/// std::invalid_argument: it cannot be captured.
void begin_capture(CUstream stream, CaptureMode mode);

/// cuStreamEndCapture: the graph of the work recorded on `stream` since its capture began. A
/// capture invalidated by a forbidden call is CudaError(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
/// saying so; the stream has left capture mode either way.
std::unique_ptr<Graph> end_capture(CUstream stream);

/// cuStreamIsCapturing.
CUstreamCaptureStatus capture_status(CUstream stream);

/// True while a capture begun by begin_capture() has not ended (one atomic load: for hot paths).
bool captures_running() noexcept;

/// Keeps `what` alive with the graph of the capture begun on `stream`, if one runs there.
void capture_uses(CUstream stream, const std::shared_ptr<const void>& what);

/// A capture that also makes its stream this thread's current stream while it runs, so that
/// work queued with no stream (GPUArray operators, prepared_call, memset_d8, ...) is recorded
/// too. enter() and exit() must be called in the same thread.
class CaptureScope {
public:
    CaptureScope(CUstream stream, CaptureMode mode) : stream_(stream), mode_(mode) {}
    ~CaptureScope() { abandon(); }
    CaptureScope(const CaptureScope&) = delete;
    CaptureScope& operator=(const CaptureScope&) = delete;

    /// begin_capture, then the stream becomes current. A scope is entered once.
    void enter();
    /// Restores the previous current stream and ends the capture; returns its graph.
    std::unique_ptr<Graph> exit();
    /// As exit(), dropping the graph and any error: for leaving on an exception.
    void abandon() noexcept;

    CUstream stream() const noexcept { return stream_; }
    CaptureMode mode() const noexcept { return mode_; }
    bool active() const noexcept { return active_; }

private:
    CUstream stream_;
    CaptureMode mode_;
    CUstream previous_ = nullptr;
    bool active_ = false;
    bool used_ = false;
};

} // namespace pycuda
