/* .pvd time-series collection: the whole file is rewritten (atomically)
 * after every entry, so ParaView can open it while a run is going on. */
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "vtu.h"

typedef struct pvd_entry {
  double time;
  char *file;
} pvd_entry;

struct cl_pvd {
  char *path;
  pvd_entry *entries;
  size_t count, capacity;
};

static char *copy_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *c = malloc(n);
  if (c) memcpy(c, s, n);
  return c;
}

static cl_status pvd_rewrite(const cl_pvd *pvd, cl_error *err) {
  cl_atomic_file f;
  CL_TRY(cl_atomic_file_open(&f, pvd->path, err));
  cl_atomic_file_printf(&f,
                        "<?xml version=\"1.0\"?>\n"
                        "<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
                        "  <Collection>\n");
  for (size_t i = 0; i < pvd->count; i++) {
    cl_atomic_file_printf(&f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"",
                          pvd->entries[i].time);
    cl_atomic_file_write_xml(&f, pvd->entries[i].file);
    cl_atomic_file_printf(&f, "\"/>\n");
  }
  cl_atomic_file_printf(&f, "  </Collection>\n</VTKFile>\n");
  return cl_atomic_file_commit(&f, err);
}

cl_status cl_pvd_open(cl_pvd **out, const char *path, cl_error *err) {
  *out = NULL;
  if (!path || !path[0]) return cl_error_set(err, CL_ERR_ARG, "pvd: output path is empty");
  cl_pvd *pvd = calloc(1, sizeof *pvd);
  if (pvd) pvd->path = copy_string(path);
  if (!pvd || !pvd->path) {
    free(pvd);
    return cl_error_set(err, CL_ERR_OOM, "pvd: out of memory opening '%s'", path);
  }
  /* Writing the empty collection now reports an unwritable folder at once. */
  cl_status s = pvd_rewrite(pvd, err);
  if (s != CL_OK) {
    cl_pvd_close(pvd);
    return s;
  }
  *out = pvd;
  return CL_OK;
}

static cl_status pvd_grow(cl_pvd *pvd, cl_error *err) {
  if (pvd->count < pvd->capacity) return CL_OK;
  size_t capacity = pvd->capacity ? 2 * pvd->capacity : 16;
  pvd_entry *e = realloc(pvd->entries, capacity * sizeof *e);
  if (!e) return cl_error_set(err, CL_ERR_OOM, "pvd: out of memory adding to '%s'", pvd->path);
  pvd->entries = e;
  pvd->capacity = capacity;
  return CL_OK;
}

cl_status cl_pvd_add(cl_pvd *pvd, double time, const char *vtu_file, cl_error *err) {
  if (!pvd || !vtu_file || !vtu_file[0])
    return cl_error_set(err, CL_ERR_ARG, "pvd: an entry needs a collection and a file name");
  CL_TRY(pvd_grow(pvd, err));
  char *file = copy_string(vtu_file);
  if (!file) return cl_error_set(err, CL_ERR_OOM, "pvd: out of memory adding to '%s'", pvd->path);
  pvd->entries[pvd->count++] = (pvd_entry){time, file};
  cl_status s = pvd_rewrite(pvd, err);
  if (s != CL_OK) free(pvd->entries[--pvd->count].file); /* keep memory equal to disk */
  return s;
}

void cl_pvd_close(cl_pvd *pvd) {
  if (!pvd) return;
  for (size_t i = 0; i < pvd->count; i++) free(pvd->entries[i].file);
  free(pvd->entries);
  free(pvd->path);
  free(pvd);
}
