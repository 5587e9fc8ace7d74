#include "checkpoint.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"

static const char magic[8] = {'C', 'L', 'V', 'C', 'K', 'P', 'T', '1'};
enum { format_version = 1, max_name = 65535 };

static uint64_t fnv1a(uint64_t h, const void *bytes, size_t n) {
  const unsigned char *p = bytes;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* Writes bytes and folds them into the running checksum. */
typedef struct hashed_file {
  cl_atomic_file file;
  uint64_t hash;
} hashed_file;

static void put(hashed_file *f, const void *bytes, size_t n) {
  cl_atomic_file_write(&f->file, bytes, n);
  f->hash = fnv1a(f->hash, bytes, n);
}

static void put_name(hashed_file *f, const char *name) {
  uint16_t len = (uint16_t)strlen(name);
  put(f, &len, sizeof len);
  put(f, name, len);
}

static cl_status check_names(size_t nvalues, const cl_checkpoint_value *values, size_t narrays,
                             const cl_checkpoint_array *arrays, cl_error *err) {
  for (size_t i = 0; i < nvalues; i++)
    if (!values[i].name || !values[i].name[0] || strlen(values[i].name) > max_name)
      return cl_error_set(err, CL_ERR_ARG, "checkpoint value %zu has no name or one too long", i + 1);
  for (size_t i = 0; i < narrays; i++)
    if (!arrays[i].name || !arrays[i].name[0] || strlen(arrays[i].name) > max_name || arrays[i].k < 1)
      return cl_error_set(err, CL_ERR_ARG, "checkpoint array %zu has no name or no components", i + 1);
  return CL_OK;
}

cl_status cl_checkpoint_write(const char *path, size_t nvalues, const cl_checkpoint_value *values,
                              size_t narrays, const cl_checkpoint_array *arrays, cl_error *err) {
  CL_TRY(check_names(nvalues, values, narrays, arrays, err));
  hashed_file f = {.hash = 14695981039346656037ull};
  CL_TRY(cl_atomic_file_open(&f.file, path, err));
  uint32_t header[3] = {format_version, (uint32_t)nvalues, (uint32_t)narrays};
  put(&f, magic, sizeof magic);
  put(&f, header, sizeof header);
  for (size_t i = 0; i < nvalues; i++) {
    put_name(&f, values[i].name);
    put(&f, &values[i].value, sizeof(double));
  }
  for (size_t i = 0; i < narrays; i++) {
    const cl_checkpoint_array *a = &arrays[i];
    uint8_t type[4] = {(uint8_t)a->dtype, 0, 0, 0};
    uint32_t k = (uint32_t)a->k;
    uint64_t n = a->n;
    put_name(&f, a->name);
    put(&f, type, sizeof type);
    put(&f, &k, sizeof k);
    put(&f, &n, sizeof n);
    put(&f, a->data, a->n * (size_t)a->k * cl_dtype_size(a->dtype));
  }
  uint64_t hash = f.hash;
  cl_atomic_file_write(&f.file, &hash, sizeof hash);
  return cl_atomic_file_commit(&f.file, err);
}

/* A cursor over the loaded file; every read is bounds-checked. */
typedef struct reader {
  const unsigned char *at, *end;
} reader;

static int take(reader *r, void *out, size_t n) {
  if ((size_t)(r->end - r->at) < n) return 0;
  if (out) memcpy(out, r->at, n);
  r->at += n;
  return 1;
}

/* Reads a length-prefixed name into a new NUL-terminated string. */
static int take_name(reader *r, char **name) {
  uint16_t len;
  if (!take(r, &len, sizeof len) || (size_t)(r->end - r->at) < len) return 0;
  *name = malloc((size_t)len + 1);
  if (!*name) return 0;
  memcpy(*name, r->at, len);
  (*name)[len] = '\0';
  r->at += len;
  return 1;
}

static cl_status corrupt(const char *path, const char *what, cl_error *err) {
  return cl_error_set(err, CL_ERR_IO, "checkpoint '%s' is damaged (%s); use another checkpoint", path, what);
}

static cl_status load_file(const char *path, unsigned char **buf, size_t *size, cl_error *err) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return cl_error_set(err, CL_ERR_IO, "cannot read checkpoint '%s': %s", path, strerror(errno));
  long len = fseek(fp, 0, SEEK_END) == 0 ? ftell(fp) : -1;
  cl_status s = CL_OK;
  if (len < 0 || fseek(fp, 0, SEEK_SET) != 0) s = cl_error_set(err, CL_ERR_IO, "cannot size checkpoint '%s'", path);
  else if (!(*buf = malloc((size_t)len + 1))) s = cl_error_set(err, CL_ERR_OOM, "out of host memory reading '%s'", path);
  else if (fread(*buf, 1, (size_t)len, fp) != (size_t)len) s = cl_error_set(err, CL_ERR_IO, "cannot read checkpoint '%s'", path);
  fclose(fp);
  *size = (size_t)len;
  return s;
}

static cl_status parse(const char *path, cl_checkpoint *ck, size_t size, cl_error *err) {
  uint64_t stored;
  if (size < sizeof magic + 12 + sizeof stored || memcmp(ck->buffer, magic, sizeof magic) != 0)
    return cl_error_set(err, CL_ERR_IO, "'%s' is not a cleave checkpoint", path);
  memcpy(&stored, ck->buffer + size - sizeof stored, sizeof stored);
  if (fnv1a(14695981039346656037ull, ck->buffer, size - sizeof stored) != stored)
    return corrupt(path, "checksum mismatch: truncated or modified", err);
  reader r = {ck->buffer + sizeof magic, ck->buffer + size - sizeof stored};
  uint32_t header[3];
  take(&r, header, sizeof header);
  if (header[0] != format_version)
    return cl_error_set(err, CL_ERR_IO, "checkpoint '%s' has format version %u; this cleave reads version %d",
                        path, header[0], format_version);
  ck->values = calloc(header[1] ? header[1] : 1, sizeof *ck->values);
  ck->arrays = calloc(header[2] ? header[2] : 1, sizeof *ck->arrays);
  if (!ck->values || !ck->arrays) return cl_error_set(err, CL_ERR_OOM, "out of host memory reading '%s'", path);
  for (; ck->nvalues < header[1]; ck->nvalues++) {
    cl_checkpoint_value *v = &ck->values[ck->nvalues];
    if (!take_name(&r, (char **)&v->name) || !take(&r, &v->value, sizeof v->value))
      return corrupt(path, "value table", err);
  }
  for (; ck->narrays < header[2]; ck->narrays++) {
    cl_checkpoint_array *a = &ck->arrays[ck->narrays];
    uint8_t type[4];
    uint32_t k;
    uint64_t n;
    if (!take_name(&r, (char **)&a->name)) return corrupt(path, "array name", err);
    if (!take(&r, type, sizeof type) || !take(&r, &k, sizeof k) || !take(&r, &n, sizeof n) ||
        type[0] >= CL_DTYPE_COUNT || k == 0)
      return corrupt(path, "array header", err);
    a->dtype = (cl_dtype)type[0], a->k = (int)k, a->n = (size_t)n;
    size_t bytes = a->n * k * cl_dtype_size(a->dtype);
    if (n > SIZE_MAX / k / 8 || (size_t)(r.end - r.at) < bytes) return corrupt(path, "array data", err);
    a->data = r.at;
    r.at += bytes;
  }
  return r.at == r.end ? CL_OK : corrupt(path, "trailing bytes", err);
}

cl_status cl_checkpoint_read(const char *path, cl_checkpoint **out, cl_error *err) {
  cl_checkpoint *ck = calloc(1, sizeof *ck);
  if (!ck) return cl_error_set(err, CL_ERR_OOM, "out of host memory");
  size_t size = 0;
  cl_status s = load_file(path, &ck->buffer, &size, err);
  if (s == CL_OK) s = parse(path, ck, size, err);
  if (s != CL_OK) {
    cl_checkpoint_free(ck);
    return s;
  }
  *out = ck;
  return CL_OK;
}

void cl_checkpoint_free(cl_checkpoint *ck) {
  if (!ck) return;
  for (size_t i = 0; i < ck->nvalues; i++) free((char *)ck->values[i].name);
  for (size_t i = 0; i < ck->narrays; i++) free((char *)ck->arrays[i].name);
  free(ck->values);
  free(ck->arrays);
  free(ck->buffer);
  free(ck);
}
