/* The communicator of a build without MPI: one rank; collectives are copies. */
#include <stdlib.h>
#include <string.h>

#include "comm.h"

/* Under mpirun this build would run the whole model once per rank, each believing it is alone. */
cl_status cl_comm_init(cl_error *err) {
  const char *ranks = getenv("OMPI_COMM_WORLD_SIZE");
  if (!ranks) ranks = getenv("PMI_SIZE");
  if (ranks && atoi(ranks) > 1)
    return cl_error_set(err, CL_ERR_UNAVAILABLE, "this cleave was built without MPI but runs under mpirun with %s "
                        "ranks: rebuild it with Open MPI (scripts/setup.sh installs libopenmpi-dev; CLEAVE_MPI=ON) "
                        "or run it without mpirun", ranks);
  return CL_OK;
}
int cl_comm_rank(void) { return 0; }
int cl_comm_size(void) { return 1; }
int cl_comm_local_rank(void) { return 0; }
int cl_comm_local_size(void) { return 1; }
const char *cl_comm_engine(void) { return "none (built without MPI: one rank)"; }

cl_status cl_comm_barrier(cl_error *err) {
  (void)err;
  return CL_OK;
}

cl_status cl_comm_allreduce(double *values, size_t count, cl_comm_op op, cl_error *err) {
  (void)values, (void)count, (void)op, (void)err;
  return CL_OK;
}

cl_status cl_comm_broadcast(double *values, size_t count, int root, cl_error *err) {
  (void)values, (void)count;
  if (root != 0) return cl_error_set(err, CL_ERR_ARG, "cl_comm_broadcast: root %d is not a rank of a 1-rank job", root);
  return CL_OK;
}

cl_status cl_comm_gather(const double *send, size_t count, double *recv, int root, cl_error *err) {
  if (root != 0) return cl_error_set(err, CL_ERR_ARG, "cl_comm_gather: root %d is not a rank of a 1-rank job", root);
  if (count) memcpy(recv, send, count * sizeof *send);
  return CL_OK;
}

cl_status cl_comm_gatherv(const void *send, size_t bytes, void *recv, const size_t *counts, int root, cl_error *err) {
  (void)counts;
  if (root != 0) return cl_error_set(err, CL_ERR_ARG, "cl_comm_gatherv: root %d is not a rank of a 1-rank job", root);
  if (bytes) memcpy(recv, send, bytes);
  return CL_OK;
}

cl_status cl_comm_exchange(int npeers, const int *peers, void *const *send, const size_t *send_bytes,
                           void *const *recv, const size_t *recv_bytes, cl_error *err) {
  (void)peers, (void)send, (void)send_bytes, (void)recv, (void)recv_bytes;
  if (npeers) return cl_error_set(err, CL_ERR_ARG, "cl_comm_exchange: a 1-rank job has no peers");
  return CL_OK;
}

cl_status cl_comm_exchange_start(int npeers, const int *peers, void *const *send, const size_t *send_bytes,
                                 void *const *recv, const size_t *recv_bytes, cl_comm_pending **pending, cl_error *err) {
  *pending = NULL;
  return cl_comm_exchange(npeers, peers, send, send_bytes, recv, recv_bytes, err);
}

cl_status cl_comm_exchange_finish(cl_comm_pending **pending, cl_error *err) {
  (void)pending, (void)err;
  return CL_OK;
}

void cl_comm_abort(int code) { (void)code; }
