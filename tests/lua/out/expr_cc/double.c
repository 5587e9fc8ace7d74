typedef double real;
#include <math.h>
#include <stdio.h>
static double e1(real x, real y, real z, real t) { return (double)(((x + (y * z)) - (t / (real)2.0))); }
static double e2(real x, real y, real z, real t) { return (double)(((-pow(x, (real)2.0)) + pow((real)2.0, (-(real)1.0)))); }
static double e3(real x, real y, real z, real t) { return (double)((pow((real)2.0, pow((real)3.0, (real)2.0)) * t)); }
static double e4(real x, real y, real z, real t) { return (double)((sin((((real)2.0 * (real)3.14159265358979323846) * t)) * (real)200000000000.0)); }
static double e5(real x, real y, real z, real t) { return (double)((sqrt(fabs(y)) + exp((-x)))); }
static double e6(real x, real y, real z, real t) { return (double)(fmin(fmin(fmin(x, y), z), t)); }
static double e7(real x, real y, real z, real t) { return (double)(((fmax(x, y) - floor(z)) + ceil(t))); }
static double e8(real x, real y, real z, real t) { return (double)(((atan2(y, x) + atan(z)) + tanh(t))); }
static double e9(real x, real y, real z, real t) { return (double)((pow(z, (real)1.5) + log(z))); }
static double e10(real x, real y, real z, real t) { return (double)((asin(t) + acos(t))); }
static double e11(real x, real y, real z, real t) { return (double)((((x < y) && (!(z >= t))) || (x == (real)0.5))); }
static double e12(real x, real y, real z, real t) { return (double)(((x != y) && (y != z))); }
static double e13(real x, real y, real z, real t) { return (double)(((((((real)1e-6 * x) + (real).5) + (real)5.) + (real)010.0) + (real)1.5E+3)); }
static double e14(real x, real y, real z, real t) { return (double)((cos(x) / ((real)1.0 + tan(t)))); }
static double e15(real x, real y, real z, real t) { return (double)(((-(-x)) * (-(real)0.29999999999999999))); }
static double e16(real x, real y, real z, real t) { return (double)(((y <= t) || (z > x))); }
int main(void) {
  printf("%.17g\n", e1(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e2(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e3(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e4(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e5(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e6(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e7(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e8(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e9(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e10(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e11(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e12(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e13(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e14(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e15(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e16(0.5, -1.25, 2, 0.29999999999999999));
  printf("%.17g\n", e1(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e2(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e3(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e4(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e5(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e6(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e7(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e8(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e9(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e10(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e11(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e12(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e13(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e14(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e15(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e16(-3.5, 0.75, 0.25, -0.90000000000000002));
  printf("%.17g\n", e1(0.001, 1000, 7, 0.5));
  printf("%.17g\n", e2(0.001, 1000, 7, 0.5));
  printf("%.17g\n", e3(0.001, 1000, 7, 0.5));
  printf("%.17g\n", e4(0.001, 1000, 7, 0.5));
  printf("%.17g\n", e5(0.001, 1000, 7, 0.5));
  printf("%.17g\n", e6(0.001, 1000, 7, 0.5));
  printf("%.17g\n", e7(0.001, 1000, 7, 0.5));
  printf("%.17g\n", e8(0.001, 1000, 7, 0.5));
  printf("%.17g\n", e9(0.001, 1000, 7, 0.5));
  printf("%.17g\n", e10(0.001, 1000, 7, 0.5));
  printf("%.17g\n", e11(0.001, 1000, 7, 0.5));
  printf("%.17g\n", e12(0.001, 1000, 7, 0.5));
  printf("%.17g\n", e13(0.001, 1000, 7, 0.5));
  printf("%.17g\n", e14(0.001, 1000, 7, 0.5));
  printf("%.17g\n", e15(0.001, 1000, 7, 0.5));
  printf("%.17g\n", e16(0.001, 1000, 7, 0.5));
  return 0;
}
