/* Helpers shared by the Lua bindings: tables of named arguments, errors,
 * and access to the runtime state kept in the Lua registry. */
#ifndef CL_L_UTIL_H
#define CL_L_UTIL_H

#include <lauxlib.h>
#include <lua.h>

#include "../runtime/field.h"
#include "../runtime/pipeline.h"
#include "../runtime/runtime.h"

#define CL_FIELD_MT "cleave.field"
#define CL_STAGE_MT "cleave.stage"
#define CL_PIPELINE_MT "cleave.pipeline"

/* The runtime of this Lua state (created by luaopen_cleave). */
cl_runtime *cl_lua_runtime(lua_State *L);

/* Creates this state's runtime on device (NULL: $CLEAVE_DEVICE or "auto")
 * unless one exists; fills err when the device cannot be opened. */
cl_status cl_lua_runtime_install(lua_State *L, const char *device, cl_error *err);

/* Raises a Lua error with the runtime error's message. */
int cl_lua_fail(lua_State *L, const cl_error *err);

/* Checks that the argument at idx is a table whose keys are all in valid
 * (NULL-terminated); a misspelt key is an error naming it and the valid ones. */
void cl_lua_check_args(lua_State *L, int idx, const char *fname, const char *const *valid);

/* Named-argument getters: missing and optional -> def; wrong type -> error naming the key.
 * Numbers a user gives must be finite (a default need not be); cl_lua_opt_value takes any
 * number, for data (a field's fill value) rather than a parameter. */
lua_Number cl_lua_opt_number(lua_State *L, int idx, const char *fname, const char *key, lua_Number def);
lua_Number cl_lua_opt_value(lua_State *L, int idx, const char *fname, const char *key, lua_Number def);
lua_Number cl_lua_req_number(lua_State *L, int idx, const char *fname, const char *key);
lua_Integer cl_lua_opt_integer(lua_State *L, int idx, const char *fname, const char *key, lua_Integer def);
/* ... and at least min (given or not): error "argument 'n' must be an integer >= 0, got -1". */
lua_Integer cl_lua_opt_integer_min(lua_State *L, int idx, const char *fname, const char *key, lua_Integer def,
                                   lua_Integer min);
const char *cl_lua_opt_string(lua_State *L, int idx, const char *fname, const char *key, const char *def);
int cl_lua_opt_boolean(lua_State *L, int idx, const char *fname, const char *key, int def);
/* Field argument; optional -> NULL when absent. */
cl_field *cl_lua_opt_field(lua_State *L, int idx, const char *fname, const char *key);
cl_field *cl_lua_req_field(lua_State *L, int idx, const char *fname, const char *key);

/* Stores in user value 1 of the userdata on top of the stack a private copy
 * of the value at idx (a table is copied shallowly), so that what a stage
 * points to stays alive whatever the script does with its own table. */
void cl_lua_keep_args(lua_State *L, int idx);

/* Creates (and leaves on the stack) the metatable `name` of a kind of stage:
 * marked __stage for cleave.pipeline, with s:run([step, t]) as its method. */
void cl_lua_stage_metatable(lua_State *L, const char *name);
/* s:run([step, t]): runs any stage once now; returns the stage. */
int cl_lua_stage_run(lua_State *L);

/* Fills a stage's header and keeps its arguments (index 1) alive, for the
 * stage userdata on top of the stack. */
void cl_lua_stage_init(lua_State *L, cl_stage *stage, const char *name,
                       cl_status (*run)(void *, long, double, cl_error *), void *data, cl_device *device);

/* Field userdata */
cl_field *cl_lua_check_field(lua_State *L, int idx);
cl_field *cl_lua_test_field(lua_State *L, int idx);
void cl_lua_push_field(lua_State *L, cl_field *f); /* takes ownership */

/* A stage userdata (any whose metatable has __stage = true and whose memory
 * starts with a cl_stage), or NULL. */
cl_stage *cl_lua_test_stage(lua_State *L, int idx);

int cl_lua_open_field(lua_State *L);    /* registers cl.field and the metatable */
int cl_lua_open_pipeline(lua_State *L); /* cl.stage, cl.pipeline, cl.run */
int cl_lua_open_io(lua_State *L);       /* cl.io */
int cl_lua_open_device(lua_State *L);   /* cl.device, cl.info */
int cl_lua_open_geom(lua_State *L);     /* cl.geom */
int cl_lua_open_pd(lua_State *L);       /* cl.pd (C part), cl.stage.pd_force */
int cl_lua_open_comm(lua_State *L);     /* cl.comm: the ranks of an MPI job */
int cl_lua_open_czm(lua_State *L);      /* cl.czm (C part): meshes, the device model, its stages */
int cl_lua_open_dda(lua_State *L);      /* cl.dda (C part): the DDA model */
int cl_lua_open_fpm(lua_State *L);      /* cl.fpm (C part): the stages of the finite particle method */
int cl_lua_open_fe(lua_State *L);       /* cl.fe (C part): the quasi-static FE model */

#endif
