/* The bonds object of cleave.pd, shared by the bonds methods (l_pd_bonds.c)
 * and the step stage (l_pd.c): a CSR bond list or a grid body's lattice. */
#ifndef CL_LUA_PD_BONDS_H
#define CL_LUA_PD_BONDS_H

#include "../kernels/pd/force.h"
#include "../kernels/pd/lattice.h"
#include "../kernels/pd/neighbors.h"
#include "l_util.h"

typedef struct cl_lua_bonds {
  cl_device_ref *device;
  size_t n;
  double delta;
  int lattice;     /* 1: the grid layout l; 0: the list b */
  cl_pd_bonds b;
  cl_pd_lattice l;
} cl_lua_bonds;

cl_lua_bonds *cl_lua_check_bonds(lua_State *L, int idx);

/* The shape of a per-bond field (one value per bond slot, force_args.h): a lattice's rows x k =
 * points x stencil entries, a list's bond entries x 1. */
void cl_lua_bonds_slots(const cl_lua_bonds *b, size_t *rows, int *k);

/* Points the step kernel's bond arguments at b's arrays. */
void cl_lua_bonds_args(const cl_lua_bonds *b, cl_pd_force_args *a);

/* Raises unless x is an f32/f64 field of 2 or 3 components. */
void cl_lua_check_points(lua_State *L, const char *fn, const char *key, cl_field *x);

/* cl.pd.bonds and the bonds metatable into the table on top of the stack. */
void cl_lua_open_pd_bonds(lua_State *L);

#endif
