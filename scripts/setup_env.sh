# scripts/setup_env.sh: sourced by demo.sh and test.sh; makes .venv and installs pycuda into it.
# shellcheck shell=bash
#
# Two kinds of machine:
#  - online (PyPI reachable): a plain venv holding exactly what pyproject.toml declares (the build
#    requirements, numpy and the test extra), installed from PyPI once;
#  - offline (the GPU machine): the base python already has numpy, nanobind, scikit-build-core and
#    pytest, so the venv sees them (--system-site-packages) and nothing is downloaded.
# PYCUDA_FRESH_ENV=1 (set by CI) always takes the first way, in a new venv: a package installed
# by hand into the base python can then never hide a missing declaration.
# Either way the package is built with --no-build-isolation --no-index (no network needed), so
# scikit-build-core reuses its build directory (build/<wheel tag>) and a second run only
# recompiles what changed: the first build takes about 5 minutes on 2 cores, and shows
# CMake's progress ([n/77] lines) as it goes.
# PYCUDA_WHEEL=path installs that wheel instead of building (CI tests the wheel it built this
# way), and PYCUDA_VENV puts the venv elsewhere than .venv (CI: outside the source tree).

PYCUDA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${PYCUDA_VENV:-$PYCUDA_ROOT/.venv}"
BASE_PYTHON="${PYTHON:-python3}"
BUILD_DEPS_IMPORT="import numpy, nanobind, scikit_build_core, pytest"

log() { echo "[pycuda setup] $*"; }

make_venv() {
    if [ -n "${PYCUDA_FRESH_ENV:-}" ]; then
        fresh_venv
        return
    fi
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
        see_base_site_packages
    else
        fresh_venv
    fi
}

# A new venv without the base python's packages, holding what pyproject.toml declares.
fresh_venv() {
    log "creating $VENV with only the dependencies pyproject.toml declares (from PyPI)"
    rm -rf "$VENV"
    "$BASE_PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
    local deps
    mapfile -t deps < <("$VENV/bin/python" "$PYCUDA_ROOT/scripts/declared_deps.py" test)
    # scikit-build-core needs CMake >= 3.18 and a generator; take them from PyPI if absent.
    command -v cmake >/dev/null || deps+=(cmake)
    command -v ninja >/dev/null || deps+=(ninja)
    "$VENV/bin/python" -m pip install -q "${deps[@]}"
}

# --system-site-packages shows the venv the *system* interpreter's packages. When the base python
# is itself a venv (the GPU machine's python3 is /opt/torch/.venv/bin/python3), its packages live
# elsewhere: a .pth file adds its site-packages after the venv's own.
see_base_site_packages() {
    local venv_site
    venv_site="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
    "$BASE_PYTHON" -c 'import site; print("\n".join(site.getsitepackages()))' \
        >"$venv_site/_pycuda_base_python.pth"
}

install_pycuda() {
    if [ -n "${PYCUDA_WHEEL:-}" ]; then
        log "installing the wheel $PYCUDA_WHEEL into $VENV"
        "$VENV/bin/python" -m pip install -q --no-deps --no-index --force-reinstall \
            --disable-pip-version-check "$PYCUDA_WHEEL"
        return
    fi
    log "building pycuda (C++20 core and extension) and installing it into $VENV"
    log "(the first build takes about 5 minutes on 2 cores; later ones only what changed)"
    mkdir -p "$PYCUDA_ROOT/build"
    local build_log="$PYCUDA_ROOT/build/install.log"
    # The build's own progress ("[12/77] Building CXX object ...") as it goes; all of its
    # output in build/install.log, shown whole when the build fails.
    (cd "$PYCUDA_ROOT" &&
        "$VENV/bin/python" -m pip install -v --no-build-isolation --no-deps --no-index \
            --disable-pip-version-check .) >"$build_log" 2>&1 &
    local pip_pid=$!
    tail -n +1 -f --pid="$pip_pid" "$build_log" 2>/dev/null |
        grep --line-buffered -E '^ *\[[0-9]+/[0-9]+\] |^ *\*\*\* ' | sed -u 's/^ */    /' || true
    if ! wait "$pip_pid"; then
        cat "$build_log"
        echo "error: the build failed (its whole log is above, and in $build_log)" >&2
        return 1
    fi
    log "installed"
}

setup_env() {
    make_venv && install_pycuda
    # The venv's tools first: a cmake or ninja installed from PyPI above lives there.
    export PATH="$VENV/bin:$PATH"
}
