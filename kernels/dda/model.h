/* A 2D DDA model (Shi 1988) on the host side: blocks, materials, joints,
 * fixed and loading points, contacts and the step of the paper's pipeline:
 *   per-block diagonal submatrices (block_kernels.h, on the model's device)
 *   -> contact detection and transfer (contacts.h)
 *   -> open-close iteration: contact springs and friction into the block-sparse
 *      matrix (bsr.h), PCG on the device (pcg.h), contact states updated until none changes
 *   -> maximum-displacement control -> the update of the accepted step.
 * The time step shrinks (and the step is redone from its start) when PCG does
 * not converge, the open-close iteration does not settle, or a block moves more
 * than twice the allowed displacement; the state is always that of the last
 * accepted step. The model works in f64. */
#ifndef CL_DDA_MODEL_H
#define CL_DDA_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "../../runtime/device.h"
#include "../../runtime/status.h"
#include "pcg.h"

typedef struct cl_dda_material {
  double rho, E, nu;
  double stress[3]; /* initial stress sxx, syy, sxy */
} cl_dda_material;

typedef struct cl_dda_joint {
  double friction_angle; /* degrees, [0, 90) */
  double cohesion;       /* stress; times the contact length */
  double tension;        /* tensile strength, stress; times the contact length */
} cl_dda_joint;

/* Where contact detection runs: auto -- on the device on cuda (detect.h), on the host on the cpu
 * (contacts.h); the contacts are the same either way. */
typedef enum cl_dda_detection { CL_DDA_DETECT_AUTO = 0, CL_DDA_DETECT_HOST, CL_DDA_DETECT_DEVICE } cl_dda_detection;

typedef struct cl_dda_input {
  size_t nblocks;
  const int32_t *vstart;       /* nblocks + 1 */
  const double *vx, *vy;       /* vertices, either orientation */
  const int32_t *material;     /* per block, 0-based into materials */
  size_t nmaterials;
  const cl_dda_material *materials;
  const double *velocity;      /* per block vx, vy, omega (3 nblocks, block-major), or NULL */
  size_t njoints;
  const cl_dda_joint *joints;  /* joints[0] is the default */
  size_t njoint_pairs;
  const int32_t *joint_pairs;  /* (block, block, joint) triples: the joint of that pair of blocks */
  const int32_t *edge_joint;   /* per vertex, the joint of the edge from it to the next (-1: none), or
                                  NULL; a contact takes its edge's joint, else its pair's, else joints[0] */
  size_t nfixed;
  const double *fixed;         /* (x, y) pairs */
  size_t nloads;
  const double *loads;         /* (x, y) pairs; the forces are set with cl_dda_set_load */
  double gx, gy;
  int dynamic, plane_strain;
  double normal_stiffness, shear_stiffness, fixed_stiffness;
  double max_displacement;     /* allowed displacement per step (length); 0: 1% of half the domain's size */
  double pcg_tolerance;        /* PCG stops at this relative residual |b - A x| / |b| ... */
  double pcg_displacement;     /* ... or when its last update moves the lightest block by less than this
                                  fraction of max_displacement (root mean square over the block; 0: off) */
  cl_dda_preconditioner preconditioner;
  cl_dda_spmv_format spmv_format; /* the device matrix's: HSBCSR (upper blocks) or full BSR */
  int pcg_launches;            /* 1: PCG launches one kernel per operation; 0: a solve is one persistent
                                  launch where the device can (cl_dda_solver.persistent) */
  int pcg_blocks;              /* the persistent solve's grid: at most this many blocks (0: as many as fit;
                                  fewer blocks make a grid barrier cheaper, docs/benchmarks.md) */
  int pcg_pipelined;           /* 1: the pipelined PCG, block Jacobi only (cl_dda_solver.pipelined); 0: the
                                  standard one */
  int pcg_max_iterations, open_close_max;
  double open_close_loose;     /* >= 1: the open-close solves that only decide the contacts' states stop at
                                  this many times pcg_tolerance and pcg_displacement; a solve that
                                  changes no state is confirmed at the full ones, which alone settle a
                                  step (1: every solve at the full ones; 0: CLEAVE_DDA_OC_LOOSE, else
                                  the default) */
  cl_dda_detection detection;
  int full_assembly;           /* 1: every open-close iteration assembles the whole matrix; 0: after an
                                  attempt's first, only what the rule changed (cl_dda_solver_assemble_changed) */
  double broad_skin;           /* the broad phase's list is kept while no block's box (grown by d0 / 2) leaves
                                  its box of the list's build grown by a further broad_skin / 2 (metres;
                                  contacts.h, detect.h); 0: built every step; < 0: the default, d0 */
  double dt_growth;            /* a step starts at no more than dt_growth times the last accepted step's
                                  time step, so that after a reduction the next steps do not each try the
                                  requested one first (0: always the requested one, the paper's rule) */
} cl_dda_input;

typedef struct cl_dda_model cl_dda_model;

/* Open-close iterations of a step whose solves and state changes the statistics keep. */
#define CL_DDA_TRACE 32

/* Step statistics and energies. */
typedef struct cl_dda_stats {
  long steps;
  double t, dt;            /* time reached, the last step's time step */
  int open_close;          /* open-close iterations of the last step */
  int pcg;                 /* PCG iterations of the last step (all open-close iterations) */
  int reductions;          /* time-step reductions in the last step */
  char reduced_by[160];    /* why the last step's time step was last cut ("" where it was not) */
  long launches, syncs;    /* the solver's (cl_dda_solver) in the last step: kernel launches and
                              device copies, host waits for the device (transfers, scalar reads) */
  /* the last step's accepted attempt, open-close iteration k (the first CL_DDA_TRACE): its PCG
   * iterations, the contacts whose state changed after it and the sliding ones whose friction force
   * had not settled; and the relative residual |b - A x0| / |b| of the first solve's warm start */
  int trace_pcg[CL_DDA_TRACE], trace_changed[CL_DDA_TRACE], trace_unsettled[CL_DDA_TRACE];
  double warm_residual;
  int incremental_assemblies; /* the last step's open-close iterations assembled incrementally (redone
                                 attempts included; cl_dda_solver_assemble_changed) */
  long pattern_reuses;     /* since the model was made: the steps that kept the matrix's pattern and the
                              assembly's indices, their contacts' pairs of blocks those of the step that
                              built them (cl_dda_solver_same_pattern; CLEAVE_DDA_PATTERN_REUSE=0: none) */
  long transfer_shortcuts; /* since the model was made: the device transfers that skipped the sort, the
                              contacts found the last transfer's in the same order (detect.h;
                              CLEAVE_DDA_TRANSFER_SHORTCUT=0: none) */
  size_t contacts, closed; /* contacts detected, closed (sliding or locked) */
  int device_detection;    /* detection ran on the model's device (detect.h), not on the host */
  int device_pattern;      /* the matrix's pattern and the assembly's indices are built on the device
                              (with device detection and the BSR format), not on the host */
  long broad_rebuilds;     /* the broad phase's grid builds since the start (every step with broad_skin 0) */
  double broad_skin;       /* the skin in use (metres) */
  double kinetic;          /* kinetic energy */
  double gravity_work;     /* work of gravity since the start */
  double load_work;        /* work of the loading points since the start */
  double friction_work;    /* energy dissipated by sliding contacts since the start */
  double seconds[6];       /* wall time since the start in each module (cl_dda_module), the paper's
                              Tables II-III; redone steps included */
  double contact_seconds[7]; /* wall time since the start in the work over the contacts outside the
                                solve (cl_dda_contact_part), a finer look inside the modules above */
} cl_dda_stats;

/* The modules of a step, as the paper's tables name them. */
typedef enum cl_dda_module {
  CL_DDA_DETECTION,   /* broad and narrow phase, transfer */
  CL_DDA_DIAGONAL,    /* the per-block submatrices and right-hand sides */
  CL_DDA_ASSEMBLY,    /* contact springs into the matrix, loading it on the device */
  CL_DDA_SOLVE,       /* PCG */
  CL_DDA_OPEN_CLOSE,  /* the open-close rule and the displacement check ("interpenetration checking") */
  CL_DDA_UPDATE       /* energies, the block update, contact bookkeeping ("data updating") */
} cl_dda_module;

/* The work over the step's contacts outside the solve, timed apart inside the modules
 * (cl_dda_stats.contact_seconds): the host's, or with the pattern on the device (device_pattern) the
 * device's passes, each part then ended by a wait for the device. */
typedef enum cl_dda_contact_part {
  CL_DDA_PART_FOUND,    /* the contacts found on the device brought to the host (device detection, host transfer) */
  CL_DDA_PART_TRANSFER, /* the states carried from the last step (device detection) */
  CL_DDA_PART_GEOMETRY, /* each contact's geometry, joint law and start friction (setup_ops.h) */
  CL_DDA_PART_PACKING,  /* the contacts' blocks, vertices, edges, start states packed for the solver (host) */
  CL_DDA_PART_PATTERN,  /* the matrix's pattern, the assembly's indices, the solver's structure and upload */
  CL_DDA_PART_STATES,   /* the last step's contacts brought up for the host's transfer */
  CL_DDA_PART_ACCOUNT   /* friction work, shear forces, anchors and bonds; the closed count (device) */
} cl_dda_contact_part;

/* Validates everything (polygons, overlaps, materials, joints, points) and builds the model on
 * device d (cpu or cuda). Errors name the block / parameter and the fix. */
cl_status cl_dda_model_create(cl_dda_model **out, cl_device *d, const cl_dda_input *in, cl_error *err);
void cl_dda_model_destroy(cl_dda_model *m);

/* The force of loading point k from now on. */
void cl_dda_set_load(cl_dda_model *m, size_t k, double fx, double fy);

/* One step of time step dt (shrunk inside when needed). */
cl_status cl_dda_step(cl_dda_model *m, double dt, cl_error *err);

const cl_dda_stats *cl_dda_stats_of(const cl_dda_model *m);

size_t cl_dda_block_count(const cl_dda_model *m);
/* Block i's vertices (pointer into the model's arrays, count in *nv). */
void cl_dda_block_vertices(const cl_dda_model *m, size_t i, const double **x, const double **y, int *nv);
/* Block i: area, centroid, velocity (the 6 unknowns' rates), stress, its total displacement
 * (centroid, rotation) since the start. */
typedef struct cl_dda_block_state {
  double area, x0, y0, velocity[6], stress[3], ux, uy, rotation;
} cl_dda_block_state;
void cl_dda_block_state_of(const cl_dda_model *m, size_t i, cl_dda_block_state *s);
/* The step leaves the blocks' stresses, velocities and rotations (and, with the pattern on the
 * device, their vertices) on the model's device: this brings the host's copies, which cl_dda_block_state_of and
 * cl_dda_block_vertices read, up to date (once after each step, when asked). */
cl_status cl_dda_host_state(cl_dda_model *m, cl_error *err);

/* The step leaves its contacts' states, forces, anchors and bonds on the model's device: this brings
 * the host's list, which cl_dda_contact_of reads, up to date (once after each step, when asked). */
cl_status cl_dda_host_contacts(cl_dda_model *m, cl_error *err);

/* The current contacts (after the last accepted step; cl_dda_contact_of after cl_dda_host_contacts). */
typedef struct cl_dda_contact_info {
  int32_t block_vertex, block_edge, kind, state; /* 0-based blocks; kind 0 VE, 1 VV1, 2 VV2; state 0 open, 1 slide, 2 lock */
  double x, y, normal_force, shear_force;
} cl_dda_contact_info;
size_t cl_dda_contact_count(const cl_dda_model *m);
void cl_dda_contact_of(const cl_dda_model *m, size_t k, cl_dda_contact_info *c);

/* A checkpoint (runtime/io/checkpoint.h) of everything the next step reads from the last one: the
 * vertices, fixed and loading points where the blocks moved them, the loads, stresses, velocities,
 * rotations and the last solution D (the static warm start, the dynamic prediction's), the contacts
 * (states, bonds, anchors, directions, forces: what the transfer carries) and the statistics that
 * go on (steps, t, the last dt, which the prediction reads, the energies' sums). */
cl_status cl_dda_save(cl_dda_model *m, const char *path, cl_error *err);
/* Loads one written by a model of the same blocks, vertices, materials, points and analysis (each
 * compared, what differs named); the next step continues as the saved model's would, bit for bit.
 * On an error the model is unchanged. */
cl_status cl_dda_restore(cl_dda_model *m, const char *path, cl_error *err);

/* Writes the blocks as a VTU (polygon cells with displacement, velocity, stress, material). */
cl_status cl_dda_write_vtu(cl_dda_model *m, const char *path, cl_error *err);
/* A PNG of the blocks coloured by the length of their displacement since the start. */
cl_status cl_dda_write_png(cl_dda_model *m, const char *path, cl_error *err);

/* Writes the contacts as a VTU: a line cell from each contact vertex to its anchor on the edge
 * (state 0 open, 1 slide, 2 lock; kind 0 VE, 1 VV1, 2 VV2; normal and shear force). */
cl_status cl_dda_write_contacts_vtu(cl_dda_model *m, const char *path, cl_error *err);

#endif
