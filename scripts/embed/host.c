/* A host application embedding cleave through runtime/cleave.h: it creates
 * a context, runs a script, reads a field back and reports errors itself.
 *
 *   embed_host [device]     (device: auto, cpu or cuda; default auto)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cleave.h"

static const char script[] =
    "local cl = require 'cleave'\n"
    "model = cl.demo.wave{ nx = 64, ny = 48, dx = 0.01, precision = 'f64' }\n"
    "model:run{ steps = 200, progress = false }\n";

int main(int argc, char **argv) {
  cl_context *ctx;
  char msg[1024];
  if (cl_context_create(&ctx, argc > 1 ? argv[1] : "auto", msg, sizeof msg) != CL_OK) {
    fprintf(stderr, "embed_host: %s\n", msg);
    return 1;
  }
  printf("device: %s\n", cl_context_device(ctx));
  if (cl_run_string(ctx, script) != CL_OK) {
    fprintf(stderr, "embed_host: %s\n", cl_last_error(ctx));
    cl_context_destroy(ctx);
    return 1;
  }
  size_t rows;
  int k;
  const char *dtype;
  if (cl_field_shape(ctx, "model.u", &rows, &k, &dtype) != CL_OK) {
    fprintf(stderr, "embed_host: %s\n", cl_last_error(ctx));
    cl_context_destroy(ctx);
    return 1;
  }
  double *u = malloc(rows * (size_t)k * sizeof *u);
  cl_status s = u ? cl_field_read(ctx, "model.u", u, rows * (size_t)k) : CL_ERR_OOM;
  if (s == CL_OK) {
    double peak = 0;
    for (size_t i = 0; i < rows; i++) peak = fmax(peak, fabs(u[i]));
    printf("model.u: %zu x %d %s, max |u| = %.6f\n", rows, k, dtype, peak);
  } else {
    fprintf(stderr, "embed_host: %s\n", cl_last_error(ctx));
  }
  /* errors come back as status codes and messages, never as exits */
  if (cl_run_string(ctx, "cleave_missing_function()") != CL_OK)
    printf("error reported: %s\n", cl_last_error(ctx));
  /* a script's os.exit stops the script, not the host */
  cl_status exit_status = cl_run_string(ctx, "os.exit(3)");
  printf("os.exit reported: %s: %s\n", cl_status_name(exit_status), cl_last_error(ctx));
  free(u);
  cl_context_destroy(ctx);
  return s == CL_OK ? 0 : 1;
}
