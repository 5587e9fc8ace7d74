# `cmake --install` of the build into a temporary prefix, then what a user of it does: build
# scripts/embed/host.c against the installed libcleave.so with pkg-config and with
# find_package(cleave), run both, and require "cleave" from the stock lua5.4. Nothing is
# rebuilt: the install copies the objects the build already made.
. "$CLEAVE_SOURCE/tests/cli/lib.sh"
expect_no_out() { grep -qF -- "$1" "$tmp/out" && ko "$2: stdout has '$1'" || ok "$2"; }

prefix=$tmp/prefix
run "$CMAKE" --install "$CLEAVE_BUILD" --prefix "$prefix"
expect_status 0 "cmake --install into a temporary prefix"
pcfile=$(find "$prefix" -name cleave.pc)
lib=$(find "$prefix" -name libcleave.so)
module=$(find "$prefix" -path '*/lua/5.4/cleave.so')
for f in "$prefix/bin/cleave" "$prefix/include/cleave/cleave.h" "$pcfile" "$lib" "$module" \
         "$(dirname "$lib")/cmake/cleave/cleaveConfig.cmake"; do
  [ -n "$f" ] && [ -e "$f" ] && ok "installed ${f#"$prefix"/}" || ko "an installed file is missing: '$f'"
done

# the installed files alone: the header needs no other, the library no other library of ours
run "$prefix/bin/cleave" -e "print(require 'cleave'.field{ n = 3, value = 2 }:sum())"
expect_status 0 "the installed cleave command runs"
expect_out "6.0" "the installed command computes"
run nm -D --defined-only "$lib"
expect_out "cl_run_string" "libcleave.so exports the C API"
grep -v " cl_" "$tmp/out" >"$tmp/foreign" || true
[ ! -s "$tmp/foreign" ] && ok "libcleave.so exports nothing but cl_ symbols (Lua, lpeg, CUDA stay inside)" ||
  ko "libcleave.so exports foreign symbols: $(head -3 "$tmp/foreign" | tr '\n' ' ')"
run sh -c "LC_ALL=C readelf -d '$lib'"
expect_no_out "libcuda" "no link to the GPU driver: it starts on a machine without one"
expect_no_out "liblua" "no link to a system Lua"

# a host built with pkg-config (rpath to the prefix, as the docs advise)
export PKG_CONFIG_PATH="$(dirname "$pcfile")"
run sh -c "cc -o '$tmp/host_pc' '$CLEAVE_SOURCE/scripts/embed/host.c' \
  \$(pkg-config --cflags --libs cleave) -lm -Wl,-rpath,'$(dirname "$lib")'"
expect_status 0 "host.c builds with pkg-config --cflags --libs cleave"
run env $SANITIZER_PRELOAD "$tmp/host_pc" cpu
expect_status 0 "the pkg-config host runs"
expect_out "model.u: 3072 x 1 f64, max |u| = " "the pkg-config host reads a field"
expect_out "os.exit reported: script called os.exit" "os.exit in a script does not end the host"
run env $SANITIZER_PRELOAD "$tmp/host_pc" auto
expect_status 0 "the pkg-config host on the auto device (the GPU when there is one)"

# a host built by a CMake project with find_package(cleave)
run "$CMAKE" -S "$CLEAVE_SOURCE/scripts/embed" -B "$tmp/host_cmake" "-DCMAKE_PREFIX_PATH=$prefix"
expect_status 0 "find_package(cleave) configures"
run "$CMAKE" --build "$tmp/host_cmake"
expect_status 0 "host.c builds against cleave::cleave"
run env $SANITIZER_PRELOAD "$tmp/host_cmake/embed_host" cpu
expect_status 0 "the CMake host runs"
expect_out "model.u: 3072 x 1 f64, max |u| = " "the CMake host reads a field"

# a host with a Lua of its own linked in and exported (-E), as interpreters do: each Lua keeps to itself
cat >"$tmp/own_lua.c" <<'HOST'
#include <stdio.h>
#include <lauxlib.h>
#include <lualib.h>
#include "cleave.h"
int main(void) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  if (luaL_dostring(L, "return 6 * 7") != LUA_OK) return 1;
  printf("host lua: %d\n", (int)lua_tointeger(L, -1));
  cl_context *ctx;
  char msg[256];
  if (cl_context_create(&ctx, "cpu", msg, sizeof msg) != CL_OK) { fprintf(stderr, "%s\n", msg); return 1; }
  if (cl_run_string(ctx, "x = require 'cleave'.field{ n = 4, value = 3 }:sum()") != CL_OK) return 1;
  size_t rows; int k; const char *dtype;
  cl_status s = cl_field_shape(ctx, "x", &rows, &k, &dtype);
  printf("cleave: %s\n", cl_last_error(ctx));
  /* os.exit(true) stops the script with CL_ERR_EXIT; the context and its state go on */
  cl_status e = cl_run_string(ctx, "os.exit(true)");
  printf("os.exit(true): %d %s\n", e == CL_ERR_EXIT, cl_last_error(ctx));
  printf("after it: %s\n", cl_status_name(cl_run_string(ctx, "assert(x == 12)")));
  cl_context_destroy(ctx);
  lua_close(L);
  return s == CL_ERR_ARG ? 0 : 1;
}
HOST
run sh -c "cc -o '$tmp/own_lua' '$tmp/own_lua.c' \$(pkg-config --cflags --libs cleave) \$(pkg-config --cflags lua5.4) \
  -Wl,-Bstatic -llua5.4 -Wl,-Bdynamic -lm -ldl -Wl,-E -Wl,-rpath,'$(dirname "$lib")'"
expect_status 0 "a host with its own Lua builds"
run env $SANITIZER_PRELOAD "$tmp/own_lua"
expect_status 0 "a host with its own Lua runs cleave beside it"
expect_out "host lua: 42" "the host's Lua works"
expect_out "'x' is number, not a field" "cleave's Lua works beside it"
expect_out "os.exit(true): 1 (string):1: os.exit(0): the script stopped here" "os.exit(true) gives CL_ERR_EXIT, code 0"
expect_out "after it: ok" "the context and its state outlive os.exit"

# require "cleave" from the stock interpreter, through the installed module alone
run nm -D --defined-only "$module"
[ "$(awk '{ print $3 }' "$tmp/out")" = luaopen_cleave ] && ok "the module exports its loader alone" ||
  ko "the module exports more than luaopen_cleave"
run env $SANITIZER_PRELOAD LUA_CPATH="$(dirname "$module")/?.so;;" lua5.4 -e "
  local cl = require 'cleave'
  print('module', package.searchpath('cleave', package.cpath), cl.field{ n = 4, value = 2 }:sum())"
expect_status 0 "lua5.4 requires the installed module"
expect_out "module	$module	8.0" "lua5.4 found it where the prefix's Lua paths say"
finish
