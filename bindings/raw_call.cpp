// bindings/raw_call.cpp: the exception relay of the plain CPython entry points.
#include "bindings/raw_call.hpp"

#include <exception>
#include <utility>

namespace pycuda::bindings {

namespace {

thread_local std::exception_ptr pending_error;
PyObject* rethrow_pending = nullptr;

} // namespace

PyObject* raise_current() noexcept {
    pending_error = std::current_exception();
    PyObject* result = PyObject_CallNoArgs(rethrow_pending);
    Py_XDECREF(result); // always null: the call raised
    return nullptr;
}

void bind_raw_call(nb::module_& m) {
    m.def("_rethrow_pending", []() {
        std::exception_ptr e = std::exchange(pending_error, nullptr);
        if (e)
            std::rethrow_exception(e);
    });
    rethrow_pending = m.attr("_rethrow_pending").inc_ref().ptr();
}

} // namespace pycuda::bindings
