#!/bin/sh
# first look at a machine of several GPUs: topology, NCCL, the MPI test on GPUs over NCCL, the halo's cost, and
# KW on 1 and N ranks compared (pd_multi_gpu.sh kw). NP=2 on a one-GPU machine: two ranks share it
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp}
nvidia-smi -L; nvidia-smi topo -m 2>&1 | head -8
ls /usr/local/cuda/lib64/ 2>/dev/null | grep -i nccl; ldconfig -p | grep -i nccl
ng=${NP:-$(nvidia-smi -L | wc -l)}
sed 's/cl.device "cpu"/cl.device "cuda"/' "$root/tests/lua/test_mpi_pd.lua" > /tmp/test_mpi_pd_cuda.lua
export LUA_PATH="$root/tests/lua/?.lua;;" CLEAVE_TEST_OUT=/tmp/tmpd CLEAVE_DEVICE=cuda
for np in 1 $ng; do
  echo "== test_mpi_pd cuda np=$np"
  NCCL_DEBUG=WARN timeout 120 sh "$root/scripts/gpu/ranks.sh" $np /tmp/test_mpi_pd_cuda.lua lattice > "$out/mpi_pd_$np.txt" 2>&1; echo "rc=$?"
  tail -5 "$out/mpi_pd_$np.txt"
done
echo "== bench_halo np=$ng"
timeout 120 sh "$root/scripts/gpu/ranks.sh" $ng "$root/scripts/bench/bench_halo.lua" 0.05 200 > "$out/halo.txt" 2>&1; echo "rc=$?"; tail -8 "$out/halo.txt"
echo "== KW 0.1 mm f64 on 1 and $ng ranks"
LIMIT=200 sh "$root/scripts/bench/pd_multi_gpu.sh" kw "1 $ng"
