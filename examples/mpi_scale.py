"""examples/mpi_scale.py: one GPU per MPI rank, as in the seed "Python+CUDA = PyCUDA".

Run with `mpirun -np 2 python examples/mpi_scale.py` on a machine with two GPUs. Rank 0 scatters
a vector, each rank scales its part K times on its own GPU through GPUArray, and rank 0 gathers
and checks the result. The seed's program, ported to Python 3 (xrange, print, integer division),
with nr_gpus taken from the communicator instead of a hard-coded 4.
"""

import time

from mpi4py import MPI

import pycuda.driver as cuda

cuda.init()  # init pycuda driver

from numpy import allclose, array, float32  # noqa: E402
from numpy.random import randn as rand  # noqa: E402

from pycuda import gpuarray  # noqa: E402

comm = MPI.COMM_WORLD
rank = comm.rank
root = 0

nr_gpus = comm.size

sendbuf = []

N = 2**20 * nr_gpus
K = 1000

if rank == 0:
    x = rand(N).astype(float32) * 10**16
    print("x:", x)

    t1 = time.time()

    sendbuf = x.reshape(nr_gpus, N // nr_gpus)

if rank > cuda.Device.count() - 1:
    raise ValueError("To few gpus!")


current_dev = cuda.Device(rank)  # device we are working on
ctx = current_dev.make_context()  # make a working context
ctx.push()  # let context make the lead

# recieve data and port it to gpu:
x_gpu_part = gpuarray.to_gpu(comm.scatter(sendbuf, root))

# do something...
for k in range(K):  # noqa: B007 - the seed's loop, kept as written
    x_gpu_part = 0.9 * x_gpu_part

# get data back:
x_part = (x_gpu_part).get()

ctx.pop()  # deactivate again
ctx.detach()  # delete it

recvbuf = comm.gather(x_part, root)  # recieve data

if rank == 0:
    x_doubled = array(recvbuf).reshape(N)
    t2 = time.time() - t1

    print("doubled x:", x_doubled)
    print("time nedded:", t2 * 1000, " ms ")

    expected = x.astype("float64") * 0.9**K
    assert allclose(x_doubled, expected, rtol=1e-3), "the GPUs' result is wrong"
    print(f"mpi_scale: {nr_gpus} ranks, {N} elements scaled {K} times, result checked")
