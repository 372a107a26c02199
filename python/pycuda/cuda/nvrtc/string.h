// pycuda/cuda/nvrtc/string.h: <string.h> for NVRTC, whose device code has memcpy and memset
// built in.
#pragma once
#ifndef NULL
#define NULL 0
#endif
