#!/bin/sh
# Builds the bundle for runs over several ranks on the GPU machine (issue 18) in .gpu-ranks/carry:
# the cleave binary of the default build (scripts/setup.sh's, made sure to have MPI, NCCL and sm_90),
# the shared libraries a bare Ubuntu GPU host lacks and Debian's Open MPI runtime
# (scripts/gpu/mpi_runtime.sh). Only the binary: the test suite runs from the bundle of build.sh.
# Packed as .gpu-ranks.tgz it travels with .gpu.tgz in one call (carry both).
# There: sh scripts/gpu/ranks.sh NP script.lua args...
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/.gpu-ranks
build=${CLEAVE_BUILD:-$root/build}
CLEAVE_BUILD=$build CLEAVE_CUDA=ON \
  CLEAVE_CMAKE_ARGS="-DCLEAVE_CUDA_ARCHITECTURES=90 -DCLEAVE_MPI=ON -DCLEAVE_NCCL=ON ${CLEAVE_CMAKE_ARGS:-}" \
  "$root/scripts/setup.sh"
rm -rf "$out/lib" "$out/mpi" "$out/run"
mkdir -p "$out/lib" "$out/run"
cp "$build/cleave" "$out/run/"
# what the binary loads except the C runtime and the CUDA driver/NVRTC/NCCL, which the host has
skip='libcleave|linux-vdso|ld-linux|libresolv|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libgcc_s|libstdc\+\+|libcuda\.so|libnvrtc|libnccl'
ldd "$out/run/cleave" | awk '/=> \// { print $3 }' | sort -u | grep -Ev "$skip" | while read -r lib; do cp -L "$lib" "$out/lib/"; done
sh "$root/scripts/gpu/mpi_runtime.sh" "$out/mpi" >/dev/null
# the Lua library is embedded in the binary: no build tree travels
rm -rf "$out/carry" && mkdir -p "$out/carry"
mv "$out/run" "$out/lib" "$out/mpi" "$out/carry/"
find "$out/carry" -type f \( -perm -u+x -o -name '*.so*' \) -exec strip --strip-debug {} + 2>/dev/null || true
# carried compressed (scripts/gpu/unpack.sh undoes it there), so that it travels with .gpu.tgz
tar -C "$root" -czf "$root/.gpu-ranks.tgz" .gpu-ranks/carry
du -sh "$out/carry" "$root/.gpu-ranks.tgz"
