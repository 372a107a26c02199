#!/usr/bin/env bash
# scripts/gpu_mpi_check.sh: on a machine with two GPUs, build, then run the MPI examples under
# `mpirun -np 2` (one GPU per rank) and their tests. Logs go to $OUT (or ./gpu-logs).
set -uo pipefail
out=${OUT:-$PWD/gpu-logs}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
# NVLink multicast stays off on shared multi-GPU hosts (the device tool's KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=index,name,driver_version --format=csv
# shellcheck source=scripts/setup_env.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup_env.sh"
setup_env > "$out/setup.log" 2>&1 || { tail -n 30 "$out/setup.log"; exit 1; }
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
for example in mpi_scale mpi_send_gpuarray; do
    echo "== mpirun -np 2 examples/$example.py"
    timeout 120 mpirun -np 2 --oversubscribe "${root[@]}" .venv/bin/python "examples/$example.py" \
        2>&1 | tee "$out/$example.log" | tail -n 8
done
echo "== tests/test_mpi.py"
.venv/bin/python -m pytest -rs -p no:cacheprovider tests/test_mpi.py 2>&1 | tail -n 4
