/* The C library pieces the physics headers use, for every compiler that
 * builds them: gcc and nvcc take the system headers, NVRTC (run-time
 * compiled kernels, jit/) has none, so the fixed-width integers are declared
 * here for it; its math functions are built in. */
#ifndef CL_PORTABLE_H
#define CL_PORTABLE_H

#ifdef __CUDACC_RTC__
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef unsigned long size_t;
#else
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#endif

#endif
