// core/stream_capture.cpp: beginning and ending captures, what their graphs keep, capture scopes.
#include "core/stream_capture.hpp"

#include "core/error.hpp"
#include "core/stream.hpp"

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace pycuda {

namespace {

/// A capture begun by begin_capture(): its context, and what its graph will keep alive.
struct RunningCapture {
    ContextPtr context;
    std::shared_ptr<DevicePoolBatch> pool_batch;
    GraphUses uses;
    std::unordered_set<const void*> used; // uses' pointers: each is kept once
};

struct CaptureRegistry {
    std::mutex mutex;
    std::unordered_map<CUstream, RunningCapture> running;
};

CaptureRegistry& registry() {
    // Leaked on purpose: captures may end in destructors running after static destruction.
    static CaptureRegistry* r = new CaptureRegistry;
    return *r;
}

std::atomic<int> running_count{0};

std::string end_failure_detail(CUresult rc) {
    switch (rc) {
    case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED:
        return "the capture was invalidated by an earlier call that a capture forbids (see the "
               "first error); no graph was made";
    case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD:
        return "a capture in global or thread_local mode must end in the thread that began it";
    case CUDA_ERROR_STREAM_CAPTURE_UNJOINED:
        return "work forked to another stream during the capture was not joined back into the "
               "capturing stream (record an event there and wait for it on the capturing stream)";
    case CUDA_ERROR_ILLEGAL_STATE:
        return "the stream is not capturing";
    default:
        return {};
    }
}

} // namespace

void begin_capture(CUstream stream, CaptureMode mode) {
    if (stream == nullptr)
        throw std::invalid_argument(
            "the legacy default stream cannot be captured: capture a pycuda.driver.Stream()");
    RunningCapture capture{Context::require_current("begin_capture"), nullptr, {}, {}};
    capture.pool_batch = join_device_pool_batch();
    try {
        PYCUDA_CALL(cuStreamBeginCapture, stream, static_cast<CUstreamCaptureMode>(mode));
        CaptureRegistry& r = registry();
        std::lock_guard lock(r.mutex);
        r.running.insert_or_assign(stream, std::move(capture));
        running_count.fetch_add(1, std::memory_order_relaxed);
    } catch (...) {
        leave_device_pool_batch();
        throw;
    }
}

std::unique_ptr<Graph> end_capture(CUstream stream) {
    RunningCapture capture;
    bool ours = false;
    {
        CaptureRegistry& r = registry();
        std::lock_guard lock(r.mutex);
        if (auto it = r.running.find(stream); it != r.running.end()) {
            capture = std::move(it->second);
            r.running.erase(it);
            running_count.fetch_sub(1, std::memory_order_relaxed);
            ours = true;
        }
    }
    if (ours)
        leave_device_pool_batch();
    else // begun elsewhere (another library): the graph belongs to the current context
        capture.context = Context::require_current("end_capture");
    CUgraph graph = nullptr;
    if (driver().cuStreamEndCapture == nullptr)
        throw CudaError(CUDA_ERROR_NOT_SUPPORTED, "cuStreamEndCapture",
                        "this driver does not provide it");
    CUresult rc = driver().cuStreamEndCapture(stream, &graph);
    if (rc != CUDA_SUCCESS)
        throw CudaError(rc, "cuStreamEndCapture", end_failure_detail(rc));
    GraphUses uses = std::move(capture.uses);
    if (capture.pool_batch)
        uses.push_back(std::move(capture.pool_batch));
    return std::make_unique<Graph>(graph, std::move(capture.context), std::move(uses));
}

CUstreamCaptureStatus capture_status(CUstream stream) {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    PYCUDA_CALL(cuStreamIsCapturing, stream, &status);
    return status;
}

bool captures_running() noexcept {
    return running_count.load(std::memory_order_relaxed) != 0;
}

void capture_uses(CUstream stream, const std::shared_ptr<const void>& what) {
    CaptureRegistry& r = registry();
    std::lock_guard lock(r.mutex);
    auto it = r.running.find(stream);
    if (it == r.running.end())
        return;
    if (it->second.used.insert(what.get()).second)
        it->second.uses.push_back(what);
}

void CaptureScope::enter() {
    if (used_)
        throw std::logic_error("a capture scope is entered once; make a new one with "
                               "stream.capture()");
    used_ = true;
    begin_capture(stream_, mode_);
    previous_ = exchange_current_stream(stream_);
    active_ = true;
}

std::unique_ptr<Graph> CaptureScope::exit() {
    if (!active_)
        throw std::logic_error("the capture scope is not active");
    active_ = false;
    exchange_current_stream(previous_);
    return end_capture(stream_);
}

void CaptureScope::abandon() noexcept {
    if (!active_)
        return;
    active_ = false;
    exchange_current_stream(previous_);
    try {
        end_capture(stream_);
    } catch (...) {
        // Leaving on an exception already: the capture's own failure would hide it.
    }
}

} // namespace pycuda
