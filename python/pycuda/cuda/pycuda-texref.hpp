// pycuda-texref.hpp: texture and surface references on CUDA 12 and 13, built on texture objects.
//
// CUDA 12 removed `texture<T, dim, mode>` and `surface<void, dim>`. pycuda.compiler rewrites each
// file-scope declaration `texture<float, 2> tex;` into `__device__ texture<float, 2> tex;`, and
// this header makes `texture`/`surface` aliases of pycuda::texref/surfref: a __device__ variable
// holding a texture (surface) object that the host writes when the reference is bound
// (TextureReference.set_array, set_address, ...). tex1Dfetch, tex2D, surf2Dwrite, ... below take
// such a variable and call the object API; they are found by argument-dependent lookup.
//
// The variable's layout is read by the host (core/texture_reference.hpp, ReferenceLayout): keep
// the two in step. A handle of 0 (never bound) reads as zeros and ignores writes.
#ifndef PYCUDA_TEXREF_HPP_SEEN
#define PYCUDA_TEXREF_HPP_SEEN

// No #include: the object API (tex2D<T>(cudaTextureObject_t, ...), surf2Dwrite(...)) is built
// into NVRTC and comes with nvcc's implicit cuda_runtime.h.

// SourceModule wraps user sources in extern "C" { }; templates need C++ linkage.
extern "C++" {

namespace pycuda {

/// Magic words telling the host that a __device__ variable is a texture or surface reference.
enum : unsigned { texref_magic = 0x58544350u /* "PCTX" */, surfref_magic = 0x46534350u /* "PCSF" */ };

/// CUarray_format of a texel's channels and their count (0 where no array format holds T).
template <class T> struct texel_format {
    static const unsigned format = 0, channels = 0;
};
#define PYCUDA_TEXEL(type, fmt, n)                                                                 \
    template <> struct texel_format<type> {                                                        \
        static const unsigned format = fmt, channels = n;                                          \
    };
#define PYCUDA_TEXEL_VECTORS(base, vec, fmt)                                                       \
    PYCUDA_TEXEL(base, fmt, 1)                                                                     \
    PYCUDA_TEXEL(vec##1, fmt, 1) PYCUDA_TEXEL(vec##2, fmt, 2) PYCUDA_TEXEL(vec##4, fmt, 4)
// Values of CUarray_format (cuda.h, not includable here): U8 1, U16 2, U32 3, S8 8, S16 9,
// S32 10, HALF 16, FLOAT 32.
PYCUDA_TEXEL(char, 0x08, 1)
PYCUDA_TEXEL_VECTORS(signed char, char, 0x08)
PYCUDA_TEXEL_VECTORS(unsigned char, uchar, 0x01)
PYCUDA_TEXEL_VECTORS(short, short, 0x09)
PYCUDA_TEXEL_VECTORS(unsigned short, ushort, 0x02)
PYCUDA_TEXEL_VECTORS(int, int, 0x0a)
PYCUDA_TEXEL_VECTORS(unsigned int, uint, 0x03)
PYCUDA_TEXEL_VECTORS(float, float, 0x20)
#undef PYCUDA_TEXEL_VECTORS
#undef PYCUDA_TEXEL

/// What a fetch returns: T in cudaReadModeElementType; for 8- and 16-bit integer texels read
/// with cudaReadModeNormalizedFloat, float with T's channel count.
template <class T, cudaTextureReadMode Mode> struct texel_result {
    typedef T type;
};
#define PYCUDA_NORMALIZED(texel, result)                                                           \
    template <> struct texel_result<texel, cudaReadModeNormalizedFloat> {                          \
        typedef result type;                                                                       \
    };
#define PYCUDA_NORMALIZED_VECTORS(base, vec)                                                       \
    PYCUDA_NORMALIZED(base, float)                                                                 \
    PYCUDA_NORMALIZED(vec##1, float1)                                                              \
    PYCUDA_NORMALIZED(vec##2, float2) PYCUDA_NORMALIZED(vec##4, float4)
PYCUDA_NORMALIZED(char, float)
PYCUDA_NORMALIZED_VECTORS(signed char, char)
PYCUDA_NORMALIZED_VECTORS(unsigned char, uchar)
PYCUDA_NORMALIZED_VECTORS(short, short)
PYCUDA_NORMALIZED_VECTORS(unsigned short, ushort)
#undef PYCUDA_NORMALIZED_VECTORS
#undef PYCUDA_NORMALIZED

/// A texture reference: `texture<T, Dim, Mode>` after the rewrite. The host reads the constant
/// fields to learn the declaration and writes `object` (offset 0) when the reference is bound.
template <class T, int Dim = 1, cudaTextureReadMode Mode = cudaReadModeElementType>
struct texref {
    cudaTextureObject_t object = 0;
    unsigned magic = texref_magic;
    unsigned dim = Dim;
    unsigned read_mode = Mode;
    unsigned format = texel_format<T>::format;
    unsigned channels = texel_format<T>::channels;
    unsigned reserved = 0;
};

/// A surface reference: `surface<void, Dim>` after the rewrite; same layout as texref.
template <int Dim = 1> struct surfref {
    cudaSurfaceObject_t object = 0;
    unsigned magic = surfref_magic;
    unsigned dim = Dim;
    unsigned read_mode = 0;
    unsigned format = 0;
    unsigned channels = 0;
    unsigned reserved = 0;
};

// Texture fetches: as CUDA's reference functions, on the object the variable holds.
#define PYCUDA_TEX_FETCH(name, params, args)                                                       \
    template <class T, int D, cudaTextureReadMode M>                                               \
    __device__ inline typename texel_result<T, M>::type name(const texref<T, D, M>& ref params) {  \
        typedef typename texel_result<T, M>::type R;                                               \
        cudaTextureObject_t obj = ref.object;                                                      \
        return obj ? ::name<R>(obj args) : R();                                                    \
    }
#define PYCUDA_COMMA ,
PYCUDA_TEX_FETCH(tex1Dfetch, PYCUDA_COMMA int x, PYCUDA_COMMA x)
PYCUDA_TEX_FETCH(tex1D, PYCUDA_COMMA float x, PYCUDA_COMMA x)
PYCUDA_TEX_FETCH(tex2D, PYCUDA_COMMA float x PYCUDA_COMMA float y, PYCUDA_COMMA x PYCUDA_COMMA y)
PYCUDA_TEX_FETCH(tex3D, PYCUDA_COMMA float x PYCUDA_COMMA float y PYCUDA_COMMA float z,
                 PYCUDA_COMMA x PYCUDA_COMMA y PYCUDA_COMMA z)
PYCUDA_TEX_FETCH(tex1DLayered, PYCUDA_COMMA float x PYCUDA_COMMA int layer,
                 PYCUDA_COMMA x PYCUDA_COMMA layer)
PYCUDA_TEX_FETCH(tex2DLayered, PYCUDA_COMMA float x PYCUDA_COMMA float y PYCUDA_COMMA int layer,
                 PYCUDA_COMMA x PYCUDA_COMMA y PYCUDA_COMMA layer)
PYCUDA_TEX_FETCH(texCubemap, PYCUDA_COMMA float x PYCUDA_COMMA float y PYCUDA_COMMA float z,
                 PYCUDA_COMMA x PYCUDA_COMMA y PYCUDA_COMMA z)
PYCUDA_TEX_FETCH(tex1DLod, PYCUDA_COMMA float x PYCUDA_COMMA float level,
                 PYCUDA_COMMA x PYCUDA_COMMA level)
PYCUDA_TEX_FETCH(tex2DLod, PYCUDA_COMMA float x PYCUDA_COMMA float y PYCUDA_COMMA float level,
                 PYCUDA_COMMA x PYCUDA_COMMA y PYCUDA_COMMA level)
#undef PYCUDA_TEX_FETCH

// Surface reads and writes (x in bytes, as CUDA's). Both read forms: surf2Dread(&v, s, x, y)
// and v = surf2Dread<T>(s, x, y).
#define PYCUDA_SURF(name, params, args)                                                            \
    template <class T, int D>                                                                      \
    __device__ inline void name##read(T* out, const surfref<D>& ref params,                        \
                                      cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {       \
        cudaSurfaceObject_t obj = ref.object;                                                      \
        if (obj)                                                                                   \
            ::name##read(out, obj args, mode);                                                     \
        else                                                                                       \
            *out = T();                                                                            \
    }                                                                                              \
    template <class T, int D>                                                                      \
    __device__ inline T name##read(const surfref<D>& ref params,                                   \
                                   cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {          \
        T value;                                                                                   \
        name##read(&value, ref args, mode);                                                        \
        return value;                                                                              \
    }                                                                                              \
    template <class T, int D>                                                                      \
    __device__ inline void name##write(T value, const surfref<D>& ref params,                      \
                                       cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap) {      \
        cudaSurfaceObject_t obj = ref.object;                                                      \
        if (obj)                                                                                   \
            ::name##write(value, obj args, mode);                                                  \
    }
PYCUDA_SURF(surf1D, PYCUDA_COMMA int x, PYCUDA_COMMA x)
PYCUDA_SURF(surf2D, PYCUDA_COMMA int x PYCUDA_COMMA int y, PYCUDA_COMMA x PYCUDA_COMMA y)
PYCUDA_SURF(surf3D, PYCUDA_COMMA int x PYCUDA_COMMA int y PYCUDA_COMMA int z,
            PYCUDA_COMMA x PYCUDA_COMMA y PYCUDA_COMMA z)
PYCUDA_SURF(surf1DLayered, PYCUDA_COMMA int x PYCUDA_COMMA int layer,
            PYCUDA_COMMA x PYCUDA_COMMA layer)
PYCUDA_SURF(surf2DLayered, PYCUDA_COMMA int x PYCUDA_COMMA int y PYCUDA_COMMA int layer,
            PYCUDA_COMMA x PYCUDA_COMMA y PYCUDA_COMMA layer)
#undef PYCUDA_SURF
#undef PYCUDA_COMMA

} // namespace pycuda

/// The removed reference templates, as names of the types above: declarations, typedefs and
/// function parameters written for CUDA 11 keep compiling.
template <class T, int Dim = 1, cudaTextureReadMode Mode = cudaReadModeElementType>
using texture = pycuda::texref<T, Dim, Mode>;
template <class T = void, int Dim = 1> using surface = pycuda::surfref<Dim>;

} // extern "C++"

#endif // PYCUDA_TEXREF_HPP_SEEN
