#!/bin/sh
# Copies Debian's Open MPI runtime (mpirun and its helpers, the libraries, the MCA and PMIx plugins,
# the help texts: about 11 MB, 2.7 MB as .tar.xz) into DEST, relocatable through OPAL_PREFIX, for a GPU
# host without Open MPI (the lean bundle of build.sh is built without MPI: a build with it,
# CLEAVE_MPI=ON, plus this runtime lets 2 ranks share one GPU). There, with D the folder's path:
#   export OPAL_PREFIX=D PMIX_MCA_mca_base_component_path=D/pmix2/lib/pmix
#   export PATH=D/bin:$PATH LD_LIBRARY_PATH=D/lib:$LD_LIBRARY_PATH
#   mpirun --oversubscribe -np 2 cleave run script.lua
# Checked on the development machine: MPI's libraries and MCA components then load from D. PMIx's
# plugins (three small ones) loaded from Debian's folder there, which exists: not checked on a host
# without it.
set -eu
dest=${1:?usage: mpi_runtime.sh DEST}
lib=/usr/lib/x86_64-linux-gnu
mkdir -p "$dest/bin" "$dest/lib/x86_64-linux-gnu/openmpi/lib" "$dest/share" "$dest/pmix2/lib"
cp /usr/bin/orterun /usr/bin/orted "$dest/bin/"
ln -sf orterun "$dest/bin/mpirun"
for l in libmpi.so.40 libopen-rte.so.40 libopen-pal.so.40 libhwloc.so.15 libevent_core-2.1.so.7 \
         libevent_pthreads-2.1.so.7 libpmix.so.2 libmunge.so.2; do
  cp -L "$lib/$l" "$dest/lib/"
done
# the layout OPAL_PREFIX expects: Debian's paths with /usr replaced by DEST
cp -a "$lib/openmpi/lib/openmpi3" "$dest/lib/x86_64-linux-gnu/openmpi/lib/"
cp -a /usr/share/openmpi "$dest/share/"
cp -a "$lib/pmix2/lib/pmix" "$dest/pmix2/lib/"
du -sh "$dest"
