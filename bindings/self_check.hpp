// bindings/self_check.hpp: a method bound with an untyped self (to return that very object)
// checks it, so `Event.record(5)` is a TypeError rather than std::bad_cast.
#pragma once

#include <nanobind/nanobind.h>

#include <string>
#include <string_view>

namespace nb = nanobind;

namespace pycuda::bindings {

/// TypeError unless `self` is a T; `method` names the call ("Event.record").
template <class T>
void check_self(nb::handle self, std::string_view method) {
    if (!nb::isinstance<T>(self))
        throw nb::type_error((std::string(method) + " must be called on a " +
                              nb::cast<std::string>(nb::type_name(nb::type<T>())) + ", got " +
                              nb::cast<std::string>(nb::type_name(self.type())))
                                 .c_str());
}

} // namespace pycuda::bindings
