/* The interactive prompt of `cleave` with no arguments. */
#ifndef CL_REPL_H
#define CL_REPL_H

#include <lua.h>

/* Reads, evaluates and prints until end of input (Ctrl-D); returns 0.
 * History is kept in $CLEAVE_HISTORY or ~/.cleave_history. */
int cl_repl(lua_State *L);

#endif
