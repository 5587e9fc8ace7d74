/* write_samples DIR: writes small VTU/PVD files whose every value follows a
 * formula of the point or cell index, for tests/output/check_vtu.py to read
 * back independently. Keep the formulas in step with that script. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/io/vtu.h"

enum { NX = 4, NY = 3, NPOINTS = NX * NY, NTRI = 2 * (NX - 1) * (NY - 1), NCLOUD = 5 };

typedef struct tri_mesh {
  double x[2 * NPOINTS];
  uint8_t types[NTRI];
  int32_t offsets[NTRI + 1], conn[3 * NTRI];
  float temperature[NPOINTS];
  double displacement[2 * NPOINTS];
  int32_t label[NPOINTS];
  uint32_t id[NPOINTS];
  uint8_t flag[NPOINTS];
  double cell_value[NTRI];
} tri_mesh;

/* A 4 x 3 point grid, each quad split into two triangles. */
static void fill_topology(tri_mesh *t) {
  for (int p = 0; p < NPOINTS; p++) {
    t->x[p] = 0.5 * (p % NX);
    t->x[NPOINTS + p] = 0.25 * (p / NX);
  }
  int c = 0;
  for (int j = 0; j + 1 < NY; j++)
    for (int i = 0; i + 1 < NX; i++) {
      int p = j * NX + i;
      int32_t quad[2][3] = {{p, p + 1, p + NX + 1}, {p, p + NX + 1, p + NX}};
      for (int k = 0; k < 2; k++, c++) {
        memcpy(t->conn + 3 * c, quad[k], sizeof quad[k]);
        t->types[c] = CL_VTK_TRIANGLE;
        t->offsets[c + 1] = 3 * (c + 1);
      }
    }
  t->offsets[0] = 0;
}

static void fill_fields(tri_mesh *t) {
  for (int p = 0; p < NPOINTS; p++) {
    t->temperature[p] = 1.5f + 0.25f * (float)p;
    t->displacement[p] = 0.1 * p;
    t->displacement[NPOINTS + p] = -2.0 * p + 0.5;
    t->label[p] = 7 * p - 40;
    t->id[p] = 4000000000u - 3u * (uint32_t)p;
    t->flag[p] = (uint8_t)((37 * p + 11) % 256);
  }
  for (int c = 0; c < NTRI; c++) t->cell_value[c] = 10 + 0.5 * c;
}

static int report(cl_status s, const cl_error *err) {
  if (s != CL_OK) fprintf(stderr, "write_samples: %s\n", err->msg);
  return s != CL_OK;
}

static int write_triangles(const char *dir, const tri_mesh *t) {
  const cl_array_view point_arrays[] = {
      {"temperature", CL_F32, 1, t->temperature}, {"displacement", CL_F64, 2, t->displacement},
      {"label", CL_I32, 1, t->label},             {"id", CL_U32, 1, t->id},
      {"flag", CL_U8, 1, t->flag},
  };
  const cl_array_view cell_arrays[] = {{"cell_value", CL_F64, 1, t->cell_value}};
  cl_mesh_view m = {.npoints = NPOINTS, .dim = 2, .x = t->x, .ncells = NTRI,
                    .cell_types = t->types, .cell_offsets = t->offsets,
                    .connectivity = t->conn, .npoint_arrays = 5, .point_arrays = point_arrays,
                    .ncell_arrays = 1, .cell_arrays = cell_arrays};
  char path[4096];
  cl_error err;
  snprintf(path, sizeof path, "%s/tri_base64.vtu", dir);
  if (report(cl_vtu_write(path, &m, CL_VTU_BASE64, &err), &err)) return 1;
  snprintf(path, sizeof path, "%s/tri_raw.vtu", dir);
  return report(cl_vtu_write(path, &m, CL_VTU_RAW, &err), &err);
}

/* Five 3D points and no cells: written as VTK_VERTEX cells. */
static int write_cloud(const char *dir) {
  double x[3 * NCLOUD], mass[NCLOUD];
  for (int p = 0; p < NCLOUD; p++) {
    x[p] = 0.5 * p;
    x[NCLOUD + p] = 1.0 * p;
    x[2 * NCLOUD + p] = -0.5 * p;
    mass[p] = 1.0 + p * p;
  }
  const cl_array_view arrays[] = {{"mass", CL_F64, 1, mass}};
  cl_mesh_view m = {.npoints = NCLOUD, .dim = 3, .x = x, .npoint_arrays = 1,
                    .point_arrays = arrays};
  char path[4096];
  cl_error err;
  snprintf(path, sizeof path, "%s/points.vtu", dir);
  return report(cl_vtu_write(path, &m, CL_VTU_BASE64, &err), &err);
}

static int write_series(const char *dir) {
  static const char *files[] = {"tri_base64.vtu", "tri_raw.vtu", "points.vtu"};
  char path[4096];
  cl_error err;
  cl_pvd *pvd;
  snprintf(path, sizeof path, "%s/series.pvd", dir);
  if (report(cl_pvd_open(&pvd, path, &err), &err)) return 1;
  int failed = 0;
  for (int i = 0; i < 3 && !failed; i++)
    failed = report(cl_pvd_add(pvd, 0.5 * i, files[i], &err), &err);
  cl_pvd_close(pvd);
  return failed;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: write_samples DIR\n");
    return 2;
  }
  tri_mesh *t = calloc(1, sizeof *t);
  if (!t) return 1;
  fill_topology(t);
  fill_fields(t);
  int failed = write_triangles(argv[1], t) || write_cloud(argv[1]) || write_series(argv[1]);
  free(t);
  return failed;
}
