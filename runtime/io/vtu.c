/* VTK XML UnstructuredGrid writer (version 1.0, UInt64 headers, appended
 * data). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* getpid */
#endif

#include "vtu.h"

#include "atomic_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- base64 ------------------------------------------------------------ */

static void base64_quad(const uint8_t *in, size_t n, char out[4]) {
  static const char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  uint32_t v = (uint32_t)in[0] << 16 | (n > 1 ? (uint32_t)in[1] << 8 : 0) | (n > 2 ? in[2] : 0);
  out[0] = alphabet[v >> 18 & 63];
  out[1] = alphabet[v >> 12 & 63];
  out[2] = n > 1 ? alphabet[v >> 6 & 63] : '=';
  out[3] = n > 2 ? alphabet[v & 63] : '=';
}

/* Encodes the whole buffer as one padded base64 block, in chunks. */
static void write_base64(cl_atomic_file *f, const uint8_t *bytes, size_t n) {
  char chunk[4096];
  size_t used = 0;
  for (size_t i = 0; i < n; i += 3) {
    base64_quad(bytes + i, n - i < 3 ? n - i : 3, chunk + used);
    used += 4;
    if (used == sizeof chunk) {
      cl_atomic_file_write(f, chunk, used);
      used = 0;
    }
  }
  cl_atomic_file_write(f, chunk, used);
}

static size_t base64_length(size_t nbytes) { return (nbytes + 2) / 3 * 4; }

/* ---- arrays as written --------------------------------------------------- */

/* One appended DataArray: n rows of an SoA source with ncomp components. */
typedef struct vtu_array {
  const char *name;
  cl_dtype dtype;
  int ncomp;
  size_t n;
  const void *soa;
} vtu_array;

/* ParaView treats 3-component arrays as vectors, so 2D vectors get z = 0. */
static int written_ncomp(int ncomp) { return ncomp == 2 ? 3 : ncomp; }

static uint64_t payload_bytes(const vtu_array *a) {
  return (uint64_t)a->n * (uint64_t)written_ncomp(a->ncomp) * cl_dtype_size(a->dtype);
}

static uint64_t encoded_bytes(const vtu_array *a, cl_vtu_encoding enc) {
  uint64_t block = sizeof(uint64_t) + payload_bytes(a);
  return enc == CL_VTU_RAW ? block : base64_length(block);
}

static const char *vtk_type_name(cl_dtype t) {
  switch (t) {
    case CL_F32: return "Float32";
    case CL_F64: return "Float64";
    case CL_I32: return "Int32";
    case CL_U32: return "UInt32";
    case CL_U8: return "UInt8";
    default: return "?";
  }
}

/* Header (byte count) followed by the rows interleaved (AoS), padded. */
static uint8_t *pack_block(const vtu_array *a) {
  uint64_t nbytes = payload_bytes(a);
  uint8_t *block = malloc(sizeof nbytes + nbytes);
  if (!block) return NULL;
  memcpy(block, &nbytes, sizeof nbytes);
  size_t size = cl_dtype_size(a->dtype);
  int wcomp = written_ncomp(a->ncomp);
  const uint8_t *src = a->soa;
  uint8_t *dst = block + sizeof nbytes;
  for (size_t i = 0; i < a->n; i++)
    for (int c = 0; c < wcomp; c++, dst += size) {
      if (c < a->ncomp)
        memcpy(dst, src + ((size_t)c * a->n + i) * size, size);
      else
        memset(dst, 0, size);
    }
  return block;
}

static cl_status write_block(cl_atomic_file *f, const vtu_array *a, cl_vtu_encoding enc,
                             cl_error *err) {
  uint8_t *block = pack_block(a);
  if (!block) return cl_error_set(err, CL_ERR_OOM, "out of memory packing array '%s'", a->name);
  size_t n = sizeof(uint64_t) + (size_t)payload_bytes(a);
  if (enc == CL_VTU_RAW)
    cl_atomic_file_write(f, block, n);
  else
    write_base64(f, block, n);
  free(block);
  return CL_OK;
}

/* ---- XML ----------------------------------------------------------------- */

static void write_data_array(cl_atomic_file *f, const vtu_array *a, uint64_t offset) {
  cl_atomic_file_printf(f, "        <DataArray type=\"%s\" Name=\"", vtk_type_name(a->dtype));
  cl_atomic_file_write_xml(f, a->name);
  cl_atomic_file_printf(f, "\" NumberOfComponents=\"%d\" format=\"appended\" offset=\"%llu\"/>\n",
                        written_ncomp(a->ncomp), (unsigned long long)offset);
}

/* Writes the DataArray elements of arrays [first, last) inside <tag>. */
static void write_section(cl_atomic_file *f, const char *tag, const vtu_array *arrays,
                          size_t first, size_t last, const uint64_t *offsets) {
  cl_atomic_file_printf(f, "      <%s>\n", tag);
  for (size_t i = first; i < last; i++) write_data_array(f, &arrays[i], offsets[i]);
  cl_atomic_file_printf(f, "      </%s>\n", tag);
}

static const char *host_byte_order(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one ? "LittleEndian" : "BigEndian";
}

/* ---- validation ---------------------------------------------------------- */

static cl_status check_array(const cl_array_view *a, size_t n, const char *where,
                             cl_error *err) {
  if (!a->name || !a->name[0])
    return cl_error_set(err, CL_ERR_ARG, "vtu: a %s array has no name", where);
  if ((int)a->dtype < 0 || a->dtype >= CL_DTYPE_COUNT)
    return cl_error_set(err, CL_ERR_ARG, "vtu: %s array '%s' has an unknown dtype %d", where,
                        a->name, (int)a->dtype);
  if (a->ncomp < 1)
    return cl_error_set(err, CL_ERR_ARG, "vtu: %s array '%s' has %d components (need >= 1)",
                        where, a->name, a->ncomp);
  if (n > 0 && !a->data)
    return cl_error_set(err, CL_ERR_ARG, "vtu: %s array '%s' has no data", where, a->name);
  return CL_OK;
}

static cl_status check_cells(const cl_mesh_view *m, cl_error *err) {
  if (!m->cell_types || !m->cell_offsets || !m->connectivity)
    return cl_error_set(err, CL_ERR_ARG, "vtu: %zu cells but no types/offsets/connectivity",
                        m->ncells);
  if (m->cell_offsets[0] != 0)
    return cl_error_set(err, CL_ERR_ARG, "vtu: cell_offsets[0] is %d (must be 0)",
                        (int)m->cell_offsets[0]);
  for (size_t c = 0; c < m->ncells; c++)
    if (m->cell_offsets[c + 1] < m->cell_offsets[c])
      return cl_error_set(err, CL_ERR_ARG, "vtu: cell_offsets decrease at cell %zu", c);
  for (int32_t k = 0; k < m->cell_offsets[m->ncells]; k++)
    if (m->connectivity[k] < 0 || (size_t)m->connectivity[k] >= m->npoints)
      return cl_error_set(err, CL_ERR_ARG,
                          "vtu: connectivity[%d] = %d is not a point index (0..%zu)", (int)k,
                          (int)m->connectivity[k], m->npoints ? m->npoints - 1 : 0);
  return CL_OK;
}

static cl_status check_mesh(const char *path, const cl_mesh_view *m, cl_vtu_encoding enc,
                            cl_error *err) {
  if (!path || !m) return cl_error_set(err, CL_ERR_ARG, "vtu: path and mesh are required");
  if (enc != CL_VTU_BASE64 && enc != CL_VTU_RAW)
    return cl_error_set(err, CL_ERR_ARG, "vtu: unknown encoding %d", (int)enc);
  if (m->dim != 2 && m->dim != 3)
    return cl_error_set(err, CL_ERR_ARG, "vtu: dim is %d (must be 2 or 3)", m->dim);
  if (m->npoints > 0 && !m->x)
    return cl_error_set(err, CL_ERR_ARG, "vtu: %zu points but no coordinates", m->npoints);
  if (m->ncells == 0 && m->ncell_arrays > 0)
    return cl_error_set(err, CL_ERR_ARG,
                        "vtu: cell arrays given for a mesh without cells (use point arrays)");
  if (m->npoints > INT32_MAX)
    return cl_error_set(err, CL_ERR_ARG, "vtu: %zu points exceed Int32 connectivity",
                        m->npoints);
  if (m->ncells > 0) CL_TRY(check_cells(m, err));
  if ((m->npoint_arrays && !m->point_arrays) || (m->ncell_arrays && !m->cell_arrays))
    return cl_error_set(err, CL_ERR_ARG, "vtu: array counts given without arrays");
  for (size_t i = 0; i < m->npoint_arrays; i++)
    CL_TRY(check_array(&m->point_arrays[i], m->npoints, "point", err));
  for (size_t i = 0; i < m->ncell_arrays; i++)
    CL_TRY(check_array(&m->cell_arrays[i], m->ncells, "cell", err));
  return CL_OK;
}

/* ---- the grid ------------------------------------------------------------ */

/* Cells as VTK stores them; for a point cloud, one VTK_VERTEX per point. */
typedef struct vtu_cells {
  size_t ncells, nconn;
  const int32_t *connectivity, *end_offsets;
  const uint8_t *types;
  int32_t *owned_ids; /* vertex connectivity and offsets share this buffer */
  uint8_t *owned_types;
} vtu_cells;

static cl_status make_cells(const cl_mesh_view *m, vtu_cells *c, cl_error *err) {
  memset(c, 0, sizeof *c);
  if (m->ncells > 0) {
    c->ncells = m->ncells;
    c->nconn = (size_t)m->cell_offsets[m->ncells];
    c->connectivity = m->connectivity;
    c->end_offsets = m->cell_offsets + 1;
    c->types = m->cell_types;
    return CL_OK;
  }
  size_t n = m->npoints;
  c->owned_ids = malloc(2 * n * sizeof *c->owned_ids + 1);
  c->owned_types = malloc(n + 1);
  if (!c->owned_ids || !c->owned_types) {
    free(c->owned_ids);
    free(c->owned_types);
    return cl_error_set(err, CL_ERR_OOM, "vtu: out of memory for %zu vertex cells", n);
  }
  for (size_t i = 0; i < n; i++) {
    c->owned_ids[i] = (int32_t)i;
    c->owned_ids[n + i] = (int32_t)(i + 1);
    c->owned_types[i] = CL_VTK_VERTEX;
  }
  c->ncells = c->nconn = n;
  c->connectivity = c->owned_ids;
  c->end_offsets = c->owned_ids + n;
  c->types = c->owned_types;
  return CL_OK;
}

static void free_cells(vtu_cells *c) {
  free(c->owned_ids);
  free(c->owned_types);
}

static size_t array_count(const cl_mesh_view *m) {
  return m->npoint_arrays + m->ncell_arrays + 4;
}

/* All appended arrays in file order: point data, cell data, points, cells. */
static void list_arrays(const cl_mesh_view *m, const vtu_cells *c, vtu_array *a) {
  size_t k = 0;
  for (size_t i = 0; i < m->npoint_arrays; i++) {
    const cl_array_view *v = &m->point_arrays[i];
    a[k++] = (vtu_array){v->name, v->dtype, v->ncomp, m->npoints, v->data};
  }
  for (size_t i = 0; i < m->ncell_arrays; i++) {
    const cl_array_view *v = &m->cell_arrays[i];
    a[k++] = (vtu_array){v->name, v->dtype, v->ncomp, m->ncells, v->data};
  }
  a[k++] = (vtu_array){"Points", CL_F64, m->dim, m->npoints, m->x};
  a[k++] = (vtu_array){"connectivity", CL_I32, 1, c->nconn, c->connectivity};
  a[k++] = (vtu_array){"offsets", CL_I32, 1, c->ncells, c->end_offsets};
  a[k] = (vtu_array){"types", CL_U8, 1, c->ncells, c->types};
}

static void write_header_xml(cl_atomic_file *f, const cl_mesh_view *m, const vtu_cells *c,
                             const vtu_array *a, size_t count, const uint64_t *offsets,
                             cl_vtu_encoding enc) {
  size_t npd = m->npoint_arrays, ncd = m->ncell_arrays;
  cl_atomic_file_printf(f,
                        "<?xml version=\"1.0\"?>\n"
                        "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"%s\" "
                        "header_type=\"UInt64\">\n"
                        "  <UnstructuredGrid>\n"
                        "    <Piece NumberOfPoints=\"%zu\" NumberOfCells=\"%zu\">\n",
                        host_byte_order(), m->npoints, c->ncells);
  write_section(f, "PointData", a, 0, npd, offsets);
  write_section(f, "CellData", a, npd, npd + ncd, offsets);
  write_section(f, "Points", a, npd + ncd, npd + ncd + 1, offsets);
  write_section(f, "Cells", a, npd + ncd + 1, count, offsets);
  cl_atomic_file_printf(f,
                        "    </Piece>\n"
                        "  </UnstructuredGrid>\n"
                        "  <AppendedData encoding=\"%s\">\n"
                        "   _",
                        enc == CL_VTU_RAW ? "raw" : "base64");
}

static cl_status write_grid(cl_atomic_file *f, const cl_mesh_view *m, const vtu_cells *c,
                            cl_vtu_encoding enc, cl_error *err) {
  size_t count = array_count(m);
  vtu_array *a = malloc(count * sizeof *a);
  uint64_t *offsets = calloc(count, sizeof *offsets);
  cl_status s = CL_OK;
  if (!a || !offsets) {
    s = cl_error_set(err, CL_ERR_OOM, "vtu: out of memory listing arrays");
  } else {
    list_arrays(m, c, a);
    /* Offsets count bytes (raw) or characters (base64) after the '_'. */
    uint64_t at = 0;
    for (size_t i = 0; i < count; i++) {
      offsets[i] = at;
      at += encoded_bytes(&a[i], enc);
    }
    write_header_xml(f, m, c, a, count, offsets, enc);
    for (size_t i = 0; i < count && s == CL_OK; i++) s = write_block(f, &a[i], enc, err);
    cl_atomic_file_printf(f, "\n  </AppendedData>\n</VTKFile>\n");
  }
  free(a);
  free(offsets);
  return s;
}

cl_status cl_vtu_write(const char *path, const cl_mesh_view *mesh, cl_vtu_encoding enc,
                       cl_error *err) {
  CL_TRY(check_mesh(path, mesh, enc, err));
  vtu_cells cells;
  CL_TRY(make_cells(mesh, &cells, err));
  cl_atomic_file f;
  cl_status s = cl_atomic_file_open(&f, path, err);
  if (s == CL_OK) {
    s = write_grid(&f, mesh, &cells, enc, err);
    if (s == CL_OK)
      s = cl_atomic_file_commit(&f, err);
    else
      cl_atomic_file_abort(&f);
  }
  free_cells(&cells);
  return s;
}

/* ---- .pvtu: the pieces of one data set, written by several ranks ------------------------ */

static void write_parallel_arrays(cl_atomic_file *f, const char *tag, const cl_array_view *v, size_t count) {
  cl_atomic_file_printf(f, "    <%s>\n", tag);
  for (size_t i = 0; i < count; i++) {
    cl_atomic_file_printf(f, "      <PDataArray type=\"%s\" Name=\"", vtk_type_name(v[i].dtype));
    cl_atomic_file_write_xml(f, v[i].name);
    cl_atomic_file_printf(f, "\" NumberOfComponents=\"%d\"/>\n", written_ncomp(v[i].ncomp));
  }
  cl_atomic_file_printf(f, "    </%s>\n", tag);
}

cl_status cl_pvtu_write(const char *path, const cl_mesh_view *mesh, const char *const *pieces, int npieces,
                        cl_error *err) {
  if (npieces < 1) return cl_error_set(err, CL_ERR_ARG, "pvtu '%s': no pieces", path);
  cl_atomic_file f;
  CL_TRY(cl_atomic_file_open(&f, path, err));
  cl_atomic_file_printf(&f,
                        "<?xml version=\"1.0\"?>\n"
                        "<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\"%s\" "
                        "header_type=\"UInt64\">\n"
                        "  <PUnstructuredGrid GhostLevel=\"0\">\n",
                        host_byte_order());
  write_parallel_arrays(&f, "PPointData", mesh->point_arrays, mesh->npoint_arrays);
  write_parallel_arrays(&f, "PCellData", mesh->cell_arrays, mesh->ncell_arrays);
  cl_atomic_file_printf(&f, "    <PPoints>\n      <PDataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"/>\n"
                            "    </PPoints>\n");
  for (int p = 0; p < npieces; p++) {
    cl_atomic_file_printf(&f, "    <Piece Source=\"");
    cl_atomic_file_write_xml(&f, pieces[p]);
    cl_atomic_file_printf(&f, "\"/>\n");
  }
  cl_atomic_file_printf(&f, "  </PUnstructuredGrid>\n</VTKFile>\n");
  return cl_atomic_file_commit(&f, err);
}
