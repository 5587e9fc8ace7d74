/* Where run-time compiled kernels are cached: $XDG_CACHE_HOME/cleave, else
 * ~/.cache/cleave. The JIT (issue 4) stores its entries here. */
#ifndef CL_CACHE_DIR_H
#define CL_CACHE_DIR_H

#include <stddef.h>

#include "../runtime/status.h"

cl_status cl_jit_cache_dir(char *buf, size_t len);
/* Bytes in regular files under dir (0 when it does not exist). */
size_t cl_jit_cache_size(const char *dir);

#endif
