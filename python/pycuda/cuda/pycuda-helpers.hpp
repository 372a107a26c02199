// pycuda-helpers.hpp: device helpers for kernels: complex atomics, warp shuffles, and texture
// and surface access for double and complex values (fp_tex*, fp_surf*).
//
// Compiles with nvcc and NVRTC on CUDA 12 and 13 (the original's version included
// <surface_functions.h>, which CUDA 13 no longer ships). Device code only.
#ifndef PYCUDA_HELPERS_HPP_SEEN
#define PYCUDA_HELPERS_HPP_SEEN

#include "pycuda-complex.hpp"
#include "pycuda-texref.hpp"

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

// Textures and surfaces of double and complex values, which texels cannot hold (channels are at
// most 32 bits): the data is bound as int2 / uint2 / int4 words (GPUArray.bind_to_texref_ext with
// allow_double_hack / allow_complex_hack, or np_to_array) and put back together here. Declare the
// texture with the word type: `texture<fp_tex_double, 1, cudaReadModeElementType> tex;`.
// Every other texel type (float, int, unsigned int, short, unsigned short, char, signed char,
// unsigned char, as in the original) passes through as it is. Surface indices are in elements
// (CUDA's surf* functions take x in bytes).

/// A fetched word as the value it carries: the identity (an exact match, so a short stays a short
/// and no float/double overloads compete), except for the three words below.
template <class T> __device__ inline T fp_tex_value(T v) { return v; }
__device__ inline double fp_tex_value(int2 v) { return __hiloint2double(v.y, v.x); }
__device__ inline complex<float> fp_tex_value(uint2 v) {
    return complex<float>(__int_as_float(v.x), __int_as_float(v.y));
}
__device__ inline complex<double> fp_tex_value(int4 v) {
    return complex<double>(__hiloint2double(v.y, v.x), __hiloint2double(v.w, v.z));
}

// The result type follows the fetch: normalized-float reads of integer texels give floats.
#define PYCUDA_FP_TEX(name, params, args)                                                          \
    template <class T, int D, cudaTextureReadMode M>                                               \
    __device__ inline auto fp_##name(const texref<T, D, M>& tex params)                            \
        -> decltype(fp_tex_value(name(tex args))) {                                                \
        return fp_tex_value(name(tex args));                                                       \
    }
#define PYCUDA_COMMA ,
PYCUDA_FP_TEX(tex1Dfetch, PYCUDA_COMMA int i, PYCUDA_COMMA i)
PYCUDA_FP_TEX(tex1D, PYCUDA_COMMA float x, PYCUDA_COMMA x)
PYCUDA_FP_TEX(tex2D, PYCUDA_COMMA float x PYCUDA_COMMA float y, PYCUDA_COMMA x PYCUDA_COMMA y)
PYCUDA_FP_TEX(tex3D, PYCUDA_COMMA float x PYCUDA_COMMA float y PYCUDA_COMMA float z,
              PYCUDA_COMMA x PYCUDA_COMMA y PYCUDA_COMMA z)
PYCUDA_FP_TEX(tex2DLayered, PYCUDA_COMMA float x PYCUDA_COMMA float y PYCUDA_COMMA int layer,
              PYCUDA_COMMA x PYCUDA_COMMA y PYCUDA_COMMA layer)
#undef PYCUDA_FP_TEX

/// The word a value travels in through a surface (back through fp_tex_value): the value itself,
/// except for double and complex values.
template <class T> __device__ inline T fp_surf_word(T v) { return v; }
__device__ inline int2 fp_surf_word(double v) {
    return make_int2(__double2loint(v), __double2hiint(v));
}
__device__ inline uint2 fp_surf_word(complex<float> v) {
    return make_uint2(__float_as_uint(v._M_re), __float_as_uint(v._M_im));
}
__device__ inline int4 fp_surf_word(complex<double> v) {
    return make_int4(__double2loint(v._M_re), __double2hiint(v._M_re), __double2loint(v._M_im),
                     __double2hiint(v._M_im));
}

#define PYCUDA_FP_SURF(name, params, first, rest)                                                  \
    template <class V, int D>                                                                      \
    __device__ inline void fp_##name##write(V value, const surfref<D>& surf params,                \
                                            cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) { \
        auto word = fp_surf_word(value);                                                           \
        name##write(word, surf, first * int(sizeof(word)) rest, mode);                             \
    }                                                                                              \
    template <class V, int D>                                                                      \
    __device__ inline void fp_##name##read(V* value, const surfref<D>& surf params,                \
                                           cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {  \
        decltype(fp_surf_word(V())) word;                                                          \
        name##read(&word, surf, first * int(sizeof(word)) rest, mode);                             \
        *value = fp_tex_value(word);                                                               \
    }
PYCUDA_FP_SURF(surf1D, PYCUDA_COMMA int i, i, )
PYCUDA_FP_SURF(surf2D, PYCUDA_COMMA int i PYCUDA_COMMA int j, i, PYCUDA_COMMA j)
PYCUDA_FP_SURF(surf3D, PYCUDA_COMMA int i PYCUDA_COMMA int j PYCUDA_COMMA int k, i,
               PYCUDA_COMMA j PYCUDA_COMMA k)
PYCUDA_FP_SURF(surf2DLayered, PYCUDA_COMMA int i PYCUDA_COMMA int j PYCUDA_COMMA int layer, i,
               PYCUDA_COMMA j PYCUDA_COMMA layer)
#undef PYCUDA_FP_SURF
#undef PYCUDA_COMMA

} // namespace pycuda
} // extern "C++"

#endif // PYCUDA_HELPERS_HPP_SEEN
