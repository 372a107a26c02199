// bindings/context.hpp: the Python-side handle on a core Context.
#pragma once

#include "core/context.hpp"

#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace pycuda::bindings {

/// What a Python `Context` object holds: one owner reference to the core Context, dropped by
/// detach(). Objects allocated in the context hold their own references, so detaching never
/// pulls a context from under live memory; it goes when the last of them does.
class ContextRef {
public:
    explicit ContextRef(ContextPtr ctx) : ctx_(std::move(ctx)), handle_(ctx_->handle()) {}
    /// The context; a detached one is LogicError(INVALID_CONTEXT).
    const ContextPtr& get() const;
    void detach() { ctx_.reset(); }
    bool detached() const { return !ctx_; }
    /// The handle at detach time survives for __eq__/__hash__/repr.
    CUcontext handle() const { return handle_; }

private:
    ContextPtr ctx_;
    CUcontext handle_;
};

void bind_context(nb::module_& m);

} // namespace pycuda::bindings
