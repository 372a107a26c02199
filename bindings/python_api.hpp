// bindings/python_api.hpp: the CPython calls whose spelling differs under the limited API
// (abi3, 3.12+), one inline function each.
//
// Without Py_LIMITED_API each function is the macro or struct access the bindings used before,
// so the launch path compiles to the same code; with it (the one-wheel-for-3.12+ build, issue
// 20) each is the stable-ABI function. Preconditions are the macros' (a tuple where a tuple is
// asked for, an index in range); under them the limited forms cannot fail either, so callers
// check nothing more. References returned are borrowed unless a function says otherwise.
// The launch path's helpers are NB_INLINE: the extension is built with -Os, under which GCC
// otherwise calls some of them out of line, a cost the macros never had.
#pragma once

#include <nanobind/nanobind.h>

#include <atomic>
#include <cstddef>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>

namespace nb = nanobind;

namespace pycuda::bindings::pyapi {

namespace detail {
#ifdef Py_LIMITED_API
// Set once by init_python_api; types.MethodType is a static type, never freed.
inline PyObject* method_type = nullptr;
// Py_IsFinalizing is public only from 3.13 (and _Py_IsFinalizing is private): an atexit
// callback raises `finalizing` instead. Py_FinalizeEx runs the atexit callbacks (after
// threading's shutdown) just before Py_IsFinalizing turns true, so the flag is only a little
// early; every caller then takes its cautious branch (leak a reference at exit, print to stderr
// rather than warn), which is premature at worst, never unsafe.
inline std::atomic<bool> finalizing{false};
// The thread running Py_FinalizeEx (the one that ran the atexit callbacks): the only one that
// may still take the GIL during the teardown.
inline std::atomic<PyThreadState*> finalizing_thread{nullptr};
// Set by Py_AtExit, which runs after the last thread state is gone.
inline std::atomic<bool> finalized{false};

inline PyObject* on_atexit(PyObject*, PyObject*) {
    finalizing_thread.store(PyGILState_GetThisThreadState(), std::memory_order_relaxed);
    finalizing.store(true, std::memory_order_release);
    Py_RETURN_NONE;
}

inline void on_finalized() {
    finalized.store(true, std::memory_order_release);
}
#endif
} // namespace detail

/// Module-init part of this header (called first from NB_MODULE): under the limited API, looks
/// up types.MethodType and registers the finalization flags; nothing in the full-API build.
inline void init_python_api() {
#ifdef Py_LIMITED_API
    detail::method_type = nb::module_::import_("types").attr("MethodType").inc_ref().ptr();
    static PyMethodDef def = {"_pycuda_finalizing", &detail::on_atexit, METH_NOARGS, nullptr};
    nb::object callback = nb::steal(PyCFunction_New(&def, nullptr));
    if (!callback.is_valid())
        throw nb::python_error();
    nb::module_::import_("atexit").attr("register")(callback);
    // Where its table is full, nothing tells when the thread states are gone: then no
    // reference is dropped during the teardown at all.
    if (Py_AtExit(&detail::on_finalized) != 0)
        detail::finalized.store(true);
#endif
}

/// Whether the interpreter has begun to finalize (under the limited API: its atexit has run).
inline bool is_finalizing() noexcept {
#ifndef Py_LIMITED_API
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing();
#else
    return _Py_IsFinalizing();
#endif
#else
    return detail::finalizing.load(std::memory_order_acquire);
#endif
}

/// Drops a strong reference from any thread, holding the GIL or not: at once where this
/// thread holds it (also during the teardown), else under PyGILState_Ensure; leaked where no
/// thread may take the GIL any more (another thread during finalization, or after it).
inline void release_from_any_thread(PyObject* obj) noexcept {
#ifndef Py_LIMITED_API
#if PY_VERSION_HEX >= 0x030D0000
    PyThreadState* attached = PyThreadState_GetUnchecked();
#else
    PyThreadState* attached = _PyThreadState_UncheckedGet();
#endif
    if (attached != nullptr) {
        Py_DECREF(obj);
        return;
    }
    if (!Py_IsInitialized() || is_finalizing())
        return;
#else
    // No limited function tells whether this thread holds the GIL; PyGILState_Ensure is right
    // either way (it nests), except during the teardown, where only the finalizing thread may
    // call it (another one would block or exit there).
    if (is_finalizing()) {
        PyThreadState* finalizer = detail::finalizing_thread.load(std::memory_order_relaxed);
        if (detail::finalized.load(std::memory_order_acquire) || finalizer == nullptr ||
            PyGILState_GetThisThreadState() != finalizer)
            return;
    } else if (!Py_IsInitialized()) {
        return;
    }
#endif
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF(obj);
    PyGILState_Release(gil);
}

/// The size of a tuple.
NB_INLINE Py_ssize_t tuple_size(PyObject* tuple) noexcept {
#ifndef Py_LIMITED_API
    return PyTuple_GET_SIZE(tuple);
#else
    return PyTuple_Size(tuple);
#endif
}

/// Item `i` of a tuple (borrowed).
NB_INLINE PyObject* tuple_item(PyObject* tuple, Py_ssize_t i) noexcept {
#ifndef Py_LIMITED_API
    return PyTuple_GET_ITEM(tuple, i);
#else
    return PyTuple_GetItem(tuple, i);
#endif
}

/// Fills slot `i` of a tuple fresh from PyTuple_New (nothing else refers to it), stealing
/// `value` (also on failure); -1 with a Python error on failure (never in the full-API build).
NB_INLINE int tuple_fill(PyObject* tuple, Py_ssize_t i, PyObject* value) noexcept {
#ifndef Py_LIMITED_API
    PyTuple_SET_ITEM(tuple, i, value);
    return 0;
#else
    return PyTuple_SetItem(tuple, i, value);
#endif
}

/// The size of a tuple or list (what PySequence_Fast returns).
NB_INLINE Py_ssize_t fast_size(PyObject* seq) noexcept {
#ifndef Py_LIMITED_API
    return PySequence_Fast_GET_SIZE(seq);
#else
    return PyList_Check(seq) ? PyList_Size(seq) : PyTuple_Size(seq);
#endif
}

/// Item `i` of a tuple or list (borrowed).
NB_INLINE PyObject* fast_item(PyObject* seq, Py_ssize_t i) noexcept {
#ifndef Py_LIMITED_API
    return PySequence_Fast_GET_ITEM(seq, i);
#else
    return PyList_Check(seq) ? PyList_GetItem(seq, i) : PyTuple_GetItem(seq, i);
#endif
}

/// The items of a tuple or list as a contiguous array of borrowed references, valid while the
/// sequence lives unchanged: its own storage in the full-API build, a copy (on the stack up
/// to 16 items) under the limited API, which has no access to it.
class FastItems {
public:
    NB_INLINE explicit FastItems(PyObject* seq) noexcept {
#ifndef Py_LIMITED_API
        if (PyList_Check(seq)) {
            items_ = reinterpret_cast<PyListObject*>(seq)->ob_item;
            size_ = PyList_GET_SIZE(seq);
        } else {
            items_ = reinterpret_cast<PyTupleObject*>(seq)->ob_item;
            size_ = PyTuple_GET_SIZE(seq);
        }
#else
        size_ = fast_size(seq);
        PyObject** items = small_;
        if (size_ > static_cast<Py_ssize_t>(std::size(small_))) {
            large_ = std::make_unique<PyObject*[]>(static_cast<std::size_t>(size_));
            items = large_.get();
        }
        for (Py_ssize_t i = 0; i < size_; ++i)
            items[i] = fast_item(seq, i);
        items_ = items;
#endif
    }
    FastItems(const FastItems&) = delete; // items_ may point into this object
    FastItems& operator=(const FastItems&) = delete;

    PyObject* const* data() const noexcept { return items_; }
    std::size_t size() const noexcept { return static_cast<std::size_t>(size_); }
    PyObject* operator[](Py_ssize_t i) const noexcept { return items_[i]; }

private:
    PyObject* const* items_ = nullptr;
    Py_ssize_t size_ = 0;
#ifdef Py_LIMITED_API
    PyObject* small_[16];
    std::unique_ptr<PyObject*[]> large_;
#endif
};

/// A type's name for messages: tp_name, and under the limited API the same where it can tell
/// (`module.Name` for types defined in C, `Name` for builtins and for classes, whose tp_name it
/// is; a C type made from a spec loses its module). Keeps any Python error in flight.
inline std::string type_name(PyTypeObject* type) {
#ifndef Py_LIMITED_API
    return type->tp_name;
#else
    nb::error_scope keep;
    auto text = [](PyObject* str) -> std::string_view {
        Py_ssize_t n = 0;
        const char* s = str && PyUnicode_Check(str) ? PyUnicode_AsUTF8AndSize(str, &n) : nullptr;
        return s ? std::string_view(s, static_cast<std::size_t>(n)) : std::string_view();
    };
    nb::object name = nb::steal(PyType_GetName(type));
    std::string result(text(name.ptr()));
    if (!(PyType_GetFlags(type) & Py_TPFLAGS_HEAPTYPE)) {
        nb::object module =
            nb::steal(PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), "__module__"));
        std::string_view prefix = text(module.ptr());
        if (!prefix.empty() && prefix != "builtins")
            result = std::string(prefix) + "." + result;
    }
    PyErr_Clear();
    return result.empty() ? std::string("?") : result;
#endif
}

/// Allocates an instance of `type` through its tp_alloc (a new reference, or null with an
/// error).
NB_INLINE PyObject* type_alloc(PyTypeObject* type) noexcept {
#ifndef Py_LIMITED_API
    return type->tp_alloc(type, 0);
#else
    auto alloc = reinterpret_cast<allocfunc>(PyType_GetSlot(type, Py_tp_alloc));
    return alloc(type, 0);
#endif
}

/// Frees `obj`'s memory through its type's tp_free (the last step of a tp_dealloc).
NB_INLINE void type_free(PyTypeObject* type, PyObject* obj) noexcept {
#ifndef Py_LIMITED_API
    type->tp_free(obj);
#else
    reinterpret_cast<freefunc>(PyType_GetSlot(type, Py_tp_free))(obj);
#endif
}

/// The object a memoryview exports (a new reference; invalid or None where it has none).
NB_INLINE nb::object memoryview_exporter(PyObject* view) {
#ifndef Py_LIMITED_API
    return nb::borrow(PyMemoryView_GET_BUFFER(view)->obj);
#else
    // Not PyObject_GetBuffer: a view's buffer names the memoryview itself as its obj.
    nb::object obj = nb::steal(PyObject_GetAttrString(view, "obj"));
    if (!obj.is_valid())
        PyErr_Clear(); // a released view exports nothing
    return obj;
#endif
}

/// The parts of a complex number, as PyComplex_AsCComplex takes them (complex, __complex__,
/// __float__, __index__); false with a Python error where `obj` is none of those.
NB_INLINE bool complex_parts(PyObject* obj, double& real, double& imag) {
#ifndef Py_LIMITED_API
    Py_complex c = PyComplex_AsCComplex(obj);
    if (c.real == -1.0 && PyErr_Occurred())
        return false;
    real = c.real;
    imag = c.imag;
    return true;
#else
    nb::object value = nb::borrow(obj);
    if (!PyComplex_Check(obj)) {
        if (PyUnicode_Check(obj)) { // complex() would parse it; AsCComplex refuses it
            PyErr_SetString(PyExc_TypeError, "a str is not a complex number");
            return false;
        }
        PyObject* args[] = {obj};
        value = nb::steal(
            PyObject_Vectorcall(reinterpret_cast<PyObject*>(&PyComplex_Type), args, 1, nullptr));
        if (!value.is_valid())
            return false;
    }
    real = PyComplex_RealAsDouble(value.ptr());
    imag = PyComplex_ImagAsDouble(value.ptr());
    return true;
#endif
}

/// Whether `str` (an exact str) is the interned instance of its value.
inline bool is_interned(PyObject* str) noexcept {
#ifndef Py_LIMITED_API
    return PyUnicode_CHECK_INTERNED(str) != 0;
#else
    // Interns an equal copy and compares addresses; on failure answers no (the callers then
    // take their general path) without leaving an error.
    Py_ssize_t n = 0;
    const char* text = PyUnicode_AsUTF8AndSize(str, &n);
    PyObject* probe = text ? PyUnicode_FromStringAndSize(text, n) : nullptr;
    if (!probe) {
        PyErr_Clear();
        return false;
    }
    PyUnicode_InternInPlace(&probe);
    bool interned = probe == str;
    Py_DECREF(probe);
    return interned;
#endif
}

/// `callable(arg)`: a new reference, or null with an error.
NB_INLINE PyObject* call_one(PyObject* callable, PyObject* arg) noexcept {
#ifndef Py_LIMITED_API
    return PyObject_CallOneArg(callable, arg);
#else
    // Slot 0 is scratch the callee may use (PY_VECTORCALL_ARGUMENTS_OFFSET), as CallOneArg does.
    PyObject* args[2] = {nullptr, arg};
    return PyObject_Vectorcall(callable, args + 1, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
#endif
}

/// `func` bound to `self` as a method object (a new reference, or null with an error).
inline PyObject* bind_method(PyObject* func, PyObject* self) noexcept {
#ifndef Py_LIMITED_API
    return PyMethod_New(func, self);
#else
    PyObject* args[2] = {func, self};
    return PyObject_Vectorcall(detail::method_type, args, 2, nullptr);
#endif
}

} // namespace pycuda::bindings::pyapi
