// pycuda-helpers.hpp: device helpers for kernels: complex atomics and warp shuffles.
//
// Compiles with nvcc and NVRTC on CUDA 12 and 13 (the original's version included
// <surface_functions.h>, which CUDA 13 no longer ships). Device code only.
#ifndef PYCUDA_HELPERS_HPP_SEEN
#define PYCUDA_HELPERS_HPP_SEEN

#include "pycuda-complex.hpp"

// SourceModule wraps user sources in extern "C" { }; overloads need C++ linkage.
extern "C++" {

/// The word types through which textures deliver double and complex values, whose texels may
/// not exceed 32-bit channels; dtype_to_ctype(dtype, with_fp_tex_hack=True) names these.
typedef float fp_tex_float;
typedef int2 fp_tex_double;
typedef uint2 fp_tex_cfloat;
typedef int4 fp_tex_cdouble;

namespace pycuda {

/// atomicAdd for double on every architecture: native from sm_60, a compare-and-swap loop before.
__device__ inline double atomic_add_double(double* address, double value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 600
    return ::atomicAdd(address, value);
#else
    unsigned long long* word = reinterpret_cast<unsigned long long*>(address);
    unsigned long long old = *word, assumed;
    do {
        assumed = old;
        old =
            ::atomicCAS(word, assumed, __double_as_longlong(value + __longlong_as_double(assumed)));
    } while (assumed != old); // integer comparison: a NaN sum still ends the loop
    return __longlong_as_double(old);
#endif
}

/// Adds value to *address, returning the old value. The real and imaginary parts are two separate
/// atomic additions: each part's sum is exact in the end, but a concurrent reader may see one part
/// updated before the other. Found unqualified (atomicAdd(&c[i], v)) by argument-dependent lookup.
__device__ inline complex<float> atomicAdd(complex<float>* address, complex<float> value) {
    float* part = reinterpret_cast<float*>(address);
    float re = ::atomicAdd(part, value._M_re);
    float im = ::atomicAdd(part + 1, value._M_im);
    return complex<float>(re, im);
}
__device__ inline complex<double> atomicAdd(complex<double>* address, complex<double> value) {
    double* part = reinterpret_cast<double*>(address);
    double re = atomic_add_double(part, value._M_re);
    double im = atomic_add_double(part + 1, value._M_im);
    return complex<double>(re, im);
}

/// Warp shuffles of a complex value, part by part, with the semantics of CUDA's __shfl_*_sync.
template <class T>
__device__ inline complex<T> shfl_sync(unsigned mask, complex<T> v, int src_lane, int width = 32) {
    return complex<T>(__shfl_sync(mask, v._M_re, src_lane, width),
                      __shfl_sync(mask, v._M_im, src_lane, width));
}
template <class T>
__device__ inline complex<T> shfl_down_sync(unsigned mask, complex<T> v, unsigned delta,
                                            int width = 32) {
    return complex<T>(__shfl_down_sync(mask, v._M_re, delta, width),
                      __shfl_down_sync(mask, v._M_im, delta, width));
}
template <class T>
__device__ inline complex<T> shfl_up_sync(unsigned mask, complex<T> v, unsigned delta,
                                          int width = 32) {
    return complex<T>(__shfl_up_sync(mask, v._M_re, delta, width),
                      __shfl_up_sync(mask, v._M_im, delta, width));
}
template <class T>
__device__ inline complex<T> shfl_xor_sync(unsigned mask, complex<T> v, int lane_mask,
                                           int width = 32) {
    return complex<T>(__shfl_xor_sync(mask, v._M_re, lane_mask, width),
                      __shfl_xor_sync(mask, v._M_im, lane_mask, width));
}

} // namespace pycuda
} // extern "C++"

#endif // PYCUDA_HELPERS_HPP_SEEN
