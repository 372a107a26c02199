// bindings/main.cpp: the nanobind module pycuda._driver; calls each concept's binder in order.
// (Named main.cpp, not module.cpp, because bindings/module.cpp binds the CUDA module concept.)
#include "bindings/context.hpp"
#include "bindings/error.hpp"
#include "bindings/python_api.hpp"
#include "bindings/raw_call.hpp"

namespace pycuda::bindings {
void bind_device(nb::module_& m);
void bind_memory(nb::module_& m);
void bind_host_memory(nb::module_& m);
void bind_memcpy(nb::module_& m);
void bind_staged_copy(nb::module_& m);
void bind_memory_pool(nb::module_& m);
void bind_async_memory(nb::module_& m);
void bind_stream(nb::module_& m);
void bind_event(nb::module_& m);
void bind_graph(nb::module_& m);
void bind_module(nb::module_& m);
void bind_function(nb::module_& m);
void bind_array_base(nb::module_& m);
void bind_flat_launches(nb::module_& m);
void bind_flat_operator(nb::module_& m);
void bind_linker(nb::module_& m);
void bind_nvrtc(nb::module_& m);
void bind_curand_host(nb::module_& m);
void bind_toolkit_search(nb::module_& m);
void bind_compile_cache(nb::module_& m);
void bind_profiler(nb::module_& m);
void bind_dlpack(nb::module_& m);
void bind_array(nb::module_& m);
void bind_memcpy_2d3d(nb::module_& m);
void bind_texture(nb::module_& m);
} // namespace pycuda::bindings

NB_MODULE(_driver, m) {
    using namespace pycuda::bindings;
    m.doc() = "The CUDA driver API for pycuda, on a C++20 core";
    pyapi::init_python_api();
    bind_error(m);
    bind_raw_call(m);
    bind_device(m);
    bind_context(m);
    bind_memory(m);
    bind_host_memory(m);
    bind_memcpy(m);
    bind_staged_copy(m);
    bind_memory_pool(m);
    bind_async_memory(m);
    bind_stream(m);
    bind_event(m);
    bind_graph(m);
    bind_module(m);
    bind_function(m);
    bind_array_base(m);
    bind_flat_launches(m);
    bind_flat_operator(m);
    bind_linker(m);
    bind_nvrtc(m);
    bind_curand_host(m);
    bind_toolkit_search(m);
    bind_compile_cache(m);
    bind_profiler(m);
    bind_dlpack(m);
    bind_array(m);
    bind_memcpy_2d3d(m);
    bind_texture(m);
}
