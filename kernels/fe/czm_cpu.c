/* The cohesive-FEM operations as OpenMP loops (czm.h holds the physics). */
#include "czm.h"
#include "czm_kernels.h"

static void run_elements(const cl_czm_args *A, int op, void *out, const int order) {
  const size_t first = A->first, end = A->first + A->count;
  if (op == CL_CZM_SCAN) { /* serial: a colour's range, and cheap next to the passes around it */
    uint64_t sum = 0;
    for (size_t e = first; e < end; e++) A->offsets[e] = sum, sum += A->counts[e];
    return;
  }
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
      case CL_CZM_COUNT: A->counts[e] = cl_czm_insert_count(A, order, e); break;
      case CL_CZM_APPLY: cl_czm_insert_apply(A, order, e); break;
      default: break;
    }
}

void CL_PREC(cl_czm_run_cpu)(const cl_czm_args *A, int op, void *out) {
  const size_t first = A->first, end = A->first + A->count;
  if (op < CL_CZM_FORCE) {
#pragma omp parallel for schedule(static)
    for (size_t i = first; i < end; i++) cl_czm_node_op(A, op, i, out);
    return;
  }
  switch (op) {
    case CL_CZM_ADVANCE:
      if (A->count) {
        const uint64_t total = A->offsets[end - 1] + A->counts[end - 1];
        A->counters[0] += total >> 32, A->counters[1] += total & 0xffffffffu;
      }
      return;
    default:
      if (A->order == 2) run_elements(A, op, out, 2);
      else run_elements(A, op, out, 1);
  }
}
