# scripts/setup_env.sh: sourced by demo.sh and test.sh; makes .venv and installs pycuda into it.
#
# Two kinds of machine:
#  - online (PyPI reachable): a plain venv, build deps installed from PyPI once;
#  - offline (the GPU machine): the base python already has numpy, nanobind, scikit-build-core and
#    pytest, so the venv sees them (--system-site-packages) and nothing is downloaded.
# Either way the package is built with --no-build-isolation --no-index (no network needed), so
# scikit-build-core reuses its build directory (build/<wheel tag>) and a second run only
# recompiles what changed.

PYCUDA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$PYCUDA_ROOT/.venv"
BASE_PYTHON="${PYTHON:-python3}"
BUILD_DEPS_IMPORT="import numpy, nanobind, scikit_build_core, pytest"

log() { echo "[pycuda setup] $*"; }

make_venv() {
    if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "$BUILD_DEPS_IMPORT" 2>/dev/null; then
        log "reusing $VENV"
        return
    fi
    if ! command -v "$BASE_PYTHON" >/dev/null; then
        echo "error: $BASE_PYTHON not found; set PYTHON to a Python 3.10+ interpreter" >&2
        return 1
    fi
    rm -rf "$VENV"
    if "$BASE_PYTHON" -c "$BUILD_DEPS_IMPORT" 2>/dev/null; then
        log "build deps found in $BASE_PYTHON: venv with --system-site-packages, no downloads"
        # Without python3-venv's ensurepip the venv has no pip of its own; the base python's
        # pip, seen through --system-site-packages, then installs into the venv.
        "$BASE_PYTHON" -m venv --system-site-packages "$VENV" 2>/dev/null || {
            rm -rf "$VENV"
            "$BASE_PYTHON" -m venv --system-site-packages --without-pip "$VENV"
        }
    else
        log "creating $VENV and installing build deps from PyPI"
        "$BASE_PYTHON" -m venv "$VENV"
        "$VENV/bin/python" -m pip install -q --upgrade pip
        local deps=(nanobind scikit-build-core numpy pytest)
        # scikit-build-core needs CMake >= 3.18 and a generator; take them from PyPI if absent.
        command -v cmake >/dev/null || deps+=(cmake)
        command -v ninja >/dev/null || deps+=(ninja)
        "$VENV/bin/python" -m pip install -q "${deps[@]}"
    fi
}

install_pycuda() {
    log "building and installing pycuda into $VENV"
    (cd "$PYCUDA_ROOT" &&
        "$VENV/bin/python" -m pip install -q --no-build-isolation --no-deps --no-index \
            --disable-pip-version-check .)
}

setup_env() {
    make_venv && install_pycuda
}
