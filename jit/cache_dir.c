#define _XOPEN_SOURCE 700
#include "cache_dir.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

cl_status cl_jit_cache_dir(char *buf, size_t len) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n;
  if (xdg && *xdg) n = snprintf(buf, len, "%s/cleave", xdg);
  else if (home && *home) n = snprintf(buf, len, "%s/.cache/cleave", home);
  else return CL_ERR_UNAVAILABLE;
  return n > 0 && (size_t)n < len ? CL_OK : CL_ERR_ARG;
}

static size_t walked_bytes;

static int add_file(const char *path, const struct stat *st, int type, struct FTW *ftw) {
  (void)path, (void)ftw;
  if (type == FTW_F) walked_bytes += (size_t)st->st_size;
  return 0;
}

size_t cl_jit_cache_size(const char *dir) {
  walked_bytes = 0;
  nftw(dir, add_file, 16, FTW_PHYS);
  return walked_bytes;
}
