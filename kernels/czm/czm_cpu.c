/* The cohesive-FEM operations as OpenMP loops (czm.h holds the physics). */
#include "czm.h"
#include "czm_kernels.h"

static void run_elements(const cl_czm_args *A, int op, void *out, const int order) {
  const size_t first = A->first, end = A->first + A->count;
  if (op == CL_CZM_CHECK) {
    uint64_t marked = 0;
#pragma omp parallel for schedule(static) reduction(+ : marked)
    for (size_t e = first; e < end; e++) marked += (uint64_t)cl_czm_facet_check(A, order, e);
    A->counters[3] += marked;
    return;
  }
#pragma omp parallel for schedule(static)
  for (size_t e = first; e < end; e++) switch (op) {
      case CL_CZM_FORCE: cl_czm_element_force(A, order, e); break;
      case CL_CZM_MASS: cl_czm_element_mass(A, order, e); break;
      case CL_CZM_STRESS: cl_czm_element_stress(A, order, e); break;
      case CL_CZM_STIFFNESS: cl_czm_store_stiffness(A, order, e, (real *)A->stiffness); break;
      case CL_CZM_ENERGY: ((real *)out)[e] = cl_czm_element_energy(A, order, e); break;
      default: break;
    }
}

/* Nodal stresses or masses from every element, colour by colour. */
static void scatter_colours(const cl_czm_args *A, int op, const int order) {
  for (int j = 0; j < A->ncolours; j++) {
#pragma omp parallel for schedule(static)
    for (size_t e = A->colour_range[j]; e < A->colour_range[j + 1]; e++) {
      if (op == CL_CZM_STRESS) cl_czm_element_stress(A, order, e);
      else cl_czm_element_mass(A, order, e);
    }
  }
}

/* CL_CZM_INSERT: [the nodal stresses (zeroed before) and the facet check, then] the colours with
 * marks in turn, as the cuda kernel does in one launch. */
static void insert_colours(const cl_czm_args *A, const int order) {
  if (A->insert_check) {
    scatter_colours(A, CL_CZM_STRESS, order);
    cl_czm_args all = *A;
    all.first = 0, all.count = A->ne;
    run_elements(&all, CL_CZM_CHECK, NULL, order);
  }
  uint64_t inserted = 0;
  for (int j = 0; j < A->ncolours; j++) {
    if (!A->counters[4 + j]) continue;
    const size_t first = A->colour_range[j], end = A->colour_range[j + 1];
#pragma omp parallel for schedule(static)
    for (size_t e = first; e < end; e++) A->counts[e] = cl_czm_insert_count(A, order, e);
    uint64_t sum = 0;
    for (size_t e = first; e < end; e++) A->offsets[e] = sum, sum += A->counts[e];
#pragma omp parallel for schedule(static)
    for (size_t e = first; e < end; e++) cl_czm_insert_apply(A, order, e);
    A->counters[0] += sum >> 32, A->counters[1] += sum & 0xffffffffu, inserted += sum;
  }
  if (!inserted || !A->insert_masses) return;
  for (size_t i = 0; i < A->counters[0]; i++) ((real *)A->mass)[i] = 0;
  scatter_colours(A, CL_CZM_MASS, order);
}

void CL_PREC(cl_czm_run_cpu)(const cl_czm_args *A, int op, void *out) {
  const size_t first = A->first, end = A->first + A->count;
  if (op < CL_CZM_FORCE) {
#pragma omp parallel for schedule(static)
    for (size_t i = first; i < end; i++) cl_czm_node_op(A, op, i, out);
    return;
  }
  switch (op) {
    case CL_CZM_INSERT:
      if (A->order == 2) insert_colours(A, 2);
      else insert_colours(A, 1);
      return;
    default:
      if (A->order == 2) run_elements(A, op, out, 2);
      else run_elements(A, op, out, 1);
  }
}
