// pycuda/cuda/nvrtc/stdint.h: <stdint.h> for NVRTC, from the toolkit's libcu++ (which also
// declares the global int32_t, uint64_t, ... that C code expects).
#pragma once
#include <cuda/std/cstdint>
