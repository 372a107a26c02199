// core/graph.cpp: graph creation, nodes, instantiation, launch, update and destruction.
#include "core/graph.hpp"

#include "core/error.hpp"
#include "core/stream.hpp"

#include <stdexcept>
#include <utility>

namespace pycuda {

namespace {

/// A driver entry that may be missing on older drivers: CUDA_ERROR_NOT_SUPPORTED naming it.
template <typename Fn>
Fn require(Fn fn, const char* routine) {
    if (fn == nullptr)
        throw CudaError(CUDA_ERROR_NOT_SUPPORTED, routine, "this driver does not provide it");
    return fn;
}

/// The kernel-node description of a launch; `extra` is the parameter-buffer list that
/// Function::launch passes too (null for a kernel without parameters).
CUDA_KERNEL_NODE_PARAMS kernel_params(const Function& f, const Dim3& grid, const Dim3& block,
                                      unsigned shared_bytes, void** extra) {
    CUDA_KERNEL_NODE_PARAMS p{};
    p.func = f.handle();
    p.gridDimX = grid[0];
    p.gridDimY = grid[1];
    p.gridDimZ = grid[2];
    p.blockDimX = block[0];
    p.blockDimY = block[1];
    p.blockDimZ = block[2];
    p.sharedMemBytes = shared_bytes;
    p.kernelParams = nullptr;
    p.extra = extra;
    return p;
}

/// The `extra` list of a packed parameter buffer (it points at `size`, which must outlive it).
struct ParamBuffer {
    ParamBuffer(void* params, std::size_t params_size)
        : size(params_size), extra{CU_LAUNCH_PARAM_BUFFER_POINTER, params,
                                   CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END} {}
    ParamBuffer(const ParamBuffer&) = delete;
    ParamBuffer& operator=(const ParamBuffer&) = delete;
    void** list() noexcept { return size != 0 ? extra : nullptr; }

    std::size_t size;
    void* extra[5];
};

void check_element_size(unsigned element_size) {
    if (element_size != 1 && element_size != 2 && element_size != 4)
        throw std::invalid_argument("memset element size must be 1, 2 or 4 bytes");
}

} // namespace

Graph::Graph() : context_(Context::require_current("Graph")) {
    PYCUDA_CALL(cuGraphCreate, &handle_, 0u);
}

Graph::Graph(CUgraph handle, ContextPtr context, GraphUses uses)
    : context_(std::move(context)), handle_(handle), uses_(std::move(uses)) {}

Graph::~Graph() {
    if (driver().cuGraphDestroy) // (a graph exists, so the driver has graphs)
        release_in(*context_, [&] { PYCUDA_CALL_CLEANUP(cuGraphDestroy, handle_); });
}

void Graph::keep(std::shared_ptr<const void> what) {
    uses_.push_back(std::move(what));
}

CUgraphNode Graph::add_kernel(const Function& f, const Dim3& grid, const Dim3& block,
                              unsigned shared_bytes, void* params, std::size_t params_size,
                              GraphNodes dependencies) {
    ParamBuffer buffer(params, params_size);
    CUDA_KERNEL_NODE_PARAMS p = kernel_params(f, grid, block, shared_bytes, buffer.list());
    CUgraphNode node = nullptr;
    PYCUDA_CALL(cuGraphAddKernelNode, &node, handle_, dependencies.data(), dependencies.size(), &p);
    keep(f.module());
    return node;
}

CUgraphNode Graph::add_memcpy(CopyEnd dest, CopyEnd src, std::size_t bytes,
                              GraphNodes dependencies) {
    CUDA_MEMCPY3D p{};
    p.srcMemoryType = src.type;
    p.dstMemoryType = dest.type;
    if (src.type == CU_MEMORYTYPE_HOST)
        p.srcHost = reinterpret_cast<const void*>(src.address);
    else
        p.srcDevice = static_cast<CUdeviceptr>(src.address);
    if (dest.type == CU_MEMORYTYPE_HOST)
        p.dstHost = reinterpret_cast<void*>(dest.address);
    else
        p.dstDevice = static_cast<CUdeviceptr>(dest.address);
    p.WidthInBytes = bytes;
    p.Height = 1;
    p.Depth = 1;
    CUgraphNode node = nullptr;
    PYCUDA_CALL(cuGraphAddMemcpyNode, &node, handle_, dependencies.data(), dependencies.size(), &p,
                context_->handle());
    return node;
}

CUgraphNode Graph::add_memset(CUdeviceptr dest, unsigned value, unsigned element_size,
                              std::size_t count, GraphNodes dependencies) {
    check_element_size(element_size);
    CUDA_MEMSET_NODE_PARAMS p{};
    p.dst = dest;
    p.pitch = count * element_size; // one row: the pitch is not used
    p.value = value;
    p.elementSize = element_size;
    p.width = count;
    p.height = 1;
    CUgraphNode node = nullptr;
    PYCUDA_CALL(cuGraphAddMemsetNode, &node, handle_, dependencies.data(), dependencies.size(), &p,
                context_->handle());
    return node;
}

CUgraphNode Graph::add_event_record(CUevent event, GraphNodes dependencies) {
    CUgraphNode node = nullptr;
    PYCUDA_CALL(cuGraphAddEventRecordNode, &node, handle_, dependencies.data(), dependencies.size(),
                event);
    return node;
}

CUgraphNode Graph::add_event_wait(CUevent event, GraphNodes dependencies) {
    CUgraphNode node = nullptr;
    PYCUDA_CALL(cuGraphAddEventWaitNode, &node, handle_, dependencies.data(), dependencies.size(),
                event);
    return node;
}

CUgraphNode Graph::add_empty(GraphNodes dependencies) {
    CUgraphNode node = nullptr;
    PYCUDA_CALL(cuGraphAddEmptyNode, &node, handle_, dependencies.data(), dependencies.size());
    return node;
}

std::unique_ptr<Graph> Graph::clone() const {
    CUgraph copy = nullptr;
    PYCUDA_CALL(cuGraphClone, &copy, handle_);
    return std::make_unique<Graph>(copy, context_, uses_);
}

std::size_t Graph::node_count() const {
    std::size_t count = 0;
    PYCUDA_CALL(cuGraphGetNodes, handle_, static_cast<CUgraphNode*>(nullptr), &count);
    return count;
}

void Graph::debug_dot_print(const std::string& path, unsigned flags) const {
    PYCUDA_CALL(cuGraphDebugDotPrint, handle_, path.c_str(), flags);
}

CUgraphNodeType graph_node_type(CUgraphNode node) {
    CUgraphNodeType type{};
    PYCUDA_CALL(cuGraphNodeGetType, node, &type);
    return type;
}

GraphExec::GraphExec(const Graph& graph, unsigned long long flags)
    : context_(graph.context()), uses_(graph.uses()) {
    ScopedActivation active(*context_);
    PYCUDA_CALL(cuGraphInstantiateWithFlags, &handle_, graph.handle(), flags);
}

GraphExec::~GraphExec() {
    if (driver().cuGraphExecDestroy)
        release_in(*context_, [&] { PYCUDA_CALL_CLEANUP(cuGraphExecDestroy, handle_); });
}

void GraphExec::launch(CUstream stream) const {
    PYCUDA_CALL(cuGraphLaunch, handle_, stream_or_current(stream));
}

void GraphExec::upload(CUstream stream) const {
    PYCUDA_CALL(cuGraphUpload, handle_, stream_or_current(stream));
}

void GraphExec::update(const Graph& graph) {
    CUgraphExecUpdateResultInfo info{};
    auto fn = require(driver().cuGraphExecUpdate, "cuGraphExecUpdate");
    CUresult rc = fn(handle_, graph.handle(), &info);
    if (rc == CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE)
        throw CudaError(rc, "cuGraphExecUpdate",
                        "refused, because " + graph_update_refusal(info.result) +
                            "; the executable graph is unchanged (instantiate the new graph "
                            "instead)");
    check(rc, "cuGraphExecUpdate");
    // The new parameters may point into what `graph` keeps alive.
    uses_.insert(uses_.end(), graph.uses().begin(), graph.uses().end());
}

void GraphExec::set_kernel_params(CUgraphNode node, const Function& f, const Dim3& grid,
                                  const Dim3& block, unsigned shared_bytes, void* params,
                                  std::size_t params_size) {
    ParamBuffer buffer(params, params_size);
    CUDA_KERNEL_NODE_PARAMS p = kernel_params(f, grid, block, shared_bytes, buffer.list());
    PYCUDA_CALL(cuGraphExecKernelNodeSetParams, handle_, node,
                static_cast<const CUDA_KERNEL_NODE_PARAMS*>(&p));
    uses_.push_back(f.module());
}

std::string graph_update_refusal(CUgraphExecUpdateResult result) {
    switch (result) {
    case CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED:
        return "the topology changed (other nodes or dependencies)";
    case CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED:
        return "the type of a node changed";
    case CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED:
        return "the function of a kernel node changed";
    case CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED:
        return "a node's parameters changed in a way that cannot be updated (such as the "
               "context or device of its memory, or a copy's memory type)";
    case CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED:
        return "a node of this kind or configuration cannot be updated";
    case CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE:
        return "the function of a kernel node changed in an unsupported way (another "
               "context, or dynamic parallelism)";
    case CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED:
        return "a node's attributes changed in a way that cannot be updated";
    default:
        return "the driver refused it (CU_GRAPH_EXEC_UPDATE_ERROR)";
    }
}

} // namespace pycuda
