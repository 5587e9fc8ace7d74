/* Small 3-vector, 3x3 matrix and quaternion helpers of the finite particle method: the rigid
 * rotations that the fictitious reverse motion removes (beam.h, hex.h). Matrices row-major. */
#ifndef CL_FPM_ROTATION_H
#define CL_FPM_ROTATION_H

#include "../common/real.h"

CL_HD static inline real cl_fpm_dot(const real *a, const real *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

CL_HD static inline void cl_fpm_cross(const real *a, const real *b, real *c) {
  c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
}

CL_HD static inline real cl_fpm_normalize(real *a) {
  const real len = sqrt(cl_fpm_dot(a, a)), inv = 1 / len;
  for (int c = 0; c < 3; c++) a[c] *= inv;
  return len;
}

/* The rotation matrix of the unit quaternion q = (w, x, y, z). */
CL_HD static inline void cl_fpm_quat_matrix(const real *q, real *R) {
  const real w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

/* c = a b (Hamilton product). */
CL_HD static inline void cl_fpm_quat_mul(const real *a, const real *b, real *c) {
  c[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  c[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  c[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  c[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

/* The unit quaternion of the rotation vector theta (angle |theta| about its direction). */
CL_HD static inline void cl_fpm_quat_exp(const real *theta, real *q) {
  const real angle = sqrt(cl_fpm_dot(theta, theta));
  /* sin(a/2)/a by its series below 1e-4 rad, where the quotient loses digits */
  const real s = angle > (real)1e-4 ? sin(angle / 2) / angle : (real)0.5 - angle * angle / 48;
  q[0] = cos(angle / 2), q[1] = s * theta[0], q[2] = s * theta[1], q[3] = s * theta[2];
}

/* The rotation vector of the unit quaternion q (angle in [0, pi]). */
CL_HD static inline void cl_fpm_quat_log(const real *q, real *theta) {
  const real sign = q[0] < 0 ? -1 : 1; /* q and -q are the same rotation: take the shorter way */
  const real v = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  const real angle = 2 * atan2(v, sign * q[0]);
  const real s = v > (real)1e-12 ? sign * angle / v : sign * 2;
  theta[0] = s * q[1], theta[1] = s * q[2], theta[2] = s * q[3];
}

/* The rotation vector of the rotation matrix R (angle below pi). */
CL_HD static inline void cl_fpm_matrix_log(const real *R, real *theta) {
  const real s[3] = {(R[7] - R[5]) / 2, (R[2] - R[6]) / 2, (R[3] - R[1]) / 2};
  const real sn = sqrt(cl_fpm_dot(s, s)), cs = (R[0] + R[4] + R[8] - 1) / 2;
  const real angle = atan2(sn, cs);
  const real k = sn > (real)1e-12 ? angle / sn : 1;
  for (int c = 0; c < 3; c++) theta[c] = k * s[c];
}

/* y = R x and y = R^T x. */
CL_HD static inline void cl_fpm_apply(const real *R, const real *x, real *y) {
  for (int r = 0; r < 3; r++) y[r] = R[3 * r] * x[0] + R[3 * r + 1] * x[1] + R[3 * r + 2] * x[2];
}
CL_HD static inline void cl_fpm_apply_t(const real *R, const real *x, real *y) {
  for (int r = 0; r < 3; r++) y[r] = R[r] * x[0] + R[3 + r] * x[1] + R[6 + r] * x[2];
}

/* Inverse of A (3x3) into B; returns det A. */
CL_HD static inline real cl_fpm_inverse(const real *A, real *B) {
  B[0] = A[4] * A[8] - A[5] * A[7], B[1] = A[2] * A[7] - A[1] * A[8], B[2] = A[1] * A[5] - A[2] * A[4];
  B[3] = A[5] * A[6] - A[3] * A[8], B[4] = A[0] * A[8] - A[2] * A[6], B[5] = A[2] * A[3] - A[0] * A[5];
  B[6] = A[3] * A[7] - A[4] * A[6], B[7] = A[1] * A[6] - A[0] * A[7], B[8] = A[0] * A[4] - A[1] * A[3];
  const real det = A[0] * B[0] + A[1] * B[3] + A[2] * B[6], inv = 1 / det; /* one division (GPU f64: costly) */
  for (int k = 0; k < 9; k++) B[k] *= inv;
  return det;
}

/* The rotation R of the polar decomposition F = R U (det F > 0), by Higham's iteration
 * R <- (R + R^-T) / 2, quadratically convergent; F a rotation is its own answer at once. */
CL_HD static inline void cl_fpm_polar(const real *F, real *R) {
  for (int k = 0; k < 9; k++) R[k] = F[k];
  const real tol = sizeof(real) == 4 ? (real)1e-6 : (real)1e-14;
  for (int it = 0; it < 30; it++) {
    real B[9], change = 0;
    cl_fpm_inverse(R, B);
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) {
        const real next = (R[3 * r + c] + B[3 * c + r]) / 2;
        change = fmax(change, fabs(next - R[3 * r + c]));
        R[3 * r + c] = next;
      }
    if (change < tol) break;
  }
}

#endif
