// bindings/error.cpp: pycuda._driver.Error and subclasses, with .code, .name and .routine.
#include "bindings/error.hpp"
#include "bindings/python_api.hpp"

#include "core/error.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace pycuda::bindings {

namespace {

PyObject* error_class = nullptr;
PyObject* logic_error_class = nullptr;
PyObject* launch_error_class = nullptr;
PyObject* memory_error_class = nullptr;
PyObject* runtime_error_class = nullptr;
PyObject* driver_not_found_class = nullptr;

// The mapping of the original (reference §2.3), so existing `except` clauses keep working.
PyObject* class_for(CUresult code) {
    switch (code) {
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING:
        return launch_error_class;
    case CUDA_ERROR_OUT_OF_MEMORY:
        return memory_error_class;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_FILE_NOT_FOUND:
    case CUDA_ERROR_NOT_READY:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_STUB_LIBRARY:
        return runtime_error_class;
    case CUDA_ERROR_UNKNOWN:
        return error_class;
    default:
        return logic_error_class;
    }
}

void raise(const CudaError& e) {
    PyObject* cls = class_for(e.code());
    // No libcuda to open: the original failed at `import pycuda.driver` with an ImportError,
    // and clients probe for CUDA with `except ImportError` (reikna's cluda.supports_api).
    if (e.code() == CUDA_ERROR_NO_DEVICE && e.routine() == "dlopen")
        cls = driver_not_found_class;
    PyObject* instance = PyObject_CallFunction(cls, "s", e.what());
    if (!instance)
        return; // the call failed and left its own exception set
    PyObject* code = PyLong_FromLong(static_cast<long>(e.code()));
    PyObject_SetAttrString(instance, "code", code);
    Py_XDECREF(code);
    PyObject* name = PyUnicode_FromString(e.name().c_str());
    PyObject_SetAttrString(instance, "name", name);
    Py_XDECREF(name);
    PyObject* routine = PyUnicode_FromString(e.routine().c_str());
    PyObject_SetAttrString(instance, "routine", routine);
    Py_XDECREF(routine);
    PyErr_SetObject(cls, instance);
    Py_DECREF(instance);
}

PyObject* new_class(nb::module_& m, const char* name, PyObject* base, const char* doc) {
    std::string qualified = std::string("pycuda._driver.") + name;
    PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base,
                                              nullptr); // base: a class or a tuple
    if (!cls)
        throw nb::python_error();
    m.attr(name) = nb::handle(cls);
    return cls;
}

void warn_cleanup(std::string_view message) {
    std::string text(message);
    if (!Py_IsInitialized() || pyapi::is_finalizing()) {
        std::fprintf(stderr, "%s\n", text.c_str());
        return;
    }
    nb::gil_scoped_acquire gil;
    // Keep any exception already in flight (this may run inside a failing call's unwinding).
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (PyErr_WarnEx(PyExc_UserWarning, text.c_str(), 1) < 0)
        PyErr_WriteUnraisable(nullptr);
    PyErr_Restore(type, value, traceback);
}

} // namespace

void bind_error(nb::module_& m) {
    error_class = new_class(m, "Error", PyExc_Exception,
                            "Base of every CUDA driver error; .code is the CUresult, .name its "
                            "symbol, .routine the driver call that failed.");
    PyObject_SetAttrString(error_class, "code", Py_None);
    PyObject_SetAttrString(error_class, "name", Py_None);
    PyObject_SetAttrString(error_class, "routine", Py_None);
    logic_error_class = new_class(m, "LogicError", error_class,
                                  "A CUDA call was used wrongly (bad value, handle "
                                  "or context).");
    launch_error_class = new_class(m, "LaunchError", error_class, "A kernel launch failed.");
    memory_error_class = new_class(m, "MemoryError", error_class, "Out of device memory.");
    runtime_error_class = new_class(m, "RuntimeError", error_class,
                                    "No usable device, driver or binary for the GPU.");
    nb::object bases =
        nb::make_tuple(nb::handle(runtime_error_class), nb::handle(PyExc_ImportError));
    driver_not_found_class = new_class(m, "DriverNotFoundError", bases.ptr(),
                                       "No CUDA driver (libcuda) could be loaded: a RuntimeError, "
                                       "and an ImportError as the original's import failure was.");
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const CudaError& e) {
            raise(e);
        } catch (const std::invalid_argument&) {
            throw; // ValueError, as nanobind translates these ...
        } catch (const std::domain_error&) {
            throw;
        } catch (const std::length_error&) {
            throw;
        } catch (const std::out_of_range&) {
            throw; // ... IndexError
        } catch (const std::logic_error& e) {
            // The core's "used wrongly" (a Memcpy2D with no source set, a texture with nothing
            // bound): pycuda's LogicError, not a bare RuntimeError.
            PyErr_SetString(logic_error_class, e.what());
        }
    });
    set_cleanup_warning_handler(warn_cleanup);
    m.def(
        "_is_sticky_fault", [](int code) { return is_sticky_fault(static_cast<CUresult>(code)); },
        nb::arg("code"),
        "Whether the CUresult `code` is a kernel fault that leaves the context unusable.");
}

} // namespace pycuda::bindings
