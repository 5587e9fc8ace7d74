/* VTU and PVD writers: XML header, appended data layout, errors. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */
#endif

#include <criterion/criterion.h>
#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "../../runtime/io/vtu.h"
#include "scratch_dir.h"

static void make_dir(void) { scratch_dir_make("cl_vtu"); }

static void remove_dir(void) { scratch_dir_remove(); }

TestSuite(vtu, .init = make_dir, .fini = remove_dir);
TestSuite(pvd, .init = make_dir, .fini = remove_dir);

static const char *in_dir(const char *name) {
  static char path[256];
  snprintf(path, sizeof path, "%s/%s", scratch_dir, name);
  return path;
}

/* Whole file, NUL-terminated (binary data may hold more NULs); *len = size. */
static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *buf = malloc((size_t)n + 1);
  cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
  buf[n] = '\0';
  fclose(f);
  if (len) *len = (size_t)n;
  return buf;
}

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static int count_temp_files(void) {
  DIR *d = opendir(scratch_dir);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += strstr(e->d_name, ".tmp") != NULL;
  closedir(d);
  return n;
}

/* Unit square as two triangles; a 2-vector and a u8 on points, an i32 on cells. */
typedef struct square {
  double x[8];
  uint8_t types[2];
  int32_t offsets[3], conn[6];
  double u[8];
  uint8_t flag[4];
  int32_t cell_id[2];
  cl_array_view point_arrays[2], cell_arrays[1];
  cl_mesh_view mesh;
} square;

static void make_square(square *s) {
  *s = (square){
      .x = {0, 1, 1, 0, 0, 0, 1, 1},
      .types = {CL_VTK_TRIANGLE, CL_VTK_TRIANGLE},
      .offsets = {0, 3, 6},
      .conn = {0, 1, 2, 0, 2, 3},
      .u = {10, 11, 12, 13, 20, 21, 22, 23}, /* SoA: x components, then y */
      .flag = {1, 2, 3, 250},
      .cell_id = {-7, 7},
  };
  s->point_arrays[0] = (cl_array_view){"u", CL_F64, 2, s->u};
  s->point_arrays[1] = (cl_array_view){"flag", CL_U8, 1, s->flag};
  s->cell_arrays[0] = (cl_array_view){"id", CL_I32, 1, s->cell_id};
  s->mesh = (cl_mesh_view){.npoints = 4, .dim = 2, .x = s->x, .ncells = 2,
                           .cell_types = s->types, .cell_offsets = s->offsets,
                           .connectivity = s->conn, .npoint_arrays = 2,
                           .point_arrays = s->point_arrays, .ncell_arrays = 1,
                           .cell_arrays = s->cell_arrays};
}

/* Start of the array called name in the raw appended section (after its header). */
static const unsigned char *raw_array(const char *file, const char *name, uint64_t *nbytes) {
  char key[64];
  snprintf(key, sizeof key, "Name=\"%s\"", name);
  const char *element = strstr(file, key);
  cr_assert_not_null(element, "no array %s", name);
  unsigned long long offset = strtoull(strstr(element, "offset=\"") + 8, NULL, 10);
  const char *marker = strchr(strstr(file, "<AppendedData encoding=\"raw\">"), '_');
  const unsigned char *block = (const unsigned char *)marker + 1 + offset;
  memcpy(nbytes, block, sizeof *nbytes);
  return block + sizeof *nbytes;
}

Test(vtu, base64_file_has_xml_header_and_arrays) {
  square s;
  make_square(&s);
  cl_error err = {0};
  cr_assert_eq(cl_vtu_write(in_dir("a.vtu"), &s.mesh, CL_VTU_BASE64, &err), CL_OK, "%s", err.msg);
  char *text = read_file(in_dir("a.vtu"), NULL);
  const char *head = "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
                     "byte_order=\"LittleEndian\" header_type=\"UInt64\">";
  cr_expect_eq(strncmp(text, head, strlen(head)), 0, "header: %.120s", text);
  cr_expect(strstr(text, "<Piece NumberOfPoints=\"4\" NumberOfCells=\"2\">"));
  cr_expect(strstr(text, "type=\"Float64\" Name=\"u\" NumberOfComponents=\"3\""),
            "2-vectors are padded to 3 components");
  cr_expect(strstr(text, "type=\"UInt8\" Name=\"flag\" NumberOfComponents=\"1\""));
  cr_expect(strstr(text, "<CellData>\n        <DataArray type=\"Int32\" Name=\"id\""));
  cr_expect(strstr(text, "type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\""));
  cr_expect(strstr(text, "type=\"Int32\" Name=\"connectivity\""));
  cr_expect(strstr(text, "type=\"Int32\" Name=\"offsets\""));
  cr_expect(strstr(text, "type=\"UInt8\" Name=\"types\""));
  cr_expect(strstr(text, "<AppendedData encoding=\"base64\">\n   _"));
  cr_expect(strstr(text, "</AppendedData>\n</VTKFile>\n"));
  free(text);
}

Test(vtu, base64_block_encodes_header_and_data_together) {
  double x[2] = {0, 0};
  uint8_t seven = 7;
  cl_array_view a = {"seven", CL_U8, 1, &seven};
  cl_mesh_view m = {.npoints = 1, .dim = 2, .x = x, .npoint_arrays = 1, .point_arrays = &a};
  cl_error err = {0};
  cr_assert_eq(cl_vtu_write(in_dir("one.vtu"), &m, CL_VTU_BASE64, &err), CL_OK, "%s", err.msg);
  char *text = read_file(in_dir("one.vtu"), NULL);
  /* The first block: UInt64 byte count 1, then the byte 7, as one base64 string. */
  cr_expect(strstr(text, "   _AQAAAAAAAAAH"), "%s", strstr(text, "<Append"));
  free(text);
}

Test(vtu, raw_data_is_interleaved_and_padded) {
  square s;
  make_square(&s);
  cl_error err = {0};
  cr_assert_eq(cl_vtu_write(in_dir("r.vtu"), &s.mesh, CL_VTU_RAW, &err), CL_OK, "%s", err.msg);
  char *text = read_file(in_dir("r.vtu"), NULL);
  uint64_t nbytes;
  double u[12], points[12];
  memcpy(u, raw_array(text, "u", &nbytes), sizeof u);
  cr_assert_eq(nbytes, sizeof u);
  for (int i = 0; i < 4; i++) {
    cr_expect_eq(u[3 * i], 10.0 + i);
    cr_expect_eq(u[3 * i + 1], 20.0 + i);
    cr_expect_eq(u[3 * i + 2], 0.0);
  }
  memcpy(points, raw_array(text, "Points", &nbytes), sizeof points);
  cr_assert_eq(nbytes, sizeof points);
  cr_expect(points[3] == 1 && points[4] == 0 && points[5] == 0, "point 1 is (1, 0, 0)");
  cr_expect(points[9] == 0 && points[10] == 1 && points[11] == 0, "point 3 is (0, 1, 0)");
  int32_t offsets[2];
  memcpy(offsets, raw_array(text, "offsets", &nbytes), sizeof offsets);
  cr_expect(nbytes == sizeof offsets && offsets[0] == 3 && offsets[1] == 6,
            "VTK offsets are the end of each cell");
  int32_t id[2];
  memcpy(id, raw_array(text, "id", &nbytes), sizeof id);
  cr_expect(id[0] == -7 && id[1] == 7);
  free(text);
}

Test(vtu, point_cloud_is_written_as_vertex_cells) {
  double x[9] = {0, 1, 2, 0, 0, 0, 5, 5, 5};
  cl_mesh_view m = {.npoints = 3, .dim = 3, .x = x};
  cl_error err = {0};
  cr_assert_eq(cl_vtu_write(in_dir("p.vtu"), &m, CL_VTU_RAW, &err), CL_OK, "%s", err.msg);
  char *text = read_file(in_dir("p.vtu"), NULL);
  cr_expect(strstr(text, "NumberOfPoints=\"3\" NumberOfCells=\"3\""));
  uint64_t nbytes;
  uint8_t types[3];
  int32_t conn[3], offsets[3];
  memcpy(types, raw_array(text, "types", &nbytes), sizeof types);
  memcpy(conn, raw_array(text, "connectivity", &nbytes), sizeof conn);
  memcpy(offsets, raw_array(text, "offsets", &nbytes), sizeof offsets);
  for (int i = 0; i < 3; i++) {
    cr_expect_eq(types[i], CL_VTK_VERTEX);
    cr_expect_eq(conn[i], i);
    cr_expect_eq(offsets[i], i + 1);
  }
  double points[9];
  memcpy(points, raw_array(text, "Points", &nbytes), sizeof points);
  cr_expect(points[6] == 2 && points[7] == 0 && points[8] == 5, "point 2 is (2, 0, 5)");
  free(text);
}

Test(vtu, names_are_xml_escaped) {
  square s;
  make_square(&s);
  s.point_arrays[1].name = "a<b & \"c\"";
  cl_error err = {0};
  cr_assert_eq(cl_vtu_write(in_dir("e.vtu"), &s.mesh, CL_VTU_BASE64, &err), CL_OK, "%s", err.msg);
  char *text = read_file(in_dir("e.vtu"), NULL);
  cr_expect(strstr(text, "Name=\"a&lt;b &amp; &quot;c&quot;\""));
  free(text);
}

Test(vtu, missing_folder_is_an_io_error_naming_the_path) {
  square s;
  make_square(&s);
  const char *path = in_dir("no/such/folder/a.vtu");
  cl_error err = {0};
  cr_assert_eq(cl_vtu_write(path, &s.mesh, CL_VTU_BASE64, &err), CL_ERR_IO);
  cr_expect_eq(err.code, CL_ERR_IO);
  cr_expect(strstr(err.msg, path), "message names the path: %s", err.msg);
  cr_expect(strstr(err.msg, "No such file or directory"), "message gives the reason: %s", err.msg);
  cr_expect(!file_exists(path));
}

Test(vtu, failed_rename_leaves_no_temporary_file) {
  square s;
  make_square(&s);
  const char *path = in_dir("taken");
  cr_assert_eq(mkdir(path, 0755), 0);
  cl_error err = {0};
  cr_expect_eq(cl_vtu_write(path, &s.mesh, CL_VTU_RAW, &err), CL_ERR_IO);
  cr_expect(strstr(err.msg, "taken"), "%s", err.msg);
  cr_expect_eq(count_temp_files(), 0);
}

Test(vtu, failed_write_is_reported_and_cleaned_up) {
  /* A file size limit makes writes fail with EFBIG, as a full disk would with ENOSPC. */
  void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
  struct rlimit old_limit, limit;
  cr_assert_eq(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  limit = (struct rlimit){.rlim_cur = 512, .rlim_max = old_limit.rlim_max};
  cr_assert_eq(setrlimit(RLIMIT_FSIZE, &limit), 0);
  enum { N = 1000 };
  double *x = calloc(2 * N, sizeof *x);
  cl_mesh_view m = {.npoints = N, .dim = 2, .x = x};
  const char *path = in_dir("full.vtu");
  cl_error err = {0};
  cl_status s = cl_vtu_write(path, &m, CL_VTU_BASE64, &err);
  setrlimit(RLIMIT_FSIZE, &old_limit);
  signal(SIGXFSZ, old_handler);
  cr_expect_eq(s, CL_ERR_IO);
  cr_expect(strstr(err.msg, path) && strstr(err.msg, "File too large"), "%s", err.msg);
  cr_expect(!file_exists(path));
  cr_expect_eq(count_temp_files(), 0);
  free(x);
}

Test(vtu, bad_connectivity_is_an_argument_error) {
  square s;
  make_square(&s);
  s.conn[4] = 9;
  cl_error err = {0};
  cr_expect_eq(cl_vtu_write(in_dir("bad.vtu"), &s.mesh, CL_VTU_RAW, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "connectivity[4] = 9"), "%s", err.msg);
  cr_expect(!file_exists(in_dir("bad.vtu")));
}

Test(vtu, large_arrays_keep_offsets_consistent) {
  enum { N = 5000 }; /* base64 output spans several internal chunks */
  double *x = calloc(2 * N, sizeof *x);
  float *v = malloc(N * sizeof *v);
  for (int i = 0; i < N; i++) {
    x[i] = i;
    v[i] = (float)i;
  }
  cl_array_view a = {"v", CL_F32, 1, v};
  cl_mesh_view m = {.npoints = N, .dim = 2, .x = x, .npoint_arrays = 1, .point_arrays = &a};
  cl_error err = {0};
  cr_assert_eq(cl_vtu_write(in_dir("big.vtu"), &m, CL_VTU_BASE64, &err), CL_OK, "%s", err.msg);
  size_t len;
  char *text = read_file(in_dir("big.vtu"), &len);
  /* Blocks: v, Points, connectivity, offsets, types; each padded base64. */
  size_t bytes[] = {4 * N, 24 * N, 4 * N, 4 * N, N}, chars = 0;
  for (int i = 0; i < 5; i++) chars += (8 + bytes[i] + 2) / 3 * 4;
  const char *data = strchr(strstr(text, "<AppendedData"), '_') + 1;
  cr_expect_eq(strcspn(data, "\n"), chars);
  cr_expect(strstr(text, "Name=\"types\" NumberOfComponents=\"1\" format=\"appended\" offset="));
  free(text);
  free(x);
  free(v);
}

Test(pvd, collection_is_valid_after_each_add) {
  cl_pvd *pvd;
  cl_error err = {0};
  const char *path = in_dir("run.pvd");
  cr_assert_eq(cl_pvd_open(&pvd, path, &err), CL_OK, "%s", err.msg);
  char *text = read_file(path, NULL);
  cr_expect(strstr(text, "<VTKFile type=\"Collection\""));
  cr_expect(!strstr(text, "<DataSet"), "a new collection is empty");
  free(text);
  cr_assert_eq(cl_pvd_add(pvd, 0.0, "run_0.vtu", &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_pvd_add(pvd, 2.5e-6, "run_1.vtu", &err), CL_OK, "%s", err.msg);
  text = read_file(path, NULL);
  cr_expect(strstr(text, "<DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"run_0.vtu\"/>"), "%s",
            text);
  cr_expect(strstr(text, "<DataSet timestep=\"2.5000000000000002e-06\" group=\"\" part=\"0\" "
                         "file=\"run_1.vtu\"/>"),
            "%s", text);
  cr_expect(strstr(text, "</Collection>\n</VTKFile>\n"));
  free(text);
  cl_pvd_close(pvd);
  cr_expect_eq(count_temp_files(), 0);
}

Test(pvd, unwritable_folder_fails_at_open) {
  cl_pvd *pvd = (cl_pvd *)&pvd;
  cl_error err = {0};
  const char *path = in_dir("missing/run.pvd");
  cr_expect_eq(cl_pvd_open(&pvd, path, &err), CL_ERR_IO);
  cr_expect_null(pvd);
  cr_expect(strstr(err.msg, path), "%s", err.msg);
  cr_expect(strstr(err.msg, "No such file or directory"), "%s", err.msg);
}
