// bindings/texture.hpp: the launch path's check of `texrefs=` (bindings/function.cpp calls it).
#pragma once

#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace pycuda::bindings {

/// `texrefs=` of a call or prepare(): None or an iterable of TextureReference/SurfaceReference.
/// Their handles are already in their modules (bound eagerly), so this only checks: a reference
/// never bound (or whose binding failed) is pycuda.driver.LogicError naming it; anything else
/// in the list is TypeError.
void check_texrefs(PyObject* texrefs);

} // namespace pycuda::bindings
