// pycuda-philox.hpp: Philox4x32-10 (Salmon et al., SC'11) and the fill kernels of curandom.rand
//
// Counter-based: output block g of a stream with key k is philox4x32_10((g_lo, g_hi, 0, 0), k),
// four 32-bit words. Each thread computes whole blocks and writes each block's values with one
// vector store, so a fill runs at the memory's write rate.
// pycuda/curandom.py holds the NumPy reference the tests compare against bit for bit.
#pragma once

#include <cuda_fp16.h>

namespace pycuda_philox {

/// One Philox4x32 round: two 32x32->64 products, mixed with the other words and the key.
__device__ __forceinline__ uint4 philox_round(uint4 c, uint2 k) {
    // One 32x32->64 multiply each (mul.wide.u32), rather than separate mul.lo and mul.hi.
    const unsigned long long p0 = 0xD2511F53ull * c.x, p1 = 0xCD9E8D57ull * c.z;
    const unsigned int lo0 = (unsigned int)p0, hi0 = (unsigned int)(p0 >> 32);
    const unsigned int lo1 = (unsigned int)p1, hi1 = (unsigned int)(p1 >> 32);
    return make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
}

/// Philox4x32-10: ten rounds, the key bumped by the Weyl constants between rounds.
__device__ __forceinline__ uint4 philox4x32_10(uint4 c, uint2 k) {
#pragma unroll
    for (int r = 0; r < 10; ++r) {
        if (r > 0) {
            k.x += 0x9E3779B9u;
            k.y += 0xBB67AE85u;
        }
        c = philox_round(c, k);
    }
    return c;
}

/// The four words of output block g.
__device__ __forceinline__ uint4 block_at(unsigned long long g, uint2 key) {
    return philox4x32_10(make_uint4((unsigned int)g, (unsigned int)(g >> 32), 0u, 0u), key);
}

// Uniforms take the top bits of a word, so 1.0 is never produced: [0, 1).
__device__ __forceinline__ float u01_float(unsigned int x) {
    return (x >> 8) * 5.9604644775390625e-08f;
}
// (0, 1]: the Box-Muller radius takes a log of it.
__device__ __forceinline__ float u01_float_open0(unsigned int x) {
    return ((x >> 8) + 1u) * 5.9604644775390625e-08f;
}
__device__ __forceinline__ unsigned long long top53(unsigned int hi, unsigned int lo) {
    return ((unsigned long long)(hi >> 5) << 26) | (lo >> 6);
}
__device__ __forceinline__ double u01_double(unsigned int hi, unsigned int lo) {
    return top53(hi, lo) * 1.1102230246251565404e-16;
}
__device__ __forceinline__ double u01_double_open0(unsigned int hi, unsigned int lo) {
    return (top53(hi, lo) + 1ull) * 1.1102230246251565404e-16;
}

/// Box-Muller: a pair of uniforms (u in (0,1], v in [0,1)) to a pair of standard normals.
__device__ __forceinline__ float2 box_muller(float u, float v) {
    float s, c;
    const float r = sqrtf(-2.0f * logf(u));
    sincospif(2.0f * v, &s, &c);
    return make_float2(r * c, r * s);
}
__device__ __forceinline__ double2 box_muller(double u, double v) {
    double s, c;
    const double r = sqrt(-2.0 * log(u));
    sincospi(2.0 * v, &s, &c);
    return make_double2(r * c, r * s);
}

// Each "Op" maps one block of four words to `per_block` values of type T (`values`) and stores
// them with one vector store (`store`); `values` also serves the tail of a fill.

struct UniformFloat {
    using T = float;
    static constexpr int per_block = 4;
    static __device__ void values(uint4 w, T* v) {
        v[0] = u01_float(w.x), v[1] = u01_float(w.y), v[2] = u01_float(w.z), v[3] = u01_float(w.w);
    }
    static __device__ void store(T* out, uint4 w) {
        *reinterpret_cast<float4*>(out) =
            make_float4(u01_float(w.x), u01_float(w.y), u01_float(w.z), u01_float(w.w));
    }
};

struct UniformDouble {
    using T = double;
    static constexpr int per_block = 2;
    static __device__ void values(uint4 w, T* v) {
        v[0] = u01_double(w.x, w.y), v[1] = u01_double(w.z, w.w);
    }
    static __device__ void store(T* out, uint4 w) {
        *reinterpret_cast<double2*>(out) = make_double2(u01_double(w.x, w.y), u01_double(w.z, w.w));
    }
};

// Halfs take the top 11 bits, which a half holds exactly below 1.
__device__ __forceinline__ __half u01_half(unsigned int x) {
    return __float2half_rn((x >> 21) * 4.8828125e-04f);
}

/// Four halfs packed into 8 bytes for one store.
__device__ __forceinline__ void store_halfs(__half* out, __half a, __half b, __half c, __half d) {
    uint2 packed;
    packed.x = (unsigned int)__half_as_ushort(a) | ((unsigned int)__half_as_ushort(b) << 16);
    packed.y = (unsigned int)__half_as_ushort(c) | ((unsigned int)__half_as_ushort(d) << 16);
    *reinterpret_cast<uint2*>(out) = packed;
}

struct UniformHalf {
    using T = __half;
    static constexpr int per_block = 4;
    static __device__ void values(uint4 w, T* v) {
        v[0] = u01_half(w.x), v[1] = u01_half(w.y), v[2] = u01_half(w.z), v[3] = u01_half(w.w);
    }
    static __device__ void store(T* out, uint4 w) {
        store_halfs(out, u01_half(w.x), u01_half(w.y), u01_half(w.z), u01_half(w.w));
    }
};

struct RawBits {
    using T = unsigned int;
    static constexpr int per_block = 4;
    static __device__ void values(uint4 w, T* v) { v[0] = w.x, v[1] = w.y, v[2] = w.z, v[3] = w.w; }
    static __device__ void store(T* out, uint4 w) { *reinterpret_cast<uint4*>(out) = w; }
};

/// Four float normals from one block: Box-Muller on the word pairs (x, y) and (z, w).
__device__ __forceinline__ float4 normal_float4(uint4 w) {
    const float2 a = box_muller(u01_float_open0(w.x), u01_float(w.y));
    const float2 b = box_muller(u01_float_open0(w.z), u01_float(w.w));
    return make_float4(a.x, a.y, b.x, b.y);
}

struct NormalFloat {
    using T = float;
    static constexpr int per_block = 4;
    static __device__ void values(uint4 w, T* v) {
        const float4 n = normal_float4(w);
        v[0] = n.x, v[1] = n.y, v[2] = n.z, v[3] = n.w;
    }
    static __device__ void store(T* out, uint4 w) {
        *reinterpret_cast<float4*>(out) = normal_float4(w);
    }
};

/// Two double normals from one block: Box-Muller on the two 53-bit uniforms.
__device__ __forceinline__ double2 normal_double2(uint4 w) {
    return box_muller(u01_double_open0(w.x, w.y), u01_double(w.z, w.w));
}

struct NormalDouble {
    using T = double;
    static constexpr int per_block = 2;
    static __device__ void values(uint4 w, T* v) {
        const double2 n = normal_double2(w);
        v[0] = n.x, v[1] = n.y;
    }
    static __device__ void store(T* out, uint4 w) {
        *reinterpret_cast<double2*>(out) = normal_double2(w);
    }
};

struct NormalHalf {
    using T = __half;
    static constexpr int per_block = 4;
    static __device__ void values(uint4 w, T* v) {
        const float4 n = normal_float4(w);
        v[0] = __float2half_rn(n.x), v[1] = __float2half_rn(n.y);
        v[2] = __float2half_rn(n.z), v[3] = __float2half_rn(n.w);
    }
    static __device__ void store(T* out, uint4 w) {
        const float4 n = normal_float4(w);
        store_halfs(out, __float2half_rn(n.x), __float2half_rn(n.y), __float2half_rn(n.z),
                    __float2half_rn(n.w));
    }
};

/// Fill out[0, n) from the stream with key `key`: value i comes from block i / per_block.
/// A thread block makes a tile of K * blockDim.x consecutive blocks a trip, thread t the blocks
/// t, t + blockDim.x, ..., so each store of a warp writes 32 neighbouring vectors. Launched with
/// just enough thread blocks for one trip each (issued in address order, the writes in flight
/// stay in one compact window of memory); past the grid's limit the loop strides over the rest.
/// `out` must be aligned to the vector store (GPUArray allocations are).
template <class Op, int K = 1>
__device__ void fill(typename Op::T* out, unsigned long long n, uint2 key) {
    const unsigned long long blocks = n / Op::per_block;
    const unsigned long long tile = (unsigned long long)blockDim.x * K;
    for (unsigned long long g0 = blockIdx.x * tile + threadIdx.x; g0 < blocks;
         g0 += gridDim.x * tile) {
        if (g0 + (K - 1) * (unsigned long long)blockDim.x < blocks) {
            // A whole trip: the K blocks are independent, so their rounds interleave.
            uint4 w[K];
#pragma unroll
            for (int j = 0; j < K; ++j)
                w[j] = block_at(g0 + (unsigned long long)j * blockDim.x, key);
#pragma unroll
            for (int j = 0; j < K; ++j)
                Op::store(out + (g0 + (unsigned long long)j * blockDim.x) * Op::per_block, w[j]);
        } else {
            for (int j = 0; j < K; ++j) {
                const unsigned long long g = g0 + (unsigned long long)j * blockDim.x;
                if (g < blocks)
                    Op::store(out + g * Op::per_block, block_at(g, key));
            }
        }
    }
    // The last, partial block: one thread writes it element by element.
    const unsigned long long done = blocks * Op::per_block;
    if (blockIdx.x == 0 && threadIdx.x == 0 && done < n) {
        typename Op::T v[Op::per_block];
        Op::values(block_at(blocks, key), v);
        for (unsigned long long i = done; i < n; ++i)
            out[i] = v[i - done];
    }
}

} // namespace pycuda_philox
