// core/context.hpp: CUDA contexts on CUDA's own context stack, and activation for clean-up.
//
// A Context owns one reference to a CUDA context: a context it created (destroyed with the last
// owner), a retained primary context (released with the last owner), or a context someone else
// made (borrowed, never destroyed here). Every object that lives in a context holds a
// shared_ptr<Context>, so the context outlives everything allocated in it, and frees happen in
// the right context from any thread through ScopedActivation.
#pragma once

#include "core/device.hpp"
#include "core/driver_api.hpp"

#include <exception>
#include <memory>

namespace pycuda {

class Context {
public:
    enum class Ownership { Created, Primary, Borrowed };

    /// cuCtxCreate on `device`; the new context is pushed onto this thread's stack.
    static std::shared_ptr<Context> create(const Device& device, unsigned flags = 0);
    /// Retains the device's primary context (not pushed).
    static std::shared_ptr<Context> retain_primary(const Device& device);
    /// The context current in this thread, or null. Contexts made elsewhere (CuPy, PyTorch)
    /// are wrapped: a primary context is retained, any other is borrowed.
    static std::shared_ptr<Context> current();
    /// The handle of the context current in this thread, or null (also without a driver, or
    /// before cuInit): only cuCtxGetCurrent, for caches keyed by context on hot paths.
    static CUcontext current_handle() noexcept;
    /// As current(), but a missing context is CudaError(INVALID_CONTEXT) naming `what`.
    static std::shared_ptr<Context> require_current(const char* what);
    /// cuCtxPopCurrent; returns the popped context (null if the stack was empty).
    static std::shared_ptr<Context> pop();
    /// cuCtxSynchronize on the current context.
    static void synchronize();
    /// Limits, cache and shared-memory configuration of the current context.
    static void set_limit(CUlimit limit, size_t value);
    static size_t limit(CUlimit limit);
    static CUfunc_cache cache_config();
    static void set_cache_config(CUfunc_cache config);
    static CUsharedconfig shared_config();
    static void set_shared_config(CUsharedconfig config);
    /// Peer access from the current context to `peer`'s memory.
    static void enable_peer_access(const Context& peer, unsigned flags = 0);
    static void disable_peer_access(const Context& peer);

    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    ~Context();

    /// cuCtxPushCurrent(this).
    void push();
    /// True when this context is the one current in the calling thread.
    bool is_current() const;

    CUcontext handle() const noexcept { return handle_; }
    Device device() const noexcept { return device_; }
    Ownership ownership() const noexcept { return ownership_; }
    unsigned api_version() const;

private:
    Context(CUcontext handle, Device device, Ownership ownership)
        : handle_(handle), device_(device), ownership_(ownership) {}
    static std::shared_ptr<Context> adopt(CUcontext handle, Device device, Ownership ownership);

    CUcontext handle_;
    Device device_;
    Ownership ownership_;
};

using ContextPtr = std::shared_ptr<Context>;

/// Called by every Context's destructor before it destroys or releases its CUDA context, with
/// the context still usable: how per-context resources kept outside the Context (the staging
/// buffers of core/staged_copy) are freed with it. Must not throw. Never called in a child
/// forked after cuInit (the context belongs to the parent).
using ContextTeardownHook = void (*)(const Context& context) noexcept;

/// Adds `hook` to those every later Context destruction calls (for the life of the process).
void add_context_teardown_hook(ContextTeardownHook hook);

/// Makes a context current in this thread for the scope (pushing it only when it is not
/// already current) and restores the previous state after. Used by destructors and by calls on
/// objects that belong to a context other than the current one.
class ScopedActivation {
public:
    explicit ScopedActivation(const Context& context);
    ~ScopedActivation();
    ScopedActivation(const ScopedActivation&) = delete;
    ScopedActivation& operator=(const ScopedActivation&) = delete;

private:
    bool pushed_ = false;
};

/// Runs `release` (a clean-up that must not throw out of a destructor) with `context` current.
/// A context that can no longer be activated (driver shut down at exit) is reported, not thrown.
template <typename Release>
void release_in(const Context& context, Release&& release) noexcept {
    try {
        ScopedActivation active(context);
        release();
    } catch (const std::exception&) {
        // Activation failed: at exit the driver is gone, and the memory with it.
    }
}

} // namespace pycuda
