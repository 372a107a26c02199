#!/usr/bin/env bash
# scripts/test.sh: set up .venv with pycuda, then run the C++ unit tests (ctest) and pytest.
# GPU tests skip with their reason where no GPU is usable; extra arguments go to pytest.
set -euo pipefail
# shellcheck source=scripts/setup_env.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup_env.sh"
setup_env
cd "$PYCUDA_ROOT"
PY="$VENV/bin/python"
JOBS="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}"

echo
echo "== C++ unit tests (build/tests)"
mkdir -p build
cmake -S . -B build/tests -DCMAKE_BUILD_TYPE=Release -DPYCUDA_BUILD_MODULE=OFF \
    -DPYCUDA_BUILD_TESTS=ON >build/tests.configure.log 2>&1 ||
    { cat build/tests.configure.log; exit 1; }
cmake --build build/tests -j "$JOBS"
# (A variable, not a pipe: grep -q closing the pipe early would fail the pipeline under pipefail.)
ctest_listing="$(cd build/tests && ctest -N)"
if grep -q cpp_tests_skipped <<<"$ctest_listing"; then
    echo "C++ unit tests SKIPPED: GoogleTest is not installed (e.g. apt-get install libgtest-dev)"
else
    (cd build/tests && ctest --output-on-failure -j "$JOBS")
fi

echo
echo "== pytest"
# Run from the repository root against the installed package (python/ is not on sys.path).
set +e
# Test paths among the arguments replace the default of the whole tests/ folder.
targets=(tests)
for arg in "$@"; do
    case "$arg" in tests/* | ./tests/*) targets=() ;; esac
done
# -ra (pyproject) lists failures and skips, each skip with its reason.
"$PY" -m pytest "$@" "${targets[@]}"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "pytest collected no tests: that is a failure here" >&2
    exit 1
fi
exit "$rc"
