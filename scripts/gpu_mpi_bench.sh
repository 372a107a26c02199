#!/usr/bin/env bash
# scripts/gpu_mpi_bench.sh: benchmarks/mpi_steps.py under `mpirun -np 1` and `-np 2` (one GPU per
# rank where there are two), then both as one markdown table (time per step, speedup).
# Usage: scripts/gpu_mpi_bench.sh [mpi_steps.py args...]   e.g. --quick, --log2-elements 20 28
# Uses .venv (built by scripts/gpu_check.sh or setup_env.sh) when it imports pycuda and mpi4py,
# else builds it. JSON and logs go to $OUT (or ./gpu-logs).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
out=${OUT:-$PWD/gpu-logs}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
# NVLink multicast stays off on shared multi-GPU hosts (the device tool's KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
python=.venv/bin/python
if ! "$python" -c "import pycuda._driver, mpi4py" 2>/dev/null; then
    # shellcheck source=scripts/setup_env.sh
    source scripts/setup_env.sh
    setup_env > "$out/setup.log" 2>&1 || { tail -n 30 "$out/setup.log"; exit 1; }
fi
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
status=0
for np in 1 2; do
    echo "== mpirun -np $np benchmarks/mpi_steps.py $*"
    rm -f "$out/mpi_steps_np$np.json"
    timeout 120 mpirun -np "$np" --oversubscribe "${root[@]}" "$python" benchmarks/mpi_steps.py \
        --json "$out/mpi_steps_np$np.json" "$@" > "$out/mpi_steps_np$np.log" 2>&1
    rc=$?
    echo "mpirun -np $np exit: $rc"
    [ "$rc" = 0 ] || { tail -n 20 "$out/mpi_steps_np$np.log"; status=1; }
done
echo "== strong scaling (benchmarks/mpi_steps.py --table)"
jsons=()
for np in 1 2; do
    [ -s "$out/mpi_steps_np$np.json" ] && jsons+=("$out/mpi_steps_np$np.json")
done
[ ${#jsons[@]} -gt 0 ] && "$python" benchmarks/mpi_steps.py --table "${jsons[@]}" | tee "$out/mpi_steps.md"
exit "$status"
