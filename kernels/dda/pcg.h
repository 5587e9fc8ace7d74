/* The DDA step's linear system on the model's device: the global matrix, its pattern given as a
 * host BSR (bsr.h), assembled on the device from the diagonal submatrices and the closed contacts'
 * springs (assembly_ops.h) -- or loaded with the host BSR's values -- in the paper's HSBCSR or in
 * full BSR (pcg_args.h), and conjugate gradients preconditioned by block Jacobi or SSOR's
 * approximate inverse, warm-started from the caller's x. PCG's scalars stay on the device
 * (pcg_scalars.h): the host reads them once every check_every iterations; the pattern and the assembly's indices are set once per step, each open-close
 * iteration sends only the contacts' states and friction forces, and after an attempt's first one
 * re-assembles only the blocks of the contacts the rule changed (cl_dda_solver_assemble_changed). */
#ifndef CL_DDA_PCG_H
#define CL_DDA_PCG_H

#include "../../runtime/device.h"
#include "broad_kernels.h"
#include "bsr.h"
#include "pcg_args.h"
#include "setup_ops.h"

typedef struct cl_dda_pcg_result {
  int iterations;
  int converged;
  double residual; /* |b - A x| / |b| at the end (the recurrence's) */
  double initial_residual; /* |b - A x0| / |b| at the start: how good the warm start was */
} cl_dda_pcg_result;

enum { CL_DDA_SOLVER_BUFFERS = 44, CL_DDA_SOLVER_PENDING = 32 };

/* PCG's host reads the convergence scalars once every this many iterations (cl_dda_pcg) */
#define CL_DDA_PCG_CHECK_EVERY 8

typedef struct cl_dda_solver {
  cl_device *dev;
  cl_dda_spmv_format format;
  cl_dda_pcg_args A;                       /* pointers into buf */
  void *buf[CL_DDA_SOLVER_BUFFERS];        /* device buffers, grown on demand */
  size_t cap[CL_DDA_SOLVER_BUFFERS];       /* their sizes in bytes */
  void *stage;                             /* host staging of the HSBCSR arrays and the vectors */
  size_t stage_cap;
  /* the uploads of a setup (the pattern, the indices, the contacts), gathered on the host and sent
   * in one transfer, then copied on the device into their buffers */
  unsigned char *pack;
  size_t pack_cap, pack_used;
  struct { int buf; size_t at, bytes, offset; } pending[CL_DDA_SOLVER_PENDING];
  int npending;
  /* since init, what a GPU would do: kernel launches and device-to-device copies (launches), and
   * the transfers the host waits for (syncs: every upload and download, a scalar's included) --
   * the proxy of a step's cost where launches and waits, not bandwidth, dominate */
  long launches, syncs;
  int check_every; /* CL_DDA_PCG_CHECK_EVERY unless set */
  /* 1 (the default): a solve is one persistent cooperative launch where the device can
   * (pcg_persistent_cuda.cu); 0, or a device that cannot (the cpu, whose solve is a loop already): one
   * launch per operation and a look at the scalars every check_every iterations */
  int persistent;
  int check_pending; /* the assembly left the factors' check to the persistent solve */
  int persistent_blocks; /* at most this many blocks in the persistent grid (0: as many as fit) */
  /* 0 (the default): the standard PCG, two dot reductions an iteration (two grid barriers in the
   * persistent solve); 1: the pipelined PCG of Ghysels & Vanroose (2014, Alg. 3), whose r.u, w.u and
   * r.r are one reduction (one barrier), its start one product more (w = A u); block Jacobi only
   * (cl_dda_pcg: CL_ERR_ARG with SSOR-AI) */
  int pipelined;
  int start_kept; /* set_contacts kept the step's start states and the bookkeeping's fields */
  cl_dda_scratch scratch; /* the device sorts' and scans' room (set_contacts_on_device) */
  /* 1 (the default): cl_dda_solver_assemble_changed re-assembles only what the rule changed; 0: it
   * assembles in full (the comparison, and the switch until measured on the GPU) */
  int incremental;
  long listed;       /* the contacts the rule listed since the last assembly (-1: states it did not list) */
  int targets_ready; /* the step's share targets are built (CL_DDA_OP_SHARE_TARGETS) */
  /* since init: the full and the incremental assemblies, and the contacts the latter re-assembled */
  long assemblies_full, assemblies_changed, contacts_listed;
  /* The pattern kept from step to step: where a step's contacts have the structure the pattern and
   * the indices were built from (the same blocks, count and, contact by contact, pair of blocks),
   * set_contacts keeps them (reuse_pattern, 1 by default; 0: built every step). pattern_kept: they
   * were built for kept_n blocks and kept_nc contacts whose blocks are kept_pairs (host contacts: bi
   * then bj, 2 x kept_nc) or the device's contact blocks (contacts on the device). */
  int reuse_pattern;
  enum { CL_DDA_KEPT_NONE, CL_DDA_KEPT_HOST, CL_DDA_KEPT_DEVICE } pattern_kept;
  size_t kept_n, kept_nc, kept_pairs_cap;
  int32_t *kept_pairs;
  long pattern_reuses; /* since init: the set_contacts calls that kept the pattern */
  /* the answer of cl_dda_solver_compare_pattern (or same_pattern) for the next set_contacts of
   * compared_nc contacts: pending, and whether they are the kept pattern's */
  int compared, compared_same;
  size_t compared_nc;
} cl_dda_solver;

/* An empty solver on d (zero-initialised s). */
void cl_dda_solver_init(cl_dda_solver *s, cl_device *d, cl_dda_spmv_format format);
void cl_dda_solver_free(cl_dda_solver *s);

/* Loads a with its host values (symmetric; its upper triangle is what HSBCSR keeps) and factors
 * its diagonal blocks -- for tests and benchmarks: the model assembles on the device
 * (cl_dda_solver_assemble). CL_ERR_ARG naming the block when a diagonal block is not positive
 * definite. */
cl_status cl_dda_solver_load(cl_dda_solver *s, const cl_dda_bsr *a, cl_error *err);

/* The contacts of a step, open and closed: the pattern's pairs and the shares of the assembly are
 * theirs from detection to the step's end; the open-close iteration changes only their states. */
typedef struct cl_dda_step_contacts {
  size_t count;
  const int32_t *bi, *bj; /* the vertex's block, the edge's block */
  const double *geo;      /* 26 x count (SoA): en, fn, es, fs, gn0, gs0 (contact.h) */
  double kn, ks;          /* spring stiffnesses */
  /* the open-close rule's (cl_dda_solver_open_close; NULL: not run): 3 x count (SoA) tan phi,
   * cohesion and tensile strength as forces; the round-off bands and the changes after which a
   * contact is held (open_close_ops.h) */
  const double *law;
  double slip_floor, force_floor;
  int flip_limit;
  /* the states at the step's start (NULL: none kept; cl_dda_solver_set_states then gives them), each
   * attempt's start (cl_dda_solver_restart_states): state, sliding direction, normal force, friction
   * force times the sliding direction (sliding ones), count of each, no state changes yet; and what
   * the accepted step's bookkeeping (cl_dda_solver_account) reads and updates: anchors, bonds, the
   * edges' lengths */
  const int32_t *state, *flips;
  const double *sgn, *N, *friction;
  const double *t_ref, *len;
  const int32_t *bonded;
  /* geo, law, friction and len NULL: set up on the device instead (cl_dda_solver_setup_args, setup_ops.h)
   * from each contact's vertex, edge (its first vertex) and joint length, which then go up */
  const int32_t *vi, *ej;
  const double *length;
  int on_device; /* the arrays above are the device's (copied there, not uploaded) */
} cl_dda_step_contacts;

/* The contacts' states as the open-close rule keeps them, count of each (host arrays): state
 * (cl_dda_contact_state), sliding direction (+1 / -1), state changes in the step, normal force, and
 * friction force times the sliding direction (sliding ones; sent up, never brought back: the rule
 * derives it from the others). */
typedef struct cl_dda_contact_states {
  int32_t *state, *flips;
  double *sgn, *N, *friction;
} cl_dda_contact_states;

/* Once per step: the matrix's structure on the device for pattern a (its values unused; every
 * pair of blocks with a contact, open or not: cl_dda_bsr_pattern), the assembly's indices over all
 * the contacts (each matrix block's and block row's shares, in contact order) and the contacts'
 * blocks and geometry. */
cl_status cl_dda_solver_set_contacts(cl_dda_solver *s, const cl_dda_bsr *a, const cl_dda_step_contacts *c,
                                     cl_error *err);

/* cl_dda_solver_set_contacts for n blocks with no host pattern: the pattern (BSR: every pair of blocks
 * with a contact and the diagonal) and the assembly's indices built on the device from the contacts'
 * blocks (pattern_ops.h: sorts of 64-bit keys and binary searches), the same arrays as the host's; the
 * host waits once, for the pattern's size. CL_ERR_ARG where s's format is HSBCSR. Both keep the
 * pattern and the indices where cl_dda_solver_same_pattern says so -- the answer given for c by
 * cl_dda_solver_compare_pattern, else asked now (on the device one more wait) -- and the contacts'
 * own arrays go up as always, but their blocks, which the device has. */
cl_status cl_dda_solver_set_contacts_on_device(cl_dda_solver *s, size_t n, const cl_dda_step_contacts *c,
                                               cl_error *err);

/* Whether contacts c over n blocks have the structure the solver's pattern and indices were built
 * from -- the same n, count and, contact by contact, pair of blocks (c->bi, c->bj), all that the
 * pattern, the share and row lists, HSBCSR's structure and the long rows are made of -- and the
 * solver reuses patterns (reuse_pattern); the answer also stays for the next set_contacts of c.
 * Contacts on the device are compared there, a value a contact whose largest the host reads (one
 * wait); host contacts on the host. */
cl_status cl_dda_solver_same_pattern(cl_dda_solver *s, size_t n, const cl_dda_step_contacts *c, int *same,
                                     cl_error *err);

/* cl_dda_solver_same_pattern in two parts, for a caller that reads other results of the device at the
 * same time (one wait for all): the compare launched, *differ its values (count c->count: 1 where a
 * contact's blocks differ, else 0; on the device, valid until the next set_contacts) whose largest the
 * caller gives to cl_dda_solver_pattern_compared -- or *differ NULL where the answer needs no compare
 * (another count, no pattern kept, host contacts). The next set_contacts of c takes the answer. */
cl_status cl_dda_solver_compare_pattern(cl_dda_solver *s, size_t n, const cl_dda_step_contacts *c,
                                        const double **differ, cl_error *err);
void cl_dda_solver_pattern_compared(cl_dda_solver *s, double largest);

/* The next set_contacts builds the pattern and the indices (after a restore of the model's contacts). */
void cl_dda_solver_forget_pattern(cl_dda_solver *s);

/* Once per attempt at a step: the contacts' states at the step's start go up (the rule then keeps
 * them on the device). */
cl_status cl_dda_solver_set_states(cl_dda_solver *s, const cl_dda_contact_states *c, cl_error *err);

/* After cl_dda_solver_set_contacts without geometry: the contact side of the set-up kernel's arguments
 * (setup_ops.h: the contacts' blocks, vertices, edges, start states, anchors, bonds and joint lengths
 * on the device, and the solver's arrays it fills); the caller gives the model's side and runs it
 * before the step's first cl_dda_solver_restart_states. */
void cl_dda_solver_setup_args(cl_dda_solver *s, cl_dda_setup_args *a);

/* Each attempt at a step: the contacts' states at the step's start, as cl_dda_solver_set_contacts kept
 * them, become the open-close rule's (a copy on the device). */
cl_status cl_dda_solver_restart_states(cl_dda_solver *s, cl_error *err);

/* A contact's fields, count of each: those of cl_dda_contact_states but the friction, and the shear
 * forces, anchors and bonds of cl_dda_solver_account. */
typedef struct cl_dda_contact_fields {
  int32_t *state, *flips, *bonded;
  double *sgn, *N, *S, *t_ref;
} cl_dda_contact_fields;

/* The accepted step's bookkeeping of its contacts on the device (account_ops.h) from the device's
 * solution: shear forces, anchors and bonds updated there; the friction work of the step and the
 * closed contacts (sliding or locked) come back, two reductions read together. Where into is not
 * NULL, the same pass writes each contact's state, direction, normal force, shear force, anchor and
 * bond into into's device arrays (its flips are not written). Needs set_contacts' anchors. */
cl_status cl_dda_solver_account(cl_dda_solver *s, const cl_dda_contact_fields *into, double *friction_work,
                                size_t *closed, cl_error *err);

/* The contacts' fields as the step left them on the device, into host arrays. */
cl_status cl_dda_solver_contacts_down(cl_dda_solver *s, cl_dda_contact_fields *c, cl_error *err);

/* After a solve: the open-close rule (open_close_ops.h) on every contact with the device's solution,
 * its states updated on the device; only the counts of contacts whose state changed and of sliding
 * ones whose normal force had not settled come back. */
cl_status cl_dda_solver_open_close(cl_dda_solver *s, int *changed, int *unsettled, cl_error *err);

/* The contacts' states, directions, changes and normal forces down (friction is not), once the
 * open-close iteration has settled. */
cl_status cl_dda_solver_get_states(cl_dda_solver *s, cl_dda_contact_states *c, cl_error *err);

/* The device's solution x down (block-major, 6 n). */
cl_status cl_dda_solver_solution(cl_dda_solver *s, double *x, cl_error *err);
/* The device's solution x into the device vector x_out (6 x n, SoA), on the device. */
cl_status cl_dda_solver_solution_to(cl_dda_solver *s, void *x_out, cl_error *err);

/* Each open-close iteration (state and friction NULL: the device's, from cl_dda_solver_set_states
 * and the rule; else they go up): the contacts' states (cl_dda_contact_state; an open one adds nothing)
 * and friction forces times the sliding direction (sliding ones), count of each, go up, and the
 * matrix of the structure set above is assembled on the device from the diagonal submatrices
 * Kdiag (36 n, row-major blocks) and right-hand sides Fdiag (6 x n, SoA), both device arrays, and
 * the contacts' springs; the right-hand side stays on the device for cl_dda_pcg with b = NULL.
 * Factors the diagonal blocks as cl_dda_solver_load. */
cl_status cl_dda_solver_assemble(cl_dda_solver *s, const int32_t *state, const double *friction, const void *Kdiag,
                                 const void *Fdiag, cl_error *err);

/* A later open-close iteration of the same attempt (after cl_dda_solver_assemble and solves with the
 * rule, on the same Kdiag and Fdiag): the matrix updated only where the rule changed a contact's
 * state since the last assembly -- the blocks those contacts share in, each re-summed whole in share
 * order, and the factors of the diagonal ones -- and b re-gathered: the same values, bit for bit, as
 * cl_dda_solver_assemble's (assembly_ops.h). A full assembly where s->incremental is 0, where states
 * came from elsewhere since (set_states, restart_states), or where the rule changed more than a
 * fraction of the contacts. */
cl_status cl_dda_solver_assemble_changed(cl_dda_solver *s, cl_error *err);

/* The device's x := the device vector x0 (6 x n, SoA: the model's D), the next solve's start. */
cl_status cl_dda_solver_start_from(cl_dda_solver *s, const void *x0, cl_error *err);

/* y = A x for host vectors of 6 n, block-major (entry 6 i + k), through the device's product
 * (for tests and benchmarks). */
cl_status cl_dda_solver_spmv(cl_dda_solver *s, const double *x, double *y, cl_error *err);

/* Solves A x = b (b: a host vector of 6 n, block-major; NULL: the assembled one) starting from x0
 * (host, block-major; NULL: the device's x, the last solution or cl_dda_solver_start_from's, zero
 * before either where the set-up gave x a new buffer); the
 * solution stays on the device and, when x is not NULL, comes down into it (block-major). Stops
 * when |b - A x| <= tol |b|, or when an iteration's update dx = alpha p has an energy
 * dx^T A dx = alpha r.z <= update_energy (0: never; the model's displacement criterion), or after
 * max_iterations (not converged). The rule is applied on the device after every iteration and the
 * host looks every s->check_every iterations: x is the stopping iteration's whatever check_every is,
 * and a solve of k iterations waits for the device 1 + ceil(k / check_every) times (plus the
 * uploads of b and x0 and the download of x asked for) -- once where it runs as one launch
 * (s->persistent): the same iterations, x to the round-off of the dots' order. */
cl_status cl_dda_pcg(cl_dda_solver *s, const double *b, const double *x0, double *x, cl_dda_preconditioner kind,
                     double tol, double update_energy, int max_iterations, cl_dda_pcg_result *res, cl_error *err);

/* An iteration of the open-close loop after its assembly: cl_dda_pcg of the assembled system from
 * x0 (as there) and, when it converged, cl_dda_solver_open_close -- in the same launch where the
 * solve is one, the host waiting once for the scalars of both (the counts are 0 after a solve that
 * did not converge, which leaves the contacts' states as they were). */
cl_status cl_dda_solver_solve_open_close(cl_dda_solver *s, const double *x0, cl_dda_preconditioner kind, double tol,
                                         double update_energy, int max_iterations, cl_dda_pcg_result *res,
                                         int *changed, int *unsettled, cl_error *err);

#endif
