#!/usr/bin/env bash
# scripts/clients.sh: runs a real PyCUDA client's own test suite (reikna 0.9.0) against this
# pycuda, offline, on the GPU machine. Logs go to $OUT (the device tool brings them back), or to
# ./gpu-logs elsewhere.
#
# Usage: scripts/clients.sh [pytest args...]
#   scripts/clients.sh                      # the whole suite
#   scripts/clients.sh -x -n 8              # stop at the first failure; 8 xdist workers
#   scripts/clients.sh -k "fft and not perf"
#   REIKNA_TESTS="test/test_fft test/test_cbrng" scripts/clients.sh -x   # only these paths
# Exit status: pytest's (0 only when reikna's suite passed), or 2 when something is missing.
#
# What it runs: reikna's suite as its sdist ships it (test/, pytest.ini), with reikna's own
# defaults except the API: --api=cuda (the default "supported" would also try PyOpenCL),
# --double=supported (float32 and float64 variants, since every card we get does doubles),
# --fast-math=no, and one device per distinct name (--include-duplicate-devices off). The tests
# marked "perf" run too (each times a few launches and returns GFLOPS or GB/s, which pytest
# prints instead of PASSED); add -m "not perf" to leave them out.
#
# Expected time (not yet measured on a GPU): 843 tests on one H100 (float32 and float64). They
# compile about 1,500 distinct kernels, which dominates: NVRTC took 0.4-0.75 s per kernel for
# them on two busy CPU cores here, so a cold run is roughly 10 minutes in one process and a few
# with -n 8 (each xdist worker makes its own context; the compile cache on disk is shared, so a
# later run on the same machine is much faster). The launches themselves are small.
# CLIENTS_TIMEOUT=seconds bounds the run (scripts/gpu_check.sh sets it).
#
# Reading the log: when a 0-d result mismatches, reikna's own helper (test/helpers.py:78) fails
# with "ValueError: Calling nonzero on 0d arrays" under NumPy 2 instead of printing the
# difference; test_transformation.py::test_array_offset fails on any pycuda (a reikna test bug:
# it calls thr.array(..., data=...)).
#
# Nothing is installed into the project's .venv: the wheels go into a throwaway directory put on
# PYTHONPATH, and reikna's tests are unpacked from its sdist next to it (reikna's wheel has no
# tests), so `import reikna` comes from the wheel and `import pycuda` from .venv.
#
# The wheels live in .whl/ (git-ignored; the device tool needs carry=[".whl"] to take it along).
# The GPU machine has Python 3.12 with numpy 2.x, scipy and pytest, and no network, so .whl holds
# the rest. To refetch it on a machine with PyPI (reikna has no wheel on PyPI: its sdist is both
# built into one and kept for the tests; hypothesis, sortedcontainers and attrs are there for
# later fuzzing, not for reikna):
#   get() { python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#       --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
#       --platform manylinux2014_x86_64 --platform any -d .whl "$@"; }
#   get mako==1.4.3 markupsafe==3.0.4 funcsigs==1.0.2 pytest-xdist==3.8.0 execnet==2.1.2 \
#       hypothesis==6.170.17 sortedcontainers==2.4.0 attrs==26.1.0
#   python3 -m pip download --no-deps --no-binary=:all: -d .whl reikna==0.9.0
#   python3 -m pip wheel --no-deps -w .whl .whl/reikna-0.9.0.tar.gz
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
wheels="${PYCUDA_WHEELS:-$root/.whl}"
out="${OUT:-$root/gpu-logs}"
py="$root/.venv/bin/python"
reikna_version=0.9.0
mkdir -p "$out"
export PYTHONUNBUFFERED=1

sdist="$wheels/reikna-$reikna_version.tar.gz"
if [ ! -f "$sdist" ] || ! compgen -G "$wheels/reikna-$reikna_version-*.whl" >/dev/null; then
    echo "error: $wheels lacks reikna-$reikna_version (wheel and sdist); see this script's" \
        "header for the commands that fetch them" >&2
    exit 2
fi

# pycuda as scripts/test.sh builds it; build it here only when .venv has none (run alone).
if ! "$py" -c "import pycuda.driver" 2>/dev/null; then
    echo "== building pycuda into .venv (scripts/setup_env.sh)"
    # shellcheck source=scripts/setup_env.sh
    source "$root/scripts/setup_env.sh"
    setup_env > "$out/clients-setup.log" 2>&1 || {
        echo "error: building pycuda failed; see $out/clients-setup.log" >&2
        tail -n 20 "$out/clients-setup.log" >&2
        exit 2
    }
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/pycuda-clients.XXXXXX")"
trap 'rm -rf "$work"' EXIT
site="$work/site"

# Only what reikna's run needs: hypothesis (also in .whl, for fuzzing) would register its pytest
# plugin here.
needed=()
for name in reikna mako markupsafe funcsigs pytest_xdist execnet; do
    found=("$wheels/$name"-*.whl)
    [ -f "${found[0]}" ] || { echo "error: no $name wheel in $wheels" >&2; exit 2; }
    needed+=("${found[0]}")
done
# pip when .venv can run it (its own or the base python's); otherwise the wheels are only zip
# files whose contents go on sys.path as they are (no scripts needed here).
if ! "$py" -m pip install -q --no-index --no-deps --disable-pip-version-check --target "$site" \
    "${needed[@]}" > "$out/clients-install.log" 2>&1; then
    echo "pip install --target failed (see clients-install.log); unzipping the wheels instead"
    rm -rf "$site"
    "$py" -c 'import sys, zipfile
for w in sys.argv[2:]:
    zipfile.ZipFile(w).extractall(sys.argv[1])' "$site" "${needed[@]}" || exit 2
fi

# reikna's tests and pytest.ini, from the sdist, without the reikna package beside them: pytest
# runs with this directory as its working directory, and `python -m` puts it on sys.path.
tests="$work/reikna-tests"
mkdir -p "$tests"
tar -xzf "$sdist" -C "$tests" --strip-components=1 \
    "reikna-$reikna_version/test" "reikna-$reikna_version/pytest.ini" || exit 2

export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
cd "$tests" || exit 2
PYCUDA_ROOT="$root" "$py" - <<'EOF' | tee "$out/reikna-versions.txt"
import os, subprocess
import numpy, pytest, pycuda, reikna.version
here = os.path.dirname(pycuda.__file__)
try:
    rev = subprocess.run(["git", "-C", os.environ["PYCUDA_ROOT"], "rev-parse",
                          "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
except OSError:
    rev = ""
print(f"reikna {reikna.version.full_version} from {os.path.dirname(reikna.version.__file__)}")
print(f"pycuda {pycuda.VERSION_TEXT} from {here} (project commit {rev or 'unknown'})")
print(f"numpy {numpy.__version__}, pytest {pytest.__version__}")
EOF
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "error: reikna or pycuda does not import" >&2; exit 2; }

# Paths of reikna's suite to run (relative to the unpacked sdist): test/ is the whole suite.
read -r -a paths <<< "${REIKNA_TESTS:-test}"
echo "== reikna $reikna_version test suite: pytest --api=cuda ${paths[*]} $*"
start=$SECONDS
# CLIENTS_TIMEOUT (seconds, 0 = none): pytest gets SIGINT then, so it still writes its summary
# and the JUnit file for what ran.
timeout -s INT -k 60 "${CLIENTS_TIMEOUT:-0}" \
    "$py" -m pytest -p no:cacheprovider -rfE --durations=20 --api=cuda \
    --junitxml="$out/reikna-junit.xml" "${paths[@]}" "$@" > "$out/reikna.log" 2>&1
rc=$?
echo "reikna suite exit: $rc after $((SECONDS - start)) s (log: reikna.log)"
grep -E "^Running tests on:|^  cuda," "$out/reikna.log" | head -n 5
grep -E "^(FAILED|ERROR) " "$out/reikna.log" | head -n 40
# pytest's summary line ("== 3 failed, 1200 passed in 300.1s =="), else the log's end.
summary=$(grep -E "^=+ .* in [0-9.]+s" "$out/reikna.log" | tail -n 1)
if [ -n "$summary" ]; then echo "$summary"; else tail -n 5 "$out/reikna.log"; fi
# pytest exits 0 with nothing failed; 5 (nothing collected) counts as a failure here too.
exit "$rc"
