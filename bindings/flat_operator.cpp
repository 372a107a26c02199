// bindings/flat_operator.cpp: FlatOperator, the method descriptor that is GPUArray.__add__,
// __radd__, __lt__, ... (one per operator).
//
// A Python `def __add__` costs a frame per `a + b`: 0.4 µs on an H100's host, a tenth of the
// whole call. This descriptor is called by CPython's operator slots without one (it is a
// method descriptor, so `a + b` calls it unbound with (a, b)); it asks the FlatLaunches table
// (a launch served in C++, else the table's fallback: pycuda._operators.binary).
#include "bindings/flat_operator.hpp"

#include "bindings/flat_launches.hpp"
#include "bindings/python_api.hpp"
#include "bindings/raw_call.hpp"

#include <nanobind/stl/string.h>
#include <structmember.h>

#include <cstddef>
#include <string>

namespace pycuda::bindings {

namespace {

struct FlatOperator {
    PyObject_HEAD vectorcallfunc vectorcall;
    PyObject* table; // the FlatLaunches
    PyObject* name;  // "__add__"
    PyObject* op;    // "add", interned
    int reflected;
};

PyTypeObject* operator_type = nullptr; // made once by bind_flat_operator, never freed

/// The TypeError for an operand that is no `type`, as CPython's method descriptors word it
/// (out of line: its string building would otherwise keep apply from being inlined).
[[noreturn]] NB_NOINLINE void raise_wrong_operand(FlatOperator* self, PyTypeObject* type,
                                                  PyObject* array) {
    throw nb::type_error(("descriptor '" + nb::cast<std::string>(nb::handle(self->name)) +
                          "' requires a '" + pyapi::type_name(type) + "' object, got '" +
                          pyapi::type_name(Py_TYPE(array)) + "'")
                             .c_str());
}

PyObject* apply(FlatOperator* self, PyObject* array, PyObject* other) {
    return guarded([&]() -> nb::object {
        if (!nb::inst_ready(self->table))
            throw nb::type_error("FlatOperator: its FlatLaunches is not initialized");
        FlatLaunches& table = *nb::inst_ptr<FlatLaunches>(self->table);
        PyTypeObject* type = table.array_type();
        if (type && !PyObject_TypeCheck(array, type))
            raise_wrong_operand(self, type, array);
        return table.binary(array, self->op, other, self->reflected != 0);
    });
}

PyObject* operator_vectorcall(PyObject* callable, PyObject* const* args, size_t nargsf,
                              PyObject* kwnames) {
    auto* self = reinterpret_cast<FlatOperator*>(callable);
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (n != 2 || (kwnames && pyapi::tuple_size(kwnames) != 0)) {
        PyErr_Format(PyExc_TypeError, "%U takes the array and one operand (%zd arguments given)",
                     self->name, n);
        return nullptr;
    }
    return apply(self, args[0], args[1]);
}

PyObject* operator_get(PyObject* self, PyObject* instance, PyObject*) {
    if (instance == nullptr || instance == Py_None)
        return Py_NewRef(self);
    // `a + b` never gets here (CPython calls a method descriptor unbound): only `a.__add__`.
    return pyapi::bind_method(self, instance);
}

int operator_traverse(PyObject* obj, visitproc visit, void* arg) {
    auto* self = reinterpret_cast<FlatOperator*>(obj);
    Py_VISIT(Py_TYPE(obj));
    Py_VISIT(self->table);
    return 0;
}

int operator_clear(PyObject* obj) {
    Py_CLEAR(reinterpret_cast<FlatOperator*>(obj)->table);
    return 0;
}

void operator_dealloc(PyObject* obj) {
    auto* self = reinterpret_cast<FlatOperator*>(obj);
    PyTypeObject* type = Py_TYPE(obj);
    PyObject_GC_UnTrack(obj);
    Py_CLEAR(self->table);
    Py_CLEAR(self->name);
    Py_CLEAR(self->op);
    pyapi::type_free(type, obj);
    Py_DECREF(type);
}

PyObject* operator_repr(PyObject* obj) {
    return PyUnicode_FromFormat("<GPUArray operator %U>",
                                reinterpret_cast<FlatOperator*>(obj)->name);
}

PyObject* operator_get_name(PyObject* obj, void*) {
    return Py_NewRef(reinterpret_cast<FlatOperator*>(obj)->name);
}

PyMemberDef operator_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(FlatOperator, vectorcall), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyGetSetDef operator_getset[] = {{"__name__", &operator_get_name, nullptr, nullptr, nullptr},
                                 {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyType_Slot operator_slots[] = {
    {Py_tp_call, reinterpret_cast<void*>(&PyVectorcall_Call)},
    {Py_tp_descr_get, reinterpret_cast<void*>(&operator_get)},
    {Py_tp_traverse, reinterpret_cast<void*>(&operator_traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(&operator_clear)},
    {Py_tp_dealloc, reinterpret_cast<void*>(&operator_dealloc)},
    {Py_tp_repr, reinterpret_cast<void*>(&operator_repr)},
    {Py_tp_members, operator_members},
    {Py_tp_getset, operator_getset},
    {Py_tp_doc, const_cast<char*>("A binary operator of GPUArray (NumPy's rules), served in C++ "
                                  "where its launch is remembered.")},
    {0, nullptr}};

PyType_Spec operator_spec = {"pycuda._driver.FlatOperator", sizeof(FlatOperator), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC |
                                 Py_TPFLAGS_METHOD_DESCRIPTOR | Py_TPFLAGS_HAVE_VECTORCALL,
                             operator_slots};

} // namespace

nb::object make_flat_operator(nb::handle table, nb::handle name, nb::handle op, bool reflected) {
    if (!nb::isinstance<FlatLaunches>(table))
        throw nb::type_error("FlatOperator: table must be a FlatLaunches");
    if (!PyUnicode_CheckExact(name.ptr()) || !PyUnicode_CheckExact(op.ptr()))
        throw nb::type_error("FlatOperator: name and op must be str");
    PyObject* obj = pyapi::type_alloc(operator_type);
    if (!obj)
        throw nb::python_error();
    auto* self = reinterpret_cast<FlatOperator*>(obj);
    self->vectorcall = &operator_vectorcall;
    self->table = Py_NewRef(table.ptr());
    self->name = Py_NewRef(name.ptr());
    PyObject* interned = Py_NewRef(op.ptr());
    PyUnicode_InternInPlace(&interned); // compared by address in FlatLaunches' keys
    self->op = interned;
    self->reflected = reflected;
    return nb::steal(obj);
}

void bind_flat_operator(nb::module_& m) {
    if (!operator_type) {
        operator_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&operator_spec));
        if (!operator_type)
            throw nb::python_error();
    }
    m.attr("FlatOperator") = nb::handle(reinterpret_cast<PyObject*>(operator_type));
}

} // namespace pycuda::bindings
