"""examples/mpi_send_gpuarray.py: send a GPUArray from rank 0 to rank 1.

Run with `mpirun -np 2 python examples/mpi_send_gpuarray.py` on a machine with two GPUs. Where
the MPI library is CUDA-aware, the array goes straight from device memory (mpi4py reads the
array's __cuda_array_interface__); elsewhere it goes through host memory. Both ranks check the
data and say which path was taken.
"""

import numpy as np
from mpi4py import MPI

import pycuda.driver as cuda
from pycuda import gpuarray


def mpi_is_cuda_aware() -> bool:
    """True when this MPI moves device buffers itself (OpenMPI's MPIX_Query_cuda_support)."""
    query = getattr(MPI, "Query_cuda_support", None)
    if query is None:
        return False
    try:
        return bool(query())
    except Exception:  # an MPI without the extension says so by raising
        return False


comm = MPI.COMM_WORLD
rank = comm.rank
if comm.size != 2:
    raise SystemExit("run with mpirun -np 2")

cuda.init()
if cuda.Device.count() < 2:
    raise SystemExit("needs two GPUs: one per rank")
ctx = cuda.Device(rank).retain_primary_context()
ctx.push()

n = 1 << 22
direct = comm.allreduce(mpi_is_cuda_aware(), op=MPI.LAND)
expected = np.arange(n, dtype=np.float32) * 3

if rank == 0:
    x_gpu = gpuarray.to_gpu(np.arange(n, dtype=np.float32)) * 3
    cuda.Context.synchronize()  # MPI reads the memory outside any stream of ours
    if direct:
        comm.Send(x_gpu, dest=1, tag=7)
    else:
        comm.Send(x_gpu.get(), dest=1, tag=7)
else:
    y_gpu = gpuarray.empty(n, np.float32)
    if direct:
        comm.Recv(y_gpu, source=0, tag=7)
    else:
        host = np.empty(n, np.float32)
        comm.Recv(host, source=0, tag=7)
        y_gpu.set(host)
    assert np.array_equal(y_gpu.get(), expected), "rank 1 received wrong data"
    path = "directly from device memory (CUDA-aware MPI)" if direct else "through host memory"
    print(f"mpi_send_gpuarray: {n} float32 sent {path}, checked on rank 1")

ctx.pop()
