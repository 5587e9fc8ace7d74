#!/bin/sh
# On the GPU machine: runs a cleave script on NP ranks, one per GPU, from the bundle of
# build_ranks.sh (carried as .gpu-ranks/carry). NCCL comes from the host's CUDA toolkit; NVLink
# multicast stays off (NCCL_NVLS_ENABLE=0: the device tool's notes). Usage: ranks.sh NP script args...
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
d=$root/.gpu-ranks/carry
np=$1; shift
export OPAL_PREFIX=$d/mpi PMIX_MCA_mca_base_component_path=$d/mpi/pmix2/lib/pmix
export PATH=$d/mpi/bin:$PATH
nccl=$(ls -d /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib 2>/dev/null | tr '\n' ':')
export LD_LIBRARY_PATH=$d/mpi/lib:$d/lib:$nccl${LD_LIBRARY_PATH:-}
# the host may have its own (other) PMIx plugins in the same folder as Debian's: their load errors are noise
export PMIX_MCA_mca_base_component_show_load_errors=0
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec mpirun --oversubscribe --bind-to none -np "$np" -x LD_LIBRARY_PATH -x PMIX_MCA_mca_base_component_show_load_errors -x NCCL_NVLS_ENABLE -x PATH \
  -x CLEAVE_DEVICE -x OMP_NUM_THREADS -x NCCL_DEBUG -x LUA_PATH -x CLEAVE_TEST_OUT "$d/run/cleave" run "$@"
