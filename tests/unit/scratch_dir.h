/* A fresh temporary folder per test for the output-writer tests, removed
 * with everything in it afterwards. */
#ifndef CL_TEST_SCRATCH_DIR_H
#define CL_TEST_SCRATCH_DIR_H

#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */
#endif

#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char scratch_dir[64];

static inline void scratch_dir_make(const char *prefix) {
  snprintf(scratch_dir, sizeof scratch_dir, "/tmp/%s_XXXXXX", prefix);
  cr_assert_not_null(mkdtemp(scratch_dir));
}

static inline int scratch_dir_remove_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(p);
}

static inline void scratch_dir_remove(void) {
  nftw(scratch_dir, scratch_dir_remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

#endif
