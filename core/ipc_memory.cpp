// core/ipc_memory.cpp: opening and closing IPC memory handles in their context.
#include "core/ipc_memory.hpp"

#include "core/error.hpp"

namespace pycuda {

CUipcMemHandle ipc_mem_handle(CUdeviceptr ptr) {
    CUipcMemHandle handle{};
    PYCUDA_CALL(cuIpcGetMemHandle, &handle, ptr);
    return handle;
}

IpcMemoryHandle::IpcMemoryHandle(const CUipcMemHandle& handle, unsigned flags)
    : context_(Context::require_current("IPCMemoryHandle")) {
    PYCUDA_CALL(cuIpcOpenMemHandle, &ptr_, handle, flags);
}

IpcMemoryHandle::~IpcMemoryHandle() {
    if (ptr_)
        release_in(*context_, [&] { PYCUDA_CALL_CLEANUP(cuIpcCloseMemHandle, ptr_); });
}

CUdeviceptr IpcMemoryHandle::ptr() const {
    if (!ptr_) [[unlikely]]
        throw CudaError(CUDA_ERROR_INVALID_HANDLE, "IPCMemoryHandle", "the handle was closed");
    return ptr_;
}

void IpcMemoryHandle::close() {
    CUdeviceptr p = ptr();
    ScopedActivation active(*context_);
    PYCUDA_CALL(cuIpcCloseMemHandle, p);
    ptr_ = 0;
}

} // namespace pycuda
