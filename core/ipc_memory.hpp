// core/ipc_memory.hpp: device memory shared between processes (CUDA IPC).
#pragma once

#include "core/context.hpp"

namespace pycuda {

/// The 64-byte handle another process can open to reach the allocation containing `ptr`.
CUipcMemHandle ipc_mem_handle(CUdeviceptr ptr);

/// Another process's device memory, opened in the context current at construction and closed
/// in it by close() or the destructor.
class IpcMemoryHandle {
public:
    /// cuIpcOpenMemHandle; `flags` from ipc_mem_flags.
    IpcMemoryHandle(const CUipcMemHandle& handle, unsigned flags);
    ~IpcMemoryHandle();
    IpcMemoryHandle(const IpcMemoryHandle&) = delete;
    IpcMemoryHandle& operator=(const IpcMemoryHandle&) = delete;

    /// The mapped address; after close() CudaError(INVALID_HANDLE).
    CUdeviceptr ptr() const;
    bool closed() const noexcept { return ptr_ == 0; }
    /// cuIpcCloseMemHandle now; a second close() is CudaError(INVALID_HANDLE).
    void close();

private:
    ContextPtr context_;
    CUdeviceptr ptr_ = 0;
};

} // namespace pycuda
