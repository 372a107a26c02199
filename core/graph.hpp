// core/graph.hpp: CUDA graphs: RAII owners of CUgraph and CUgraphExec, and building a graph node
// by node.
//
// A graph records work (kernels, copies, memsets, events) with the dependencies between them;
// an executable graph (GraphExec) made from it launches all of it with one call. Both belong to
// the context current when they were made, keep it alive, and are destroyed in it. What their
// nodes use but do not own (the modules of kernels, the pool blocks a capture used) is kept
// alive with them through GraphUses.
#pragma once

#include "core/context.hpp"
#include "core/function.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace pycuda {

/// What a graph's nodes need kept alive; shared by the graph, its clones and its GraphExecs.
using GraphUses = std::vector<std::shared_ptr<const void>>;

/// The dependencies of a new node: nodes of the same graph.
using GraphNodes = std::span<const CUgraphNode>;

/// One side of a copy node: device memory (CU_MEMORYTYPE_DEVICE) or host memory
/// (CU_MEMORYTYPE_HOST) at `address`.
struct CopyEnd {
    CUmemorytype type = CU_MEMORYTYPE_DEVICE;
    std::uintptr_t address = 0;
};

/// A CUDA graph (CUgraph), owned; destroyed in its context.
class Graph {
public:
    /// cuGraphCreate: an empty graph in the current context.
    Graph();
    /// Takes ownership of `handle`, a graph made in `context` (by a stream capture).
    Graph(CUgraph handle, ContextPtr context, GraphUses uses);
    ~Graph();
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;

    CUgraph handle() const noexcept { return handle_; }
    const ContextPtr& context() const noexcept { return context_; }
    const GraphUses& uses() const noexcept { return uses_; }
    /// Keeps `what` alive as long as this graph, its clones and its GraphExecs.
    void keep(std::shared_ptr<const void> what);

    /// A kernel node launching `f` with a parameter buffer packed as for Function::launch (the
    /// driver copies it); keeps f's module loaded.
    CUgraphNode add_kernel(const Function& f, const Dim3& grid, const Dim3& block,
                           unsigned shared_bytes, void* params, std::size_t params_size,
                           GraphNodes dependencies);
    /// A 1-D copy of `bytes` bytes.
    CUgraphNode add_memcpy(CopyEnd dest, CopyEnd src, std::size_t bytes, GraphNodes dependencies);
    /// A 1-D memset of `count` elements of `element_size` (1, 2 or 4) bytes.
    CUgraphNode add_memset(CUdeviceptr dest, unsigned value, unsigned element_size,
                           std::size_t count, GraphNodes dependencies);
    CUgraphNode add_event_record(CUevent event, GraphNodes dependencies);
    CUgraphNode add_event_wait(CUevent event, GraphNodes dependencies);
    /// A node that does nothing: a point to depend on.
    CUgraphNode add_empty(GraphNodes dependencies);

    /// cuGraphClone: a copy with the same nodes and uses.
    std::unique_ptr<Graph> clone() const;
    /// The number of nodes (cuGraphGetNodes).
    std::size_t node_count() const;
    /// cuGraphDebugDotPrint: writes the graph in Graphviz DOT to `path`.
    void debug_dot_print(const std::string& path, unsigned flags) const;

private:
    ContextPtr context_;
    CUgraph handle_ = nullptr;
    GraphUses uses_;
};

/// The type of a node (cuGraphNodeGetType).
CUgraphNodeType graph_node_type(CUgraphNode node);

/// An executable graph (CUgraphExec), owned; destroyed in its context.
class GraphExec {
public:
    /// cuGraphInstantiateWithFlags of `graph` (which may change or go afterwards).
    explicit GraphExec(const Graph& graph, unsigned long long flags = 0);
    ~GraphExec();
    GraphExec(const GraphExec&) = delete;
    GraphExec& operator=(const GraphExec&) = delete;

    CUgraphExec handle() const noexcept { return handle_; }
    const ContextPtr& context() const noexcept { return context_; }

    /// cuGraphLaunch on `stream` (null: this thread's current stream).
    void launch(CUstream stream) const;
    /// cuGraphUpload: prepares the launch on `stream` ahead of time.
    void upload(CUstream stream) const;
    /// cuGraphExecUpdate: takes the node parameters of `graph`, which must have the same
    /// topology. A refusal is CudaError(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) saying why, and
    /// leaves this GraphExec as it was.
    void update(const Graph& graph);
    /// cuGraphExecKernelNodeSetParams: new launch parameters for `node`, a kernel node of the
    /// graph this was made from (the function may change within its context).
    void set_kernel_params(CUgraphNode node, const Function& f, const Dim3& grid, const Dim3& block,
                           unsigned shared_bytes, void* params, std::size_t params_size);

private:
    ContextPtr context_;
    CUgraphExec handle_ = nullptr;
    GraphUses uses_;
};

/// Why cuGraphExecUpdate refused, in words ("the topology changed", ...).
std::string graph_update_refusal(CUgraphExecUpdateResult result);

} // namespace pycuda
