/* Output files that appear whole or not at all. */
#ifndef CL_ATOMIC_FILE_H
#define CL_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "../status.h"

/* The temporary-file-and-rename step shared by the writers in this folder
 * (VTU, PVD, PNG, checkpoints): output goes to "<path>.tmp<pid>" and only a successful
 * commit renames it to path; any failure removes the temporary file. */
typedef struct cl_atomic_file {
  FILE *fp;
  const char *path; /* final name, borrowed from the caller */
  char *tmp;        /* temporary name, owned */
  int write_errno;  /* first failed write's errno, 0 while all writes succeed */
} cl_atomic_file;

cl_status cl_atomic_file_open(cl_atomic_file *f, const char *path, cl_error *err);
/* Write calls remember the first failure; commit reports it. */
void cl_atomic_file_write(cl_atomic_file *f, const void *bytes, size_t n);
void cl_atomic_file_printf(cl_atomic_file *f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Writes text with the XML special characters escaped, safe inside an attribute. */
void cl_atomic_file_write_xml(cl_atomic_file *f, const char *text);
cl_status cl_atomic_file_commit(cl_atomic_file *f, cl_error *err);
void cl_atomic_file_abort(cl_atomic_file *f);

#endif
