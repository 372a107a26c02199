// bindings/function.cpp: pycuda._driver.Function: __call__, prepare, the prepared_* calls (with
// cluster and cooperative launches) and the occupancy queries.
#include "bindings/arg_packer.hpp"
#include "bindings/checked_int.hpp"
#include "bindings/pointer.hpp"
#include "bindings/python_api.hpp"
#include "bindings/raw_call.hpp"
#include "bindings/self_check.hpp"
#include "bindings/stream.hpp"
#include "bindings/texture.hpp"

#include "core/error.hpp"
#include "core/event.hpp"
#include "core/function.hpp"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <utility>

namespace pycuda::bindings {

Dim3 parse_dims(PyObject* obj, const char* what) {
    if (!PyTuple_Check(obj) && !PyList_Check(obj))
        throw nb::type_error((std::string(what) + " must be a tuple of 1 to 3 positive ints, got " +
                              pyapi::type_name(Py_TYPE(obj)))
                                 .c_str());
    pyapi::FastItems items(obj);
    auto n = static_cast<Py_ssize_t>(items.size());
    if (n < 1 || n > 3)
        throw nb::value_error(
            (std::string(what) + " must have 1 to 3 entries, got " + std::to_string(n)).c_str());
    Dim3 dims{1, 1, 1};
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* item = items[i];
        long long v;
        if (PyLong_Check(item)) {
            v = PyLong_AsLongLong(item);
        } else if (PyIndex_Check(item) && !PyFloat_Check(item)) {
            nb::object index = nb::steal(PyNumber_Index(item));
            if (!index.is_valid())
                throw nb::python_error();
            v = PyLong_AsLongLong(index.ptr());
        } else {
            throw nb::type_error((std::string(what) + "[" + std::to_string(i) +
                                  "] must be an int, got " + pyapi::type_name(Py_TYPE(item)))
                                     .c_str());
        }
        if (v == -1 && PyErr_Occurred())
            throw nb::python_error();
        if (v < 1 || v > 0xffffffffll)
            throw nb::value_error((std::string(what) + "[" + std::to_string(i) +
                                   "] = " + std::to_string(v) + " must be a positive int")
                                      .c_str());
        dims[static_cast<std::size_t>(i)] = static_cast<unsigned>(v);
    }
    return dims;
}

unsigned shared_bytes(PyObject* obj) {
    unsigned long v = PyLong_AsUnsignedLong(obj);
    if (v == static_cast<unsigned long>(-1) && PyErr_Occurred())
        throw nb::python_error();
    if (v > 0xffffffffu)
        throw nb::value_error("shared memory size does not fit in 32 bits");
    return static_cast<unsigned>(v);
}

namespace {

/// Interned keyword names, compared by pointer first.
struct Keywords {
    PyObject* block = PyUnicode_InternFromString("block");
    PyObject* grid = PyUnicode_InternFromString("grid");
    PyObject* stream = PyUnicode_InternFromString("stream");
    PyObject* shared = PyUnicode_InternFromString("shared");
    PyObject* texrefs = PyUnicode_InternFromString("texrefs");
    PyObject* time_kernel = PyUnicode_InternFromString("time_kernel");
    PyObject* shared_size = PyUnicode_InternFromString("shared_size");
    PyObject* cluster = PyUnicode_InternFromString("cluster");
    PyObject* cooperative = PyUnicode_InternFromString("cooperative");
};

const Keywords& keywords() {
    static const Keywords k;
    return k;
}

bool same_key(PyObject* key, PyObject* name) {
    return key == name || PyUnicode_Compare(key, name) == 0;
}

/// The keyword arguments of __call__.
struct CallOptions {
    PyObject* block = nullptr;
    PyObject* grid = nullptr;
    PyObject* stream = Py_None;
    PyObject* shared = nullptr;
    PyObject* texrefs = nullptr;
    PyObject* time_kernel = nullptr;
    PyObject* cluster = nullptr;
    PyObject* cooperative = nullptr;
};

CallOptions parse_call_kwargs(PyObject* kwargs) {
    CallOptions o;
    const Keywords& k = keywords();
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    std::string extra;
    while (kwargs != nullptr && PyDict_Next(kwargs, &pos, &key, &value)) {
        if (same_key(key, k.block))
            o.block = value;
        else if (same_key(key, k.grid))
            o.grid = value;
        else if (same_key(key, k.stream))
            o.stream = value;
        else if (same_key(key, k.shared))
            o.shared = value;
        else if (same_key(key, k.texrefs))
            o.texrefs = value;
        else if (same_key(key, k.time_kernel))
            o.time_kernel = value;
        else if (same_key(key, k.cluster))
            o.cluster = value;
        else if (same_key(key, k.cooperative))
            o.cooperative = value;
        else
            extra += (extra.empty() ? "" : ", ") + nb::cast<std::string>(nb::handle(key));
    }
    if (!extra.empty())
        throw nb::value_error(("extra keyword arguments: " + extra).c_str());
    if (o.block == nullptr)
        throw nb::value_error("must specify block size (block=(x, y, z))");
    return o;
}

void call_handlers(const std::vector<nb::handle>& handlers, const char* method, nb::handle stream) {
    for (nb::handle h : handlers)
        h.attr(method)(stream);
}

/// Reads the `cluster=` and `cooperative=` keywords (either may be null: not given) into
/// `attrs`; false when they ask for nothing (cluster=None, cooperative=False), which is then the
/// plain launch.
bool launch_attributes(PyObject* cluster, PyObject* cooperative, const Dim3& grid,
                       LaunchAttributes& attrs) {
    if (cluster != nullptr && cluster != Py_None) {
        attrs.cluster = parse_dims(cluster, "cluster");
        check_cluster_dims(grid, attrs.cluster);
    }
    if (cooperative != nullptr) {
        int on = PyObject_IsTrue(cooperative);
        if (on < 0)
            throw nb::python_error();
        attrs.cooperative = on == 1;
    }
    return attrs.cluster[0] != 0 || attrs.cooperative;
}

/// One launch: cuLaunchKernel, or cuLaunchKernelEx where there are attributes.
void launch_once(Function& f, const Dim3& grid, const Dim3& block, unsigned shared, CUstream stream,
                 ArgBuffer& buf, const LaunchAttributes* attrs) {
    if (attrs == nullptr) [[likely]]
        f.launch(grid, block, shared, stream, buf.data(), buf.size());
    else
        f.launch(grid, block, shared, stream, buf.data(), buf.size(), *attrs);
}

/// Launches, optionally timed with events on the same stream; returns seconds or None.
nb::object launch(Function& f, const Dim3& grid, const Dim3& block, unsigned shared,
                  CUstream stream, ArgBuffer& buf, bool timed, const LaunchAttributes* attrs) {
    if (!timed) {
        launch_once(f, grid, block, shared, stream, buf, attrs);
        return nb::none();
    }
    Event start, end;
    start.record(stream);
    launch_once(f, grid, block, shared, stream, buf, attrs);
    end.record(stream);
    {
        nb::gil_scoped_release release;
        end.synchronize();
    }
    return nb::float_(end.time_since(start) / 1000.0);
}

// The __call__ hot path, per call: one scan of the kwargs dict (interned-pointer compares), the
// block/grid tuples read directly, per argument one scan of the type cache (pointer compares)
// then a memcpy (NumPy scalars) or one type check (our device memory); no Python attribute
// look-ups for those types, no heap allocation (a 512-byte stack buffer), one cuLaunchKernel.
nb::object call(Function& f, PyObject* args, PyObject* kwargs) {
    CallOptions o = parse_call_kwargs(kwargs);
    Dim3 block = parse_dims(o.block, "block");
    Dim3 grid = o.grid ? parse_dims(o.grid, "grid") : Dim3{1, 1, 1};
    check_launch_dims(grid, block, f.max_threads_per_block(), f.name());
    unsigned shared = o.shared ? shared_bytes(o.shared) : 0;
    // References are bound eagerly into their modules (core/texture_reference.hpp): a launch
    // only checks that each one listed is bound.
    check_texrefs(o.texrefs);
    bool timed = o.time_kernel && PyObject_IsTrue(o.time_kernel) == 1;
    LaunchAttributes ex;
    const LaunchAttributes* attrs = nullptr;
    if ((o.cluster || o.cooperative) && launch_attributes(o.cluster, o.cooperative, grid, ex))
        [[unlikely]]
        attrs = &ex;
    ArgBuffer buf(f.param_info(), &f.name());
    pyapi::FastItems arg_items(args);
    pack_by_type(buf, arg_items.data(), arg_items.size());
    CUstream stream = o.stream == Py_None ? nullptr : stream_handle(o.stream);
    if (buf.handlers.empty())
        return launch(f, grid, block, shared, stream, buf, timed, attrs);
    nb::handle stream_obj(o.stream);
    call_handlers(buf.handlers, "pre_call", stream_obj);
    nb::object result = launch(f, grid, block, shared, stream, buf, timed, attrs);
    call_handlers(buf.handlers, "post_call", stream_obj);
    return result;
}

} // namespace

namespace {

/// The positional and keyword arguments of a prepared_* call, after `fixed` leading ones
/// (grid, block[, stream]).
struct PreparedCall {
    Dim3 grid, block;
    unsigned shared = 0;
    PyObject* const* args = nullptr;
    std::size_t nargs = 0;
    LaunchAttributes attrs;
    bool has_attrs = false; // cluster= or cooperative= asked for cuLaunchKernelEx
};

PreparedCall parse_prepared(Function& f, PyObject* const* args, std::size_t nargs,
                            PyObject* kwnames, std::size_t fixed, const char* signature) {
    if (!f.prepared_layout)
        throw nb::type_error(("kernel '" + f.name() +
                              "' is not prepared: call prepare(arg_types) before prepared_call")
                                 .c_str());
    if (nargs < fixed)
        throw nb::type_error(signature);
    PreparedCall c;
    c.grid = parse_dims(args[0], "grid");
    c.block = parse_dims(args[1], "block");
    check_launch_dims(c.grid, c.block, f.max_threads_per_block(), f.name());
    Py_ssize_t nkw = kwnames ? pyapi::tuple_size(kwnames) : 0;
    PyObject *cluster = nullptr, *cooperative = nullptr;
    for (Py_ssize_t k = 0; k < nkw; ++k) {
        PyObject* key = pyapi::tuple_item(kwnames, k);
        PyObject* value = args[nargs + static_cast<std::size_t>(k)];
        if (same_key(key, keywords().shared_size))
            c.shared = shared_bytes(value);
        else if (same_key(key, keywords().cluster))
            cluster = value;
        else if (same_key(key, keywords().cooperative))
            cooperative = value;
        else
            throw nb::type_error(("unexpected keyword argument '" +
                                  nb::cast<std::string>(nb::handle(key)) + "'; " + signature)
                                     .c_str());
    }
    if (cluster || cooperative) [[unlikely]]
        c.has_attrs = launch_attributes(cluster, cooperative, c.grid, c.attrs);
    c.args = args + fixed;
    c.nargs = nargs - fixed;
    return c;
}

/// Checks the texture references prepare() recorded, as the original bound them at each
/// prepared launch (not at prepare(), so they may be bound in between): the instance's
/// `texrefs`, a plain attribute there too, so an assigned list is the one checked.
void check_recorded_texrefs(PyObject* self) {
    nb::object dict = nb::steal(PyObject_GenericGetDict(self, nullptr));
    if (!dict.is_valid())
        throw nb::python_error();
    PyObject* texrefs = PyDict_GetItemWithError(dict.ptr(), keywords().texrefs);
    if (texrefs == nullptr) {
        if (PyErr_Occurred())
            throw nb::python_error();
        return; // never prepared with texrefs, nor assigned any
    }
    nb::object held = nb::borrow(texrefs); // the dict's reference is only borrowed
    check_texrefs(held.ptr());
}

nb::object prepared_launch(Function& f, PyObject* self, const PreparedCall& c,
                           nb::handle stream_obj, bool timed) {
    check_recorded_texrefs(self);
    ArgBuffer buf(&*f.prepared_layout, &f.name()); // offsets from prepare(), driver's if known
    pack_by_layout(buf, *f.prepared_layout, c.args, c.nargs);
    CUstream stream = stream_obj.is_none() ? nullptr : stream_handle(stream_obj);
    const LaunchAttributes* attrs = c.has_attrs ? &c.attrs : nullptr;
    if (buf.handlers.empty())
        return launch(f, c.grid, c.block, c.shared, stream, buf, timed, attrs);
    call_handlers(buf.handlers, "pre_call", stream_obj);
    nb::object result = launch(f, c.grid, c.block, c.shared, stream, buf, timed, attrs);
    call_handlers(buf.handlers, "post_call", stream_obj);
    return result;
}

/// prepare(): the layout from the format, matched to the kernel's parameters where the driver
/// knows them (match_kernel_params).
void prepare(Function& f, const std::string& format) {
    ParamLayout layout = parse_param_format(format);
    if (const std::vector<ParamInfo>* info = f.param_info())
        match_kernel_params(layout, *info, f.name(), format);
    require_sized(layout, format);
    f.prepared_layout = std::move(layout);
    f.prepared_format = format;
}

/// Lower-case function_attribute names for Function.__getattr__.
int attribute_by_name(const std::string& name) {
    static const std::pair<const char*, CUfunction_attribute> table[] = {
        {"max_threads_per_block", CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
        {"shared_size_bytes", CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES},
        {"const_size_bytes", CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES},
        {"local_size_bytes", CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES},
        {"num_regs", CU_FUNC_ATTRIBUTE_NUM_REGS},
        {"ptx_version", CU_FUNC_ATTRIBUTE_PTX_VERSION},
        {"binary_version", CU_FUNC_ATTRIBUTE_BINARY_VERSION},
        {"cache_mode_ca", CU_FUNC_ATTRIBUTE_CACHE_MODE_CA},
        {"max_dynamic_shared_size_bytes", CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES},
        {"preferred_shared_memory_carveout", CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT},
    };
    for (const auto& [n, attr] : table)
        if (name == n)
            return attr;
    return -1;
}

/// A block or cluster shape for the occupancy queries: a tuple as launches take, or an int
/// (x, with y = z = 1).
Dim3 shape_arg(nb::handle obj, const char* what) {
    if (PyLong_Check(obj.ptr())) {
        nb::object shape = nb::make_tuple(obj);
        return parse_dims(shape.ptr(), what);
    }
    return parse_dims(obj.ptr(), what);
}

nb::tuple suggested_block_size(const Function& f, std::size_t shared, int limit) {
    if (limit < 0)
        throw nb::value_error("limit must be 0 (none) or a positive number of threads");
    auto [min_grid, block] = f.suggested_block_size(shared, limit);
    return nb::make_tuple(min_grid, block);
}

int max_potential_cluster_size(Function& f, nb::handle block, unsigned shared) {
    Dim3 b = shape_arg(block, "block");
    check_launch_dims({1, 1, 1}, b, f.max_threads_per_block(), f.name());
    return f.max_potential_cluster_size(b, shared);
}

int max_active_clusters(Function& f, nb::handle cluster, nb::handle block, unsigned shared) {
    Dim3 c = shape_arg(cluster, "cluster"), b = shape_arg(block, "block");
    check_launch_dims(c, b, f.max_threads_per_block(), f.name());
    return f.max_active_clusters(c, b, shared);
}

nb::bytes pack_args_for_test(nb::handle format, nb::handle args) {
    static const std::string name = "<_pack_args>";
    nb::tuple items = nb::tuple(nb::borrow(args));
    pyapi::FastItems fast(items.ptr());
    PyObject* const* ptrs = fast.data();
    if (format.is_none()) {
        ArgBuffer buf(static_cast<const std::vector<ParamInfo>*>(nullptr), &name);
        pack_by_type(buf, ptrs, items.size());
        return nb::bytes(static_cast<const char*>(buf.data()), buf.size());
    }
    std::string text = nb::cast<std::string>(format);
    ParamLayout layout = parse_param_format(text);
    require_sized(layout, text);
    ArgBuffer buf(&layout, &name);
    pack_by_layout(buf, layout, ptrs, items.size());
    return nb::bytes(static_cast<const char*>(buf.data()), buf.size());
}

} // namespace

namespace {

Function& function_of(PyObject* self) {
    if (!nb::inst_ready(self))
        throw nb::type_error("Function used before initialization");
    return *nb::inst_ptr<Function>(self);
}

PyObject* function_tp_call(PyObject* self, PyObject* args, PyObject* kwargs) {
    return guarded([&] { return call(function_of(self), args, kwargs); });
}

PyObject* prepared_call_raw(PyObject* self, PyObject* const* args, Py_ssize_t n,
                            PyObject* kwnames) {
    return guarded([&] {
        Function& f = function_of(self);
        PreparedCall c =
            parse_prepared(f, args, PyVectorcall_NARGS(n), kwnames, 2,
                           "prepared_call(grid, block, *args, shared_size=0, cluster=None, "
                           "cooperative=False)");
        return prepared_launch(f, self, c, nb::none(), false);
    });
}

PyObject* prepared_async_call_raw(PyObject* self, PyObject* const* args, Py_ssize_t n,
                                  PyObject* kwnames) {
    return guarded([&] {
        Function& f = function_of(self);
        PreparedCall c =
            parse_prepared(f, args, PyVectorcall_NARGS(n), kwnames, 3,
                           "prepared_async_call(grid, block, stream, *args, shared_size=0, "
                           "cluster=None, cooperative=False)");
        return prepared_launch(f, self, c, nb::handle(args[2]), false);
    });
}

PyObject* prepared_timed_call_raw(PyObject* self, PyObject* const* args, Py_ssize_t n,
                                  PyObject* kwnames) {
    return guarded([&]() -> nb::object {
        Function& f = function_of(self);
        PreparedCall c = parse_prepared(f, args, PyVectorcall_NARGS(n), kwnames, 2,
                                        "prepared_timed_call(grid, block, *args, shared_size=0, "
                                        "cluster=None, cooperative=False)");
        auto start = std::make_shared<Event>(), end = std::make_shared<Event>();
        start->record(nullptr);
        prepared_launch(f, self, c, nb::none(), false);
        end->record(nullptr);
        return nb::cpp_function([start, end]() {
            {
                nb::gil_scoped_release release;
                end->synchronize();
            }
            return end->time_since(*start) / 1000.0;
        });
    });
}

PyType_Slot function_slots[] = {{Py_tp_call, reinterpret_cast<void*>(&function_tp_call)},
                                {0, nullptr}};

#define PYCUDA_FASTCALL(fn) reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn))
PyMethodDef prepared_methods[] = {
    {"prepared_call", PYCUDA_FASTCALL(&prepared_call_raw), METH_FASTCALL | METH_KEYWORDS,
     "prepared_call(grid, block, *args, shared_size=0, cluster=None, cooperative=False)\n\n"
     "Launch with `args` converted to the types given to prepare(). cluster=(x, y, z) launches "
     "thread block clusters of that shape (the grid must divide into them; compute capability "
     "9.0+), cooperative=True schedules every block at once (for grid-wide sync)."},
    {"prepared_async_call", PYCUDA_FASTCALL(&prepared_async_call_raw),
     METH_FASTCALL | METH_KEYWORDS,
     "prepared_async_call(grid, block, stream, *args, shared_size=0, cluster=None, "
     "cooperative=False)\n\nAs prepared_call, on `stream`."},
    {"prepared_timed_call", PYCUDA_FASTCALL(&prepared_timed_call_raw),
     METH_FASTCALL | METH_KEYWORDS,
     "prepared_timed_call(grid, block, *args, shared_size=0, cluster=None, "
     "cooperative=False)\n\nAs prepared_call; returns a "
     "callable that waits for the kernel and gives its run time in seconds."},
};
#undef PYCUDA_FASTCALL

void add_raw_methods(nb::handle cls) {
    auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
    for (PyMethodDef& def : prepared_methods) {
        nb::object descr = nb::steal(PyDescr_NewMethod(type, &def));
        if (!descr.is_valid())
            throw nb::python_error();
        cls.attr(def.ml_name) = descr;
    }
}

} // namespace

void bind_helpers(nb::module_& m);

void bind_function(nb::module_& m) {
    nb::class_<Function> cls(
        m, "Function", nb::dynamic_attr(), nb::type_slots(function_slots),
        "A kernel of a Module, called like a Python function.\n\n"
        "    f = mod.get_function('scale')\n"
        "    f(dev_a, numpy.float32(2), numpy.int32(n), block=(256, 1, 1),\n"
        "      grid=((n + 255) // 256, 1))\n"
        "    f.prepare('PfI')\n"
        "    f.prepared_call((blocks, 1), (256, 1, 1), dev_a, 2.0, n)\n\n"
        "__call__(*args, block, grid=(1, 1), stream=None, shared=0, texrefs=[], "
        "time_kernel=False, cluster=None, cooperative=False) launches with `args` packed by "
        "type; with time_kernel=True it returns the kernel's run time in seconds. cluster=(x, "
        "y, z) launches thread block clusters of that shape (the grid must divide into them; "
        "compute capability 9.0+); cooperative=True launches every block at once, as "
        "grid-wide synchronization (cooperative_groups::this_grid().sync()) needs.");
    cls.def(
           "prepare",
           [](nb::handle self, nb::handle arg_types, nb::handle texrefs) {
               check_self<Function>(self, "Function.prepare");
               Function& f = nb::cast<Function&>(self);
               if (!PyUnicode_Check(arg_types.ptr()) && !nb::hasattr(arg_types, "__iter__"))
                   throw nb::type_error(
                       ("prepare(): arg_types must be a struct format string such as 'PiiP' or "
                        "a sequence of NumPy types, got " +
                        nb::cast<std::string>(nb::type_name(arg_types.type())))
                           .c_str());
               prepare(f, PyUnicode_Check(arg_types.ptr()) ? nb::cast<std::string>(arg_types)
                                                           : format_from_arg_types(arg_types));
               // Only recorded, as in the original: each prepared launch checks them.
               nb::object recorded = texrefs.is_none() ? nb::list() : nb::borrow(texrefs);
               nb::setattr(self, "texrefs", recorded);
               return nb::borrow(self);
           },
           nb::arg("arg_types"), nb::arg("texrefs").none() = nb::none(),
           "Fix the argument types (NumPy types, dtypes, struct codes like 'PiiP', 'V' for "
           "a struct by value; anything else means a pointer) for prepared_call, and record "
           "`texrefs` (self.texrefs), the texture references each prepared launch needs bound; "
           "returns self.")
        .def_prop_rw(
            "arg_format",
            [](const Function& f) -> nb::object {
                if (!f.prepared_layout)
                    return nb::none();
                return nb::str(f.prepared_format.c_str());
            },
            [](Function& f, nb::handle format) {
                if (format.is_none()) {
                    f.prepared_layout.reset();
                    f.prepared_format.clear();
                    return;
                }
                if (!PyUnicode_Check(format.ptr()))
                    throw nb::type_error(("arg_format must be a format string such as 'PiiP', "
                                          "or None; got " +
                                          std::string(nb::type_name(format.type()).c_str()))
                                             .c_str());
                prepare(f, nb::cast<std::string>(format));
            },
            nb::for_setter(nb::arg("value").none()), // None unprepares
            "The struct-style format prepare() made (None before it); assigning one prepares "
            "with it.")
        .def(
            "get_attribute",
            [](const Function& f, int attr) {
                return f.attribute(static_cast<CUfunction_attribute>(attr));
            },
            nb::arg("attr"), "cuFuncGetAttribute (a function_attribute).")
        .def(
            "set_attribute",
            [](Function& f, int attr, int value) {
                f.set_attribute(static_cast<CUfunction_attribute>(attr), value);
            },
            nb::arg("attr"), nb::arg("value"),
            "cuFuncSetAttribute: set a function_attribute, such as "
            "MAX_DYNAMIC_SHARED_SIZE_BYTES.")
        .def(
            "set_cache_config",
            [](Function& f, Int<int, "a func_cache value"> config) {
                f.set_cache_config(static_cast<CUfunc_cache>(int(config)));
            },
            nb::arg("config"), "Prefer shared memory or L1 for this kernel (a func_cache value).")
        .def(
            "set_shared_config",
            [](Function& f, int config) {
                f.set_shared_config(static_cast<CUsharedconfig>(config));
            },
            nb::arg("config"),
            "The shared memory bank size for this kernel (a shared_config value).")
        .def("max_active_blocks_per_multiprocessor",
             &Function::max_active_blocks_per_multiprocessor, nb::arg("block_size"),
             nb::arg("dynamic_smem") = 0, "Occupancy: resident blocks per multiprocessor.")
        .def("suggested_block_size", &suggested_block_size, nb::arg("shared") = 0,
             nb::arg("limit") = 0,
             "(min_grid_size, block_size): the block size that reaches the highest occupancy "
             "with `shared` bytes of dynamic shared memory per block (limit: the most threads "
             "per block to consider, 0 for the kernel's own maximum), and the fewest blocks "
             "that fill the device with it (cuOccupancyMaxPotentialBlockSize).")
        .def("max_potential_cluster_size", &max_potential_cluster_size, nb::arg("block"),
             nb::arg("shared") = 0,
             "The most blocks one thread block cluster of this kernel can have, for blocks of "
             "shape `block` (a tuple, or an int of threads) with `shared` bytes of dynamic "
             "shared memory (cuOccupancyMaxPotentialClusterSize; compute capability 9.0+).")
        .def("max_active_clusters", &max_active_clusters, nb::arg("cluster"), nb::arg("block"),
             nb::arg("shared") = 0,
             "How many clusters of shape `cluster` can be resident on the device at once "
             "(cuOccupancyMaxActiveClusters; compute capability 9.0+).")
        .def_prop_ro("function_name", &Function::name, "The kernel's name in its module.")
        .def_prop_ro(
            "handle",
            [](const Function& f) { return reinterpret_cast<std::uintptr_t>(f.handle()); },
            "The CUfunction, as an int.")
        .def("__getattr__", [](const Function& f, const std::string& name) {
            int attr = attribute_by_name(name);
            if (attr < 0)
                throw nb::attribute_error(
                    ("'Function' object has no attribute '" + name + "'").c_str());
            return f.attribute(static_cast<CUfunction_attribute>(attr));
        });

    add_raw_methods(cls);
    bind_helpers(m);
    m.def("_forget_argument_types", &forget_argument_types,
          "Release the argument types __call__ has cached, and cache no more (at exit).");
}

/// CPU-testable pieces of the launch path.
void bind_helpers(nb::module_& m) {
    m.def(
        "_param_layout",
        [](const std::string& format) {
            ParamLayout layout = parse_param_format(format);
            require_sized(layout, format);
            nb::list out;
            for (const ParamSlot& s : layout.slots)
                out.append(nb::make_tuple(s.offset, s.size));
            return out;
        },
        nb::arg("format"), "[(offset, size)] of each parameter of a prepare() format (tests).");
    m.def("_pack_args", &pack_args_for_test, nb::arg("format").none(), nb::arg("args"),
          "The parameter bytes for `args` as __call__ (format None) or prepared_call packs "
          "them, without a launch (tests).");
    m.def(
        "_check_launch_dims",
        [](nb::handle grid, nb::handle block) {
            Dim3 g = parse_dims(grid.ptr(), "grid"), b = parse_dims(block.ptr(), "block");
            check_launch_dims(g, b, 1024, "<check>");
            return nb::make_tuple(nb::make_tuple(g[0], g[1], g[2]),
                                  nb::make_tuple(b[0], b[1], b[2]));
        },
        nb::arg("grid"), nb::arg("block"),
        "Validate grid and block as a launch does, without a kernel (tests).");
}

} // namespace pycuda::bindings
