/* Precision and host/device qualifiers shared by every physics header.
 * Each *_cpu.c and *_cuda.cu kernel file is compiled twice, once with
 * CL_PRECISION_F32 and once without (f64); CL_PREC names the two copies. */
#ifndef CL_REAL_H
#define CL_REAL_H

#include "portable.h"

#ifdef __CUDACC__
#define CL_HD __host__ __device__
#else
#define CL_HD
#endif

/* 1/sqrt(x): on the GPU the hardware reciprocal square root (a few ulp in
 * f32, refined to full precision in f64 by the library), which saves the
 * square root and the divisions of the hot loops; on the host 1/sqrt. A host
 * test may define it first to emulate the GPU's error (tests/unit/test_pd_stretch.c). */
#if defined(CL_RSQRT)
#elif defined(__CUDA_ARCH__)
#define CL_RSQRT(x) rsqrt(x)
#else
#define CL_RSQRT(x) (1 / sqrt(x))
#endif

/* A product rounded on its own: nvcc would otherwise fuse it with a sum into one FMA, and the device
 * would round differently from the host (the C files are built in ISO mode, which does not fuse) --
 * where a decision or a bit-for-bit comparison rests on the rounding. */
CL_HD static inline double cl_mul_rn(double x, double y) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(x, y);
#else
  return x * y;
#endif
}

#if defined(CL_PRECISION_F32)
typedef float real;
#define CL_PREC(name) name##_f32
#else
typedef double real;
#define CL_PREC(name) name##_f64
#endif

#endif
