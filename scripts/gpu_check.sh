#!/usr/bin/env bash
# scripts/gpu_check.sh: one call on the GPU machine: the README's two commands, then the
# benchmarks. Logs go to $OUT (the device tool brings them back), or to ./gpu-logs elsewhere.
# Usage: scripts/gpu_check.sh [pytest args...]   e.g. scripts/gpu_check.sh -x tests/test_launch.py
# SKIP_BENCH=1 and SKIP_CLIENTS=1 leave those parts out; CLIENTS_ARGS (default "-n 8") and
# CLIENTS_TIMEOUT (default 300 s) go to scripts/clients.sh.
# Carried along (ignored folders; the device tool's carry=[...]):
#  - .whl/: wheels the offline machine lacks (scripts/clients.sh says how to fetch them);
#    wherever pytest-xdist is importable (installed, or among them) the tests run in
#    PYTEST_WORKERS (default 8) processes;
#  - .baseline/: an earlier tree of this repository (`git archive <commit> | tar -x -C
#    .baseline`); it is built too, and benchmarks/_compare_versions.py times both builds' host
#    costs in the same run.
set -uo pipefail
out=${OUT:-$PWD/gpu-logs}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
# NVLink multicast stays off on shared multi-GPU hosts (the device tool's KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/pycuda-site \
        .whl/*.whl > "$out/wheels.log" 2>&1 && export PYTHONPATH=/tmp/pycuda-site${PYTHONPATH:+:$PYTHONPATH}
fi
if python3 -c "import xdist" 2>/dev/null; then
    export PYTEST_ADDOPTS="${PYTEST_ADDOPTS:-} -n ${PYTEST_WORKERS:-8}"
fi
if [ -d .baseline ] && [ -z "${SKIP_BASELINE:-}" ]; then
    # Built beside the suite (a few cores), for the host-cost comparison at the end.
    (CMAKE_BUILD_PARALLEL_LEVEL=4 python3 -m pip install -q --no-build-isolation --no-deps \
        --no-index --target /tmp/pycuda-baseline ./.baseline > "$out/baseline_build.log" 2>&1;
        echo "baseline build exit: $?" >> "$out/baseline_build.log") &
    baseline_pid=$!
fi

echo "== demo (README command 1)"
./scripts/demo.sh > "$out/demo.log" 2>&1
echo "demo exit: $?"; tail -n 15 "$out/demo.log"

echo "== tests (README command 2)"
PYTEST_ADDOPTS="${PYTEST_ADDOPTS:-} -p no:cacheprovider --durations=15" \
    ./scripts/test.sh "$@" > "$out/test.log" 2>&1
echo "test exit: $?"
grep -E "tests passed|tests failed|passed|failed|error" "$out/test.log" | tail -n 5
grep -E "^(FAILED|ERROR)" "$out/test.log" | head -n 40

# A real client's own test suite against this pycuda, when .whl/ was carried along (the device
# tool: carry=[".whl"]; scripts/clients.sh says how to fetch it). Logs: $out/reikna*.
if [ -z "${SKIP_CLIENTS:-}" ] && compgen -G ".whl/reikna-*.whl" >/dev/null; then
    echo "== clients: reikna's test suite (scripts/clients.sh ${CLIENTS_ARGS--n 8})"
    # shellcheck disable=SC2086 # CLIENTS_ARGS is a list of pytest arguments
    CLIENTS_TIMEOUT="${CLIENTS_TIMEOUT:-300}" ./scripts/clients.sh ${CLIENTS_ARGS--n 8}
    echo "clients exit: $?"
fi

if [ -n "${baseline_pid:-}" ]; then
    wait "$baseline_pid"
    tail -n 1 "$out/baseline_build.log"
    echo "== host costs: .baseline's build vs this one (benchmarks/_compare_versions.py)"
    site=$(.venv/bin/python -c 'import pycuda, os; print(os.path.dirname(os.path.dirname(pycuda.__file__)))')
    timeout 300 .venv/bin/python benchmarks/_compare_versions.py --before /tmp/pycuda-baseline \
        --after "$site" --json "$out/compare_versions.json" 2>&1 | tee "$out/compare_versions.log"
fi

if [ -z "${SKIP_BENCH:-}" ]; then
    echo "== benchmarks"
    for b in benchmarks/*.py; do
        # mpi_steps.py runs under mpirun: scripts/gpu_mpi_bench.sh.
        case "$b" in */_*|*/mpi_steps.py) continue ;; esac
        name=$(basename "$b" .py)
        timeout 300 .venv/bin/python "$b" --json "$out/bench_$name.json" > "$out/bench_$name.log" 2>&1
        echo "$b exit: $?"; tail -n 25 "$out/bench_$name.log"
    done
fi
