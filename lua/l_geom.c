/* cleave.geom: being written */
#include "l_util.h"
int cl_lua_open_geom(lua_State *L) { (void)L; return 0; }
