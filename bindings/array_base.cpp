// bindings/array_base.cpp: pycuda._driver.ArrayBase, the C layout of GPUArray's attributes
// (see array_base.hpp for why it exists).
//
// A plain CPython type rather than a nanobind class: its instances are made with
// object.__new__ (GPUArray subclasses in client code do that, and pickle and copy may), carry
// no C++ object to construct, and its fields are read by the flat launches at the cost of a
// pointer dereference. Python subclasses get a __dict__ for everything else (`_grid`, a
// subclass's own attributes).
#include "bindings/array_base.hpp"

#include "bindings/pointer.hpp"
#include "bindings/python_api.hpp"
#include "bindings/raw_call.hpp"

#include <structmember.h>

#include <cstddef>
#include <cstdint>

namespace pycuda::bindings {

namespace {

PyTypeObject* array_type = nullptr; // made once by bind_array_base, never freed

ArrayObject* as_array(PyObject* obj) {
    return reinterpret_cast<ArrayObject*>(obj);
}

/// Stores `value` (a new reference taken here; null deletes) into `field`.
void store(PyObject*& field, PyObject* value) {
    PyObject* old = field;
    field = Py_XNewRef(value);
    Py_XDECREF(old);
}

/// The field's value as a new reference, or AttributeError naming it when unset.
PyObject* load(PyObject* self, PyObject* field, const char* name) {
    if (!field) {
        PyErr_Format(PyExc_AttributeError, "'%s' object has no attribute '%s'",
                     pyapi::type_name(Py_TYPE(self)).c_str(), name);
        return nullptr;
    }
    return Py_NewRef(field);
}

/// Works out `int(gpudata)` once, at assignment: every launch and copy then takes the address
/// from the field. An object without an int() (yet) is asked again whenever `ptr` is read.
void take_address(ArrayObject* self) {
    self->ptr = 0;
    self->ptr_known = 1;
    PyObject* data = self->gpudata;
    if (!data || data == Py_None)
        return;
    PyObject* number = PyLong_Check(data) ? Py_NewRef(data) : PyNumber_Long(data);
    if (number) {
        unsigned long long address = PyLong_AsUnsignedLongLong(number);
        Py_DECREF(number);
        if (!(address == static_cast<unsigned long long>(-1) && PyErr_Occurred())) {
            self->ptr = static_cast<std::uintptr_t>(address);
            return;
        }
    }
    PyErr_Clear();
    self->ptr_known = 0;
}

// {{{ attributes whose assignment changes derived state

PyObject* get_shape(PyObject* self, void*) {
    return load(self, as_array(self)->shape, "shape");
}

int set_shape(PyObject* self, PyObject* value, void*) {
    store(as_array(self)->shape, value);
    as_array(self)->contiguous = 0;
    return 0;
}

PyObject* get_strides(PyObject* self, void*) {
    return load(self, as_array(self)->strides, "strides");
}

int set_strides(PyObject* self, PyObject* value, void*) {
    store(as_array(self)->strides, value);
    as_array(self)->contiguous = 0;
    return 0;
}

PyObject* get_dtype(PyObject* self, void*) {
    return load(self, as_array(self)->dtype, "dtype");
}

int set_dtype(PyObject* self, PyObject* value, void*) {
    store(as_array(self)->dtype, value);
    as_array(self)->contiguous = 0; // the item size is part of the layout
    return 0;
}

PyObject* get_gpudata(PyObject* self, void*) {
    return load(self, as_array(self)->gpudata, "gpudata");
}

int set_gpudata(PyObject* self, PyObject* value, void*) {
    store(as_array(self)->gpudata, value);
    take_address(as_array(self));
    return 0;
}

PyObject* get_ptr(PyObject* self, void*) {
    ArrayObject* a = as_array(self);
    if (!a->gpudata)
        return load(self, nullptr, "gpudata");
    if (a->ptr_known)
        return PyLong_FromUnsignedLongLong(a->ptr);
    return PyNumber_Long(a->gpudata);
}

// }}}

// {{{ nbytes, mem_size, itemsize: assigned values, else the original's formulas

PyObject* dtype_itemsize(PyObject* self) {
    PyObject* dtype = load(self, as_array(self)->dtype, "dtype");
    if (!dtype)
        return nullptr;
    PyObject* itemsize = PyObject_GetAttrString(dtype, "itemsize");
    Py_DECREF(dtype);
    return itemsize;
}

PyObject* get_itemsize(PyObject* self, void*) {
    if (PyObject* assigned = as_array(self)->itemsize)
        return Py_NewRef(assigned);
    return dtype_itemsize(self);
}

PyObject* get_mem_size(PyObject* self, void*) {
    if (PyObject* assigned = as_array(self)->mem_size)
        return Py_NewRef(assigned);
    return load(self, as_array(self)->size, "size");
}

PyObject* get_nbytes(PyObject* self, void*) {
    if (PyObject* assigned = as_array(self)->nbytes)
        return Py_NewRef(assigned);
    PyObject* size = load(self, as_array(self)->size, "size");
    if (!size)
        return nullptr;
    PyObject* itemsize = dtype_itemsize(self);
    PyObject* nbytes = itemsize ? PyNumber_Multiply(size, itemsize) : nullptr;
    Py_DECREF(size);
    Py_XDECREF(itemsize);
    return nbytes;
}

int set_itemsize(PyObject* self, PyObject* value, void*) {
    store(as_array(self)->itemsize, value);
    return 0;
}

int set_mem_size(PyObject* self, PyObject* value, void*) {
    store(as_array(self)->mem_size, value);
    return 0;
}

int set_nbytes(PyObject* self, PyObject* value, void*) {
    store(as_array(self)->nbytes, value);
    return 0;
}

// }}}

PyObject* get_c(PyObject* self, void*) {
    int c = array_c_contiguous(as_array(self));
    if (c < 0)
        return nullptr;
    return Py_NewRef(c ? Py_True : Py_False);
}

/// One entry of a shape or strides sequence as a long long (-1 with an error where it is not
/// an int).
bool entry(PyObject* seq, Py_ssize_t i, long long& out) {
    out = PyLong_AsLongLong(pyapi::fast_item(seq, i));
    return !(out == -1 && PyErr_Occurred());
}

/// NumPy's rule: an empty array is contiguous, and axes of length 1 take any stride.
int c_contiguous_of(PyObject* shape_obj, PyObject* strides_obj, long long itemsize) {
    nb::object shape =
        nb::steal(PySequence_Fast(shape_obj, "an array's shape must be a sequence of ints"));
    if (!shape.is_valid())
        return -1;
    nb::object strides =
        nb::steal(PySequence_Fast(strides_obj, "an array's strides must be a sequence of ints"));
    if (!strides.is_valid())
        return -1;
    Py_ssize_t ndim = pyapi::fast_size(shape.ptr());
    long long n = 0, stride = 0, expected = itemsize;
    for (Py_ssize_t i = 0; i < ndim; ++i) {
        if (!entry(shape.ptr(), i, n))
            return -1;
        if (n == 0)
            return 1;
    }
    if (pyapi::fast_size(strides.ptr()) != ndim)
        return 0;
    for (Py_ssize_t i = ndim - 1; i >= 0; --i) {
        if (!entry(shape.ptr(), i, n) || !entry(strides.ptr(), i, stride))
            return -1;
        if (n != 1) {
            if (stride != expected)
                return 0;
            expected *= n;
        }
    }
    return 1;
}

// {{{ the type

int array_traverse(PyObject* obj, visitproc visit, void* arg) {
    ArrayObject* a = as_array(obj);
    Py_VISIT(Py_TYPE(obj));
    Py_VISIT(a->shape);
    Py_VISIT(a->dtype);
    Py_VISIT(a->strides);
    Py_VISIT(a->size);
    Py_VISIT(a->allocator);
    Py_VISIT(a->gpudata);
    Py_VISIT(a->base);
    Py_VISIT(a->nbytes);
    Py_VISIT(a->mem_size);
    Py_VISIT(a->itemsize);
    return 0;
}

int array_clear(PyObject* obj) {
    ArrayObject* a = as_array(obj);
    Py_CLEAR(a->shape);
    Py_CLEAR(a->dtype);
    Py_CLEAR(a->strides);
    Py_CLEAR(a->size);
    Py_CLEAR(a->allocator);
    Py_CLEAR(a->gpudata);
    Py_CLEAR(a->base);
    Py_CLEAR(a->nbytes);
    Py_CLEAR(a->mem_size);
    Py_CLEAR(a->itemsize);
    return 0;
}

void array_dealloc(PyObject* obj) {
    PyTypeObject* type = Py_TYPE(obj);
    PyObject_GC_UnTrack(obj);
    array_clear(obj);
    pyapi::type_free(type, obj);
    Py_DECREF(type); // instances of heap types hold their type
}

PyObject* array_fresh(PyObject* cls, PyObject* const* args, Py_ssize_t n) {
    return guarded([&] {
        if (n != 7)
            throw nb::type_error(
                "_fresh(shape, dtype, strides, size, allocator, gpudata, ptr) takes 7 arguments");
        if (!PyType_Check(cls) ||
            !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), array_type))
            throw nb::type_error("_fresh: cls must be ArrayBase or a subclass");
        unsigned long long ptr = PyLong_AsUnsignedLongLong(args[6]);
        if (ptr == static_cast<unsigned long long>(-1) && PyErr_Occurred())
            throw nb::python_error();
        return make_array(reinterpret_cast<PyTypeObject*>(cls), args[0], args[1], args[2], args[3],
                          args[4], args[5], ptr);
    });
}

PyMemberDef array_members[] = {
    {"size", T_OBJECT_EX, offsetof(ArrayObject, size), 0, "Number of elements."},
    {"allocator", T_OBJECT_EX, offsetof(ArrayObject, allocator), 0,
     "The callable that gave this array's memory (allocator(nbytes)); results use it too."},
    {"base", T_OBJECT_EX, offsetof(ArrayObject, base), 0,
     "The array this one is a view of, or None."},
    {nullptr, 0, 0, 0, nullptr}};

PyGetSetDef array_getset[] = {
    {"shape", &get_shape, &set_shape, "The array's dimensions (a tuple of ints).", nullptr},
    {"strides", &get_strides, &set_strides, "Bytes to step in each dimension.", nullptr},
    {"dtype", &get_dtype, &set_dtype, "The element type (numpy.dtype).", nullptr},
    {"gpudata", &get_gpudata, &set_gpudata,
     "The device memory (an allocation, a pointer holder or an int address); assigning it "
     "moves the array there.",
     nullptr},
    {"ptr", &get_ptr, nullptr, "int(gpudata): the address of the first element.", nullptr},
    {"nbytes", &get_nbytes, &set_nbytes,
     "size * dtype.itemsize, unless a value was assigned (then that value).", nullptr},
    {"mem_size", &get_mem_size, &set_mem_size, "size, unless a value was assigned.", nullptr},
    {"itemsize", &get_itemsize, &set_itemsize, "dtype.itemsize, unless a value was assigned.",
     nullptr},
    {"_c", &get_c, nullptr, "Whether the layout is C-contiguous (NumPy's rules).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMethodDef array_methods[] = {
    {"_fresh", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&array_fresh)),
     METH_FASTCALL | METH_CLASS,
     "_fresh(shape, dtype, strides, size, allocator, gpudata, ptr)\n\nA new C-contiguous array "
     "of this class over gpudata (at address ptr) from checked parts, without __init__."},
    {nullptr, nullptr, 0, nullptr}};

PyType_Slot array_slots[] = {
    {Py_tp_traverse, reinterpret_cast<void*>(&array_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(&array_clear)},
    {Py_tp_dealloc, reinterpret_cast<void*>(&array_dealloc)},
    {Py_tp_members, array_members},
    {Py_tp_getset, array_getset},
    {Py_tp_methods, array_methods},
    {Py_tp_doc, const_cast<char*>("The instance data of pycuda.gpuarray.GPUArray: shape, dtype, "
                                  "strides, size, allocator, gpudata, base, nbytes, mem_size, "
                                  "itemsize, all assignable.")},
    {0, nullptr}};

PyType_Spec array_spec = {"pycuda._driver.ArrayBase", sizeof(ArrayObject), 0,
                          Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
                          array_slots};

// }}}

} // namespace

PyTypeObject* array_base_type() {
    return array_type;
}

int array_c_contiguous(ArrayObject* a) {
    if (a->contiguous)
        return a->contiguous - 1;
    PyObject* self = reinterpret_cast<PyObject*>(a);
    PyObject* itemsize_obj = dtype_itemsize(self);
    if (!itemsize_obj)
        return -1;
    long long itemsize = PyLong_AsLongLong(itemsize_obj);
    Py_DECREF(itemsize_obj);
    if (itemsize == -1 && PyErr_Occurred())
        return -1;
    if (!a->shape || !a->strides) {
        load(self, a->shape ? a->strides : a->shape, a->shape ? "strides" : "shape");
        return -1;
    }
    int c = c_contiguous_of(a->shape, a->strides, itemsize);
    if (c >= 0)
        a->contiguous = static_cast<signed char>(c + 1);
    return c;
}

bool array_address(PyObject* obj, std::uintptr_t& address) {
    if (!array_type || !PyObject_TypeCheck(obj, array_type))
        return false;
    ArrayObject* a = as_array(obj);
    CUdeviceptr checked = 0;
    if (a->gpudata && try_device_pointer(a->gpudata, checked)) {
        address = checked; // an allocation of ours: the pointer it has now (an error if freed)
        return true;
    }
    if (a->ptr_known && a->gpudata) {
        address = a->ptr;
        return true;
    }
    nb::object ptr = nb::steal(get_ptr(obj, nullptr));
    if (!ptr.is_valid())
        throw nb::python_error();
    address = static_cast<std::uintptr_t>(nb::cast<unsigned long long>(ptr));
    return true;
}

nb::object make_array(PyTypeObject* type, PyObject* shape, PyObject* dtype, PyObject* strides,
                      PyObject* size, PyObject* allocator, PyObject* gpudata, std::uintptr_t ptr) {
    nb::object obj = nb::steal(pyapi::type_alloc(type));
    if (!obj.is_valid())
        throw nb::python_error();
    ArrayObject* a = as_array(obj.ptr());
    a->shape = Py_NewRef(shape);
    a->dtype = Py_NewRef(dtype);
    a->strides = Py_NewRef(strides);
    a->size = Py_NewRef(size);
    a->allocator = Py_NewRef(allocator);
    a->gpudata = Py_NewRef(gpudata);
    a->base = Py_NewRef(Py_None);
    a->ptr = ptr;
    a->ptr_known = 1;
    a->contiguous = 2;
    return obj;
}

void bind_array_base(nb::module_& m) {
    if (!array_type) {
        array_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&array_spec));
        if (!array_type)
            throw nb::python_error();
    }
    m.attr("ArrayBase") = nb::handle(reinterpret_cast<PyObject*>(array_type));
}

} // namespace pycuda::bindings
