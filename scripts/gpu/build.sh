#!/bin/sh
# Builds cleave for the GPU machine (CUDA backend for sm_90, Lua and lpeg
# linked statically) in .gpu/build, and gathers the shared libraries that a
# bare Ubuntu GPU host lacks (Cairo, Criterion and their dependencies, the
# lua5.4 interpreter and tmux for the module and REPL tests) into .gpu/lib and
# .gpu/bin. The build tree stays in .gpu-build (its objects make the next build incremental);
# .gpu/build is its copy without objects, packed as .gpu.tgz: carry .gpu.tgz to the GPU machine and run
# scripts/gpu/test.sh (or session.sh) there, which unpack it.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/.gpu
# without MPI and CHOLMOD: their libraries (Open MPI, hwloc, SuiteSparse, BLAS) would not fit the
# 64 MiB the device tool carries; cleave.fe there solves with PCG on the device
CLEAVE_BUILD=$root/.gpu-build CLEAVE_CUDA=ON \
  CLEAVE_CMAKE_ARGS="-DCLEAVE_CUDA_ARCHITECTURES=90 -DCLEAVE_MPI=OFF -DCLEAVE_CHOLMOD=OFF ${CLEAVE_CMAKE_ARGS:-}" \
  "$root/scripts/setup.sh"
rm -rf "$out" && mkdir -p "$out/lib" "$out/bin"
# the build tree without objects (tests/CMakeLists names its executables there, scripts/gpu/test.sh
# links .gpu-build to it on the GPU machine)
mkdir -p "$out/build" && tar -C "$root/.gpu-build" --exclude='*.o' -cf - . | tar -C "$out/build" -xf -
cp "$(command -v lua5.4)" "$(command -v tmux)" "$out/bin/"
cp /usr/lib/x86_64-linux-gnu/liblua5.4-lpeg.so* "$out/lib/" 2>/dev/null || true
# everything the binaries load except the C runtime, which the host has (newer)
skip='libcleave|linux-vdso|ld-linux|libresolv|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libgcc_s|libstdc\+\+|libcuda\.so|libnvrtc'
for exe in "$out/build/cleave" "$out/build/cleave.so" "$out/build/libcleave.so" "$out/build/embed_host" \
           "$out/build/tests/"test_* "$out/bin/"*; do
  ldd "$exe" 2>/dev/null | awk '/=> \// { print $3 }'
done | sort -u | grep -Ev "$skip" | while read -r lib; do cp -L "$lib" "$out/lib/"; done
# the lpeg module for lua5.4 (the module test requires it)
mkdir -p "$out/lua/5.4"
cp -L /usr/lib/x86_64-linux-gnu/lua/5.4/lpeg.so "$out/lua/5.4/" 2>/dev/null || true
# not needed to run the tests there, and the bundle must stay under the 64 MiB the device tool carries
rm -rf "$out/build/CMakeFiles" "$out/build/tests/CMakeFiles" \
  "$out/build/libcleave_core.a" "$out/build/libcleave_lua.a" "$out/build/embedded_lua.c" "$out/build/jit_headers.c"
# debug info would not fit the 64 MiB the device tool carries; symbols stay for backtraces
find "$out/build" "$out/lib" -type f \( -perm -u+x -o -name '*.so*' \) -exec strip --strip-debug {} + 2>/dev/null || true
# the unit tests' symbols too (a failing test is re-run from a full build here)
strip --strip-all "$out/build/tests/"test_* "$out/build/tests/write_samples" 2>/dev/null || true
# carried compressed (about 40% of the 66 MB): scripts/gpu/unpack.sh undoes it on the GPU machine
tar -C "$root" -czf "$root/.gpu.tgz" .gpu
du -sh "$out" "$root/.gpu.tgz"
