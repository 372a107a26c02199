// bindings/checked_int.hpp: integer arguments whose errors say what was wrong (not an integer,
// negative, too large) instead of nanobind's "incompatible function arguments".
#pragma once

#include <nanobind/nanobind.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>

namespace nb = nanobind;

namespace pycuda::bindings {

/// A string literal as a template argument: what an argument is, in its messages.
template <std::size_t N>
struct ArgText {
    char text[N];
    constexpr ArgText(const char (&s)[N]) { std::copy_n(s, N, text); }
};

/// `obj` as a T: any object with __index__ (bool included, as the original's Boost.Python
/// took it), else TypeError; a negative value for an unsigned T is ValueError, any other value
/// outside T's range OverflowError. `what` names the argument ("a size in bytes").
template <typename T>
T checked_int(nb::handle obj, const char* what) {
    if (!PyIndex_Check(obj.ptr()))
        throw nb::type_error(
            (std::string(what) + " must be an integer, got " + nb::type_name(obj.type()).c_str())
                .c_str());
    nb::object index = nb::steal(PyNumber_Index(obj.ptr()));
    if (!index.is_valid())
        throw nb::python_error();
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (value == -1 && PyErr_Occurred())
        throw nb::python_error();
    using Limits = std::numeric_limits<T>;
    if (overflow > 0 && Limits::max() > std::numeric_limits<long long>::max()) {
        // Past long long but maybe within an unsigned 64-bit T.
        unsigned long long big = PyLong_AsUnsignedLongLong(index.ptr());
        if (!PyErr_Occurred() && std::cmp_less_equal(big, Limits::max()))
            return static_cast<T>(big);
        PyErr_Clear();
    }
    bool below = overflow < 0 || (overflow == 0 && std::cmp_less(value, Limits::min()));
    bool above = overflow > 0 || (overflow == 0 && std::cmp_greater(value, Limits::max()));
    if (!below && !above)
        return static_cast<T>(value);
    std::string got = nb::repr(index).c_str();
    if (below && Limits::min() == 0)
        throw nb::value_error((std::string(what) + " must not be negative, got " + got).c_str());
    std::string range = std::to_string(Limits::min()) + " to " + std::to_string(Limits::max());
    PyErr_SetString(PyExc_OverflowError,
                    (std::string(what) + " must be from " + range + ", got " + got).c_str());
    throw nb::python_error();
}

/// An integer argument of type T, called `What` in its messages (see checked_int). Its caster
/// raises instead of passing to the next overload: a function with another overload lists
/// that one first.
template <typename T, ArgText What>
struct Int {
    T value{};
    operator T() const { return value; }
};

} // namespace pycuda::bindings

namespace nanobind::detail {

template <typename T, pycuda::bindings::ArgText What>
struct type_caster<pycuda::bindings::Int<T, What>> {
    using Checked = pycuda::bindings::Int<T, What>; // one name: the macro splits on commas
    NB_TYPE_CASTER(Checked, const_name("int"))

    bool from_python(handle src, uint8_t, cleanup_list*) {
        value.value = pycuda::bindings::checked_int<T>(src, What.text);
        return true;
    }

    static handle from_cpp(const Checked& v, rv_policy, cleanup_list*) noexcept {
        return make_caster<T>::from_cpp(v.value, rv_policy::copy, nullptr);
    }
};

} // namespace nanobind::detail
