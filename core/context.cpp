// core/context.cpp: context creation, the registry that maps CUcontext to its owner, and
// activation.
#include "core/context.hpp"

#include "core/error.hpp"

#include <mutex>
#include <unordered_map>
#include <vector>

namespace pycuda {

namespace {

// CUcontext -> the Context that owns our reference, so current() hands back the same owner
// (and the same Python object) instead of retaining twice.
struct Registry {
    std::mutex mutex;
    std::unordered_map<CUcontext, std::weak_ptr<Context>> owners;
};

Registry& registry() {
    // Leaked on purpose: contexts may be released by destructors running after static
    // destruction at exit.
    static Registry* r = new Registry;
    return *r;
}

struct TeardownHooks {
    std::mutex mutex;
    std::vector<ContextTeardownHook> hooks;
};

TeardownHooks& teardown_hooks() {
    static TeardownHooks* h = new TeardownHooks; // leaked, as the registry
    return *h;
}

void run_teardown_hooks(const Context& context) noexcept {
    if (in_forked_child())
        return;
    std::vector<ContextTeardownHook> hooks;
    try {
        TeardownHooks& h = teardown_hooks();
        std::lock_guard lock(h.mutex);
        hooks = h.hooks;
    } catch (...) {
        return; // no memory for the copy: the resources go with the context
    }
    for (ContextTeardownHook hook : hooks)
        hook(context);
}

} // namespace

void add_context_teardown_hook(ContextTeardownHook hook) {
    TeardownHooks& h = teardown_hooks();
    std::lock_guard lock(h.mutex);
    h.hooks.push_back(hook);
}

std::shared_ptr<Context> Context::adopt(CUcontext handle, Device device, Ownership ownership) {
    std::shared_ptr<Context> ctx(new Context(handle, device, ownership));
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.owners[handle] = ctx;
    return ctx;
}

std::shared_ptr<Context> Context::create(const Device& device, unsigned flags) {
    const DriverApi& api = driver();
    CUcontext handle = nullptr;
    if (api.cuCtxCreateWithParams)
        PYCUDA_CALL(cuCtxCreateWithParams, &handle, nullptr, flags, device.handle());
    else
        PYCUDA_CALL(cuCtxCreate, &handle, flags, device.handle());
    // cuCtxCreate leaves the new context current, which is PyCUDA's make_context semantics.
    return adopt(handle, device, Ownership::Created);
}

std::shared_ptr<Context> Context::retain_primary(const Device& device) {
    CUcontext handle = nullptr;
    PYCUDA_CALL(cuDevicePrimaryCtxRetain, &handle, device.handle());
    Registry& r = registry();
    {
        std::lock_guard lock(r.mutex);
        auto it = r.owners.find(handle);
        if (it != r.owners.end())
            if (auto existing = it->second.lock()) {
                // One reference per owner object is enough; give back the extra one.
                driver().cuDevicePrimaryCtxRelease(device.handle());
                return existing;
            }
    }
    return adopt(handle, device, Ownership::Primary);
}

std::shared_ptr<Context> Context::current() {
    CUcontext handle = nullptr;
    PYCUDA_CALL(cuCtxGetCurrent, &handle);
    if (handle == nullptr)
        return nullptr;
    {
        Registry& r = registry();
        std::lock_guard lock(r.mutex);
        auto it = r.owners.find(handle);
        if (it != r.owners.end())
            if (auto existing = it->second.lock())
                return existing;
    }
    CUdevice dev = 0;
    PYCUDA_CALL(cuCtxGetDevice, &dev);
    CUcontext primary = nullptr;
    PYCUDA_CALL(cuDevicePrimaryCtxRetain, &primary, dev);
    if (primary == handle)
        return adopt(handle, Device(dev), Ownership::Primary);
    driver().cuDevicePrimaryCtxRelease(dev);
    return adopt(handle, Device(dev), Ownership::Borrowed);
}

CUcontext Context::current_handle() noexcept {
    if (in_forked_child() || !driver_loadable())
        return nullptr;
    CUcontext handle = nullptr;
    if (driver().cuCtxGetCurrent(&handle) != CUDA_SUCCESS)
        return nullptr;
    return handle;
}

std::shared_ptr<Context> Context::require_current(const char* what) {
    auto ctx = current();
    if (!ctx)
        throw CudaError(CUDA_ERROR_INVALID_CONTEXT, what,
                        "no CUDA context is current in this thread: import pycuda.autoinit, "
                        "or make one with Device(n).make_context() / retain_primary_context()"
                        ".push()");
    return ctx;
}

std::shared_ptr<Context> Context::pop() {
    auto top = current();
    if (!top)
        throw CudaError(CUDA_ERROR_INVALID_CONTEXT, "cuCtxPopCurrent",
                        "the context stack of this thread is empty");
    CUcontext popped = nullptr;
    PYCUDA_CALL(cuCtxPopCurrent, &popped);
    return top;
}

void Context::synchronize() {
    require_current("cuCtxSynchronize");
    PYCUDA_CALL(cuCtxSynchronize);
}

void Context::set_limit(CUlimit limit, size_t value) {
    PYCUDA_CALL(cuCtxSetLimit, limit, value);
}

size_t Context::limit(CUlimit limit) {
    size_t value = 0;
    PYCUDA_CALL(cuCtxGetLimit, &value, limit);
    return value;
}

CUfunc_cache Context::cache_config() {
    CUfunc_cache config{};
    PYCUDA_CALL(cuCtxGetCacheConfig, &config);
    return config;
}

void Context::set_cache_config(CUfunc_cache config) {
    PYCUDA_CALL(cuCtxSetCacheConfig, config);
}

CUsharedconfig Context::shared_config() {
    CUsharedconfig config{};
    PYCUDA_CALL(cuCtxGetSharedMemConfig, &config);
    return config;
}

void Context::set_shared_config(CUsharedconfig config) {
    PYCUDA_CALL(cuCtxSetSharedMemConfig, config);
}

void Context::enable_peer_access(const Context& peer, unsigned flags) {
    PYCUDA_CALL(cuCtxEnablePeerAccess, peer.handle(), flags);
}

void Context::disable_peer_access(const Context& peer) {
    PYCUDA_CALL(cuCtxDisablePeerAccess, peer.handle());
}

void Context::push() {
    PYCUDA_CALL(cuCtxPushCurrent, handle_);
}

bool Context::is_current() const {
    CUcontext cur = nullptr;
    return driver().cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == handle_;
}

unsigned Context::api_version() const {
    unsigned version = 0;
    PYCUDA_CALL(cuCtxGetApiVersion, handle_, &version);
    return version;
}

Context::~Context() {
    run_teardown_hooks(*this);
    {
        Registry& r = registry();
        std::lock_guard lock(r.mutex);
        auto it = r.owners.find(handle_);
        // Only erase our own entry: the handle may already name a newer context.
        if (it != r.owners.end() && it->second.expired())
            r.owners.erase(it);
    }
    switch (ownership_) {
    case Ownership::Created:
        // Also pops it where it is current in this thread (cuCtxDestroy's documented behaviour).
        PYCUDA_CALL_CLEANUP(cuCtxDestroy, handle_);
        break;
    case Ownership::Primary:
        PYCUDA_CALL_CLEANUP(cuDevicePrimaryCtxRelease, device_.handle());
        break;
    case Ownership::Borrowed:
        break;
    }
}

ScopedActivation::ScopedActivation(const Context& context) {
    if (!context.is_current()) {
        PYCUDA_CALL(cuCtxPushCurrent, context.handle());
        pushed_ = true;
    }
}

ScopedActivation::~ScopedActivation() {
    if (pushed_) {
        CUcontext popped = nullptr;
        PYCUDA_CALL_CLEANUP(cuCtxPopCurrent, &popped);
    }
}

} // namespace pycuda
