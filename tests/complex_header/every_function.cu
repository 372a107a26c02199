// tests/complex_header/every_function.cu: kernels that use every pycuda::complex function.
//
// tests/test_complex_header.py compiles this with NVRTC and nvcc (no GPU needed) and, on a GPU,
// runs it against numpy. Output slot f of element i holds function number f (the order of
// FUNCTIONS in the test) applied to z[i] (and w[i] for the binary ones).
#include <pycuda-complex.hpp>
#include <pycuda-helpers.hpp>

template <class T>
__device__ pycuda::complex<T> apply(int f, pycuda::complex<T> z, pycuda::complex<T> w) {
    typedef pycuda::complex<T> C;
    switch (f) {
    case 0:
        return exp(z);
    case 1:
        return log(z);
    case 2:
        return log10(z);
    case 3:
        return sqrt(z);
    case 4:
        return sin(z);
    case 5:
        return cos(z);
    case 6:
        return tan(z);
    case 7:
        return sinh(z);
    case 8:
        return cosh(z);
    case 9:
        return tanh(z);
    case 10:
        return asin(z);
    case 11:
        return acos(z);
    case 12:
        return atan(z);
    case 13:
        return asinh(z);
    case 14:
        return acosh(z);
    case 15:
        return atanh(z);
    case 16:
        return pow(z, w);
    case 17:
        return pow(z, w.real());
    case 18:
        return pow(w.real(), z);
    case 19:
        return pow(z, 3);
    case 20:
        return pow(z, -2);
    case 21:
        return C(abs(z));
    case 22:
        return C(arg(z));
    case 23:
        return C(norm(z));
    case 24:
        return conj(z);
    case 25:
        return pycuda::polar(abs(z), arg(z));
    case 26:
        return z + w;
    case 27:
        return z - w;
    case 28:
        return z * w;
    case 29:
        return z / w;
    case 30:
        return 2 * z - z / T(4) + 1;
    case 31:
        return T(3) / z;
    case 32:
        return -z;
    case 33: {
        C c = z;
        c += w;
        c *= z;
        c -= 1;
        c /= w;
        return c;
    }
    case 34:
        return C(T(z == w), T(z != w));
    case 35:
        return C(T(isnan(z)), T(isinf(z)) + T(2) * T(isfinite(z)));
    case 36:
        return C(pycuda::real(z), pycuda::imag(z));
    case 37:
        return proj(z);
    default:
        return C();
    }
}

const int function_count = 38;

template <class T>
__device__ void every_function(const pycuda::complex<T>* z, const pycuda::complex<T>* w,
                               pycuda::complex<T>* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        for (int f = 0; f < function_count; ++f)
            out[f * n + i] = apply<T>(f, z[i], w[i]);
}

/// The sum of z, twice: by complex atomicAdd into sums[0], and by warp shuffles (volatile shared
/// memory across warps) with one atomicAdd per block into sums[1]. blockDim.x must be 256.
template <class T>
__device__ void sum_helpers(const pycuda::complex<T>* z, pycuda::complex<T>* sums, int n) {
    typedef pycuda::complex<T> C;
    __shared__ C warp_sums[8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    C v = i < n ? z[i] : C();
    if (i < n)
        atomicAdd(&sums[0], v);
    for (int offset = 16; offset > 0; offset /= 2)
        v += pycuda::shfl_down_sync(0xffffffffu, v, offset);
    volatile C* shared = warp_sums;
    if (threadIdx.x % 32 == 0)
        shared[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        C total = shared[0];
        for (int k = 1; k < 8; ++k)
            total = total + shared[k];
        pycuda::atomicAdd(&sums[1], total);
    }
}

extern "C" {
__global__ void every_function_float(const pycuda::complex<float>* z,
                                     const pycuda::complex<float>* w, pycuda::complex<float>* out,
                                     int n) {
    every_function<float>(z, w, out, n);
}
__global__ void every_function_double(const pycuda::complex<double>* z,
                                      const pycuda::complex<double>* w,
                                      pycuda::complex<double>* out, int n) {
    every_function<double>(z, w, out, n);
}
__global__ void sum_float(const pycuda::complex<float>* z, pycuda::complex<float>* sums, int n) {
    sum_helpers<float>(z, sums, n);
}
__global__ void sum_double(const pycuda::complex<double>* z, pycuda::complex<double>* sums, int n) {
    sum_helpers<double>(z, sums, n);
}
}
