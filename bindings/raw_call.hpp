// bindings/raw_call.hpp: the exception relay of the plain CPython entry points (hot paths).
//
// The hot paths (Function.__call__, prepared_*, the flat element-wise launches) are plain
// CPython calls (tp_call and METH_FASTCALL methods) rather than nanobind overloads: that skips
// building an args tuple and a kwargs dict and the overload dispatch, the largest cost left on
// those paths. C++ exceptions still go through nanobind's translators (CudaError ->
// pycuda.driver.LogicError, ...): the exception is kept and rethrown inside a tiny
// nanobind-bound function, which raises it as Python sees it.
#pragma once

#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace pycuda::bindings {

/// Sets the Python error for the C++ exception being handled, as nanobind's translators would;
/// returns null (for a CPython entry point to return).
PyObject* raise_current() noexcept;

/// Runs `body` (returning an nb::object) for a CPython entry point: its result as a new
/// reference, or null with the Python error set for whatever it threw.
template <typename Body>
PyObject* guarded(Body&& body) noexcept {
    try {
        return body().release().ptr();
    } catch (nb::python_error& e) {
        e.restore();
        return nullptr;
    } catch (...) {
        return raise_current();
    }
}

/// Binds `_rethrow_pending`, the relay's Python end; once, before any entry point runs.
void bind_raw_call(nb::module_& m);

} // namespace pycuda::bindings
