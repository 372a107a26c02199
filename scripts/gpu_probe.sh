#!/usr/bin/env bash
# scripts/gpu_probe.sh: what the GPU machine offers (run there through the device tool).
set -x
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
which python3 nvcc cmake g++ mpirun; python3 --version
python3 -c "import numpy, nanobind, scikit_build_core, pytest; print(numpy.__version__, nanobind.__version__, scikit_build_core.__version__, pytest.__version__)"
python3 -c "import cupy; print('cupy', cupy.__version__)"; python3 -c "import mpi4py; print('mpi4py', mpi4py.__version__)"
ldconfig -p | grep -E "libcuda.so|libnvrtc" ; ls /usr/local/cuda/lib64 | grep -E "nvrtc|cudadevrt" ; ls /usr/local/nvidia/lib64 2>/dev/null | head
nproc
