/* NCCL for halo exchanges (halo_nccl.h). */
#include "halo_nccl.h"

#include <string.h>

#include "comm.h"

#ifdef CLEAVE_HAVE_NCCL
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>

static struct {
  void *lib;
  ncclResult_t (*get_unique_id)(ncclUniqueId *);
  ncclResult_t (*comm_init_rank)(ncclComm_t *, int, ncclUniqueId, int);
  ncclResult_t (*send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*group_start)(void);
  ncclResult_t (*group_end)(void);
  const char *(*error_string)(ncclResult_t);
  ncclComm_t comm;
  /* the exchanges' own stream, beside the kernels' (the legacy default stream): ordered after the
   * gather by `ready`, before the ghost copies by `done` */
  cudaStream_t stream;
  cudaEvent_t ready, done;
} nccl;

/* Loads libnccl.so.2 and its entry points once; 0 when it is not there. */
static int load(void) {
  if (nccl.lib) return 1;
  void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return 0;
  *(void **)&nccl.get_unique_id = dlsym(lib, "ncclGetUniqueId");
  *(void **)&nccl.comm_init_rank = dlsym(lib, "ncclCommInitRank");
  *(void **)&nccl.send = dlsym(lib, "ncclSend");
  *(void **)&nccl.recv = dlsym(lib, "ncclRecv");
  *(void **)&nccl.group_start = dlsym(lib, "ncclGroupStart");
  *(void **)&nccl.group_end = dlsym(lib, "ncclGroupEnd");
  *(void **)&nccl.error_string = dlsym(lib, "ncclGetErrorString");
  if (!nccl.get_unique_id || !nccl.comm_init_rank || !nccl.send || !nccl.recv || !nccl.group_start ||
      !nccl.group_end || !nccl.error_string) {
    dlclose(lib);
    memset(&nccl, 0, sizeof nccl);
    return 0;
  }
  nccl.lib = lib;
  return 1;
}

#define NCCL_TRY(what, call)                                                                             \
  do {                                                                                                   \
    ncclResult_t nccl_rc_ = (call);                                                                      \
    if (nccl_rc_ != ncclSuccess)                                                                         \
      return cl_error_set(err, CL_ERR_DEVICE, "NCCL %s failed: %s", what, nccl.error_string(nccl_rc_)); \
  } while (0)

int cl_nccl_usable(int gpus, cl_error *why) {
  /* the verdicts of all ranks, so that all take the same transport: [0] a library missing, [1] a
   * host with more ranks than GPUs */
  double bad[2] = {!load(), cl_comm_local_size() > gpus};
  if (cl_comm_allreduce(bad, 2, CL_COMM_MAX, why) != CL_OK) return 0;
  if (bad[0]) {
    cl_error_set(why, CL_ERR_UNAVAILABLE, "NCCL's library (libnccl.so.2) is missing on a host of the job: install "
                 "it beside the CUDA runtime (or add its folder to LD_LIBRARY_PATH)");
    return 0;
  }
  if (bad[1]) {
    cl_error_set(why, CL_ERR_UNAVAILABLE, "a host runs more ranks than it has GPUs (this one: %d ranks, %d GPUs) "
                 "and NCCL refuses two ranks on one GPU: run at most one rank per GPU (mpirun -np, --map-by "
                 "ppr:N:node) or let the halo go through MPI (transport = \"mpi\")", cl_comm_local_size(), gpus);
    return 0;
  }
  return 1;
}

cl_status cl_nccl_open(cl_error *err) {
  if (nccl.comm) return CL_OK;
  if (!load()) return cl_error_set(err, CL_ERR_UNAVAILABLE, "NCCL's library (libnccl.so.2) was not found");
  ncclUniqueId id;
  double words[(sizeof id + sizeof(double) - 1) / sizeof(double)]; /* broadcast as doubles: bytes unchanged */
  memset(words, 0, sizeof words);
  if (cl_comm_rank() == 0) {
    NCCL_TRY("ncclGetUniqueId", nccl.get_unique_id(&id));
    memcpy(words, &id, sizeof id);
  }
  CL_TRY(cl_comm_broadcast(words, sizeof words / sizeof *words, 0, err));
  memcpy(&id, words, sizeof id);
  NCCL_TRY("ncclCommInitRank", nccl.comm_init_rank(&nccl.comm, cl_comm_size(), id, cl_comm_rank()));
  cudaError_t e = cudaStreamCreateWithFlags(&nccl.stream, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaEventCreateWithFlags(&nccl.ready, cudaEventDisableTiming);
  if (e == cudaSuccess) e = cudaEventCreateWithFlags(&nccl.done, cudaEventDisableTiming);
  if (e != cudaSuccess) return cl_error_set(err, CL_ERR_DEVICE, "NCCL halo stream: %s", cudaGetErrorString(e));
  return CL_OK;
}

#define CUDA_HALO_TRY(call)                                                                                   \
  do {                                                                                                        \
    cudaError_t cuda_rc_ = (call);                                                                            \
    if (cuda_rc_ != cudaSuccess) return cl_error_set(err, CL_ERR_DEVICE, "NCCL halo exchange: %s", cudaGetErrorString(cuda_rc_)); \
  } while (0)

cl_status cl_nccl_exchange_start(int npeers, const int *peers, void *const *send, const size_t *send_bytes,
                                 void *const *recv, const size_t *recv_bytes, cl_error *err) {
  CL_TRY(cl_nccl_open(err));
  CUDA_HALO_TRY(cudaEventRecord(nccl.ready, 0)); /* after what the kernels' stream has queued: the gather */
  CUDA_HALO_TRY(cudaStreamWaitEvent(nccl.stream, nccl.ready, 0));
  NCCL_TRY("ncclGroupStart", nccl.group_start());
  for (int p = 0; p < npeers; p++) {
    if (send_bytes[p]) NCCL_TRY("ncclSend", nccl.send(send[p], send_bytes[p], ncclUint8, peers[p], nccl.comm, nccl.stream));
    if (recv_bytes[p]) NCCL_TRY("ncclRecv", nccl.recv(recv[p], recv_bytes[p], ncclUint8, peers[p], nccl.comm, nccl.stream));
  }
  NCCL_TRY("ncclGroupEnd", nccl.group_end());
  CUDA_HALO_TRY(cudaEventRecord(nccl.done, nccl.stream));
  return CL_OK;
}

cl_status cl_nccl_exchange_finish(cl_error *err) {
  if (!nccl.comm) return CL_OK;
  CUDA_HALO_TRY(cudaStreamWaitEvent(0, nccl.done, 0)); /* what the kernels' stream queues next waits for it */
  return CL_OK;
}

cl_status cl_nccl_exchange(int npeers, const int *peers, void *const *send, const size_t *send_bytes,
                           void *const *recv, const size_t *recv_bytes, cl_error *err) {
  CL_TRY(cl_nccl_exchange_start(npeers, peers, send, send_bytes, recv, recv_bytes, err));
  CL_TRY(cl_nccl_exchange_finish(err));
  CUDA_HALO_TRY(cudaStreamSynchronize(0));
  return CL_OK;
}

#else

static cl_status without(cl_error *err) {
  return cl_error_set(err, CL_ERR_UNAVAILABLE, "this cleave was built without NCCL (it needs the CUDA backend and "
                      "nccl.h, found by CMake with CLEAVE_NCCL=AUTO or ON): rebuild it so, or let the halo go "
                      "through MPI (transport = \"mpi\")");
}

int cl_nccl_usable(int gpus, cl_error *why) {
  (void)gpus;
  without(why);
  return 0;
}

cl_status cl_nccl_open(cl_error *err) { return without(err); }

cl_status cl_nccl_exchange(int npeers, const int *peers, void *const *send, const size_t *send_bytes,
                           void *const *recv, const size_t *recv_bytes, cl_error *err) {
  (void)npeers, (void)peers, (void)send, (void)send_bytes, (void)recv, (void)recv_bytes;
  return without(err);
}

cl_status cl_nccl_exchange_start(int npeers, const int *peers, void *const *send, const size_t *send_bytes,
                                 void *const *recv, const size_t *recv_bytes, cl_error *err) {
  return cl_nccl_exchange(npeers, peers, send, send_bytes, recv, recv_bytes, err);
}

cl_status cl_nccl_exchange_finish(cl_error *err) { return without(err); }

#endif
