#include "pipeline.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "progress.h"
#include "runtime.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

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

/* The error of stage i at `step`, with the stage and step named. */
static cl_status stage_failed(const cl_pipeline *p, size_t i, long step, cl_status st, cl_error *err) {
  if (err && st != CL_ERR_INTERRUPTED) {
    char inner[CL_ERROR_MAX];
    memcpy(inner, err->msg, sizeof inner);
    cl_error_set(err, st, "step %ld, stage %zu '%s': %s", step, i + 1, p->stages[i].name, inner);
  }
  return st;
}

cl_status cl_pipeline_step(cl_pipeline *p, long step, double t, cl_error *err) {
  for (size_t i = 0; i < p->count; i++) {
    cl_stage *s = &p->stages[i];
    cl_status st = s->run(s->data, step, t, err);
    if (st != CL_OK) return stage_failed(p, i, step, st, err);
  }
  return CL_OK;
}

/* Steps from `step` on: max at once through the only stage's advance, else one. */
static cl_status pipeline_advance(cl_pipeline *p, long step, long max, double t, long *taken, cl_error *err) {
  *taken = 1;
  if (p->count != 1 || !p->stages[0].advance) return cl_pipeline_step(p, step, t, err);
  cl_status st = p->stages[0].advance(p->stages[0].data, step, max, t, taken, err);
  return st == CL_OK ? CL_OK : stage_failed(p, 0, step, st, err);
}

static cl_status pipeline_flush(cl_pipeline *p, long step, cl_error *err) {
  for (size_t i = 0; i < p->count; i++) {
    if (!p->stages[i].flush) continue;
    cl_status st = p->stages[i].flush(p->stages[i].data, err);
    if (st != CL_OK) return stage_failed(p, i, step, st, err);
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

/* Ctrl-C for runs started from a host that has not said it handles SIGINT (the stock lua5.4,
 * whose handler only stops Lua code, or a C host): the run's own handler asks for a stop at the
 * step boundary; a second Ctrl-C before that (a stage that does not return) goes to the handler
 * the host had. */
static volatile sig_atomic_t sigint_owned;
static struct sigaction host_sigint;

void cl_run_sigint_owned(int owned) { sigint_owned = owned != 0; }

static void run_sigint(int sig) {
  if (!cl_interrupt_flag) {
    cl_interrupt_request();
    return;
  }
  sigaction(SIGINT, &host_sigint, NULL);
  raise(sig);
}

/* Installs the run's handler unless the host owns SIGINT or ignores it; returns whether it did. */
static int sigint_install(void) {
  struct sigaction now;
  if (sigint_owned || sigaction(SIGINT, NULL, &now) != 0 || now.sa_handler == SIG_IGN) return 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = run_sigint;
  sigemptyset(&sa.sa_mask);
  return sigaction(SIGINT, &sa, &host_sigint) == 0;
}

/* Whether the run stops after `step` (reached from `before`). One rank takes the interrupt flag at
 * every step. The ranks of a collective run must stop at the same step (the next one's collectives
 * would wait for the stopped ones) though a signal reaches each at its own time, or only one: every
 * CL_RUN_STOP_POLL steps they agree (a max over the flags) whether any was asked to stop. */
#define CL_RUN_STOP_POLL 16

static int stopped_together; /* the last collective run stopped at a step all ranks agreed on */

int cl_run_stopped_together(void) { return stopped_together; }

static cl_status stop_after(int collective, long before, long step, cl_error *err) {
  int stop;
  if (!collective || cl_comm_size() == 1) {
    stop = cl_interrupt_take();
  } else {
    if (before / CL_RUN_STOP_POLL == step / CL_RUN_STOP_POLL) return CL_OK;
    double any = cl_interrupt_flag != 0;
    CL_TRY(cl_comm_allreduce(&any, 1, CL_COMM_MAX, err));
    stop = any > 0;
    if (stop) cl_interrupt_take(), stopped_together = 1;
  }
  if (!stop) return CL_OK;
  return cl_error_set(err, CL_ERR_INTERRUPTED, "interrupted at step %ld (state is that of the end of this step)", step);
}

cl_status cl_run(cl_pipeline *p, const cl_run_options *opt, long *done, cl_error *err) {
  const int own_sigint = run_depth == 0 && sigint_install();
  stopped_together = 0;
  run_depth++;
  cl_progress bar = {0};
  if (opt->progress) cl_progress_start(&bar, stderr, opt->step0, opt->steps);
  cl_status s = CL_OK;
  long k = 0;
  while (k < opt->steps) {
    const long first = opt->step0 + k + 1;
    long max = opt->steps - k, taken = 1;
    if (opt->every > 0 && opt->on_every) max = MIN(max, opt->every - (first - 1) % opt->every);
    if ((s = pipeline_advance(p, first, max, opt->t0 + (double)(k + 1) * opt->dt, &taken, err)) != CL_OK) break;
    k += taken;
    const long step = opt->step0 + k;
    const double t = opt->t0 + (double)k * opt->dt;
    if (opt->every > 0 && opt->on_every && step % opt->every == 0 &&
        ((s = pipeline_flush(p, step, err)) != CL_OK || (s = opt->on_every(opt->ud, step, t, err)) != CL_OK))
      break;
    cl_progress_update(&bar, step);
    if ((s = stop_after(opt->collective, step - taken, step, err)) != CL_OK) break;
  }
  /* a late error of the steps taken outranks an interruption */
  if (s == CL_OK || s == CL_ERR_INTERRUPTED) {
    cl_error late;
    if (pipeline_flush(p, opt->step0 + k, &late) != CL_OK) {
      s = late.code;
      if (err) *err = late;
    }
  }
  cl_progress_finish(&bar, opt->step0 + k);
  *done = k;
  run_depth--;
  if (own_sigint) sigaction(SIGINT, &host_sigint, NULL);
  return s;
}
