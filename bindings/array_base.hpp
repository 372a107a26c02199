// bindings/array_base.hpp: pycuda._driver.ArrayBase, the C layout of GPUArray's attributes.
//
// GPUArray (python/pycuda/gpuarray.py) extends this type. Its attributes are the original's
// plain instance data: whatever is assigned is read back, and assigning `gpudata`, `shape`,
// `strides` or `dtype` changes what every later operation uses. The fields here are what C++
// (the flat launches) reads without looking up names by string, and two values derived from
// them and kept up to date by their setters: the device address of `gpudata` and whether the
// layout is C-contiguous.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>

namespace nb = nanobind;

namespace pycuda::bindings {

/// An array's instance data. Object fields are null until assigned (reading one then raises
/// AttributeError, as an unset Python attribute would); a new instance is all zeros, so the
/// derived values' zero means "not known yet".
struct ArrayObject {
    PyObject_HEAD PyObject* shape;
    PyObject* dtype;
    PyObject* strides;
    PyObject* size;
    PyObject* allocator;
    PyObject* gpudata;
    PyObject* base;
    // Assigned values of nbytes, mem_size and itemsize; null: computed from the fields above.
    PyObject* nbytes;
    PyObject* mem_size;
    PyObject* itemsize;
    std::uintptr_t ptr;     // int(gpudata), taken when gpudata is assigned
    signed char ptr_known;  // 0: gpudata had no int() then; `ptr` asks it again
    signed char contiguous; // 0: not yet worked out; else 1 + (C-contiguous)
};

/// The ArrayBase type (made by bind_array_base).
PyTypeObject* array_base_type();

/// Whether `array`'s layout is C-contiguous by NumPy's rules (worked out once per layout);
/// -1 with a Python error set where shape, strides or dtype are not what an array has.
int array_c_contiguous(ArrayObject* array);

/// Whether `obj` is an ArrayBase (a GPUArray); its device address (int(gpudata)) then goes
/// to `address`. Throws where gpudata has no address.
bool array_address(PyObject* obj, std::uintptr_t& address);

/// A new instance of `type` (ArrayBase or a subclass) with these fields: a C-contiguous array
/// over `gpudata` at address `ptr`, as GPUArray._fresh makes it. References are taken.
nb::object make_array(PyTypeObject* type, PyObject* shape, PyObject* dtype, PyObject* strides,
                      PyObject* size, PyObject* allocator, PyObject* gpudata, std::uintptr_t ptr);

} // namespace pycuda::bindings
