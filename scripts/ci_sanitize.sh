#!/usr/bin/env bash
# scripts/ci_sanitize.sh: the C++ unit tests, then a slice of the Python tests over the fake
# driver, with the core and the extension built under AddressSanitizer and UBSan (no GPU needed).
#
# One build folder (build/sanitize) holds both the GoogleTest binary and pycuda._driver, so the
# core is compiled once (2 cores in CI). The extension is copied into a throwaway copy of
# python/pycuda that PYTHONPATH puts first; child interpreters of the tests import the same copy
# (tests/child_process.py) and inherit the preloaded sanitizer runtimes.
# Each sanitizer ends its process at its first report (status 1, so the test fails); ASan's
# reports are also kept under build/sanitize/reports, so that one from a child whose exit status
# a test does not check still fails the step. Both parts always run; the step fails after them.
# Usage: scripts/ci_sanitize.sh [pytest args...]   (default: the slice in PYTEST_SLICE below)
# Environment: PY (a python with numpy, nanobind, pytest, hypothesis; default .venv, made by
# scripts/setup_env.sh), CMAKE_BUILD_PARALLEL_LEVEL (default 2).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
PY="${PY:-$root/.venv/bin/python}"
JOBS="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
build="$root/build/sanitize"
reports="$build/reports"
pkg="$build/python"

# The tests over the fake driver (no GPU), and those that drive the core through the bindings
# without a device (compile cache, NVRTC, host memory, threads and processes): about 2.5 minutes
# here, on top of the build (about 3 on 2 cores of their own). Left out: test_compiler (nvcc
# crashes with the ASan runtime preloaded) and the fuzzing processes of test_fuzz (fuzz_calls.py
# caps RLIMIT_DATA at 32 GiB, and ASan's shadow mappings already exceed it).
PYTEST_SLICE=(
    tests/test_async_memory.py tests/test_graphs.py tests/test_launch_attributes.py
    tests/test_profiler.py tests/test_reduce_whole.py tests/test_staged_copy.py
    tests/test_stream_argument.py tests/test_fuzz.py tests/test_no_driver.py
    tests/test_driver_api.py tests/test_exit.py tests/test_report.py tests/test_interrupts.py
    tests/test_memory_pressure.py tests/test_threads_processes.py tests/test_compile_cache.py
    tests/test_compiler_memo.py tests/test_host_memory.py tests/test_memory_pool.py
    tests/test_curand_host.py tests/test_bindings_text.py tests/test_compile_args.py
    tests/test_texref_rewrite.py
    --deselect tests/test_fuzz.py::test_fuzz_every_entry_point_without_a_driver
    --deselect tests/test_fuzz.py::test_fuzz_every_entry_point_on_the_fake_driver
)

# -O1 keeps the tests quick; -g gives the reports file and line. Recovery off: UBSan stops the
# process at its first report, as ASan does.
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -O1 -g"
if [ ! -d /usr/include/gtest ] && [ ! -d /usr/local/include/gtest ]; then
    echo "ci_sanitize: GoogleTest is not installed (apt-get install libgtest-dev): the C++" \
        "unit tests are skipped, the Python slice still runs"
fi

if ! "$PY" -c "import numpy, nanobind, pytest, hypothesis" 2>/dev/null; then
    echo "ci_sanitize: $PY lacks numpy, nanobind, pytest or hypothesis:" \
        "make the venv first (scripts/test.sh does)" >&2
    exit 1
fi

echo "== sanitizers: configure and build (build/sanitize, -j $JOBS)"
t0=$SECONDS
mkdir -p "$build"
nanobind_dir="$("$PY" -m nanobind --cmake_dir)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_FLAGS="$san" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DPYCUDA_BUILD_TESTS=ON -DPYCUDA_BUILD_MODULE=ON \
    -DPython_EXECUTABLE="$PY" -Dnanobind_DIR="$nanobind_dir" \
    >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$JOBS" >"$build/build.log" 2>&1 ||
    { tail -n 60 "$build/build.log"; exit 1; }
echo "built in $((SECONDS - t0)) s"

rm -rf "$reports"
mkdir -p "$reports"
# Leaks off: CPython leaks at exit by design. The rest is as strict as the runtimes allow.
# PYTHONMALLOC=malloc (below) puts Python's own buffers under ASan too, not in pymalloc's arenas.
# ASan writes its reports to log_path; GCC's UBSan, running beside ASan, ignores log_path and
# reports on stderr, ending its process with status 1 (halt_on_error).
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:strict_string_checks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1:log_path=$reports/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:report_error_type=1"
failures=()

# Prints the ASan reports written since the last call; records a failure when there is one.
check_reports() {
    local found=0 f
    for f in "$reports"/*; do
        [ -e "$f" ] || continue
        found=1
        echo "---- sanitizer report ($1): $(basename "$f")"
        cat "$f"
        mv "$f" "$f.seen"
    done
    [ "$found" -eq 0 ] || failures+=("AddressSanitizer reports in the $1")
}

echo
echo "== C++ unit tests under ASan+UBSan"
t0=$SECONDS
ctest_listing="$(cd "$build" && ctest -N)"
if grep -q cpp_tests_skipped <<<"$ctest_listing"; then
    echo "C++ unit tests SKIPPED: GoogleTest is not installed (e.g. apt-get install libgtest-dev)"
else
    (cd "$build" && ctest --output-on-failure -j "$JOBS") || failures+=("C++ unit tests (ctest)")
    check_reports "C++ unit tests"
fi
echo "C++ unit tests: $((SECONDS - t0)) s"

echo
echo "== Python tests over the fake driver under ASan+UBSan (LD_PRELOAD)"
t0=$SECONDS
rm -rf "$pkg"
mkdir -p "$pkg"
cp -r python/pycuda "$pkg/pycuda"
cp "$build"/_driver*.so "$pkg/pycuda/"
# The interpreter is not instrumented, so the runtimes must be loaded before anything else.
preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
run_sanitized() { env LD_PRELOAD="$preload" PYTHONPATH="$pkg" PYTHONMALLOC=malloc "$@"; }
# A pycuda found before the copy (an editable install, a .pth file) would test the wrong build.
driver_so="$(run_sanitized "$PY" -c 'import pycuda._driver as d; print(d.__file__)')"
case "$driver_so" in
"$pkg"/*) ;;
*) echo "ci_sanitize: pycuda._driver came from $driver_so, not from $pkg" >&2; exit 1 ;;
esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${PYTEST_SLICE[@]}")
# -p no:cacheprovider: nothing written into the tree; -q: the step's log stays short.
run_sanitized "$PY" -m pytest -q -p no:cacheprovider "${targets[@]}" ||
    failures+=("Python tests (pytest)")
check_reports "Python tests"
echo "Python tests: $((SECONDS - t0)) s"

if [ ${#failures[@]} -gt 0 ]; then
    printf 'ci_sanitize: FAILED: %s\n' "${failures[@]}"
    exit 1
fi
echo "ci_sanitize: clean"
