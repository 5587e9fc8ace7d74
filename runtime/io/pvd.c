/* .pvd time-series collection: the whole file is rewritten (atomically)
 * after every entry, so ParaView can open it while a run is going on. */
#include <errno.h>
#include <stdio.h>
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

static cl_status pvd_new(cl_pvd **out, const char *path, cl_error *err) {
  *out = NULL;
  if (!path || !path[0]) return cl_error_set(err, CL_ERR_ARG, "pvd: output path is empty");
  cl_pvd *pvd = calloc(1, sizeof *pvd);
  if (pvd) pvd->path = copy_string(path);
  if (!pvd || !pvd->path) {
    free(pvd);
    return cl_error_set(err, CL_ERR_OOM, "pvd: out of memory opening '%s'", path);
  }
  *out = pvd;
  return CL_OK;
}

/* Writes the collection now (which also reports an unwritable folder at once); on failure
 * frees it. */
static cl_status pvd_first_write(cl_pvd **out, cl_error *err) {
  cl_status s = pvd_rewrite(*out, err);
  if (s != CL_OK) cl_pvd_close(*out), *out = NULL;
  return s;
}

cl_status cl_pvd_open(cl_pvd **out, const char *path, cl_error *err) {
  CL_TRY(pvd_new(out, path, err));
  return pvd_first_write(out, err);
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

/* The value of attribute `name` in one entry line, XML entities undone, in out (size n);
 * 0 when the line has no such attribute or it does not fit. */
static int entry_attribute(const char *line, const char *name, char *out, size_t n) {
  char key[32];
  snprintf(key, sizeof key, " %s=\"", name);
  const char *v = strstr(line, key);
  if (!v) return 0;
  v += strlen(key);
  static const char *const entity[][2] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}};
  size_t k = 0;
  while (*v && *v != '"') {
    if (k + 1 >= n) return 0;
    size_t e = 0;
    while (e < 5 && strncmp(v, entity[e][0], strlen(entity[e][0])) != 0) e++;
    if (e < 5) out[k++] = entity[e][1][0], v += strlen(entity[e][0]);
    else out[k++] = *v++;
  }
  out[k] = 0;
  return *v == '"';
}

/* Reads the entries of an existing collection written by cleave whose time is at most `until`
 * (a missing file has none); with pvd NULL only counts them. */
static cl_status pvd_read(cl_pvd *pvd, const char *path, double until, size_t *kept, cl_error *err) {
  *kept = 0;
  FILE *f = fopen(path, "r");
  if (!f) {
    if (errno == ENOENT) return CL_OK;
    return cl_error_set(err, CL_ERR_IO, "pvd: cannot read '%s' to continue it: %s", path, strerror(errno));
  }
  char line[4096], file[4096], time[64];
  cl_status s = CL_OK;
  for (int number = 1; s == CL_OK && fgets(line, sizeof line, f); number++) {
    if (!strstr(line, "<DataSet")) continue;
    char *end = time;
    double t = 0;
    if (entry_attribute(line, "timestep", time, sizeof time)) t = strtod(time, &end);
    if (end == time || *end || !entry_attribute(line, "file", file, sizeof file)) {
      s = cl_error_set(err, CL_ERR_IO,
                       "pvd: line %d of '%s' is not a DataSet entry with a timestep and a file; cannot continue the "
                       "series: remove the file or write the output to another path",
                       number, path);
    } else if (t <= until) {
      (*kept)++;
      if (pvd && (s = pvd_grow(pvd, err)) == CL_OK) {
        char *copy = copy_string(file);
        if (copy) pvd->entries[pvd->count++] = (pvd_entry){t, copy};
        else s = cl_error_set(err, CL_ERR_OOM, "pvd: out of memory reading '%s'", path);
      }
    }
  }
  fclose(f);
  return s;
}

cl_status cl_pvd_continue(cl_pvd **out, const char *path, double until, cl_error *err) {
  CL_TRY(pvd_new(out, path, err));
  size_t kept;
  cl_status s = pvd_read(*out, path, until, &kept, err);
  if (s != CL_OK) {
    cl_pvd_close(*out), *out = NULL;
    return s;
  }
  return pvd_first_write(out, err);
}

cl_status cl_pvd_kept(const char *path, double until, size_t *kept, cl_error *err) {
  return pvd_read(NULL, path, until, kept, err);
}

size_t cl_pvd_count(const cl_pvd *pvd) { return pvd ? pvd->count : 0; }

void cl_pvd_close(cl_pvd *pvd) {
  if (!pvd) return;
  for (size_t i = 0; i < pvd->count; i++) free(pvd->entries[i].file);
  free(pvd->entries);
  free(pvd->path);
  free(pvd);
}
