#include "pipeline.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "runtime.h"

cl_status cl_pipeline_add(cl_pipeline *p, const cl_stage *stage, cl_error *err) {
  if (p->count == p->capacity) {
    size_t cap = p->capacity ? 2 * p->capacity : 8;
    cl_stage *grown = realloc(p->stages, cap * sizeof *grown);
    if (!grown) {
      if (stage->destroy) stage->destroy(stage->data);
      return cl_error_set(err, CL_ERR_OOM, "out of host memory adding stage '%s'", stage->name);
    }
    p->stages = grown;
    p->capacity = cap;
  }
  p->stages[p->count++] = *stage;
  return CL_OK;
}

cl_status cl_pipeline_step(cl_pipeline *p, long step, double t, cl_error *err) {
  for (size_t i = 0; i < p->count; i++) {
    cl_stage *s = &p->stages[i];
    cl_status st = s->run(s->data, step, t, err);
    if (st != CL_OK) {
      if (err && st != CL_ERR_INTERRUPTED) {
        char inner[CL_ERROR_MAX];
        memcpy(inner, err->msg, sizeof inner);
        cl_error_set(err, st, "step %ld, stage %zu '%s': %s", step, i + 1, s->name, inner);
      }
      return st;
    }
  }
  return CL_OK;
}

void cl_pipeline_clear(cl_pipeline *p) {
  for (size_t i = 0; i < p->count; i++)
    if (p->stages[i].destroy) p->stages[i].destroy(p->stages[i].data);
  free(p->stages);
  memset(p, 0, sizeof *p);
}

static volatile sig_atomic_t run_depth;

int cl_run_active(void) { return run_depth > 0; }

cl_status cl_run(cl_pipeline *p, const cl_run_options *opt, long *done, cl_error *err) {
  run_depth++;
  cl_progress bar = {0};
  if (opt->progress) cl_progress_start(&bar, stderr, opt->step0, opt->steps);
  cl_status s = CL_OK;
  long k = 0;
  for (; k < opt->steps; k++) {
    long step = opt->step0 + k + 1;
    double t = opt->t0 + (double)(k + 1) * opt->dt;
    if ((s = cl_pipeline_step(p, step, t, err)) != CL_OK) break;
    if (opt->every > 0 && opt->on_every && step % opt->every == 0 &&
        (s = opt->on_every(opt->ud, step, t, err)) != CL_OK) {
      k++;
      break;
    }
    cl_progress_update(&bar, step);
    if (cl_interrupt_take()) {
      k++;
      s = cl_error_set(err, CL_ERR_INTERRUPTED, "interrupted at step %ld (state is that of the end of this step)", step);
      break;
    }
  }
  cl_progress_finish(&bar, opt->step0 + k);
  *done = k;
  run_depth--;
  return s;
}
