#!/bin/sh
# On the GPU machine: unpacks the bundles carried compressed (.gpu.tgz from build.sh into .gpu,
# .gpu-ranks.tgz from build_ranks.sh into .gpu-ranks/carry: uncompressed they would pass the
# 64 MiB the device tool carries) unless the same archive was unpacked already (a warm machine
# keeps the last call's files).
root=$(cd "$(dirname "$0")/../.." && pwd)
for pair in .gpu.tgz:.gpu .gpu-ranks.tgz:.gpu-ranks/carry; do
  archive=$root/${pair%%:*} dir=$root/${pair#*:}
  [ -f "$archive" ] || continue
  sum=$(md5sum "$archive" | cut -d' ' -f1)
  [ "$(cat "$dir/.unpacked" 2>/dev/null)" = "$sum" ] && continue
  rm -rf "$dir" && tar -C "$root" -xzf "$archive" && echo "$sum" >"$dir/.unpacked"
done
