/* A time step as a list of stages (kernel launches, reductions, host
 * callbacks), and the loop that runs many steps without returning to the
 * script: it polls Ctrl-C at every step boundary, draws progress, and calls
 * back at output intervals. */
#ifndef CL_PIPELINE_H
#define CL_PIPELINE_H

#include <stddef.h>

#include "status.h"

struct cl_device;

typedef struct cl_stage {
  char name[48];
  struct cl_device *device; /* where its work runs (synchronised after a run); NULL: host only */
  cl_status (*run)(void *data, long step, double t, cl_error *err);
  /* Optional, for a stage that is a whole step: takes up to max steps from `step` (at time t) at
   * once, *taken of them (a cuda graph of many steps). cl_run uses it when it is the pipeline's
   * only stage, never past an output step. */
  cl_status (*advance)(void *data, long step, long max, double t, long *taken, cl_error *err);
  /* Optional: what the stage checks late (a device flag read without waiting), called by cl_run
   * before each output and when it stops. */
  cl_status (*flush)(void *data, cl_error *err);
  void (*destroy)(void *data);
  void *data;
} cl_stage;

typedef struct cl_pipeline {
  cl_stage *stages;
  size_t count, capacity;
} cl_pipeline;

/* Takes ownership of stage.data (destroyed with the pipeline, or now on failure). */
cl_status cl_pipeline_add(cl_pipeline *p, const cl_stage *stage, cl_error *err);
/* Runs every stage once; an error names the stage and the step. */
cl_status cl_pipeline_step(cl_pipeline *p, long step, double t, cl_error *err);
void cl_pipeline_clear(cl_pipeline *p);

typedef struct cl_run_options {
  long steps;       /* how many steps to take */
  long step0;       /* number of the first step (for resumed runs) */
  double t0, dt;    /* time of step0 and step size */
  long every;       /* call on_every after each multiple of `every` steps; 0: never */
  cl_status (*on_every)(void *ud, long step, double t, cl_error *err);
  void *ud;
  int progress;     /* draw a progress bar on stderr when it is a terminal */
  int collective;   /* every rank of the job runs this run in step (a model partitioned over them):
                       on Ctrl-C they stop at the same step, agreed every few steps (pipeline.c) */
} cl_run_options;

/* Runs opt->steps steps. *done receives the steps completed, also when the
 * loop stops early: CL_ERR_INTERRUPTED after Ctrl-C (the state is that of
 * a step boundary), or the failing stage's status. */
cl_status cl_run(cl_pipeline *p, const cl_run_options *opt, long *done, cl_error *err);
/* Non-zero when the last run was a collective one that every rank stopped at the same step after
 * Ctrl-C: the ranks may then end one by one (none waits in a collective for another). */
int cl_run_stopped_together(void);
/* Non-zero while a cl_run loop is executing (Ctrl-C then waits for the step boundary). */
int cl_run_active(void);
/* A host that handles SIGINT itself (calling cl_interrupt_request) says so with owned = 1; else
 * each outermost cl_run installs a SIGINT handler for its duration (unless SIGINT is ignored)
 * and restores the previous one when it returns. */
void cl_run_sigint_owned(int owned);

#endif
