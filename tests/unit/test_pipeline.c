/* Pipelines and the run loop: stage order, error wrapping, step numbers and
 * times, output callbacks, interruption at a step boundary, the "active"
 * flag, and ownership of stage data. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../../runtime/pipeline.h"
#include "../../runtime/runtime.h"

/* Everything the stages and callbacks saw, in order. */
enum { MAX_CALLS = 256 };
typedef struct call {
  int who; /* stage id, or 0 for on_every */
  long step;
  double t;
  int active; /* cl_run_active() at the time */
} call;

typedef struct recorder {
  call calls[MAX_CALLS];
  int count;
} recorder;

static recorder rec;

static void record(int who, long step, double t) {
  cr_assert_lt(rec.count, MAX_CALLS, "too many calls");
  rec.calls[rec.count++] = (call){who, step, t, cl_run_active()};
}

/* A stage's data: its id, and optionally a step at which it fails or asks to stop. */
typedef struct probe {
  int id;
  long fail_at;      /* 0: never */
  long interrupt_at; /* 0: never */
  int *destroyed;    /* incremented by destroy */
} probe;

static cl_status probe_run(void *data, long step, double t, cl_error *err) {
  probe *p = data;
  record(p->id, step, t);
  if (p->fail_at && step == p->fail_at) return cl_error_set(err, CL_ERR_DEVICE, "boom %d", p->id);
  if (p->interrupt_at && step == p->interrupt_at) cl_interrupt_request();
  return CL_OK;
}

static void probe_destroy(void *data) {
  probe *p = data;
  (*p->destroyed)++;
}

static void add(cl_pipeline *pl, const char *name, probe *p) {
  cl_stage s = {0};
  snprintf(s.name, sizeof s.name, "%s", name);
  s.run = probe_run;
  s.data = p;
  cl_error err = {0};
  cr_assert_eq(cl_pipeline_add(pl, &s, &err), CL_OK, "add %s: %s", name, err.msg);
}

static cl_status on_every(void *ud, long step, double t, cl_error *err) {
  (void)err;
  long *fail_at = ud;
  record(0, step, t);
  if (fail_at && *fail_at == step) return cl_error_set(err, CL_ERR_IO, "disk full at %ld", step);
  return CL_OK;
}

static void setup(void) {
  memset(&rec, 0, sizeof rec);
  cl_interrupt_take();
}

TestSuite(pipeline, .init = setup);

/* ---- one step ------------------------------------------------------------ */

Test(pipeline, stages_run_in_order) {
  cl_pipeline pl = {0};
  probe a = {.id = 1}, b = {.id = 2}, c = {.id = 3};
  add(&pl, "first", &a);
  add(&pl, "second", &b);
  add(&pl, "third", &c);
  cr_assert_eq(pl.count, 3);
  cl_error err = {0};
  cr_assert_eq(cl_pipeline_step(&pl, 7, 0.5, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(rec.count, 3, "each stage runs once per step");
  for (int i = 0; i < 3; i++) {
    cr_assert_eq(rec.calls[i].who, i + 1, "call %d was stage %d", i, rec.calls[i].who);
    cr_assert_eq(rec.calls[i].step, 7, "stage sees the step number");
    cr_assert_eq(rec.calls[i].t, 0.5, "stage sees the time");
  }
  cl_pipeline_clear(&pl);
}

Test(pipeline, many_stages_grow_the_array) {
  cl_pipeline pl = {0};
  static probe ps[40];
  for (int i = 0; i < 40; i++) {
    ps[i] = (probe){.id = i + 1};
    char name[16];
    snprintf(name, sizeof name, "s%d", i + 1);
    add(&pl, name, &ps[i]);
  }
  cl_error err = {0};
  cr_assert_eq(cl_pipeline_step(&pl, 1, 0, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(rec.count, 40);
  for (int i = 0; i < 40; i++) cr_assert_eq(rec.calls[i].who, i + 1, "order kept past a regrowth");
  cr_assert_str_eq(pl.stages[39].name, "s40");
  cl_pipeline_clear(&pl);
}

Test(pipeline, add_copies_the_stage) {
  cl_pipeline pl = {0};
  probe a = {.id = 1};
  cl_stage s = {0};
  snprintf(s.name, sizeof s.name, "original");
  s.run = probe_run;
  s.data = &a;
  cl_error err = {0};
  cr_assert_eq(cl_pipeline_add(&pl, &s, &err), CL_OK, "%s", err.msg);
  snprintf(s.name, sizeof s.name, "changed");
  s.run = NULL;
  cr_assert_str_eq(pl.stages[0].name, "original", "the pipeline keeps its own copy");
  cr_assert_eq(cl_pipeline_step(&pl, 1, 0, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(rec.count, 1);
  cl_pipeline_clear(&pl);
}

Test(pipeline, a_failing_stage_is_named_and_stops_the_step) {
  cl_pipeline pl = {0};
  probe a = {.id = 1}, b = {.id = 2, .fail_at = 12}, c = {.id = 3};
  add(&pl, "kick", &a);
  add(&pl, "explode", &b);
  add(&pl, "drift", &c);
  cl_error err = {0};
  cl_status s = cl_pipeline_step(&pl, 12, 1.0, &err);
  cr_assert_eq(s, CL_ERR_DEVICE, "the stage's status comes back (got %d)", s);
  cr_assert_eq(err.code, CL_ERR_DEVICE);
  cr_assert_not_null(strstr(err.msg, "step 12, stage 2 'explode'"), "message: %s", err.msg);
  cr_assert_not_null(strstr(err.msg, "boom 2"), "the stage's own message is kept: %s", err.msg);
  cr_assert_eq(rec.count, 2, "stage 3 must not run after stage 2 failed");
  cl_pipeline_clear(&pl);
}

Test(pipeline, empty_pipeline_step_is_ok) {
  cl_pipeline pl = {0};
  cl_error err = {0};
  cr_assert_eq(cl_pipeline_step(&pl, 1, 0, &err), CL_OK);
  cl_pipeline_clear(&pl);
}

/* ---- ownership ----------------------------------------------------------- */

Test(pipeline, clear_destroys_stage_data) {
  cl_pipeline pl = {0};
  int destroyed[3] = {0, 0, 0};
  probe ps[3];
  for (int i = 0; i < 3; i++) {
    ps[i] = (probe){.id = i + 1, .destroyed = &destroyed[i]};
    cl_stage s = {0};
    snprintf(s.name, sizeof s.name, "owned%d", i);
    s.run = probe_run;
    s.destroy = probe_destroy;
    s.data = &ps[i];
    cl_error err = {0};
    cr_assert_eq(cl_pipeline_add(&pl, &s, &err), CL_OK, "%s", err.msg);
  }
  probe borrowed = {.id = 9};
  add(&pl, "borrowed", &borrowed); /* no destroy: nothing to call */
  for (int i = 0; i < 3; i++) cr_assert_eq(destroyed[i], 0, "nothing destroyed before clear");
  cl_pipeline_clear(&pl);
  for (int i = 0; i < 3; i++) cr_assert_eq(destroyed[i], 1, "stage %d destroyed %d times", i, destroyed[i]);
  cr_assert_eq(pl.count, 0);
  cr_assert_eq(pl.capacity, 0);
  cr_assert_null(pl.stages);
  /* a cleared pipeline can be used again */
  add(&pl, "again", &borrowed);
  cl_error err = {0};
  cr_assert_eq(cl_pipeline_step(&pl, 3, 0, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(rec.count, 1);
  cl_pipeline_clear(&pl);
  for (int i = 0; i < 3; i++) cr_assert_eq(destroyed[i], 1, "no double destroy");
}

/* ---- cl_run -------------------------------------------------------------- */

static cl_run_options options(long steps, long step0, double t0, double dt) {
  cl_run_options o = {0};
  o.steps = steps;
  o.step0 = step0;
  o.t0 = t0;
  o.dt = dt;
  o.progress = 0;
  return o;
}

Test(pipeline, run_numbers_steps_and_times) {
  cl_pipeline pl = {0};
  probe a = {.id = 1}, b = {.id = 2};
  add(&pl, "a", &a);
  add(&pl, "b", &b);
  cl_run_options o = options(5, 10, 1.0, 0.25);
  long done = -1;
  cl_error err = {0};
  cr_assert_eq(cl_run(&pl, &o, &done, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(done, 5, "done = %ld", done);
  cr_assert_eq(rec.count, 10, "2 stages x 5 steps");
  for (int k = 0; k < 5; k++) {
    long want_step = 10 + k + 1;
    double want_t = 1.0 + (k + 1) * 0.25;
    for (int s = 0; s < 2; s++) {
      call c = rec.calls[2 * k + s];
      cr_assert_eq(c.who, s + 1, "order within step %ld", want_step);
      cr_assert_eq(c.step, want_step, "step %ld, want %ld", c.step, want_step);
      cr_assert_float_eq(c.t, want_t, 1e-12, "t %g, want %g at step %ld", c.t, want_t, want_step);
    }
  }
  cl_pipeline_clear(&pl);
}

Test(pipeline, run_of_zero_steps_does_nothing) {
  cl_pipeline pl = {0};
  probe a = {.id = 1};
  add(&pl, "a", &a);
  cl_run_options o = options(0, 0, 0, 1);
  long done = -1;
  cl_error err = {0};
  cr_assert_eq(cl_run(&pl, &o, &done, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(done, 0);
  cr_assert_eq(rec.count, 0);
  cl_pipeline_clear(&pl);
}

Test(pipeline, on_every_at_multiples_of_every) {
  cl_pipeline pl = {0};
  probe a = {.id = 1};
  add(&pl, "a", &a);
  cl_run_options o = options(10, 0, 0, 0.1);
  o.every = 3;
  o.on_every = on_every;
  o.ud = NULL;
  long done = 0;
  cl_error err = {0};
  cr_assert_eq(cl_run(&pl, &o, &done, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(done, 10);
  long outputs[8];
  int n = 0;
  for (int i = 0; i < rec.count; i++) {
    if (rec.calls[i].who != 0) continue;
    cr_assert_lt(n, 8);
    outputs[n++] = rec.calls[i].step;
    cr_assert_float_eq(rec.calls[i].t, rec.calls[i].step * 0.1, 1e-12, "on_every time at step %ld",
                       rec.calls[i].step);
    cr_assert(i > 0 && rec.calls[i - 1].who == 1 && rec.calls[i - 1].step == rec.calls[i].step,
              "on_every comes after the step's stages");
  }
  cr_assert_eq(n, 3, "on_every called %d times, want 3 (steps 3, 6, 9)", n);
  cr_assert(outputs[0] == 3 && outputs[1] == 6 && outputs[2] == 9, "at %ld %ld %ld", outputs[0], outputs[1],
            outputs[2]);
  cl_pipeline_clear(&pl);
}

Test(pipeline, on_every_counts_from_absolute_step_numbers) {
  /* resumed at step 2, 7 steps: steps 3..9, outputs at 4 and 8 */
  cl_pipeline pl = {0};
  probe a = {.id = 1};
  add(&pl, "a", &a);
  cl_run_options o = options(7, 2, 0.2, 0.1);
  o.every = 4;
  o.on_every = on_every;
  long done = 0;
  cl_error err = {0};
  cr_assert_eq(cl_run(&pl, &o, &done, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(done, 7);
  long outputs[8];
  int n = 0;
  for (int i = 0; i < rec.count; i++)
    if (rec.calls[i].who == 0 && n < 8) outputs[n++] = rec.calls[i].step;
  cr_assert_eq(n, 2, "on_every called %d times", n);
  cr_assert(outputs[0] == 4 && outputs[1] == 8, "at %ld and %ld", outputs[0], outputs[1]);
  cl_pipeline_clear(&pl);
}

Test(pipeline, every_zero_never_calls_back) {
  cl_pipeline pl = {0};
  probe a = {.id = 1};
  add(&pl, "a", &a);
  cl_run_options o = options(6, 0, 0, 1);
  o.every = 0;
  o.on_every = on_every;
  long done = 0;
  cl_error err = {0};
  cr_assert_eq(cl_run(&pl, &o, &done, &err), CL_OK, "%s", err.msg);
  for (int i = 0; i < rec.count; i++) cr_assert_neq(rec.calls[i].who, 0, "on_every called with every = 0");
  cl_pipeline_clear(&pl);
}

Test(pipeline, failing_on_every_stops_the_run) {
  cl_pipeline pl = {0};
  probe a = {.id = 1};
  add(&pl, "a", &a);
  long fail_at = 4;
  cl_run_options o = options(10, 0, 0, 1);
  o.every = 2;
  o.on_every = on_every;
  o.ud = &fail_at;
  long done = 0;
  cl_error err = {0};
  cl_status s = cl_run(&pl, &o, &done, &err);
  cr_assert_eq(s, CL_ERR_IO, "on_every's status comes back (got %d)", s);
  cr_assert_eq(done, 4, "step 4 completed before its output failed (done = %ld)", done);
  cr_assert_not_null(strstr(err.msg, "disk full at 4"), "message: %s", err.msg);
  cl_pipeline_clear(&pl);
}

Test(pipeline, failing_stage_stops_the_run) {
  cl_pipeline pl = {0};
  probe a = {.id = 1}, b = {.id = 2, .fail_at = 4};
  add(&pl, "ok", &a);
  add(&pl, "bad", &b);
  cl_run_options o = options(10, 0, 0, 1);
  long done = -1;
  cl_error err = {0};
  cl_status s = cl_run(&pl, &o, &done, &err);
  cr_assert_eq(s, CL_ERR_DEVICE);
  cr_assert_eq(done, 3, "steps 1..3 completed (done = %ld)", done);
  cr_assert_not_null(strstr(err.msg, "step 4, stage 2 'bad'"), "message: %s", err.msg);
  cr_assert_eq(rec.calls[rec.count - 1].who, 2);
  cr_assert_eq(rec.calls[rec.count - 1].step, 4, "nothing ran after the failure");
  cr_assert_eq(cl_run_active(), 0, "not active after a failed run");
  cl_pipeline_clear(&pl);
}

Test(pipeline, interrupt_stops_at_the_step_boundary) {
  cl_pipeline pl = {0};
  probe a = {.id = 1, .interrupt_at = 3}, b = {.id = 2};
  add(&pl, "asks to stop", &a);
  add(&pl, "after", &b);
  cl_run_options o = options(100, 0, 0, 0.5);
  long done = -1;
  cl_error err = {0};
  cl_status s = cl_run(&pl, &o, &done, &err);
  cr_assert_eq(s, CL_ERR_INTERRUPTED, "status %d: %s", s, err.msg);
  cr_assert_eq(err.code, CL_ERR_INTERRUPTED);
  cr_assert_eq(done, 3, "stopped after step 3 (done = %ld)", done);
  cr_assert_eq(rec.count, 6, "step 3 was completed, stage 2 included (calls %d)", rec.count);
  cr_assert_eq(rec.calls[5].who, 2);
  cr_assert_eq(rec.calls[5].step, 3);
  cr_assert_not_null(strstr(err.msg, "interrupted at step 3"), "message: %s", err.msg);
  cr_assert_eq(cl_interrupt_take(), 0, "the run consumed the request");
  cl_pipeline_clear(&pl);
}

Test(pipeline, interrupt_respects_step0) {
  cl_pipeline pl = {0};
  probe a = {.id = 1, .interrupt_at = 53};
  add(&pl, "a", &a);
  cl_run_options o = options(100, 50, 5.0, 0.1);
  long done = -1;
  cl_error err = {0};
  cr_assert_eq(cl_run(&pl, &o, &done, &err), CL_ERR_INTERRUPTED, "%s", err.msg);
  cr_assert_eq(done, 3, "steps 51..53 completed (done = %ld)", done);
  cl_pipeline_clear(&pl);
}

Test(pipeline, run_active_only_inside_cl_run) {
  cl_pipeline pl = {0};
  probe a = {.id = 1};
  add(&pl, "a", &a);
  cr_assert_eq(cl_run_active(), 0, "not active before");
  cl_error err = {0};
  cr_assert_eq(cl_pipeline_step(&pl, 1, 0, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(rec.calls[0].active, 0, "a bare pipeline step is not a run");
  cl_run_options o = options(3, 0, 0, 1);
  long done = 0;
  cr_assert_eq(cl_run(&pl, &o, &done, &err), CL_OK, "%s", err.msg);
  for (int i = 1; i < rec.count; i++) cr_assert_eq(rec.calls[i].active, 1, "active inside stage call %d", i);
  cr_assert_eq(rec.count, 4);
  cr_assert_eq(cl_run_active(), 0, "not active after");
  cl_pipeline_clear(&pl);
}

Test(pipeline, run_active_after_an_interrupted_run) {
  cl_pipeline pl = {0};
  probe a = {.id = 1, .interrupt_at = 1};
  add(&pl, "a", &a);
  cl_run_options o = options(10, 0, 0, 1);
  long done = 0;
  cl_error err = {0};
  cr_assert_eq(cl_run(&pl, &o, &done, &err), CL_ERR_INTERRUPTED);
  cr_assert_eq(rec.calls[0].active, 1);
  cr_assert_eq(cl_run_active(), 0, "not active after an interrupted run");
  cl_pipeline_clear(&pl);
}

/* ---- a stage that takes several steps at once (advance) and checks late (flush) ---------- */

/* Takes at most `most` steps per call; records (id, first step, steps taken in t) per call and
 * (-id, step, 0) per flush; its flush fails when fail_flush is set. */
typedef struct batcher {
  int id;
  long most;
  int fail_flush;
} batcher;

static cl_status batch_advance(void *data, long step, long max, double t, long *taken, cl_error *err) {
  batcher *b = data;
  (void)t, (void)err;
  *taken = max < b->most ? max : b->most;
  record(b->id, step, (double)*taken);
  return CL_OK;
}

static cl_status batch_flush(void *data, cl_error *err) {
  batcher *b = data;
  record(-b->id, 0, 0);
  return b->fail_flush ? cl_error_set(err, CL_ERR_SCRIPT, "late NaN") : CL_OK;
}

static void add_batcher(cl_pipeline *pl, batcher *b) {
  cl_stage s = {0};
  snprintf(s.name, sizeof s.name, "batch");
  s.run = probe_run; /* not called: the only stage advances */
  s.advance = batch_advance, s.flush = batch_flush;
  s.data = b;
  cl_error err = {0};
  cr_assert_eq(cl_pipeline_add(pl, &s, &err), CL_OK, "%s", err.msg);
}

Test(pipeline, advance_takes_runs_of_steps_that_stop_at_outputs) {
  cl_pipeline pl = {0};
  batcher b = {.id = 5, .most = 4};
  add_batcher(&pl, &b);
  cl_run_options o = options(14, 0, 0, 1);
  o.every = 6;
  o.on_every = on_every;
  long done = 0;
  cl_error err = {0};
  cr_assert_eq(cl_run(&pl, &o, &done, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(done, 14);
  /* runs 1-4, 5-6, flush, output 6, 7-10, 11-12, flush, output 12, 13-14, flush */
  const call want[] = {{5, 1, 4, 1}, {5, 5, 2, 1}, {-5, 0, 0, 1}, {0, 6, 6, 1}, {5, 7, 4, 1}, {5, 11, 2, 1},
                       {-5, 0, 0, 1}, {0, 12, 12, 1}, {5, 13, 2, 1}, {-5, 0, 0, 1}};
  cr_assert_eq(rec.count, 10, "%d calls", rec.count);
  for (int i = 0; i < 10; i++)
    cr_assert(rec.calls[i].who == want[i].who && rec.calls[i].step == want[i].step && rec.calls[i].t == want[i].t,
              "call %d: (%d, %ld, %g), want (%d, %ld, %g)", i, rec.calls[i].who, rec.calls[i].step, rec.calls[i].t,
              want[i].who, want[i].step, want[i].t);
  cl_pipeline_clear(&pl);
}

Test(pipeline, a_late_error_from_flush_ends_the_run_named) {
  cl_pipeline pl = {0};
  batcher b = {.id = 2, .most = 10, .fail_flush = 1};
  add_batcher(&pl, &b);
  cl_run_options o = options(7, 0, 0, 1);
  long done = 0;
  cl_error err = {0};
  cr_assert_eq(cl_run(&pl, &o, &done, &err), CL_ERR_SCRIPT);
  cr_assert_eq(done, 7, "the steps were taken");
  cr_assert(strstr(err.msg, "stage 1 'batch'") && strstr(err.msg, "late NaN"), "%s", err.msg);
  cl_pipeline_clear(&pl);
}
