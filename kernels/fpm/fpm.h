/* The finite particle method (cleave.fpm, docs/methods/finite-particle.md): the argument structs of
 * its kernels and the scatter of element forces onto particles. Particle fields are SoA (component
 * c of particle i at c n + i), elements' connectivity u32 (0-based particle rows). */
#ifndef CL_FPM_H
#define CL_FPM_H

#include "../common/material_point.h"
#include "../common/real.h"

/* The mask bits of a particle's constrained degrees of freedom: translations x, y, z (0..2),
 * rotations x, y, z (3..5). A constrained one has its increment set by the pipeline (fixed:
 * zero, prescribed velocity: v dt); its reaction's work is bookkept apart. */
#define CL_FPM_DOFS 6

/* Energy columns per particle (J): the work of external, internal, damping and constraint forces,
 * accumulated over the run, and the kinetic energy at the last half step (written each step). */
enum { CL_FPM_W_EXT, CL_FPM_W_INT, CL_FPM_W_DAMP, CL_FPM_W_CONSTRAINT, CL_FPM_W_KINETIC, CL_FPM_W_COLUMNS };

/* The particle update (paper eqs. 3-4 in incremental form, see integrate.h). Rotational fields are
 * NULL for bodies of hexahedra only. */
typedef struct cl_fpm_particle_args {
  size_t n;
  double dt, xi;          /* step, mass-damping coefficient (1/s) */
  const void *mass;       /* n */
  const void *inertia;    /* n, scalar rotational inertia, or NULL */
  void *d, *dd;           /* n x 3: displacement, its increment of the last step (then of this one) */
  const void *dd_prescribed; /* n x 3: the increments of constrained DOFs (zero: fixed), or NULL without mask */
  void *f;                /* n x 3: composite force (external minus internal) */
  const void *fext;       /* n x 3: the external part of f */
  void *q;                /* n x 4: orientation quaternion (w, x, y, z), or NULL */
  void *dth;              /* n x 3: rotation increments (spatial rotation vectors) */
  const void *dth_prescribed; /* n x 3: those of constrained rotations, as dd_prescribed */
  void *m;                /* n x 3: composite moment */
  const void *mext;       /* n x 3: its external part */
  const uint32_t *mask;   /* n: constrained DOFs (bits as above), or NULL */
  void *work;             /* n x CL_FPM_W_COLUMNS energies (above), or NULL */
} cl_fpm_particle_args;

/* 2-particle Euler-Bernoulli beams (Ting, Shih & Wang 2004), resultant elastic section. */
typedef struct cl_fpm_beam_args {
  size_t ne, n;              /* elements, particles */
  const uint32_t *conn;      /* ne x 2 */
  const void *orient;        /* ne x 3: a vector in the local x-y plane of each element, reference */
  double EA, EIy, EIz, GJ;   /* section stiffnesses: y, z the element's local axes */
  const void *x0;            /* n x 3 reference positions */
  const void *d;             /* n x 3 displacements */
  const void *q;             /* n x 4 orientations */
  void *f, *m;               /* n x 3: internal forces and moments are subtracted from these */
  void *fe, *me;             /* 2 ne x 3 (row k ne + e: end k of element e): the gather assembly's element
                                forces and moments, written instead of f, m; NULL: atomic scatter */
  void *energy;              /* ne: elastic strain energy of each element, or NULL */
} cl_fpm_beam_args;

/* 3-particle triangular shells (shell.h) of thickness `thickness`: an elastic section (plastic NULL),
 * or J2 plasticity (plane_stress_j2.h) at `layers` Simpson points through the thickness under each of
 * the 3 in-plane points. */
typedef struct cl_fpm_shell_args {
  size_t ne, n;
  const uint32_t *conn;      /* ne x 3 */
  double thickness, E, nu;
  double sy, H;              /* J2: yield stress, hardening modulus */
  int layers;                /* points through the thickness (odd, >= 3) */
  void *plastic;             /* 3 layers ne x 4 (row (g layers + l) ne + e): plastic strain xx, yy, xy
                                (engineering) and the equivalent plastic strain; NULL: elastic */
  const void *x0, *d, *q;    /* n x 3, n x 3, n x 4 */
  void *f, *m;               /* n x 3: internal forces and moments are subtracted from these */
  void *fe, *me;             /* 3 ne x 3: the gather assembly's (as beams'), or NULL */
  void *energy;              /* ne, or NULL */
} cl_fpm_shell_args;

/* Pressure on shell triangles (shell.h): each selected triangle loads its corners with -p A n / 3
 * (n its unit normal by the right-hand rule of its corners, A its area), on the current triangle
 * (follower) or the reference one (fixed direction). */
typedef struct cl_fpm_pressure_args {
  size_t count, ne, n;       /* loaded triangles, all triangles, particles */
  const uint32_t *rows;      /* count: 0-based triangles */
  const uint32_t *conn;      /* ne x 3 */
  const void *x0, *d;        /* n x 3; d is NULL for a fixed direction */
  double p;
  void *fext;                /* n x 3: the loads are added */
} cl_fpm_pressure_args;

/* 8-particle hexahedra, 8 Gauss points, a stress_update law at each (hex.h). On the GPU each
 * element is CL_FPM_HEX_GPU_LANES threads of a warp (one per corner and Gauss point). */
#define CL_FPM_HEX_GPU_LANES 8
typedef struct cl_fpm_hex_args {
  size_t ne, n;
  const uint32_t *conn;      /* ne x 8, VTK order */
  const void *x0, *d;        /* n x 3 */
  void *f;                   /* n x 3: internal forces are subtracted */
  void *fe;                  /* 8 ne x 3 (row k ne + e): the gather assembly's element forces, written
                                instead of f; NULL: atomic scatter */
  void *sig, *eps;           /* 8 ne x 6: stress and strain (Voigt, engineering shears) per Gauss point,
                                in the element's deformation coordinate system: the state of the
                                incremental layout (hex.h, CL_FPM_HEX_STATE); in the others eps is
                                unused and sig, when not NULL, receives the stress (output) */
  void *plastic;             /* 8 ne x 6: the plastic strain per Gauss point (plastic layout), or NULL */
  double E, nu;              /* the elastic constants of the plastic layout's law */
  void *energy;              /* ne: sum over points of sig . eps / 2 times volume (elastic energy), or NULL */
  cl_mp_args law;            /* the law's state variables (law.state[k]: 8 ne values); law.n = 8 ne */
} cl_fpm_hex_args;

/* The gather assembly (paper Algorithm 1): each particle sums, without atomics, the rows of the
 * element buffer that belong to it (CSR: slots[offsets[i] .. offsets[i+1]) are rows of fe) and
 * subtracts them from its force. */
typedef struct cl_fpm_gather_args {
  size_t n, rows;             /* particles; rows of the element buffer */
  const uint32_t *offsets;    /* n + 1 */
  const uint32_t *slots;      /* offsets[n] rows of fe */
  const void *fe;             /* rows x 3 */
  void *f;                    /* n x 3 */
} cl_fpm_gather_args;

CL_HD static inline void cl_fpm_gather_at(const cl_fpm_gather_args *A, size_t i) {
  const real *fe = (const real *)A->fe;
  real *f = (real *)A->f;
  for (int c = 0; c < 3; c++) {
    real sum = 0;
    for (uint32_t j = A->offsets[i]; j < A->offsets[i + 1]; j++) sum += fe[c * A->rows + A->slots[j]];
    f[c * A->n + i] -= sum;
  }
}

/* Adds value to *p from many threads: atomically on the GPU and under OpenMP. */
CL_HD static inline void cl_fpm_add(real *p, real value) {
#ifdef __CUDA_ARCH__
  atomicAdd(p, value);
#else
#ifdef _OPENMP
#pragma omp atomic
#endif
  *p += value;
#endif
}

/* An element's force component c on its corner k (particle p): into row k ne + e of the element
 * buffer fe of `rows` rows (gather) or subtracted from the particle's (scatter). */
CL_HD static inline void cl_fpm_deposit(void *fe, size_t rows, size_t ne, size_t e, int k, void *f, size_t n,
                                        uint32_t p, int c, real value) {
  if (fe) ((real *)fe)[c * rows + k * ne + e] = value;
  else cl_fpm_add(&((real *)f)[c * n + p], -value);
}

#endif
