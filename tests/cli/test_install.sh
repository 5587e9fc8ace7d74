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
[ ! -s "$tmp/foreign" ] && ok "libcleave.so exports nothing but cl_ symbols (its internals and CUDA runtime stay inside)" ||
  ko "libcleave.so exports foreign symbols: $(head -3 "$tmp/foreign" | tr '\n' ' ')"
run sh -c "LC_ALL=C readelf -d '$lib'"
expect_no_out "libcuda" "no link to the GPU driver: it starts on a machine without one"
expect_out "[liblua5.4.so.0]" "libcleave.so links Debian's shared Lua 5.4"
expect_out "[liblua5.4-lpeg.so.2]" "libcleave.so links Debian's shared lpeg"

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
# without Debian's Lua or lpeg (the library libcleave.so was linked against), find_package says so
config=$(dirname "$lib")/cmake/cleave/cleaveConfig.cmake
sed 's|liblua5\.4\.so\.0[.0-9]*|liblua5.4.so.missing|' "$config" >"$tmp/config" && cp "$tmp/config" "$config"
run "$CMAKE" -S "$CLEAVE_SOURCE/scripts/embed" -B "$tmp/host_nolua" "-DCMAKE_PREFIX_PATH=$prefix"
expect_status 1 "find_package(cleave) without Debian's shared Lua fails"
tr -s ' \n' '  ' <"$tmp/err" | grep -qF "liblua5.4.so.missing, which is missing: install the Debian packages liblua5.4-0 and lua-lpeg" &&
  ok "find_package(cleave) names the missing library and the packages" || ko "find_package(cleave) does not say what is missing"

# a host that uses Debian's Lua 5.4 itself, linked two ways. Shared: one Lua in the process, the
# host's and cleave's calls bind to the same liblua5.4.so.0. Static and exported (-E), as
# interpreters do: the host's lua_* interpose Debian's, cleave's states run on the host's copy.
# Either way the two sides keep to their own states.
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
  if (luaL_dostring(L, "local P = require 'lpeg' return tonumber(P.match(P.C(P.R'09'^1), '2026'))") != LUA_OK)
    return 1;
  printf("host lua after cleave: %d\n", (int)lua_tointeger(L, -1));
  cl_context_destroy(ctx);
  lua_close(L);
  return s == CL_ERR_ARG ? 0 : 1;
}
HOST
rpath="-Wl,-rpath,$(dirname "$lib")"
run sh -c "cc -o '$tmp/lua_shared' '$tmp/own_lua.c' \$(pkg-config --cflags --libs cleave lua5.4) -lm $rpath"
expect_status 0 "a host linking Debian's shared Lua builds"
run sh -c "cc -o '$tmp/lua_static' '$tmp/own_lua.c' \$(pkg-config --cflags --libs cleave) \$(pkg-config --cflags lua5.4) \
  -Wl,-Bstatic -llua5.4 -Wl,-Bdynamic -lm -ldl -Wl,-E $rpath"
expect_status 0 "a host with Debian's static Lua linked in and exported (-E) builds"
# the dynamic linker's account (LD_DEBUG=bindings, on stderr) says where cleave's Lua calls went
for host in lua_shared lua_static; do
  run env $SANITIZER_PRELOAD LD_DEBUG=bindings "$tmp/$host"
  expect_status 0 "$host: the host runs cleave beside its own Lua"
  expect_out "host lua: 42" "$host: the host's Lua works"
  expect_out "'x' is number, not a field" "$host: cleave's Lua works beside it"
  expect_out "os.exit(true): 1 (string):1: os.exit(0): the script stopped here" "$host: os.exit(true) gives CL_ERR_EXIT, code 0"
  expect_out "after it: ok" "$host: the context and its state outlive os.exit"
  expect_out "host lua after cleave: 2026" "$host: the host's Lua, with lpeg, goes on after cleave"
  case $host in
    lua_shared) lua_file="[^ ]*/liblua5\.4\.so\.0" ;;
    lua_static) lua_file="$tmp/lua_static" ;;
  esac
  grep -qE "libcleave\.so\.0 \[0\] to $lua_file \[0\]: normal symbol .luaL_newstate'" "$tmp/err" &&
    ok "$host: cleave's luaL_newstate binds to $lua_file" || ko "$host: cleave's luaL_newstate is not bound to $lua_file"
done

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
