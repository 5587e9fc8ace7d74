/* VTK XML UnstructuredGrid (.vtu) writer, appended binary data, and .pvd
 * time-series collections, as ParaView reads them. Files are written to a
 * temporary name and renamed, so a failure never leaves a partial file. */
#ifndef CL_VTU_H
#define CL_VTU_H

#include <stdio.h>

#include "../status.h"
#include "mesh_view.h"

typedef enum cl_vtu_encoding { CL_VTU_BASE64 = 0, CL_VTU_RAW } cl_vtu_encoding;

cl_status cl_vtu_write(const char *path, const cl_mesh_view *mesh, cl_vtu_encoding enc,
                       cl_error *err);

/* A .pvtu file naming the pieces (file names relative to it) of one data set, each written by
 * cl_vtu_write with the arrays of `mesh` (their names, types and components are taken from it). */
cl_status cl_pvtu_write(const char *path, const cl_mesh_view *mesh, const char *const *pieces, int npieces,
                        cl_error *err);

/* A .pvd collection: each entry is (time, file name relative to the .pvd). */
typedef struct cl_pvd cl_pvd;

cl_status cl_pvd_open(cl_pvd **out, const char *path, cl_error *err);
/* Adds an entry and rewrites the .pvd (atomically), so it is valid after every call. */
cl_status cl_pvd_add(cl_pvd *pvd, double time, const char *vtu_file, cl_error *err);
void cl_pvd_close(cl_pvd *pvd);
/* Continuing a run from a checkpoint: opens the collection at path keeping the entries of an
 * existing one (written by cleave) whose time is at most `until`, dropping those written past
 * it; a missing file starts an empty one. cl_pvd_kept counts those entries without writing (the
 * ranks that do not write the collection need the count to name their pieces). */
cl_status cl_pvd_continue(cl_pvd **out, const char *path, double until, cl_error *err);
cl_status cl_pvd_kept(const char *path, double until, size_t *kept, cl_error *err);
size_t cl_pvd_count(const cl_pvd *pvd);

#endif
