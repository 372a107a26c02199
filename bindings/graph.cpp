// bindings/graph.cpp: pycuda._driver.Graph, GraphNode, GraphExec and StreamCapture.
#include "bindings/graph.hpp"

#include "bindings/arg_packer.hpp"
#include "bindings/memory.hpp"
#include "bindings/pointer.hpp"
#include "bindings/python_api.hpp"
#include "bindings/stream.hpp"

#include "core/event.hpp"

#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pycuda::bindings {

namespace {

/// A node of a Graph. It keeps its graph alive (its handle is valid only while the graph
/// lives); a kernel node also remembers what it was added with, the defaults of
/// GraphExec.set_kernel_node_params.
struct PyGraphNode {
    CUgraphNode handle = nullptr;
    nb::object graph;
    nb::object func = nb::none(); // None: not a kernel node
    nb::object args = nb::none();
    Dim3 grid{1, 1, 1}, block{1, 1, 1};
    unsigned shared = 0;
};

/// A GraphExec and what its parameters point into: the graph it was made from (also how its
/// nodes are recognized), the graph of its last update(), the arguments set per node.
struct PyGraphExec {
    std::unique_ptr<GraphExec> exec;
    nb::object source;
    nb::object updated_from = nb::none();
    nb::dict node_uses;
};

/// A capture scope (a `with` block) and, once it ended, its graph.
struct PyStreamCapture {
    PyStreamCapture(nb::handle stream_obj, CaptureMode mode)
        : stream(nb::borrow(stream_obj)), scope(stream_handle(stream_obj), mode) {}
    nb::object stream;
    CaptureScope scope;
    nb::object graph = nb::none();
};

/// `obj` as a T, else TypeError: "`what` must be a `type`, got ...".
template <typename T>
T& expect(nb::handle obj, const char* what, const char* type) {
    T* p = nullptr;
    if (!nb::try_cast<T*>(obj, p) || p == nullptr)
        throw nb::type_error((std::string(what) + " must be a " + type + ", got " +
                              nb::type_name(obj.type()).c_str())
                                 .c_str());
    return *p;
}

PyGraph& graph_of(nb::handle self, const char* what = "self") {
    return expect<PyGraph>(self, what, "Graph");
}

/// The handles of `deps` (None, a GraphNode, or an iterable of them), each a node of `graph`.
std::vector<CUgraphNode> dependency_handles(nb::handle graph, nb::handle deps) {
    std::vector<CUgraphNode> out;
    if (deps.is_none())
        return out;
    auto add = [&](nb::handle item, std::size_t i) {
        PyGraphNode* node = nullptr;
        if (!nb::try_cast<PyGraphNode*>(item, node) || node == nullptr)
            throw nb::type_error(("dependencies[" + std::to_string(i) +
                                  "] must be a GraphNode, got " +
                                  std::string(nb::type_name(item.type()).c_str()))
                                     .c_str());
        if (!node->graph.is(graph))
            throw nb::value_error(("dependencies[" + std::to_string(i) +
                                   "] is a node of another graph (a clone has nodes of its own)")
                                      .c_str());
        out.push_back(node->handle);
    };
    if (nb::isinstance<PyGraphNode>(deps)) {
        add(deps, 0);
        return out;
    }
    if (!PyIter_Check(deps.ptr()) && !PySequence_Check(deps.ptr()))
        throw nb::type_error("dependencies must be a sequence of GraphNode (or None)");
    std::size_t i = 0;
    for (nb::handle item : deps)
        add(item, i++);
    return out;
}

/// Packs `args` (a tuple) for `f` as a launch does, prepare()'s layout where f is prepared and
/// each argument's type otherwise, then calls `use(buffer)`. In/Out/InOut copy at each call,
/// which a graph cannot do: TypeError.
template <typename Use>
void with_packed_args(Function& f, nb::handle args, Use&& use) {
    pyapi::FastItems fast(args.ptr());
    PyObject* const* items = fast.data();
    std::size_t n = fast.size();
    auto finish = [&](ArgBuffer& buf) {
        if (!buf.handlers.empty())
            throw nb::type_error("In/Out/InOut arguments copy at each call and cannot be part "
                                 "of a graph: pass device memory, and add memcpy nodes for the "
                                 "transfers");
        use(buf);
    };
    if (f.prepared_layout) {
        ArgBuffer buf(&*f.prepared_layout, &f.name());
        pack_by_layout(buf, *f.prepared_layout, items, n);
        finish(buf);
    } else {
        ArgBuffer buf(f.param_info(), &f.name());
        pack_by_type(buf, items, n);
        finish(buf);
    }
}

/// Kernel arguments, given as one tuple or list, as a tuple.
nb::object args_tuple(nb::handle args, const char* what) {
    if (!PyTuple_Check(args.ptr()) && !PyList_Check(args.ptr()))
        throw nb::type_error((std::string(what) +
                              ": args must be a tuple or list of the kernel's arguments, got " +
                              nb::type_name(args.type()).c_str())
                                 .c_str());
    return nb::steal(PySequence_Tuple(args.ptr()));
}

PyGraphNode new_node(nb::handle graph, CUgraphNode handle) {
    PyGraphNode node;
    node.handle = handle;
    node.graph = nb::borrow(graph);
    return node;
}

PyGraphNode add_kernel_node(nb::handle self, nb::handle func, nb::handle grid, nb::handle block,
                            nb::handle args_obj, nb::handle dependencies, nb::handle shared) {
    PyGraph& g = graph_of(self);
    nb::object args = args_tuple(args_obj, "add_kernel_node");
    Function& f = expect<Function>(func, "func", "Function");
    PyGraphNode node;
    node.grid = parse_dims(grid.ptr(), "grid");
    node.block = parse_dims(block.ptr(), "block");
    check_launch_dims(node.grid, node.block, f.max_threads_per_block(), f.name());
    node.shared = shared_bytes(shared.ptr());
    std::vector<CUgraphNode> deps = dependency_handles(self, dependencies);
    with_packed_args(f, args, [&](ArgBuffer& buf) {
        node.handle = g.graph->add_kernel(f, node.grid, node.block, node.shared, buf.data(),
                                          buf.size(), deps);
    });
    g.uses.append(args); // device memory the kernel uses must outlive the graph
    node.graph = nb::borrow(self);
    node.func = nb::borrow(func);
    node.args = args;
    return node;
}

/// One side of a copy node: our device-memory objects, then host buffers (NumPy arrays,
/// bytearray, page-locked arrays), then anything device_pointer() takes (ints, GPUArray,
/// __cuda_array_interface__). A host buffer is held, through a memoryview, by the graph.
struct CopySide {
    CopyEnd end;
    std::size_t size = SIZE_MAX;
    nb::object held;
};

CopySide copy_side(nb::handle obj, bool writable, const char* what) {
    CopySide side;
    CUdeviceptr ptr = 0;
    if (!try_device_pointer(obj, ptr) && PyObject_CheckBuffer(obj.ptr())) {
        HostBuffer buffer(obj, writable, what);
        side.end = {CU_MEMORYTYPE_HOST, reinterpret_cast<std::uintptr_t>(buffer.data())};
        side.size = buffer.size();
        side.held = nb::steal(PyMemoryView_FromObject(obj.ptr()));
        if (!side.held.is_valid())
            throw nb::python_error();
        return side;
    }
    DeviceSpan span = device_span(obj, what);
    side.end = {CU_MEMORYTYPE_DEVICE, static_cast<std::uintptr_t>(span.ptr)};
    side.size = span.size;
    return side;
}

PyGraphNode add_memcpy_node(nb::handle self, nb::handle dest, nb::handle src, nb::handle nbytes,
                            nb::handle dependencies) {
    PyGraph& g = graph_of(self);
    CopySide d = copy_side(dest, true, "add_memcpy_node dest");
    CopySide s = copy_side(src, false, "add_memcpy_node src");
    std::size_t bytes = 0;
    if (!nbytes.is_none()) {
        bytes = PyLong_AsSize_t(nbytes.ptr());
        if (bytes == static_cast<std::size_t>(-1) && PyErr_Occurred())
            throw nb::python_error(); // not an int (TypeError), negative (OverflowError)
    } else if (d.end.type == CU_MEMORYTYPE_HOST || s.end.type == CU_MEMORYTYPE_HOST)
        bytes = d.end.type == CU_MEMORYTYPE_HOST ? d.size : s.size; // the host buffer's size
    else
        throw nb::value_error("add_memcpy_node: give nbytes for a device-to-device copy");
    for (const CopySide* side : {&d, &s})
        if (side->size != SIZE_MAX && bytes > side->size)
            throw nb::value_error(("add_memcpy_node: " + std::to_string(bytes) +
                                   " bytes do not fit in " + (side == &d ? "dest" : "src") + " (" +
                                   std::to_string(side->size) + " bytes)")
                                      .c_str());
    CUgraphNode node =
        g.graph->add_memcpy(d.end, s.end, bytes, dependency_handles(self, dependencies));
    for (const CopySide* side : {&d, &s}) {
        if (side->held.is_valid())
            g.uses.append(side->held);
    }
    g.uses.append(dest);
    g.uses.append(src);
    return new_node(self, node);
}

PyGraphNode add_memset_node(nb::handle self, nb::handle dest, std::uint32_t value,
                            std::size_t count, unsigned element_size, nb::handle dependencies) {
    PyGraph& g = graph_of(self);
    if (element_size != 1 && element_size != 2 && element_size != 4)
        throw nb::value_error("add_memset_node: element_size must be 1, 2 or 4");
    if (element_size < 4 && value >= (1u << (8 * element_size)))
        throw nb::value_error(
            ("add_memset_node: value does not fit in " + std::to_string(8 * element_size) + " bits")
                .c_str());
    DeviceSpan d = device_span(dest, "add_memset_node");
    check_fits(d, count * element_size, "add_memset_node");
    CUgraphNode node = g.graph->add_memset(d.ptr, value, element_size, count,
                                           dependency_handles(self, dependencies));
    g.uses.append(dest);
    return new_node(self, node);
}

template <CUgraphNode (Graph::*Add)(CUevent, GraphNodes)>
PyGraphNode add_event_node(nb::handle self, nb::handle event, nb::handle dependencies) {
    PyGraph& g = graph_of(self);
    Event& e = expect<Event>(event, "event", "Event");
    CUgraphNode node = ((*g.graph).*Add)(e.handle(), dependency_handles(self, dependencies));
    g.uses.append(event);
    return new_node(self, node);
}

void set_kernel_node_params(PyGraphExec& e, nb::handle node_obj, nb::handle args, nb::handle func,
                            nb::handle grid, nb::handle block, nb::handle shared) {
    PyGraphNode& node = expect<PyGraphNode>(node_obj, "node", "GraphNode");
    if (!node.graph.is(e.source))
        throw nb::value_error("set_kernel_node_params: the node is not of the graph this "
                              "GraphExec was instantiated from");
    if (node.func.is_none())
        throw nb::type_error("set_kernel_node_params: the node is not a kernel node");
    nb::object fobj = func.is_none() ? node.func : nb::borrow(func);
    Function& f = expect<Function>(fobj, "func", "Function");
    Dim3 g = grid.is_none() ? node.grid : parse_dims(grid.ptr(), "grid");
    Dim3 b = block.is_none() ? node.block : parse_dims(block.ptr(), "block");
    check_launch_dims(g, b, f.max_threads_per_block(), f.name());
    unsigned sh = shared.is_none() ? node.shared : shared_bytes(shared.ptr());
    nb::object used = args.is_none() ? node.args : args_tuple(args, "set_kernel_node_params");
    with_packed_args(f, used, [&](ArgBuffer& buf) {
        e.exec->set_kernel_params(node.handle, f, g, b, sh, buf.data(), buf.size());
    });
    // What this node's parameters point into now; the previous set is no longer used.
    e.node_uses[nb::int_(reinterpret_cast<std::uintptr_t>(node.handle))] =
        nb::make_tuple(fobj, used);
}

PyGraphExec instantiate(nb::handle self, unsigned long long flags) {
    PyGraphExec e;
    e.exec = std::make_unique<GraphExec>(*graph_of(self).graph, flags);
    e.source = nb::borrow(self);
    return e;
}

std::string path_arg(nb::handle path) {
    nb::object text = nb::steal(PyOS_FSPath(path.ptr()));
    if (!text.is_valid())
        throw nb::python_error();
    return nb::cast<std::string>(text);
}

} // namespace

CaptureMode capture_mode_arg(nb::handle mode) {
    if (PyUnicode_Check(mode.ptr())) {
        std::string name = nb::cast<std::string>(mode);
        if (name == "global")
            return CaptureMode::Global;
        if (name == "thread_local")
            return CaptureMode::ThreadLocal;
        if (name == "relaxed")
            return CaptureMode::Relaxed;
        throw nb::value_error(
            ("capture mode must be 'global', 'thread_local' or 'relaxed', got '" + name + "'")
                .c_str());
    }
    if (!PyIndex_Check(mode.ptr()) || PyBool_Check(mode.ptr()))
        throw nb::type_error("capture mode must be a capture_mode, an int or a str");
    // Through __index__ (which may raise: its exception is the one to see) with the overflow
    // caught: nb::cast would throw std::bad_cast for an int past 64 bits.
    nb::object index = nb::steal(PyNumber_Index(mode.ptr()));
    if (!index.is_valid())
        throw nb::python_error();
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (v == -1 && PyErr_Occurred())
        throw nb::python_error();
    if (overflow != 0)
        v = -1; // reported as out of range below
    if (v < 0 || v > 2)
        throw nb::value_error(
            ("capture mode must be 0 (global), 1 (thread_local) or 2 (relaxed), got " +
             nb::cast<std::string>(nb::repr(index)))
                .c_str());
    return static_cast<CaptureMode>(v);
}

nb::object make_stream_capture(nb::handle stream, nb::handle mode) {
    return nb::type<PyStreamCapture>()(stream, mode);
}

void bind_graph(nb::module_& m) {
    constexpr auto deps = [] { return nb::arg("dependencies").none() = nb::none(); };

    nb::class_<PyGraphNode>(m, "GraphNode",
                            "A node of a Graph, made by its add_*_node methods: a dependency of "
                            "later nodes, and for kernel nodes the handle "
                            "GraphExec.set_kernel_node_params takes.")
        .def_prop_ro(
            "graph", [](const PyGraphNode& n) { return n.graph; }, "The Graph the node belongs to.")
        .def_prop_ro(
            "type", [](const PyGraphNode& n) { return int(graph_node_type(n.handle)); },
            "The node's kind, a graph_node_type (KERNEL, MEMCPY, MEMSET, ...).")
        .def_prop_ro(
            "handle",
            [](const PyGraphNode& n) { return reinterpret_cast<std::uintptr_t>(n.handle); },
            "The CUgraphNode, as an int.");

    nb::class_<PyGraph>(
        m, "Graph",
        "A CUDA graph: work (kernels, copies, memsets, events) and the dependencies between its "
        "parts, launched all at once by the GraphExec that instantiate() makes. Made empty in "
        "the current context and built node by node, or returned by Stream.end_capture() and "
        "StreamCapture.graph. It keeps what its nodes use (arguments, events, host buffers) "
        "alive.\n\n"
        "    g = drv.Graph()\n"
        "    fill = g.add_memset_node(dev_a, 0, n, element_size=4)\n"
        "    k = g.add_kernel_node(func, (blocks, 1), (256, 1, 1), (dev_a, numpy.int32(n)),\n"
        "                          dependencies=[fill])\n"
        "    g.add_memcpy_node(host_a, dev_a, dependencies=[k])\n"
        "    g.instantiate().launch()")
        .def("__init__",
             [](PyGraph* self) {
                 new (self) PyGraph{std::make_unique<Graph>(), nb::list()};
             })
        .def("add_kernel_node", &add_kernel_node, nb::arg("func"), nb::arg("grid"),
             nb::arg("block"), nb::arg("args") = nb::tuple(), deps(), nb::arg("shared") = 0,
             "A node launching `func` (a Function) on `grid` and `block` with `args` (a tuple or "
             "list of its arguments), packed as "
             "prepared_call packs them where func is prepared, else as __call__ does (by type: "
             "NumPy scalars and device memory); `shared` bytes of dynamic shared memory. The "
             "arguments are kept with the graph; In/Out/InOut are refused.")
        .def("add_memcpy_node", &add_memcpy_node, nb::arg("dest"), nb::arg("src"),
             nb::arg("nbytes").none() = nb::none(), deps(),
             "A node copying `nbytes` bytes from `src` to `dest`, each device memory "
             "(DeviceAllocation, GPUArray, int address, ...) or a contiguous host buffer (held "
             "by the graph; page-locked memory copies fastest). nbytes defaults to the host "
             "buffer's size.")
        .def("add_memset_node", &add_memset_node, nb::arg("dest"), nb::arg("value"),
             nb::arg("count"), nb::arg("element_size") = 1, deps(),
             "A node setting `count` elements of `element_size` (1, 2 or 4) bytes at `dest` to "
             "`value`, as memset_d8/d16/d32 do.")
        .def("add_event_record_node", &add_event_node<&Graph::add_event_record>, nb::arg("event"),
             deps(), "A node recording `event` (an Event).")
        .def("add_event_wait_node", &add_event_node<&Graph::add_event_wait>, nb::arg("event"),
             deps(), "A node waiting for `event` (recorded elsewhere) before its dependents run.")
        .def(
            "add_empty_node",
            [](nb::handle self, nb::handle dependencies) {
                return new_node(
                    self, graph_of(self).graph->add_empty(dependency_handles(self, dependencies)));
            },
            deps(), "A node that does nothing: one point for many nodes to depend on.")
        .def(
            "clone",
            [](const PyGraph& g) {
                return PyGraph{g.graph->clone(),
                               nb::steal<nb::list>(PySequence_List(g.uses.ptr()))};
            },
            "A copy of the graph (cuGraphClone); its nodes are its own.")
        .def_prop_ro(
            "node_count", [](const PyGraph& g) { return g.graph->node_count(); },
            "The number of nodes.")
        .def("instantiate", &instantiate, nb::arg("flags") = 0,
             "The executable graph (cuGraphInstantiateWithFlags): a GraphExec to launch.")
        .def(
            "debug_dot_print",
            [](const PyGraph& g, nb::handle path, unsigned flags) {
                g.graph->debug_dot_print(path_arg(path), flags);
            },
            nb::arg("path"), nb::arg("flags") = 1,
            "Write the graph to `path` in Graphviz DOT (flags: CUgraphDebugDot_flags; 1, the "
            "default, is verbose).")
        .def_prop_ro(
            "handle",
            [](const PyGraph& g) { return reinterpret_cast<std::uintptr_t>(g.graph->handle()); },
            "The CUgraph, as an int.");

    nb::class_<PyGraphExec>(m, "GraphExec",
                            "An executable graph, made by Graph.instantiate(): launched with "
                            "one call, updated in place where the driver allows it.\n\n"
                            "    ge = graph.instantiate()\n"
                            "    ge.launch(stream)\n"
                            "    ge.update(graph_with_new_parameters)")
        .def(
            "launch",
            [](const PyGraphExec& e, nb::handle stream) { e.exec->launch(stream_handle(stream)); },
            nb::arg("stream").none() = nb::none(), "Launch on `stream` (None: the default stream).")
        .def(
            "upload",
            [](const PyGraphExec& e, nb::handle stream) { e.exec->upload(stream_handle(stream)); },
            nb::arg("stream").none() = nb::none(),
            "Prepare the launch on `stream` ahead of time (cuGraphUpload).")
        .def(
            "update",
            [](PyGraphExec& e, nb::handle graph) {
                e.exec->update(*graph_of(graph, "graph").graph);
                e.updated_from = nb::borrow(graph);
                e.node_uses.clear();
            },
            nb::arg("graph"),
            "Take the node parameters of `graph`, which must have the same nodes and "
            "dependencies (cuGraphExecUpdate). A refusal raises pycuda.driver.LogicError "
            "(code CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) saying why, and changes nothing.")
        .def("set_kernel_node_params", &set_kernel_node_params, nb::arg("node"),
             nb::arg("args").none() = nb::none(), nb::arg("func").none() = nb::none(),
             nb::arg("grid").none() = nb::none(), nb::arg("block").none() = nb::none(),
             nb::arg("shared").none() = nb::none(),
             "New arguments (packed as add_kernel_node packs them) and, where given, function, "
             "grid, block and shared size for `node`, a kernel node of the graph this was "
             "instantiated from (cuGraphExecKernelNodeSetParams). What is not given (None) is as "
             "the node was added.")
        .def_prop_ro(
            "handle",
            [](const PyGraphExec& e) { return reinterpret_cast<std::uintptr_t>(e.exec->handle()); },
            "The CUgraphExec, as an int.");

    nb::class_<PyStreamCapture>(
        m, "StreamCapture",
        "A `with` block capturing a stream into a Graph (made by Stream.capture()). Inside it, "
        "work of this thread queued with no stream (GPUArray operators, prepared_call, "
        "memset_d8, ...) goes to the capturing stream, so it is captured too.\n\n"
        "    with stream.capture() as cap:\n"
        "        c = a + b\n"
        "    ge = cap.graph.instantiate()")
        .def(
            "__init__",
            [](PyStreamCapture* self, nb::handle stream, nb::handle mode) {
                new (self) PyStreamCapture(stream, capture_mode_arg(mode));
            },
            nb::arg("stream").none(), nb::arg("mode").none() = "relaxed")
        .def("__enter__",
             [](nb::handle self) {
                 expect<PyStreamCapture>(self, "self", "StreamCapture").scope.enter();
                 return nb::borrow(self);
             })
        .def(
            "__exit__",
            [](PyStreamCapture& c, nb::handle exc_type, nb::handle, nb::handle) {
                if (exc_type.is_none())
                    c.graph = nb::cast(PyGraph{c.scope.exit(), nb::list()});
                else
                    c.scope.abandon(); // the block's exception is the one to see
                return false;
            },
            nb::arg("exc_type").none(), nb::arg("exc_value").none(), nb::arg("traceback").none())
        .def_prop_ro(
            "graph", [](const PyStreamCapture& c) { return c.graph; },
            "The captured Graph once the block has ended without an exception, else "
            "None.")
        .def_prop_ro(
            "stream", [](const PyStreamCapture& c) { return c.stream; },
            "The Stream being captured.")
        .def_prop_ro(
            "mode", [](const PyStreamCapture& c) { return int(c.scope.mode()); },
            "The capture_mode, as an int.");
}

} // namespace pycuda::bindings
