// bindings/context.cpp: pycuda._driver.Context.
#include "bindings/context.hpp"
#include "bindings/checked_int.hpp"

#include "core/error.hpp"

#include <nanobind/stl/optional.h>

#include <cstdint>
#include <nanobind/stl/string.h>
#include <optional>

namespace pycuda::bindings {

const ContextPtr& ContextRef::get() const {
    if (!ctx_)
        throw CudaError(CUDA_ERROR_INVALID_CONTEXT, "Context",
                        "this Context was detached and can no longer be used");
    return ctx_;
}

namespace {

std::optional<ContextRef> current_or_none() {
    if (!driver_loadable())
        return std::nullopt;
    auto ctx = Context::current();
    if (!ctx)
        return std::nullopt;
    return ContextRef(std::move(ctx));
}

} // namespace

void bind_context(nb::module_& m) {
    m.def(
        "_current_context_handle",
        []() { return reinterpret_cast<std::uintptr_t>(Context::current_handle()); },
        "The handle of the current context as an int (0 if none): one cuCtxGetCurrent, for "
        "per-context caches on hot paths.");
    nb::class_<ContextRef>(m, "Context", nb::dynamic_attr(),
                           "A CUDA context. Made by Device.make_context() (pushed) or "
                           "Device.retain_primary_context() (not pushed).\n\n"
                           "    ctx = pycuda.driver.Device(0).make_context()\n"
                           "    ...\n"
                           "    ctx.pop(); ctx.detach()")
        .def(
            "push", [](const ContextRef& self) { self.get()->push(); },
            "Make this context current in the calling thread (cuCtxPushCurrent).")
        .def("detach", &ContextRef::detach,
             "Give up this object's reference; the context is destroyed (or the primary "
             "context released) once nothing allocated in it remains.")
        .def(
            "get_api_version", [](const ContextRef& self) { return self.get()->api_version(); },
            "The CUDA API version the context was created with (cuCtxGetApiVersion).")
        .def_prop_ro(
            "handle",
            [](const ContextRef& self) { return reinterpret_cast<std::uintptr_t>(self.handle()); },
            "The CUcontext, as an int.")
        .def_static(
            "pop",
            []() {
                nb::gil_scoped_release release;
                Context::pop();
            },
            "Pop the current context off this thread's context stack (cuCtxPopCurrent).")
        .def_static("get_current", &current_or_none, "The context current in this thread, or None.")
        .def_static(
            "get_device", []() { return Context::require_current("Context.get_device")->device(); },
            "The device of the current context.")
        .def_static(
            "synchronize",
            []() {
                nb::gil_scoped_release release;
                Context::synchronize();
            },
            "Wait for all work in the current context (cuCtxSynchronize).")
        .def_static(
            "attach",
            [](unsigned /*flags*/) {
                // cuCtxAttach is gone; taking a reference to the current context is what it did.
                return ContextRef(Context::require_current("Context.attach"));
            },
            nb::arg("flags") = 0,
            "A new reference to the current context (the driver's cuCtxAttach is gone; `flags` "
            "is ignored).")
        .def_static(
            "set_limit",
            [](int limit, size_t value) { Context::set_limit(static_cast<CUlimit>(limit), value); },
            "Set a limit of the current context: set_limit(limit.STACK_SIZE, bytes) "
            "(cuCtxSetLimit).")
        .def_static(
            "get_limit", [](int limit) { return Context::limit(static_cast<CUlimit>(limit)); },
            "The value of a limit (pycuda.driver.limit) of the current context.")
        .def_static(
            "get_cache_config", []() { return static_cast<int>(Context::cache_config()); },
            "The current context's preference between shared memory and L1 (a func_cache value).")
        .def_static(
            "set_cache_config",
            [](Int<int, "a func_cache value"> c) {
                Context::set_cache_config(static_cast<CUfunc_cache>(int(c)));
            },
            "Prefer shared memory or L1 in the current context (a func_cache value).")
        .def_static(
            "get_shared_config", []() { return static_cast<int>(Context::shared_config()); },
            "The current context's shared memory bank size (a shared_config value).")
        .def_static(
            "set_shared_config",
            [](int c) { Context::set_shared_config(static_cast<CUsharedconfig>(c)); },
            "Set the current context's shared memory bank size (a shared_config value).")
        .def_static(
            "enable_peer_access",
            [](const ContextRef& peer, unsigned flags) {
                Context::enable_peer_access(*peer.get(), flags);
            },
            nb::arg("peer"), nb::arg("flags") = 0,
            "Let the current context access memory allocated in context `peer`.")
        .def_static(
            "disable_peer_access",
            [](const ContextRef& peer) { Context::disable_peer_access(*peer.get()); },
            "Stop the current context's access to memory of context `peer`.")
        .def(
            "__eq__",
            [](const ContextRef& a, nb::handle b) {
                return nb::isinstance<ContextRef>(b) &&
                       a.handle() == nb::cast<const ContextRef&>(b).handle();
            },
            nb::arg("other").none())
        .def("__hash__",
             [](const ContextRef& self) {
                 return static_cast<Py_hash_t>(reinterpret_cast<std::uintptr_t>(self.handle()) >>
                                               4);
             })
        .def("__repr__", [](const ContextRef& self) {
            char buf[64];
            std::snprintf(buf, sizeof(buf), "<pycuda.driver.Context %p%s>",
                          static_cast<void*>(self.handle()), self.detached() ? " detached" : "");
            return std::string(buf);
        });
}

} // namespace pycuda::bindings
