#!/bin/sh
# On the GPU machine: runs a cleave script on NP ranks, one per GPU, from the bundle of
# build_ranks.sh (carried packed as .gpu-ranks.tgz, unpacked into .gpu-ranks/carry). NCCL comes from the host's CUDA toolkit; NVLink
# multicast stays off (NCCL_NVLS_ENABLE=0: the device tool's notes). Usage: ranks.sh NP script args...
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
sh "$root/scripts/gpu/unpack.sh"
d=$root/.gpu-ranks/carry
np=$1; shift
export OPAL_PREFIX=$d/mpi PMIX_MCA_mca_base_component_path=$d/mpi/pmix2/lib/pmix
export PATH=$d/mpi/bin:$PATH
nccl=$(ls -d /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib 2>/dev/null | tr '\n' ':')
export LD_LIBRARY_PATH=$d/mpi/lib:$d/lib:$nccl${LD_LIBRARY_PATH:-}
# the host's own PMIx plugins (another version, in the folder Debian's use) fail to load and say so
export PMIX_MCA_mca_base_component_show_load_errors=0 PMIX_MCA_pcompress_base_silence_warning=1
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
pass=""
for v in LD_LIBRARY_PATH PATH NCCL_NVLS_ENABLE PMIX_MCA_mca_base_component_show_load_errors \
         PMIX_MCA_pcompress_base_silence_warning CLEAVE_DEVICE OMP_NUM_THREADS NCCL_DEBUG LUA_PATH CLEAVE_TEST_OUT; do
  eval "[ -n \"\${$v+set}\" ]" && pass="$pass -x $v"
done
exec mpirun --oversubscribe --bind-to none -np "$np" $pass "$d/run/cleave" run "$@"
