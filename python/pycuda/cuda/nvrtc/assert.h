// pycuda/cuda/nvrtc/assert.h: <assert.h> for NVRTC, whose device code has assert() built in;
// honours NDEBUG as the C header does.
#pragma once
#ifdef NDEBUG
#undef assert
#define assert(e) ((void)0)
#endif
