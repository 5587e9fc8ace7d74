/* The arguments of the DDA solver kernels (assembly_ops.h, pcg_ops.h): the contacts' springs,
 * the global matrix in one of two formats, the inverses of its diagonal blocks and the
 * PCG vectors, all arrays on the kernel's device in its precision (real). Vectors are SoA: component c of block i at
 * [c n + i], so that neighbouring threads (neighbouring blocks) read neighbouring entries. */
#ifndef CL_DDA_PCG_ARGS_H
#define CL_DDA_PCG_ARGS_H

#include "../common/portable.h"

typedef enum cl_dda_spmv_format { CL_DDA_HSBCSR = 0, CL_DDA_BSR = 1 } cl_dda_spmv_format;

typedef enum cl_dda_preconditioner { CL_DDA_BLOCK_JACOBI = 0, CL_DDA_SSOR_AI = 1 } cl_dda_preconditioner;

/* which parts of A a product uses: the diagonal blocks, the strict upper and lower block triangles */
enum { CL_DDA_DIAG = 1, CL_DDA_UPPER = 2, CL_DDA_LOWER = 4, CL_DDA_WHOLE = 7 };

typedef enum cl_dda_pcg_op {
  CL_DDA_OP_SPRINGS,     /* per contact (zeros when open): its submatrices and right-hand sides into cK, cF */
  CL_DDA_OP_GATHER,      /* per matrix block: the diagonal submatrix (if any) plus its contacts' shares, and a
                            diagonal block's factor; then per block row: b = the per-block right-hand side
                            plus its contacts' shares (ntarget + n items, assembly_ops.h); where incremental:
                            the listed contacts' claimed blocks, then every block row */
  /* the incremental assembly (assembly_ops.h) */
  CL_DDA_OP_SHARE_TARGETS,   /* per matrix block: its shares' ctarget, and its tmark unclaimed (once a step) */
  CL_DDA_OP_SPRINGS_CHANGED, /* per listed contact: its submatrices into cK (and cF where locked) and its
                                shares' blocks claimed; per sliding contact: its right-hand sides into cF */
  CL_DDA_OP_FACTOR,      /* per block: dinv = the diagonal block's inverse, by Cholesky (NaN if not SPD) */
  CL_DDA_OP_SPMV,        /* per row: out = A_parts in */
  CL_DDA_OP_BLOCK_SOLVE, /* per block: out = D^-1 in */
  CL_DDA_OP_SSOR_FINISH, /* per block: z = t - D^-1 z */
  CL_DDA_OP_RESIDUAL,    /* per entry: r = b - q */
  CL_DDA_OP_SUBTRACT,    /* per entry: out = in - out */
  CL_DDA_OP_STEP,        /* per entry: x += alpha p, r -= alpha q (while running, pcg_scalars.h) */
  CL_DDA_OP_DIRECTION,   /* per entry: p = z + beta p (while running) */
  CL_DDA_OP_LONG_ROWS,   /* BSR: the rows of more than CL_DDA_BSR_LONG blocks into long_rows (cuda's product) */
  /* dot products, their scalars kept on the device (pcg_scalars.h) */
  CL_DDA_OP_DOT_BB,      /* b.b */
  CL_DDA_OP_BEGIN,       /* r.z and r.r of the start */
  CL_DDA_OP_ALPHA,       /* p.q: alpha */
  CL_DDA_OP_BETA,        /* r.z and r.r of the update: beta, the stopping rule */
  CL_DDA_OP_STEP_JACOBI, /* per block: STEP, z = D^-1 r (block Jacobi) and BETA's sums in one pass */
  CL_DDA_OP_FACTOR_CHECK, /* the squares of the inverses' first slices: whether every block was factored */
  CL_DDA_OP_OPEN_CLOSE,  /* per contact: the open-close rule on x, the counts of changes as scalars */
  CL_DDA_OP_START_SUMS,  /* the persistent solve's first dot: b.b and FACTOR_CHECK's sum in one */
  /* the pipelined PCG (Ghysels & Vanroose 2014, pcg_ops.h: cl_dda_pipelined_row), block Jacobi only */
  CL_DDA_OP_PIPE_BEGIN,  /* per block row: m = D^-1 w of the start's w = A u; r.u, w.u, r.r: alpha, the stop */
  CL_DDA_OP_PIPE_STEP,   /* per block row, n = A m in t: the updates, m = D^-1 w, r.u, w.u, r.r: beta, alpha, stop */
  CL_DDA_OP_PIPE_CHECK,  /* per block row, q = A x: r = b - q, u = D^-1 r, r.r: whether the true residual passes */
  CL_DDA_OP_PIPE_RESTART /* PIPE_BEGIN's rows, after a check that failed: the recurrences start again from x */
} cl_dda_pcg_op;

typedef struct cl_dda_pcg_args {
  size_t n;   /* block rows */
  int format; /* cl_dda_spmv_format */
  int persistent_blocks; /* the persistent solve's grid: at most this many blocks (0: as many as fit) */
  /* BSR: every block of both triangles, rows sorted by column, row-major inside a block
   * (entry (r, c) of block k at [36 k + 6 r + c], cuSPARSE's row-major BSR) */
  const int32_t *rowptr, *col;
  const void *val;
  /* the rows of more than CL_DDA_BSR_LONG blocks: their count, then the rows (in no set order), which
   * cuda's product gives thread blocks of their own (spmv_cuda.cuh) */
  int32_t *long_rows;
  /* HSBCSR (the paper's half slice block CSR): the diagonal blocks (diag) and the strictly upper
   * ones (up, nup of them, by row then column) in slices: entry (r, c) of block k at
   * [(6 r + c) n + k] (diag) or [(6 r + c) nup + k] (up); the upper row i is uptr[i] .. uptr[i+1]
   * (columns ucol); the lower row i is gathered transposed from the up blocks lslot[lptr[i] ..
   * lptr[i+1]] of column i, whose rows are urow */
  size_t nup;
  const void *diag, *up;
  const int32_t *uptr, *ucol, *urow, *lptr, *lslot;
  /* assembly: the step's nc contacts, their blocks (cbi: the vertex's, cbj: the edge's), states and
   * geometry (26 x nc: en, fn, es, fs, gn0, gs0, contact.h), friction force times the sliding
   * direction (sliding ones), spring stiffnesses; cK (108 a contact, contact-major: Kii, Kjj, Kij) and cF
   * (12 a contact: Fi, Fj) their shares. Matrix block t (ntarget of them: BSR's blocks, or HSBCSR's diagonal
   * then upper ones) is tdiag's diagonal submatrix (Kdiag, 36 per block, row-major; tdiag -1: none)
   * plus the shares gitem[gstart[t] .. gstart[t+1]] (4 k + 0: Kii, 1: Kjj, 2: Kij, 3: Kij^T of
   * contact k); block row i of b is Fdiag's (SoA) plus ritem[rstart[i] .. rstart[i+1]] (2 k + 0:
   * Fi, 1: Fj). Items are in the order of their contacts: the sums are deterministic. */
  size_t nc, ntarget;
  const int32_t *cbi, *cbj;
  int32_t *cstate;
  const void *cgeo;
  void *cfric;
  double kn, ks;
  /* the open-close rule (open_close_ops.h): the contacts' sliding directions, normal forces, state
   * changes in this step, and laws (3 x nc: tan phi, cohesion and tensile strength as forces); the
   * rule's round-off bands and the changes after which a contact is held */
  void *csgn, *cN;
  int32_t *cflips;
  const void *claw;
  double slip_floor, force_floor;
  int flip_limit;
  void *cK, *cF;
  const int32_t *gstart, *gitem, *tdiag, *rstart, *ritem;
  const void *Kdiag, *Fdiag;
  /* the incremental assembly (assembly_ops.h): the contacts whose state the rule changed since the
   * last assembly (clist[0] their count, clist[1 ..] the contacts, at most nc: the rule appends,
   * the gather empties it), nlisted of them re-assembled where incremental (else the gather is the
   * full one); contact
   * k's share role r in matrix block ctarget[4 k + r] (where the format keeps it); tmark[t] the
   * smallest gather item that claimed block t (INT32_MAX: none) */
  int32_t *clist, *ctarget, *tmark;
  size_t nlisted;
  int incremental;
  void *dinv; /* the diagonal blocks' inverses, sliced as diag */
  int parts;  /* CL_DDA_OP_SPMV: CL_DDA_DIAG | CL_DDA_UPPER | CL_DDA_LOWER */
  const void *in;
  void *out;
  void *b;
  void *x, *r, *z, *p, *q, *t;
  /* the pipelined PCG's (pipelined 1): its vectors u = M^-1 r, w = A u, s = A p, and m = M^-1 w,
   * read by the product n = A m, and mnext, the next m (the persistent solve alternates two buffers:
   * a row's next m is written while other rows' products still read this one) */
  int pipelined;
  void *u, *w, *s, *m, *mnext;
  /* PCG's scalars (CL_DDA_SCALARS doubles, pcg_scalars.h) and the dots' partial sums
   * (CL_DDA_DOT_PARTIALS doubles, cuda), on the device; the stopping rule's parameters (pcg.h) */
  double *scal, *partials;
  double tol, update_energy;
  int max_iterations;
} cl_dda_pcg_args;

#endif
