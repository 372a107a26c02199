#!/usr/bin/env bash
# scripts/gpu_reliability.sh: the reliability checks of docs/reliability.md in one GPU call:
# compute-sanitizer over the package's kernels, the leak cycles, and the GPU reliability tests
# (faults, memory pressure, threads and processes, interrupts). Logs go to $OUT (the device tool
# brings them back), or to ./gpu-logs elsewhere; a compact summary is printed at the end.
# Usage: scripts/gpu_reliability.sh        STEPS="sanitize leaks tests" picks steps (all three by
# default); LEAK_ARGS passes options to leak_cycles.py; SANITIZE_* variables reach sanitize.sh.
# Expected time on an H100: about 6 minutes (sanitize ~3, leaks ~1.5, tests ~1.5).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${OUT:-$root/gpu-logs}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1 OUT="$out"
# NVLink multicast stays off on shared multi-GPU hosts (the device tool's KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
steps="${STEPS:-sanitize leaks tests}"
start=$SECONDS

# shellcheck source=scripts/setup_env.sh
source "$root/scripts/setup_env.sh"
setup_env >"$out/reliability_setup.log" 2>&1 || { tail -n 30 "$out/reliability_setup.log"; exit 1; }
export PY="$VENV/bin/python"
cd "$root" || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1
echo "gpu: $(cat "$out/gpu.txt"); setup $((SECONDS - start)) s"

status=0
# Each step's summary is printed as soon as it ends: a call cut short still shows what ran.
# (report runs at the end of a pipeline, in a subshell: `status` is set by the caller.)
report() { # report STEP RC SECONDS, then the step's summary lines on stdin
    echo "== $1: exit $2, $3 s"
    sed 's/^/  /'
}

if [[ " $steps " == *" sanitize "* ]]; then
    t=$SECONDS
    ./scripts/sanitize.sh >"$out/sanitize.log" 2>&1
    rc=$?
    [ "$rc" -eq 0 ] || status=1
    tail -n 6 "$out/sanitize.log" | report sanitize "$rc" $((SECONDS - t))
fi
if [[ " $steps " == *" leaks "* ]]; then
    t=$SECONDS
    # shellcheck disable=SC2086 # LEAK_ARGS is a list of options, e.g. "--scale 0.5"
    timeout -k 10 240 "$PY" scripts/leak_cycles.py --json "$out/leak_cycles.json" ${LEAK_ARGS:-} \
        >"$out/leak_cycles.log" 2>&1
    rc=$?
    [ "$rc" -eq 0 ] || status=1
    tail -n 11 "$out/leak_cycles.log" | report leak_cycles "$rc" $((SECONDS - t))
fi
if [[ " $steps " == *" tests "* ]]; then
    t=$SECONDS
    timeout_opt=()
    "$PY" -c "import pytest_timeout" 2>/dev/null && timeout_opt=(--timeout=300)
    timeout -k 10 360 "$PY" -m pytest -p no:cacheprovider -q -rfEs --durations=10 \
        "${timeout_opt[@]}" tests/test_faults.py tests/test_memory_pressure.py \
        tests/test_threads_processes.py tests/test_interrupts.py >"$out/reliability_tests.log" 2>&1
    rc=$?
    [ "$rc" -eq 0 ] || status=1
    grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed" "$out/reliability_tests.log" | tail -n 25 |
        report "reliability tests" "$rc" $((SECONDS - t))
fi

echo "reliability: $([ "$status" -eq 0 ] && echo "ALL PASSED" || echo "PROBLEMS"), \
$((SECONDS - start)) s in all; logs in $out"
exit "$status"
