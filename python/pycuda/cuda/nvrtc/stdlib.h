// pycuda/cuda/nvrtc/stdlib.h: <stdlib.h> for NVRTC (malloc, free and abs are built into
// NVRTC's device code; this supplies the macros programs expect next to them).
#pragma once
#ifndef NULL
#define NULL 0
#endif
#ifndef EXIT_SUCCESS
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#endif
