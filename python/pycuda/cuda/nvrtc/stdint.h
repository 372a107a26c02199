// pycuda/cuda/nvrtc/stdint.h: <stdint.h> for NVRTC, from the toolkit's libcu++ (which also
// declares the global int32_t, uint64_t, ... that C code expects). extern "C++" because
// SourceModule wraps sources in extern "C", and libcu++ is C++.
#pragma once
extern "C++" {
#include <cuda/std/cstdint>
}
