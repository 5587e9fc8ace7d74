#!/bin/sh
# Installs the Debian packages cleave needs (when missing) and builds it in
# build/ (or $CLEAVE_BUILD). The CUDA backend is built when a CUDA toolkit
# is found (nvcc on PATH or in /usr/local/cuda); set CLEAVE_CUDA=OFF to skip.
# Open MPI is used when found (CLEAVE_MPI=AUTO); CLEAVE_MPI=OFF builds one-rank only.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CLEAVE_BUILD:-$root/build}

packages="build-essential cmake pkg-config liblua5.4-dev lua5.4 lua-lpeg-dev libcriterion-dev
libcairo2-dev libreadline-dev tmux python3 libopenmpi-dev openmpi-bin libsuitesparse-dev libmetis-dev"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing Debian packages:$missing"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi

cuda=${CLEAVE_CUDA:-AUTO}
if [ "$cuda" != "OFF" ] && ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCLEAVE_CUDA="$cuda" -DCLEAVE_MPI="${CLEAVE_MPI:-AUTO}" ${CLEAVE_CMAKE_ARGS:-} >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$jobs" >"$build/build.log" 2>&1 || { tail -50 "$build/build.log"; exit 1; }
if grep -q "CUDA backend ON" "$build/configure.log"; then
  echo "setup: built $build (cpu + cuda backends)"
elif [ "$cuda" = "OFF" ]; then
  echo "setup: built $build (cpu backend; CLEAVE_CUDA=OFF)"
else
  echo "setup: built $build (cpu backend; no CUDA toolkit found)"
fi
