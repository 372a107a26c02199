// pycuda/cuda/nvrtc/stdio.h: <stdio.h> for NVRTC, which has printf built in but ships no libc
// headers. Only on NVRTC's include path; nvcc keeps the system's stdio.h.
#pragma once
#ifndef EOF
#define EOF (-1)
#endif
#ifndef NULL
#define NULL 0
#endif
