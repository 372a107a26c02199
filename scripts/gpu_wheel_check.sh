#!/usr/bin/env bash
# scripts/gpu_wheel_check.sh: on the GPU machine, a built wheel as a user gets it: each check in a
# fresh virtual environment outside the source tree, installed with no compiler on PATH.
#   packages: the wheel plus NVIDIA's CUDA 13 pip packages, the system toolkit hidden;
#   system:   the wheel alone, NVRTC and headers from the system toolkit;
#   cu12:     the wheel plus CUDA 12's NVRTC, runtime headers and CCCL from their pip packages,
#             under the machine's CUDA 13 driver, the system toolkit hidden.
# Each runs `python -m pycuda`, the example programs, a float16 kernel and pycuda.curandom;
# "packages" also runs the GPU tests against the installed package (WHEEL_SUITE=0 skips them;
# WHEEL_SUITE_ARGS replaces "-m gpu -n 8": the tests that need no GPU run in CI the same way).
# WHEEL_CONFIGS picks among "packages cu12 system" (default: all three); WHEEL_SUITE_TESTS
# replaces the tests/ folder with a list of test files or ids.
#
# Carried in .gpu-carry/ (git-ignored; the device tool's carry): pycuda-*.whl for this Python,
# nvrtc-cu12-site.tar.xz (nvidia-cuda-nvrtc-cu12 as pip lays it out, less its .alt libraries),
# and the wheels nvidia_cuda_runtime_cu12, nvidia_cuda_cccl_cu12, nvidia_cuda_cccl (13).
# The machine's own python3 holds NVIDIA's CUDA 13 packages, numpy and pytest: those are copied
# file by file (each distribution's RECORD) into the venvs, which is what pip would put there.
# Hiding the toolkit renames its folder for the length of the run (restored on exit).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${OUT:-$root/gpu-logs}/wheel"
mkdir -p "$out"
carry="$root/.gpu-carry"
py_tag="cp$(python3 -c 'import sys; print(f"{sys.version_info[0]}{sys.version_info[1]}")')"
wheel="$(ls "$carry"/pycuda-*-"$py_tag"-*.whl "$carry"/pycuda-*-cp312-abi3-*.whl 2>/dev/null | head -1)"
[ -n "$wheel" ] || { echo "gpu_wheel_check: no pycuda wheel for $py_tag in $carry"; exit 1; }
echo "wheel: $(basename "$wheel")"
toolkit="$(readlink -f /usr/local/cuda)"
case "$(readlink -f "$(ldconfig -p | sed -n 's/.*libcuda.so.1 .*=> //p' | head -1)")" in
"$toolkit"/*) echo "gpu_wheel_check: libcuda lives in the toolkit's folder; it cannot be hidden"
    toolkit= ;;
esac
hidden=
saved_env="$(export -p | grep -E ' (CUDA_HOME|CUDA_PATH|CUDA_ROOT)=' | sed 's/^declare -x/declare -gx/' || true)"
# Hidden means gone, as on a machine without a toolkit: its folder, and the variables naming it
# (an explicit setting that names a missing folder is an error, not something to pass over).
hide_toolkit() {
    [ -n "$toolkit" ] && mv "$toolkit" "$toolkit.hidden" && hidden=1
    unset CUDA_HOME CUDA_PATH CUDA_ROOT
}
show_toolkit() {
    [ -n "$hidden" ] && mv "$toolkit.hidden" "$toolkit"
    hidden=
    eval "$saved_env"
}
trap show_toolkit EXIT

# A PATH with python and the basic tools but no compiler (cc, c++, gcc, nvcc).
nocc="$(mktemp -d)"
for tool in sh bash env ls cat mkdir rm cp mv sed grep head tail tr sort uname readlink dirname \
    basename python3; do
    path="$(command -v "$tool")" && ln -s "$path" "$nocc/$tool"
done

copy_dists() { # VENV DIST... : the installed distributions' files, as pip put them there
    "$1/bin/python" - "${@:2}" <<'EOF'
import importlib.metadata as md, os, shutil, sys, sysconfig
target = sysconfig.get_path("purelib")
base = [p for p in os.environ["BASE_SITE"].split(os.pathsep) if p]
for name in sys.argv[1:]:
    dist = next(md.distributions(name=name, path=base), None)
    if dist is None:
        print(f"  (not installed here: {name})")
        continue
    for f in dist.files or []:
        src = dist.locate_file(f)
        dst = os.path.join(target, str(f))
        if os.path.isfile(src) and not str(f).startswith(".."):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)
    print(f"  copied {name} {dist.version}")
EOF
}
export BASE_SITE
BASE_SITE="$(python3 -c 'import site; print(":".join(site.getsitepackages()))')"
TEST_DEPS=(numpy pytest pluggy iniconfig packaging pygments hypothesis attrs sortedcontainers
    pytest-xdist execnet)

make_venv() { # NAME -> prints the venv's path; installs the wheel with no compiler on PATH
    local venv="/tmp/wheel-$1"
    rm -rf "$venv"
    python3 -m venv --without-pip "$venv"
    copy_dists "$venv" "${TEST_DEPS[@]}" >>"$out/$1.install.log"
    PATH="$nocc" python3 -m pip --python "$venv/bin/python" install -q --no-index --no-deps \
        --no-compile "$wheel" "${@:2}" >>"$out/$1.install.log" 2>&1 ||
        { cat "$out/$1.install.log"; return 1; }
    echo "$venv"
}

smoke() { # VENV NAME: the report, the examples, a float16 kernel, curandom
    local venv=$1 name=$2 failed=0
    (cd /tmp && "$venv/bin/python" -m pycuda) >"$out/$name.report.txt" 2>&1 || failed=1
    sed -n '/^NVRTC/,/^nvcc/p' "$out/$name.report.txt"
    tail -n 1 "$out/$name.report.txt"
    local ok=0 bad=0
    for ex in "$root"/examples/*.py; do
        case "$(basename "$ex")" in mpi_* | interop_*) continue ;; esac
        if (cd /tmp && timeout 120 "$venv/bin/python" "$ex") >>"$out/$name.examples.log" 2>&1; then
            ok=$((ok + 1))
        else
            bad=$((bad + 1)); echo "  example failed: $(basename "$ex")"; failed=1
        fi
    done
    echo "  examples: $ok ran, $bad failed"
    (cd /tmp && timeout 300 "$venv/bin/python" - <<'EOF') 2>&1 | tee -a "$out/$name.smoke.log" || failed=1
import numpy as np
import pycuda.autoinit  # noqa: F401
import pycuda.gpuarray as gpuarray
import pycuda.curandom as curandom
from pycuda.compiler import SourceModule

# cuda_fp16.h is C++ (operator overloads): the kernel alone is extern "C".
mod = SourceModule("""
#include <cuda_fp16.h>
extern "C" __global__ void half_axpy(__half *y, const __half *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __float2half(a * __half2float(x[i]) + __half2float(y[i]));
}
""", no_extern_c=True)
n = 4096
x = np.random.rand(n).astype(np.float16)
y = np.random.rand(n).astype(np.float16)
x_gpu, y_gpu = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
mod.get_function("half_axpy")(y_gpu, x_gpu, np.float32(2), np.int32(n), block=(256, 1, 1), grid=(16, 1))
expected = (2 * x.astype(np.float32) + y.astype(np.float32)).astype(np.float16)
assert np.allclose(y_gpu.get().astype(np.float32), expected.astype(np.float32), rtol=1e-3), "float16"
print("  float16 kernel: ok")
import os
if os.environ.get("SMOKE_CURAND", "1") == "0":
    raise SystemExit("  curandom: not tried (no cuRAND package in this environment)")
u = curandom.XORWOWRandomNumberGenerator().gen_uniform((1 << 20,), np.float32).get()
assert 0 < u.min() and u.max() <= 1 and abs(u.mean() - 0.5) < 0.01, "XORWOW"
# Each generator is one dimension of a quasi-random sequence, whose first 2^k points are
# multiples of 2^-k: with about 8 points each here, the values are about eighths, spread over
# (0, 1) (a standard deviation near 0.29) rather than near a mean.
q = curandom.Sobol32RandomNumberGenerator().gen_uniform((1 << 20,), np.float32).get()
assert 0 <= q.min() and q.max() <= 1 and q.std() > 0.2, ("Sobol32", q.min(), q.max(), q.std())
r = curandom.rand((1 << 20,)).get()
assert abs(r.mean() - 0.5) < 0.01
print("  curandom (XORWOW, Sobol32, rand): ok")
EOF
    return $failed
}

status=0
configs=" ${WHEEL_CONFIGS:-packages cu12 system} "
if [[ "$configs" == *" packages "* ]]; then
echo "== packages: the wheel + NVIDIA's CUDA 13 pip packages, system toolkit hidden"
hide_toolkit
venv="$(make_venv packages "$carry"/nvidia_cuda_cccl-13*.whl)" || exit 1
copy_dists "$venv" nvidia-cuda-nvrtc nvidia-cuda-runtime nvidia-curand | tee -a "$out/packages.install.log"
smoke "$venv" packages || status=1
if [ "${WHEEL_SUITE:-1}" != 0 ]; then
    echo "== packages: the test suite against the installed package (${WHEEL_SUITE_ARGS:--m gpu -n 8})"
    # From the source tree's root, but python/ is not on sys.path: every import is the wheel's.
    # shellcheck disable=SC2086 # a list of pytest arguments
    (cd "$root" && timeout "${WHEEL_SUITE_TIMEOUT:-420}" "$venv/bin/python" -m pytest -q \
        -p no:cacheprovider ${WHEEL_SUITE_ARGS:--m gpu -n 8} ${WHEEL_SUITE_TESTS:-tests}) \
        >"$out/packages.suite.log" 2>&1
    echo "  suite exit: $?"
    tail -n 3 "$out/packages.suite.log"
    grep -E "^(FAILED|ERROR)" "$out/packages.suite.log" | head -n 30
    "$venv/bin/python" -c "import pycuda, sys; print('  imported from', pycuda.__file__)"
fi
show_toolkit
fi

if [[ "$configs" == *" cu12 "* ]]; then
echo "== cu12: the wheel + CUDA 12's NVRTC and headers from pip, CUDA 13 driver, toolkit hidden"
hide_toolkit
venv="$(make_venv cu12 "$carry"/nvidia_cuda_runtime_cu12-*.whl "$carry"/nvidia_cuda_cccl_cu12-*.whl)" || exit 1
tar -xJf "$carry/nvrtc-cu12-site.tar.xz" -C "$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
# nvidia-curand-cu12 (68 MB) is not carried: cuRAND's part is checked in the other two.
SMOKE_CURAND=0 smoke "$venv" cu12 || status=1
show_toolkit
fi

if [[ "$configs" == *" system "* ]]; then
echo "== system: the wheel alone, NVRTC and headers from the system toolkit"
venv="$(make_venv system)" || exit 1
smoke "$venv" system || status=1
fi
exit $status
