"""Tests of pycuda._module_variables on cubins NVRTC makes here (no GPU needed): every kind of
module-scope state is seen, kernels alone are not, and what is not a cubin counts as state."""

from __future__ import annotations

import pytest

from pycuda import _driver
from pycuda import compiler as C
from pycuda._module_variables import defines_variables

pytestmark = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")

STATELESS = {
    "kernel": "__global__ void f(float *a) { a[threadIdx.x] *= 2; }",
    "device function": "__device__ float g(float x) { return 2 * x; }\n"
    "__global__ void f(float *a) { a[0] = g(a[1]); }",
    "shared memory": "__global__ void f(float *a) { __shared__ float s[64];"
    " extern __shared__ float d[]; s[threadIdx.x] = a[0]; d[0] = 1; __syncthreads();"
    " a[threadIdx.x] = s[0] + d[0]; }",
    "local array": "__global__ void f(double *a) { const double t[3] = {1.5, 2.5, 3.5};"
    " a[threadIdx.x] = t[threadIdx.x % 3]; }",
    "two kernels": "__global__ void f(int *a) { a[0] = 1; }\n__global__ void h(int *a) {}",
}

STATEFUL = {
    "__device__": "__device__ int n;\n__global__ void f(int *a) { a[0] = atomicAdd(&n, 1); }",
    "static __device__": "static __device__ int n;\n"
    "__global__ void f(int *a) { a[0] = atomicAdd(&n, 1); }",
    "initialized __device__": "__device__ int n = 5;\n__global__ void f(int *a) { a[0] = n; }",
    "__constant__": "__constant__ float c[4];\n"
    "__global__ void f(float *a) { a[threadIdx.x] = c[threadIdx.x & 3]; }",
    "__managed__": "__managed__ int m;\n__global__ void f(int *a) { a[0] = m; }",
    "static in a function": "__device__ int next() { static int n = 0; return ++n; }\n"
    "__global__ void f(int *a) { a[0] = next(); }",
    "texture reference": "texture<float, 1> tex;\n"
    "__global__ void f(float *a) { a[threadIdx.x] = tex1Dfetch(tex, threadIdx.x); }",
    "surface reference": "surface<void, 2> s;\n"
    "__global__ void f(float *a) { float v; surf2Dread(&v, s, 0, 0); a[0] = v; }",
}


def _cubin(source: str) -> bytes:
    return C.compile(source, arch="sm_80", cache_dir=False)


@pytest.mark.parametrize("name", sorted(STATELESS))
def test_kernels_alone_define_no_variables(name):
    assert not defines_variables(_cubin(STATELESS[name]))


@pytest.mark.parametrize("name", sorted(STATEFUL))
def test_each_kind_of_module_state_is_seen(name):
    assert defines_variables(_cubin(STATEFUL[name]))


def test_what_is_not_a_whole_cubin_counts_as_state():
    cubin = _cubin(STATELESS["kernel"])
    ptx = C.compile(STATELESS["kernel"], arch="sm_80", target="ptx", cache_dir=False)
    assert defines_variables(ptx)
    assert defines_variables(b"")
    assert defines_variables(cubin[:64])  # the header alone: its sections lie beyond
    assert defines_variables(cubin[: len(cubin) // 2])
    assert defines_variables(cubin[:4] + b"\x01" + cubin[5:])  # ELF32
    assert defines_variables(cubin[:5] + b"\x02" + cubin[6:])  # big-endian
    assert not defines_variables(bytes(cubin))
