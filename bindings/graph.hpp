// bindings/graph.hpp: what bindings/stream.cpp needs of the graph bindings (Stream's capture
// methods return graphs and capture scopes).
#pragma once

#include "core/graph.hpp"
#include "core/stream_capture.hpp"

#include <nanobind/nanobind.h>

#include <memory>

namespace nb = nanobind;

namespace pycuda::bindings {

/// A `mode=` argument: a capture_mode member or int (0 global, 1 thread_local, 2 relaxed), or
/// its name as a str; anything else is TypeError/ValueError.
CaptureMode capture_mode_arg(nb::handle mode);

/// pycuda._driver.Graph: the core graph and the Python objects its nodes use (kernel
/// arguments, events, host buffers), which live as long as the graph and what is made from it.
struct PyGraph {
    std::unique_ptr<Graph> graph;
    nb::list uses;
};

/// A pycuda._driver.StreamCapture of `stream` (a Stream) in `mode`, not yet entered.
nb::object make_stream_capture(nb::handle stream, nb::handle mode);

} // namespace pycuda::bindings
