/* The cohesive-FEM model on a device (paper 000, Alhadeff et al.): a T3/T6
 * mesh uploaded in the layout of kernels/czm/czm_args.h, its lumped masses,
 * and the operations of the step (Table III): forces (cohesive, internal,
 * external), the periodic stress check and insertion of cohesive elements
 * by colour, energies. Every array is a cl_field, so scripts and output
 * read them like any other. The cohesive law is a run-time compiled entry
 * point (cleave.jit, kernels/czm/czm_cohesive.h) given by the caller. */
#ifndef CL_CZM_MODEL_H
#define CL_CZM_MODEL_H

#include "czm_args.h"
#include "../../runtime/field.h"
#include "mesh2d_insert.h"
#include "../../runtime/runtime.h"

typedef struct cl_czm_material {
  double E, nu, rho, thickness;
  int plane_strain;
  double sigma_max, tau_max;
  double contact; /* penalty stiffness per area (Pa/m); CL_CZM_CONTACT_AUTO: E / shortest edge */
  int contact_after_breaking; /* keep the penalty on broken faces (default 0: only until the law fails) */
  double friction;            /* Coulomb coefficient on broken faces in contact (needs contact_after_breaking) */
} cl_czm_material;

/* The energies of the model's state (J): strain, kinetic, the work the cohesive law has done on
 * the interfaces and the part of it stored (recoverable; the rest is dissipated), and the same
 * two of the contact penalty and friction. kinetic_staggered is m v(n-1/2) . v(n+1/2) / 2 for the
 * step dt: with it and the trapezoid rule's work velocity Verlet's balance is exact (the kinetic
 * energy at whole steps exceeds it by dt^2/8 sum |f|^2/m, which jumps where insertion splits a
 * node's force between copies and oscillates with the fastest modes). */
typedef struct cl_czm_energy {
  double strain, kinetic, kinetic_staggered, cohesive_work, cohesive_stored, contact_work, contact_stored;
} cl_czm_energy;

#define CL_CZM_CONTACT_AUTO (-1.0)

typedef struct cl_czm_options {
  cl_dtype dtype;         /* CL_F64 or CL_F32 */
  int stored_stiffness;   /* keep each element's K (paper) instead of matrix-free forces */
  int atomic;             /* scatter with atomics instead of colour by colour (GPU only) */
  int block_counter;      /* insertion numbered by Appendix A's block-local counters (GPU; the
                             numbering then depends on timing) instead of the ordered scan */
  int nstate;             /* the cohesive law's state variables and their initial values */
  double state_init[CL_MP_STATE_MAX];
  int state_sn, state_ss; /* 1 + the law's state variable that insertion sets to the facet's normal
                             (shear) stress found by the check, 0: none (see czm_args.h) */
} cl_czm_options;

/* Facet strengths (czm_strength.h): a factor on sigma_max and tau_max per facet. */
typedef struct cl_czm_strength {
  enum { CL_CZM_STRENGTH_UNIFORM, CL_CZM_STRENGTH_WEIBULL, CL_CZM_STRENGTH_CONSTANT } distribution;
  double spread;          /* uniform: the factor lies in [1 - spread, 1 + spread], 0 <= spread < 1 */
  double modulus, area;   /* Weibull: modulus m > 0, reference facet area A0 > 0 (m^2) */
  uint64_t seed;
} cl_czm_strength;

/* Fields of the model, by name (see czm_args.h for their shapes). */
typedef enum cl_czm_field_id {
  CL_CZM_X, CL_CZM_U, CL_CZM_V, CL_CZM_A, CL_CZM_MASS_F, CL_CZM_STRESS_F, CL_CZM_LOAD, CL_CZM_ELEM, CL_CZM_ADJ,
  CL_CZM_COH, CL_CZM_MASK, CL_CZM_COUNTS, CL_CZM_OFFSETS, CL_CZM_COUNTERS, CL_CZM_COH_FORCE, CL_CZM_HIST,
  CL_CZM_STIFF, CL_CZM_SCRATCH, CL_CZM_ORIGIN, CL_CZM_FIXED, CL_CZM_COLOUR, CL_CZM_SPLIT, CL_CZM_STRENGTH,
  CL_CZM_FACET_STRESS, CL_CZM_REACTION, CL_CZM_NFIELDS
} cl_czm_field_id;

typedef struct cl_czm_model {
  cl_czm_args A;              /* device pointers and sizes, kept current */
  cl_device_ref *ref;         /* held: the device outlives the model's buffers */
  cl_device *dev;
  cl_czm_material mat;
  cl_czm_options opt;
  cl_field *f[CL_CZM_NFIELDS];
  cl_field *state[CL_MP_STATE_MAX];
  uint32_t ncolours;
  size_t colour_start[CL_CZM_MAX_COLOURS + 1];
  size_t nn0, interior;       /* nodes and interior facets of the mesh as given */
  double stable_dt;           /* cl_czm_stable_dt's, once computed (0 before) */
  void *cohesive_entry;       /* the compiled cohesive kernel for dev and dtype */
  void *forces_entry;         /* cuda: element and cohesive forces in one launch (atomic scatter) */
  size_t fused_cohesive_threads; /* most threads that launch starts for cohesive Gauss points */
  int has_load;
  struct cl_czm_graph {       /* cuda graphs of runs of steps (cl_czm_advance), and their shape */
    void *graph;
    long steps;
    int check;
    double dt, scale;
    size_t nn_early;          /* A.nn_early it was recorded with: re-recorded once more nodes are in use */
  } graphs[4];
  int next_graph;             /* the entry replaced next */
  int counts_stale;           /* A.nn, A.ncoh behind the device counters (a graph may have inserted) */
  long steps_unchecked;       /* graph steps since the counters were last read */
  int fields_lent;            /* the fields were handed to a caller who frees them */
} cl_czm_model;

/* Uploads mesh m (with its cracks already made on the host, which become traction-free
 * cohesive elements) to dev: colours the elements and numbers them colour by colour, sizes the
 * node arrays for the most nodes insertion can make (nper per element) and the cohesive arrays
 * for every interior facet, computes masses (and K when stored) and the stable time step.
 * Errors: invalid material (each names the parameter), an inverted or degenerate element
 * (cl_mesh2d_check), more colours than CL_CZM_MAX_COLOURS, out of device memory (names the
 * bytes). On failure nothing is left allocated. */
cl_status cl_czm_create(cl_device_ref *dev, const cl_mesh2d *m, const cl_cohesive_list *cracks,
                        const cl_czm_material *mat, const cl_czm_options *opt, cl_czm_model **out, cl_error *err);
/* Frees the model and, unless fields_lent is set (a binding took them over), its fields. */
void cl_czm_destroy(cl_czm_model *z);

/* The stable time step: 2 / the largest frequency of an element with the contact penalty on
 * every edge (Gershgorin bound). */
cl_status cl_czm_stable_dt(cl_czm_model *z, double *dt, cl_error *err);

/* The compiled cohesive kernel and, on cuda, the fused element and cohesive force kernel (may
 * be NULL) for the model's device and precision; the recorded graphs are dropped. */
void cl_czm_set_law(cl_czm_model *z, void *cohesive_entry, void *forces_entry);
/* The load field enters the force accumulators from now on (scaled by the load scale). */
void cl_czm_use_load(cl_czm_model *z);

/* The strength factor of every facet (field "strength", ne x 3, created by the first call): drawn
 * from s, and infinite (never cracks) where `allowed` (NULL: everywhere; else ne x 3 in the
 * model's layout, edge k of element e at k ne + e) is 0. Computed on the host and uploaded, the
 * same values on every device. Errors: a bad parameter of s (named), out of memory. */
cl_status cl_czm_set_strength(cl_czm_model *z, const cl_czm_strength *s, const uint8_t *allowed, cl_error *err);

/* Nodes in use, cohesive elements (read from the device counters). */
cl_status cl_czm_counts(cl_czm_model *z, size_t *nodes, size_t *cohesive, cl_error *err);

/* Accelerations of the current state: external load (scale times the load field), minus
 * internal forces, plus cohesive forces, over the lumped masses; 0 on prescribed components. */
cl_status cl_czm_forces(cl_czm_model *z, double load_scale, cl_error *err);

/* The step in three parts, four launches without insertion (eqs. 1-2 as kick-drift-kick):
 * begin: v += dt/2 a, u += dt v, force accumulators reset to the load (scale for the new time);
 * forces: [every check_every steps cl_czm_check_and_insert], cohesive then element forces;
 * end: a = f / m (0 on prescribed components), v += dt/2 a. */
cl_status cl_czm_step_begin(cl_czm_model *z, double dt, double load_scale, cl_error *err);
cl_status cl_czm_step_forces(cl_czm_model *z, cl_error *err);
cl_status cl_czm_step_end(cl_czm_model *z, double dt, cl_error *err);

/* Seconds per call of each part of the step, the median of `reps` timed calls after one warm-up
 * (device synchronised around each): [0] begin, [1] cohesive kernel, [2] element forces,
 * [3] end, [4] nodal stresses, [5] facet check. For benchmarks: the calls advance the state. */
cl_status cl_czm_profile(cl_czm_model *z, int reps, double seconds[6], cl_error *err);

/* Sets the nodes and cohesive elements in use (after the tables were restored from a
 * checkpoint). Errors: counts beyond the capacities or below the mesh's. */
cl_status cl_czm_set_counts(cl_czm_model *z, size_t nodes, size_t cohesive, cl_error *err);

/* One whole step: begin, [the check and insertion when step is a multiple of check_every > 0],
 * forces, end. */
cl_status cl_czm_step(cl_czm_model *z, long step, int check_every, double dt, double load_scale, cl_error *err);

/* Up to max whole steps from `step`, *taken of them. On the GPU they run as one cuda graph: a
 * check interval (the check, its insertion and masses decided on the device from the counters,
 * then check_every steps with the end of each and the begin of the next in one launch), so a
 * mesh too small to hide launch latency pays no host round trip. The host's node and cohesive
 * counts are read again when next needed, and the cohesive law's NaN flag at least every 1024
 * steps and by cl_czm_flush. On the cpu: one cl_czm_step. */
cl_status cl_czm_advance(cl_czm_model *z, long step, long max, int check_every, double dt, double load_scale,
                         long *taken, cl_error *err);

/* Waits for the device and reads the counters: the error of a NaN traction since the last read. */
cl_status cl_czm_flush(cl_czm_model *z, cl_error *err);

/* Marks component c (0: x, 1: y) of the given nodes (0-based) as prescribed: the step leaves
 * their acceleration 0 (the values themselves are set by the caller's stages), and records the
 * reaction there (the field CL_CZM_REACTION, cap x 5, made by the first call: czm_args.h). */
cl_status cl_czm_fix(cl_czm_model *z, const uint32_t *nodes, size_t count, int c, cl_error *err);

/* The stress check and insertion (Table III, lines 11-27): nodal stresses, facets over the
 * strength marked, cracked colour by colour, masses updated. *inserted gets the number of
 * cohesive elements made. */
cl_status cl_czm_check_and_insert(cl_czm_model *z, size_t *inserted, cl_error *err);

/* Nodal stresses only (averaged: stress[0..2] / stress[3]). */
cl_status cl_czm_stresses(cl_czm_model *z, cl_error *err);

/* Cracks the facets whose owners' bits are set in the mask field (one u8 per element, bit k:
 * edge k; only facets owned by the element, i.e. towards a larger element index, and not yet
 * cracked, may be set), colour by colour. The masses are left to cl_czm_update_masses (the
 * insertion test of the paper times the topology alone). */
cl_status cl_czm_insert_marked(cl_czm_model *z, cl_error *err);

/* The energies of the current state (cl_czm_energy), the staggered kinetic energy for step dt. */
cl_status cl_czm_energies(cl_czm_model *z, double dt, cl_czm_energy *out, cl_error *err);

/* The mesh as it is on the device (elements in the model's order, nodes in use, cohesive
 * elements as the host reference stores them), for cl_mesh2d_topology_check. Free with
 * cl_mesh2d_free / cl_cohesive_list_free. */
cl_status cl_czm_download(cl_czm_model *z, cl_mesh2d *m, cl_cohesive_list *c, cl_error *err);

/* Lumped masses from the current topology. */
cl_status cl_czm_update_masses(cl_czm_model *z, cl_error *err);

#endif
