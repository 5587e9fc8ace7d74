/* Mohr-Coulomb plasticity, associative and perfectly plastic, small strain: the return mapping
 * in principal stresses of de Souza Neto, Peric & Owen (Computational Methods for Plasticity,
 * 2008, boxes 8.4-8.5, H = 0, psi = phi) with its consistent tangent (stress_update kind).
 * Parameters: E, nu, c (cohesion), phi (friction angle, degrees, 0 <= phi < 90). State: ep, the
 * equivalent plastic strain, sum of sqrt(2/3 deps_p : deps_p). Tension positive; Voigt order
 * xx yy zz yz xz xy, engineering shears.
 *
 * For 2D states (plane strain, axisymmetry): the trial stress must have yz = xz = 0; zz is then
 * a principal stress and the in-plane pair comes in closed form, lambda = m +- hypot(d, xy),
 * exact to round-off and branch-free, repeated eigenvalues included (an iterative solver such
 * as the paper's Gershgorin + Newton converges slowly there and needs a stopping rule). A
 * trial stress with out-of-plane shear gives NaN stresses: this law is not 3D.
 *
 * Region choice: the trial is elastic if f <= tol; the main-plane return is kept if the
 * ordering s1 >= s2 >= s3 survives it within tol, else the edge that the sign of
 * (1 - sin phi) s1 - 2 s2 + (1 + sin phi) s3 picks, else the apex. tol = 1e-12 (f32: 1e-5)
 * times the stress scale: stresses exactly on an edge or at the apex are then decided by the
 * exact algebra, not by round-off, and the return map is continuous, so a stress within tol of
 * a border gets the same result (to tol) from either side.
 *
 * The material's constants sin phi, cos phi and the moduli G, K: a caller that evaluates many points of
 * one material defines CL_MC_CONSTANTS and gives sp, cp, G, K itself, computed once (the FE's element
 * kernels: kernels/fe/mohr_coulomb.h), rather than a sin, a cos and two divisions per point. */
#ifndef CL_MC_CONSTANTS
const real deg = (real)0.017453292519943295, sp = sin(phi * deg), cp = cos(phi * deg);
const real G = E / (2 * (1 + nu)), K = E / (3 * (1 - 2 * nu));
#endif
const real k = 2 * c * cp, lam = K - 2 * G / 3;
const real dv = deps[0] + deps[1] + deps[2];
real t[6];
for (int r = 0; r < 3; r++) t[r] = sig[r] + 2 * G * deps[r] + lam * dv;
for (int r = 3; r < 6; r++) t[r] = sig[r] + G * deps[r];
/* principal directions: 0 = (cs, sn) = (cos theta, sin theta) in plane, 1 = (-sn, cs), 2 = z. Every use
 * below is quadratic in (cs, sn), so they come from 2 theta in closed form, without trigonometry:
 * cc = cs^2 = (1 + cos 2theta) / 2, ss = sn^2, csn = cs sn = sin 2theta / 2, with cos 2theta = half / rad,
 * sin 2theta = xy / rad; equal in-plane values (rad = 0) take theta = 0. Exact where the angle is:
 * sigma_xx = sigma_yy gives cc = ss = 1/2. */
const real half = (t[0] - t[1]) / 2, rad = sqrt(half * half + t[5] * t[5]), mid = (t[0] + t[1]) / 2;
const real cos2 = rad > 0 ? half / rad : 1, sin2 = rad > 0 ? t[5] / rad : 0;
const real cc = (1 + cos2) / 2, ss = (1 - cos2) / 2, csn = sin2 / 2;
const real pt[3] = {mid + rad, mid - rad, t[2]};
/* o[i]: the direction of the i-th largest, sv[i] its value; ties keep direction order. Values and
   directions swap together and go back by selects: every array index is known once the loops unroll,
   so a GPU keeps them in registers (indexed by o, they took a 72 B stack frame) */
int o[3] = {0, 1, 2};
real sv[3] = {pt[0], pt[1], pt[2]};
for (int pass = 0; pass < 2; pass++)
  for (int i = 0; i < 2 - pass; i++)
    if (sv[i + 1] > sv[i]) {
      const int x = o[i];
      const real v = sv[i];
      o[i] = o[i + 1], o[i + 1] = x;
      sv[i] = sv[i + 1], sv[i + 1] = v;
    }
const real s1 = sv[0], s2 = sv[1], s3 = sv[2];
const real scale = fabs(s1) + fabs(s3) + k, tol = (sizeof(real) == 4 ? (real)1e-5 : (real)1e-12) * scale;
const real a = 4 * G / 3 + K, b = K - 2 * G / 3; /* principal elasticity: a on the diagonal, b off it */
/* plane normals in sorted principal space: main (s1, s3), right edge (s1, s2), left edge (s2, s3) */
const real nm[3] = {1 + sp, 0, -(1 - sp)}, nr[3] = {1 + sp, -(1 - sp), 0}, nl[3] = {0, 1 + sp, -(1 - sp)};
const real st[3] = {s1, s2, s3};
real ps[3] = {s1, s2, s3}, C[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}; /* returned stresses, d ps / d st */
const real f = (s1 - s3) + (s1 + s3) * sp - k;
if (f > tol) {
  real Dm[3], dm = 0;
  for (int i = 0; i < 3; i++) Dm[i] = a * nm[i] + b * (nm[0] + nm[1] + nm[2] - nm[i]);
  for (int i = 0; i < 3; i++) dm += nm[i] * Dm[i];
  const real g = f / dm;
  if ((s2 - s3) - g * (Dm[1] - Dm[2]) >= -tol && (s1 - s2) - g * (Dm[0] - Dm[1]) >= -tol) {
    for (int i = 0; i < 3; i++) ps[i] = st[i] - g * Dm[i];
    for (int i = 0; i < 9; i++) C[i] -= Dm[i / 3] * nm[i % 3] / dm;
  } else {
    const int right = (1 - sp) * s1 - 2 * s2 + (1 + sp) * s3 > 0;
    const real *n2 = right ? nr : nl;
    real D1[3], D2[3];
    for (int i = 0; i < 3; i++) {
      D1[i] = a * nm[i] + b * (nm[0] + nm[1] + nm[2] - nm[i]);
      D2[i] = a * n2[i] + b * (n2[0] + n2[1] + n2[2] - n2[i]);
    }
    real A11 = 0, A12 = 0, A22 = 0;
    for (int i = 0; i < 3; i++) A11 += nm[i] * D1[i], A12 += nm[i] * D2[i], A22 += n2[i] * D2[i];
    const real f2 = right ? (s1 - s2) + (s1 + s2) * sp - k : (s2 - s3) + (s2 + s3) * sp - k;
    const real det = A11 * A22 - A12 * A12;
    const real g1 = (A22 * f - A12 * f2) / det, g2 = (A11 * f2 - A12 * f) / det;
    real e[3];
    for (int i = 0; i < 3; i++) e[i] = st[i] - g1 * D1[i] - g2 * D2[i];
    const int valid = right ? e[0] - e[1] >= -tol : e[1] - e[2] >= -tol;
    if (valid || sp == 0) {
      for (int i = 0; i < 3; i++) ps[i] = e[i];
      /* C = I - [D1 D2] A^-1 [nm n2]^T */
      const real i11 = A22 / det, i12 = -A12 / det, i22 = A11 / det;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
          C[3 * i + j] -= D1[i] * (i11 * nm[j] + i12 * n2[j]) + D2[i] * (i12 * nm[j] + i22 * n2[j]);
    } else {
      for (int i = 0; i < 3; i++) ps[i] = c * cp / sp; /* the apex: c cot phi */
      for (int i = 0; i < 9; i++) C[i] = 0;
    }
  }
  /* plastic strain increment: the compliance times the stress returned */
  real de[3], dsum = 0, dev2 = 0;
  for (int i = 0; i < 3; i++) dsum += st[i] - ps[i];
  for (int i = 0; i < 3; i++) de[i] = (st[i] - ps[i] - dsum / 3) / (2 * G) + dsum / (9 * K);
  for (int i = 0; i < 3; i++) dev2 += de[i] * de[i];
  ep += sqrt((real)2 / 3 * dev2);
}
/* back to directions: values, C and the tangent D = sum Cp_ij v_i v_j^T + spin terms */
real pd[3], Cd[9], Dp[9];
/* direction d is rank i where o[i] == d: rows, then columns, picked by selects */
real Cr[9];
for (int d = 0; d < 3; d++) {
  pd[d] = o[0] == d ? ps[0] : o[1] == d ? ps[1] : ps[2];
  for (int j = 0; j < 3; j++) Cr[3 * d + j] = o[0] == d ? C[j] : o[1] == d ? C[3 + j] : C[6 + j];
}
for (int d = 0; d < 3; d++)
  for (int e = 0; e < 3; e++) Cd[3 * d + e] = o[0] == e ? Cr[3 * d] : o[1] == e ? Cr[3 * d + 1] : Cr[3 * d + 2];
for (int i = 0; i < 3; i++)
  for (int j = 0; j < 3; j++) Dp[3 * i + j] = Cd[3 * i + j] * (a - b) + (Cd[3 * i] + Cd[3 * i + 1] + Cd[3 * i + 2]) * b;
const int inplane = t[3] == 0 && t[4] == 0;
if (!inplane) {
  for (int r = 0; r < 6; r++) sig[r] = sqrt((real)-1); /* NaN (NVRTC has no NAN macro) */
} else if (f <= tol) { /* elastic: the trial itself, not its round trip through the eigenvalues */
  for (int r = 0; r < 6; r++) sig[r] = t[r];
} else {
  sig[0] = pd[0] * cc + pd[1] * ss;
  sig[1] = pd[0] * ss + pd[1] * cc;
  sig[2] = pd[2];
  sig[3] = sig[4] = 0;
  sig[5] = (pd[0] - pd[1]) * csn;
}
const real v[3][6] = {{cc, ss, 0, 0, 0, csn}, {ss, cc, 0, 0, 0, -csn}, {0, 0, 1, 0, 0, 0}};
real r01, r02, r12; /* spin ratios (s_i - s_j) / (st_i - st_j), their limit C_ii - C_ij when equal */
{
  const real d01 = pt[0] - pt[1], d02 = pt[0] - pt[2], d12 = pt[1] - pt[2];
  r01 = fabs(d01) > tol ? (pd[0] - pd[1]) / d01 : Cd[0] - Cd[1];
  r02 = fabs(d02) > tol ? (pd[0] - pd[2]) / d02 : Cd[0] - Cd[2];
  r12 = fabs(d12) > tol ? (pd[1] - pd[2]) / d12 : Cd[4] - Cd[5];
}
const real m[6] = {-sin2, sin2, 0, 0, 0, cos2};
for (int r = 0; r < 6; r++)
  for (int q = 0; q < 6; q++) {
    real d = G * r01 * m[r] * m[q];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) d += Dp[3 * i + j] * v[i][r] * v[j][q];
    D[6 * r + q] = d;
  }
/* out-of-plane shears: yz, xz against the in-plane directions (sn, cs) and (cs, -sn) as (y, x) */
D[6 * 3 + 3] = G * (r02 * ss + r12 * cc);
D[6 * 4 + 4] = G * (r02 * cc + r12 * ss);
D[6 * 3 + 4] = D[6 * 4 + 3] = G * (r02 - r12) * csn;
