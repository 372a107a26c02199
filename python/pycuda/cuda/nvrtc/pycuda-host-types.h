// pycuda/cuda/nvrtc/pycuda-host-types.h: the old C type names that nvcc's host headers declare
// for every kernel (through cuda_runtime.h and glibc's <sys/types.h>) and NVRTC does not.
// pycuda.compiler includes it ahead of each NVRTC source (--pre-include), so kernels written
// for nvcc that use uint or u_int32_t compile unchanged.
//
// Each is declared as glibc's <sys/types.h> declares it on 64-bit Linux (checked against glibc
// 2.36 and nvcc 13.0): a source that repeats the typedef still compiles (an identical
// redeclaration is valid C++), a macro of that name (-Duint=...) wins, as does a source's own
// #define from there on. Left out: uchar (glibc has none, so nvcc rejects it too) and
// int8_t..int64_t (glibc makes int64_t a long, while NVRTC's <stdint.h> from libcu++ makes it a
// long long: declaring either would break sources that include the other; nvcc, tried when
// NVRTC fails, compiles those sources).
#pragma once
#ifndef uint
typedef unsigned int uint;
#endif
#ifndef ushort
typedef unsigned short int ushort;
#endif
#ifndef ulong
typedef unsigned long int ulong;
#endif
#ifndef u_char
typedef unsigned char u_char;
#endif
#ifndef u_short
typedef unsigned short int u_short;
#endif
#ifndef u_int
typedef unsigned int u_int;
#endif
#ifndef u_long
typedef unsigned long int u_long;
#endif
#ifndef quad_t
typedef long int quad_t;
#endif
#ifndef u_quad_t
typedef unsigned long int u_quad_t;
#endif
#ifndef u_int8_t
typedef unsigned char u_int8_t;
#endif
#ifndef u_int16_t
typedef unsigned short int u_int16_t;
#endif
#ifndef u_int32_t
typedef unsigned int u_int32_t;
#endif
#ifndef u_int64_t
typedef unsigned long int u_int64_t;
#endif
