/* NCCL between the GPUs of the job's ranks, for halo exchanges (lua/l_halo.c; docs/scale-out.md).
 * The library is loaded at run time (dlopen of libnccl.so.2: the binary starts without it) and its
 * communicator is bootstrapped through MPI (ncclGetUniqueId on rank 0, broadcast, ncclCommInitRank).
 * NCCL refuses two ranks on one GPU: it needs one GPU per rank on every host. Built only with
 * CLEAVE_NCCL (CMake found nccl.h with the CUDA backend); otherwise every call says so. */
#ifndef CL_HALO_NCCL_H
#define CL_HALO_NCCL_H

#include <stddef.h>

#include "status.h"

/* Whether NCCL can move this job's halos, on every rank alike (a collective call): 1, or 0 with
 * *why filled (built without it, the library missing, ranks sharing a GPU). gpus: this host's. */
int cl_nccl_usable(int gpus, cl_error *why);
/* The communicator (once per process, collective), on the current GPU. */
cl_status cl_nccl_open(cl_error *err);
/* As cl_comm_exchange, with device buffers of the current GPU: send[p] to peers[p], recv[p] from it;
 * returns when all have arrived. */
cl_status cl_nccl_exchange(int npeers, const int *peers, void *const *send, const size_t *send_bytes,
                           void *const *recv, const size_t *recv_bytes, cl_error *err);
/* The same without waiting on the host: _start queues the exchange on NCCL's own stream after what
 * the legacy default stream (the kernels') holds so far, and returns; kernels queued next run beside
 * it; _finish makes what the default stream queues after it wait until the exchange is done. */
cl_status cl_nccl_exchange_start(int npeers, const int *peers, void *const *send, const size_t *send_bytes,
                                 void *const *recv, const size_t *recv_bytes, cl_error *err);
cl_status cl_nccl_exchange_finish(cl_error *err);

#endif
