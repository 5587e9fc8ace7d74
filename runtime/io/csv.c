/* CSV time histories. Each row is flushed as it is written, so a history
 * is readable (and survives a crash) while the run goes on. */
#include "csv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cl_csv {
  FILE *fp;
  size_t ncols;
  char *path;
};

static cl_status csv_io_error(cl_error *err, const char *path, int errnum) {
  return cl_error_set(err, CL_ERR_IO,
                      "cannot write '%s': %s (create the folder first or choose another path)",
                      path, strerror(errnum ? errnum : EIO));
}

/* Quotes a column name only when it holds a separator, quote or newline. */
static int write_name(FILE *fp, const char *name) {
  if (!strpbrk(name, ",\"\r\n")) return fputs(name, fp) < 0 ? -1 : 0;
  if (fputc('"', fp) == EOF) return -1;
  for (const char *c = name; *c; c++) {
    if (*c == '"' && fputc('"', fp) == EOF) return -1;
    if (fputc(*c, fp) == EOF) return -1;
  }
  return fputc('"', fp) == EOF ? -1 : 0;
}

static int write_header(FILE *fp, size_t ncols, const char *const *names) {
  for (size_t i = 0; i < ncols; i++) {
    if (i > 0 && fputc(',', fp) == EOF) return -1;
    if (write_name(fp, names[i]) != 0) return -1;
  }
  return fputc('\n', fp) == EOF || fflush(fp) != 0 ? -1 : 0;
}

static cl_status check_names(size_t ncols, const char *const *names, cl_error *err) {
  if (ncols == 0 || !names)
    return cl_error_set(err, CL_ERR_ARG, "csv: at least one column name is required");
  for (size_t i = 0; i < ncols; i++)
    if (!names[i]) return cl_error_set(err, CL_ERR_ARG, "csv: column %zu has no name", i + 1);
  return CL_OK;
}

/* Opens for writing ("w") or appending ("a"); the header goes into an empty file. */
static cl_status csv_open(cl_csv **out, const char *path, size_t ncols, const char *const *names, const char *mode,
                          cl_error *err) {
  *out = NULL;
  if (!path || !path[0]) return cl_error_set(err, CL_ERR_ARG, "csv: output path is empty");
  CL_TRY(check_names(ncols, names, err));
  cl_csv *csv = calloc(1, sizeof *csv);
  size_t len = strlen(path) + 1;
  if (csv) csv->path = malloc(len);
  if (!csv || !csv->path) {
    free(csv);
    return cl_error_set(err, CL_ERR_OOM, "csv: out of memory opening '%s'", path);
  }
  memcpy(csv->path, path, len);
  csv->ncols = ncols;
  csv->fp = fopen(path, mode);
  if (!csv->fp || fseek(csv->fp, 0, SEEK_END) != 0 ||
      (ftell(csv->fp) == 0 && write_header(csv->fp, ncols, names) != 0)) {
    cl_status s = csv_io_error(err, path, errno);
    cl_csv_close(csv);
    return s;
  }
  *out = csv;
  return CL_OK;
}

cl_status cl_csv_open(cl_csv **out, const char *path, size_t ncols, const char *const *names,
                      cl_error *err) {
  return csv_open(out, path, ncols, names, "w", err);
}

cl_status cl_csv_append(cl_csv **out, const char *path, size_t ncols, const char *const *names,
                        cl_error *err) {
  return csv_open(out, path, ncols, names, "a", err);
}

cl_status cl_csv_row(cl_csv *csv, const double *values, cl_error *err) {
  if (!csv || !values) return cl_error_set(err, CL_ERR_ARG, "csv: row needs a file and values");
  for (size_t i = 0; i < csv->ncols; i++)
    if (fprintf(csv->fp, i ? ",%.17g" : "%.17g", values[i]) < 0)
      return csv_io_error(err, csv->path, errno);
  if (fputc('\n', csv->fp) == EOF || fflush(csv->fp) != 0)
    return csv_io_error(err, csv->path, errno);
  return CL_OK;
}

void cl_csv_close(cl_csv *csv) {
  if (!csv) return;
  if (csv->fp) fclose(csv->fp);
  free(csv->path);
  free(csv);
}
