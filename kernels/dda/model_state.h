/* The DDA model's state, shared by the files that make up the model (model.c: creation and the
 * step; model_output.c: queries, VTU and PNG; model_checkpoint.c: save and restore). Not a public
 * header: users of the model go through model.h. */
#ifndef CL_DDA_MODEL_STATE_H
#define CL_DDA_MODEL_STATE_H

#include <stdlib.h>

#include "contacts.h"
#include "detect.h"
#include "model.h"
#include "pcg.h"

/* a contact of a device list (cl_dda_device_list): its key, five doubles, eight int32 */
#define LIST_BYTES 80

/* The arrays the per-block kernels read or write; on a cuda device each has a device copy. */
enum { A_VSTART, A_FSTART, A_LSTART, A_VX, A_VY, A_RHO, A_E, A_NU, A_STRESS, A_VEL, A_FX, A_FY, A_FTX, A_FTY,
       A_LX, A_LY, A_LPX, A_LPY, A_K, A_F, A_MOMENTS, A_D, A_TRIAL, A_PER_BLOCK, A_ROTATION, A_COUNT };

struct cl_dda_model {
  cl_device *dev;
  size_t n, nv, nf, nl;
  int32_t *vstart, *fstart, *lstart, *load_slot, *material, *edge_joint;
  double *vx, *vy, *rho, *E, *nu, *stress, *vel, *fx, *fy, *ftx, *fty, *lx, *ly, *lpx, *lpy;
  double *K, *F, *moments, *D; /* kernel layouts: K block-major, F, moments and D SoA */
  double *trial_D, *per_block;  /* an attempt's solution (SoA), and what the step reduces over the blocks
                                   on the device (3 x n: the checks, then the energies); on the device only
                                   but for the cpu's, which are these */
  double lightest;              /* the lightest block's mass at the attempt's start (diagonal) */
  int host_stale;               /* the host's stresses, velocities and rotations are behind the device's */
  int loads_set;                /* the host's loads changed since the device's copy (cl_dda_set_load) */
  double *x_start, *y_start, *rotation; /* centroids at the start, rotation accumulated */
  void *host[A_COUNT], *device[A_COUNT];
  size_t bytes[A_COUNT];
  cl_dda_joint *joints;
  size_t njoints, npairs;
  int64_t *pair_keys;           /* sorted (min block) n + max block */
  int32_t *pair_joint;
  double *joint_law;            /* each joint's tan phi, cohesion, tension (the set-up kernel's) */
  void *d_edge_joint, *d_pair_keys, *d_pair_joint, *d_joint_law; /* their device copies (the cpu's: these) */
  cl_dda_input p;               /* parameters (pointers into the caller's input are not kept) */
  cl_dda_contact_list contacts, start; /* the last step's contacts, the next's (detect) */
  int contacts_stale;           /* the contacts' states, forces, anchors and bonds are the solver's, on the
                                   device, ahead of the host's list (cl_dda_host_contacts) */
  int32_t *pairs;
  size_t npairs_cap, ncand;
  cl_dda_kept_pairs kept;       /* the host broad phase's list kept from step to step */
  cl_dda_detect detect;         /* detection's device buffers, when it runs there */
  cl_dda_found *found;          /* the contacts it found, brought to the host for the transfer (pinned
                                   host memory: the largest download of a step) */
  size_t found_cap;
  int32_t *step_ints;           /* the step's contacts' blocks, vertices, edges, states, state changes, bonds
                                   (STEP_INTS x step_cap) */
  double *step_reals;           /* their directions, normal forces, anchors, joint lengths (STEP_REALS x step_cap) */
  size_t step_cap;
  /* with the pattern on the device the transfer runs there too (transfer_ops.h): the last accepted
   * step's contacts (lists[last]) and the next step's, SoA on the device (LIST_BYTES a contact) */
  void *lists[2];
  size_t list_cap[2], list_count[2];
  int last;
  cl_dda_bsr a;                 /* the step's pattern (every pair of blocks with a contact) */
  cl_dda_solver solver;         /* the matrix of a on the device, and PCG */
  cl_dda_stats stats;
};

static inline void *alloc_zero(size_t count, size_t size) { return calloc(count ? count : 1, size); }

static inline cl_status oom(cl_error *err) { return cl_error_set(err, CL_ERR_OOM, "DDA model: out of memory"); }

/* Array k (the A_ enumeration) copied from the host to its device copy, and back. */
cl_status cl_dda_model_to_device(cl_dda_model *m, int k, cl_error *err);
cl_status cl_dda_model_to_host(cl_dda_model *m, int k, cl_error *err);

/* The device list of cap contacts at p (LIST_BYTES a contact, SoA). */
cl_dda_device_list cl_dda_model_list_view(void *p, size_t cap);

/* Device storage *p of at least want items of `item` bytes (*cap items), a quarter more when it
 * grows (its contents are not kept). */
cl_status cl_dda_model_grow(cl_dda_model *m, void **p, size_t *cap, size_t want, size_t item, cl_error *err);

#endif
