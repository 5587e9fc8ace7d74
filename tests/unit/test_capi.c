/* The host C API (runtime/cleave.h): contexts, running code and files,
 * reading fields a script made, errors, and stopping a long run from
 * another thread. Everything on the cpu device. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../runtime/cleave.h"

static cl_context *ctx;

static void setup(void) {
  char msg[256] = "";
  if (cl_context_create(&ctx, "cpu", msg, sizeof msg) != CL_OK) cr_assert_fail("cpu context: %s", msg);
}

static void teardown(void) {
  cl_context_destroy(ctx);
  ctx = NULL;
}

TestSuite(capi, .init = setup, .fini = teardown, .timeout = 60);

/* Runs code that must succeed. */
static void run_ok(const char *code) {
  cl_status s = cl_run_string(ctx, code);
  cr_assert_eq(s, CL_OK, "running [%s] gave %d: %s", code, s, cl_last_error(ctx));
}

static int contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

/* ---- contexts ------------------------------------------------------------ */

Test(capi, context_on_cpu) {
  cr_assert_not_null(ctx);
  cr_assert_str_eq(cl_context_device(ctx), "cpu");
  cr_assert_str_eq(cl_last_error(ctx), "", "no error yet");
}

Test(capi, context_with_an_unknown_device_fails_naming_it) {
  cl_context *c = (cl_context *)&c; /* must be reset to NULL */
  char msg[512] = "";
  cl_status s = cl_context_create(&c, "nonsense", msg, sizeof msg);
  cr_assert_neq(s, CL_OK, "device 'nonsense' must be refused");
  cr_assert_null(c, "*out is NULL on failure");
  cr_assert(contains(msg, "nonsense"), "message names the device: %s", msg);
  cr_assert(contains(msg, "cpu"), "message lists the valid devices: %s", msg);
  cr_assert_neq(cl_context_create(&c, "nonsense", NULL, 0), CL_OK, "msg may be NULL");
  cr_assert_null(c);
}

Test(capi, context_with_null_device_reads_the_environment) {
  cr_assert_eq(setenv("CLEAVE_DEVICE", "cpu", 1), 0);
  cl_context *c = NULL;
  char msg[256] = "";
  cr_assert_eq(cl_context_create(&c, NULL, msg, sizeof msg), CL_OK, "%s", msg);
  cr_assert_str_eq(cl_context_device(c), "cpu");
  cl_context_destroy(c);
}

Test(capi, two_contexts_are_independent) {
  cl_context *other = NULL;
  char msg[256] = "";
  cr_assert_eq(cl_context_create(&other, "cpu", msg, sizeof msg), CL_OK, "%s", msg);
  run_ok("shared = 1");
  cr_assert_eq(cl_run_string(other, "assert(shared == nil)"), CL_OK, "globals leaked: %s",
               cl_last_error(other));
  cl_context_destroy(other);
  cl_context_destroy(NULL); /* a no-op */
}

Test(capi, set_device) {
  cr_assert_eq(cl_context_set_device(ctx, "cpu"), CL_OK, "%s", cl_last_error(ctx));
  cr_assert_str_eq(cl_context_device(ctx), "cpu");
  cl_status s = cl_context_set_device(ctx, "nonsense");
  cr_assert_eq(s, CL_ERR_ARG, "status %d", s);
  cr_assert(contains(cl_last_error(ctx), "nonsense"), "message: %s", cl_last_error(ctx));
  cr_assert_str_eq(cl_context_device(ctx), "cpu", "the device is unchanged");
}

/* ---- running code -------------------------------------------------------- */

Test(capi, run_string_runs_code) {
  run_ok("x = 6 * 7");
  run_ok("assert(x == 42, 'x is ' .. tostring(x))");
  cr_assert_eq(cl_run_string(ctx, "assert(x == 41)"), CL_ERR_SCRIPT, "a failing assert is an error");
  run_ok("y = 1"); /* success clears the last error */
  cr_assert_str_eq(cl_last_error(ctx), "");
}

Test(capi, cleave_is_loaded) {
  run_ok("cl = require 'cleave'");
  run_ok("assert(type(cl.field) == 'function')");
  run_ok("assert(cl.device() == 'cpu', cl.device())");
}

/* ---- reading fields ------------------------------------------------------ */

Test(capi, field_shape_and_read_in_soa_order) {
  run_ok("cl = require 'cleave'\n"
         "f = cl.field{ k = 3, dtype = 'f32', data = { {1, 10, 100}, {2, 20, 200}, {3, 30, 300}, {4, 40, 400} } }\n"
         "model = { u = f }");
  size_t rows = 0;
  int comps = 0;
  const char *dtype = NULL;
  cr_assert_eq(cl_field_shape(ctx, "f", &rows, &comps, &dtype), CL_OK, "%s", cl_last_error(ctx));
  cr_assert_eq(rows, 4);
  cr_assert_eq(comps, 3);
  cr_assert_str_eq(dtype, "f32");

  double out[12];
  cr_assert_eq(cl_field_read(ctx, "f", out, 12), CL_OK, "%s", cl_last_error(ctx));
  for (int c = 0; c < 3; c++)
    for (int i = 0; i < 4; i++) {
      double want = (i + 1) * (c == 0 ? 1 : c == 1 ? 10 : 100);
      cr_assert_eq(out[c * 4 + i], want, "out[%d*4+%d] = %g, want %g", c, i, out[c * 4 + i], want);
    }

  double again[12];
  cr_assert_eq(cl_field_read(ctx, "model.u", again, 12), CL_OK, "%s", cl_last_error(ctx));
  cr_assert_arr_eq(again, out, sizeof out, "an expression reaches the same field");
}

Test(capi, field_read_sees_values_computed_in_lua) {
  run_ok("cl = require 'cleave'\n"
         "g = cl.field{ n = 50, dtype = 'f64' }\n"
         "for i = 1, 50 do g[i] = i * i * 0.5 - 3 end");
  double out[50];
  cr_assert_eq(cl_field_read(ctx, "g", out, 50), CL_OK, "%s", cl_last_error(ctx));
  for (int i = 0; i < 50; i++) {
    double want = (i + 1) * (i + 1) * 0.5 - 3;
    cr_assert_eq(out[i], want, "g[%d] = %g, want %g", i + 1, out[i], want);
  }
  /* changed again by the script: the host sees the new values */
  run_ok("g:fill(2)");
  cr_assert_eq(cl_field_read(ctx, "g", out, 50), CL_OK, "%s", cl_last_error(ctx));
  cr_assert_eq(out[17], 2.0, "after fill: %g", out[17]);
}

Test(capi, field_read_into_a_small_buffer_is_refused) {
  run_ok("cl = require 'cleave'; f = cl.field{ n = 6, k = 2, value = 1 }");
  double out[12];
  for (int i = 0; i < 12; i++) out[i] = -7;
  cl_status s = cl_field_read(ctx, "f", out, 11);
  cr_assert_eq(s, CL_ERR_ARG, "status %d", s);
  cr_assert(contains(cl_last_error(ctx), "12"), "message gives the size: %s", cl_last_error(ctx));
  cr_assert(contains(cl_last_error(ctx), "buffer"), "message: %s", cl_last_error(ctx));
  for (int i = 0; i < 12; i++) cr_assert_eq(out[i], -7.0, "nothing written on failure (out[%d])", i);
  cr_assert_eq(cl_field_read(ctx, "f", out, 12), CL_OK, "an exact fit is fine: %s", cl_last_error(ctx));
  cr_assert_eq(out[11], 1.0);
}

Test(capi, expression_naming_a_non_field) {
  run_ok("notfield = 5");
  size_t rows;
  int comps;
  const char *dtype;
  cr_assert_eq(cl_field_shape(ctx, "notfield", &rows, &comps, &dtype), CL_ERR_ARG);
  cr_assert(contains(cl_last_error(ctx), "not a field"), "message: %s", cl_last_error(ctx));
  cr_assert(contains(cl_last_error(ctx), "notfield"), "message names the expression: %s", cl_last_error(ctx));
  double out[1];
  cr_assert_eq(cl_field_read(ctx, "undefined_name", out, 1), CL_ERR_ARG);
  cr_assert(contains(cl_last_error(ctx), "not a field"), "nil: %s", cl_last_error(ctx));
}

Test(capi, invalid_field_expression) {
  size_t rows;
  int comps;
  const char *dtype;
  cl_status s = cl_field_shape(ctx, "1 +", &rows, &comps, &dtype);
  cr_assert_eq(s, CL_ERR_ARG, "status %d: %s", s, cl_last_error(ctx));
  cr_assert(contains(cl_last_error(ctx), "1 +"), "message: %s", cl_last_error(ctx));
  s = cl_field_shape(ctx, "nothing.here", &rows, &comps, &dtype);
  cr_assert_neq(s, CL_OK, "indexing nil is an error");
  run_ok("assert(true)"); /* the state is still usable */
}

/* ---- errors -------------------------------------------------------------- */

Test(capi, syntax_error_is_a_script_error_with_the_lua_message) {
  cl_status s = cl_run_string(ctx, "x = = 1");
  cr_assert_eq(s, CL_ERR_SCRIPT, "status %d", s);
  const char *m = cl_last_error(ctx);
  cr_assert(contains(m, "unexpected symbol"), "Lua's message: %s", m);
  cr_assert(contains(m, ":1:"), "with the line number: %s", m);
  cr_assert(!contains(m, "stack traceback"), "no traceback for code that never ran: %s", m);
}

Test(capi, runtime_error_has_a_traceback_of_user_frames) {
  cl_status s = cl_run_string(ctx, "local function inner()\n"
                                   "  error('kaboom')\n"
                                   "end\n"
                                   "local function outer() inner() end\n"
                                   "outer()\n");
  cr_assert_eq(s, CL_ERR_SCRIPT);
  const char *m = cl_last_error(ctx);
  cr_assert(contains(m, ":2: kaboom"), "message with its line: %s", m);
  cr_assert(contains(m, "stack traceback (your script):"), "header: %s", m);
  cr_assert(contains(m, ":4:"), "outer's frame: %s", m);
  cr_assert(contains(m, ":5:"), "the main chunk's frame: %s", m);
  cr_assert(!contains(m, "[C]"), "no C frames: %s", m);
}

Test(capi, traceback_skips_c_and_cleave_frames) {
  /* the error comes through a C function (table.sort) and a cleave C function */
  cl_status s = cl_run_string(ctx, "table.sort({3, 1, 2}, function(a, b) error('in comparator') end)");
  cr_assert_eq(s, CL_ERR_SCRIPT);
  const char *m = cl_last_error(ctx);
  cr_assert(contains(m, "in comparator"), "%s", m);
  cr_assert(!contains(m, "[C]"), "C frames are hidden: %s", m);
  cr_assert(!contains(m, "'sort'"), "table.sort's frame is hidden: %s", m);

  s = cl_run_string(ctx, "cl = require 'cleave'\ncl.field{ n = 3, bogus = 1 }");
  cr_assert_eq(s, CL_ERR_SCRIPT);
  m = cl_last_error(ctx);
  cr_assert(contains(m, "bogus"), "the argument error: %s", m);
  cr_assert(!contains(m, "[C]"), "C frames are hidden: %s", m);
  cr_assert(!contains(m, "[cleave]/"), "cleave's own chunks are hidden: %s", m);
}

Test(capi, traceback_skips_cleave_lua_chunks) {
  /* the error is raised inside cleave's embedded Lua (demo.lua / mesh.lua) */
  cl_status s = cl_run_string(ctx, "cl = require 'cleave'\n"
                                   "local function make() local m = cl.demo.wave{ nx = 2 }; return m end\n"
                                   "make()");
  cr_assert_eq(s, CL_ERR_SCRIPT);
  const char *m = cl_last_error(ctx);
  cr_assert(contains(m, "(string):2:"), "the message points at the user's call: %s", m);
  const char *tb = strstr(m, "stack traceback (your script):");
  cr_assert_not_null(tb, "header: %s", m);
  cr_assert(contains(tb, "(string):3:"), "the user's line 3 is listed: %s", m);
  cr_assert(!contains(tb, "[cleave]/"), "cleave's own chunks are not listed: %s", m);
  cr_assert(!contains(tb, "[C]"), "C frames are not listed: %s", m);
}

Test(capi, traceback_omitted_when_it_repeats_the_message) {
  cl_status s = cl_run_string(ctx, "cl = require 'cleave'\n\ncl.demo.wave{ nx = 2 }");
  cr_assert_eq(s, CL_ERR_SCRIPT);
  const char *m = cl_last_error(ctx);
  cr_assert(contains(m, "(string):3:"), "the message points at line 3: %s", m);
  cr_assert(!contains(m, "stack traceback"), "a lone main-chunk frame adds nothing: %s", m);
}

Test(capi, callback_stage_error_names_step_and_stage) {
  cl_status s = cl_run_string(ctx, "cl = require 'cleave'\n"
                                   "p = cl.pipeline{ cl.stage.call(function(step)\n"
                                   "  if step == 3 then error('callback failed') end\n"
                                   "end) }\n"
                                   "cl.run{ pipeline = p, steps = 10, progress = false }");
  cr_assert_eq(s, CL_ERR_SCRIPT, "status %d: %s", s, cl_last_error(ctx));
  const char *m = cl_last_error(ctx);
  cr_assert(contains(m, "step 3, stage 1 'call'"), "%s", m);
  cr_assert(contains(m, ":3: callback failed"), "the callback's own message and line: %s", m);
}

Test(capi, error_with_a_non_string_value) {
  cl_status s = cl_run_string(ctx, "error({})");
  cr_assert_eq(s, CL_ERR_SCRIPT);
  cr_assert_neq(cl_last_error(ctx)[0], '\0', "some message is given");
}

/* ---- files --------------------------------------------------------------- */

static char script_path[64];

static void write_script(const char *text) {
  snprintf(script_path, sizeof script_path, "/tmp/cleave_capi_XXXXXX");
  int fd = mkstemp(script_path);
  cr_assert_geq(fd, 0, "mkstemp");
  FILE *f = fdopen(fd, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
}

Test(capi, run_file_on_a_missing_file_is_an_io_error) {
  const char *path = "/nonexistent/dir/script.lua";
  cl_status s = cl_run_file(ctx, path, 0, NULL);
  cr_assert_eq(s, CL_ERR_IO, "status %d: %s", s, cl_last_error(ctx));
  cr_assert(contains(cl_last_error(ctx), path), "message names the file: %s", cl_last_error(ctx));
}

Test(capi, run_file_passes_arguments) {
  write_script("seen1, seen2 = arg[1], arg[2]\n"
               "script_name = arg[0]\n"
               "nvarargs = select('#', ...)\n"
               "first_vararg = ...\n");
  const char *argv[] = {"alpha", "beta"};
  cl_status s = cl_run_file(ctx, script_path, 2, argv);
  cr_assert_eq(s, CL_OK, "%s", cl_last_error(ctx));
  run_ok("assert(seen1 == 'alpha', tostring(seen1))");
  run_ok("assert(seen2 == 'beta', tostring(seen2))");
  run_ok("assert(nvarargs == 2, nvarargs)");
  run_ok("assert(first_vararg == 'alpha')");
  char check[160];
  snprintf(check, sizeof check, "assert(script_name == '%s', script_name)", script_path);
  run_ok(check);
  unlink(script_path);
}

Test(capi, run_file_without_arguments) {
  write_script("count = #arg\nresult = 'ran'\n");
  cr_assert_eq(cl_run_file(ctx, script_path, 0, NULL), CL_OK, "%s", cl_last_error(ctx));
  run_ok("assert(result == 'ran' and count == 0)");
  unlink(script_path);
}

Test(capi, run_file_with_a_syntax_error_is_a_script_error) {
  write_script("local = 3\n");
  cl_status s = cl_run_file(ctx, script_path, 0, NULL);
  cr_assert_eq(s, CL_ERR_SCRIPT, "status %d: %s", s, cl_last_error(ctx));
  cr_assert(contains(cl_last_error(ctx), ":1:"), "line number: %s", cl_last_error(ctx));
  unlink(script_path);
}

Test(capi, run_file_runtime_error_names_the_file_line) {
  write_script("local x = 1\nerror('second line')\n");
  cl_status s = cl_run_file(ctx, script_path, 0, NULL);
  cr_assert_eq(s, CL_ERR_SCRIPT);
  cr_assert(contains(cl_last_error(ctx), ":2: second line"), "%s", cl_last_error(ctx));
  unlink(script_path);
}

/* ---- stopping a long run from another thread ----------------------------- */

static void *stop_later(void *arg) {
  (void)arg;
  struct timespec ts = {0, 100 * 1000 * 1000};
  nanosleep(&ts, NULL);
  cl_request_stop();
  return NULL;
}

Test(capi, request_stop_interrupts_a_pipeline_run) {
  run_ok("cl = require 'cleave'\n"
         "n = 0\n"
         "p = cl.pipeline{ cl.stage.call(function(step) n = step end) }");
  pthread_t th;
  cr_assert_eq(pthread_create(&th, NULL, stop_later, NULL), 0);
  cl_status s = cl_run_string(ctx, "r = cl.run{ pipeline = p, steps = 2000000000, progress = false }");
  pthread_join(th, NULL);
  cr_assert_eq(s, CL_ERR_INTERRUPTED, "status %d: %s", s, cl_last_error(ctx));
  cr_assert(contains(cl_last_error(ctx), "interrupted"), "%s", cl_last_error(ctx));
  run_ok("assert(n > 0 and n < 2000000000, n)");
  /* the request was consumed: a new run completes */
  run_ok("n = 0; r = cl.run{ pipeline = p, steps = 5, progress = false }; assert(n == 5 and r.steps == 5)");
}

Test(capi, a_stop_requested_before_the_call_applies_to_it) {
  run_ok("cl = require 'cleave'\n"
         "n = 0\n"
         "p = cl.pipeline{ cl.stage.call(function(step) n = step end) }");
  cl_request_stop();
  cl_status s = cl_run_string(ctx, "r = cl.run{ pipeline = p, steps = 2000000000, progress = false }");
  cr_assert_eq(s, CL_ERR_INTERRUPTED, "status %d: %s", s, cl_last_error(ctx));
  run_ok("assert(n == 1, n)"); /* stopped at the first step boundary */
  run_ok("n = 0; r = cl.run{ pipeline = p, steps = 3, progress = false }; assert(n == 3)");
}

Test(capi, request_stop_interrupts_a_model_run) {
  pthread_t th;
  cr_assert_eq(pthread_create(&th, NULL, stop_later, NULL), 0);
  cl_status s = cl_run_string(ctx, "cl = require 'cleave'\n"
                                   "m = cl.demo.wave{ nx = 300, ny = 300, dx = 0.01 }\n"
                                   "m:run{ steps = 100000000, progress = false }");
  pthread_join(th, NULL);
  cr_assert_eq(s, CL_ERR_INTERRUPTED, "status %d: %s", s, cl_last_error(ctx));
  run_ok("assert(m.step > 0 and m.step < 100000000, m.step)");
  run_ok("assert(math.abs(m.t - m.step * m.dt) < 1e-9 * m.t)");
}
