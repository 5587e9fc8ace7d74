/* Progress bar: "\r[#####     ]  42%  1234 steps/s  ETA 3m04s", redrawn in
 * place on a terminal, never written to files or pipes. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, fileno, isatty */
#endif

#include "comm.h"
#include "progress.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

enum { BAR_WIDTH = 30 };
static const double REDRAW_INTERVAL_S = 0.1;

double cl_monotonic_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cl_progress_format_duration(double seconds, char *buf, size_t len) {
  if (!(seconds >= 0) || isinf(seconds)) {
    snprintf(buf, len, "--");
    return;
  }
  if (seconds < 59.95) { /* below this, %.1f would not round up to "60.0s" */
    snprintf(buf, len, "%.1fs", seconds);
    return;
  }
  double whole = floor(seconds + 0.5);
  if (whole < 3600) {
    snprintf(buf, len, "%.0fm%02.0fs", floor(whole / 60), fmod(whole, 60));
    return;
  }
  double minutes = floor(seconds / 60 + 0.5);
  snprintf(buf, len, "%.0fh%02.0fm", floor(minutes / 60), fmod(minutes, 60));
}

void cl_progress_start(cl_progress *p, FILE *stream, long start_step, long total) {
  /* one bar per job: rank 0 draws it */
  p->out = stream && isatty(fileno(stream)) && cl_comm_rank() == 0 ? stream : NULL;
  p->total = total;
  p->start_step = start_step;
  p->t0 = cl_monotonic_seconds();
  p->last_draw = -INFINITY; /* the first update draws at once */
  p->width = BAR_WIDTH;
}

/* Fraction of the run done: total counts the steps after start_step. */
static double done_fraction(const cl_progress *p, long step) {
  if (p->total <= 0) return 1;
  double f = (double)(step - p->start_step) / (double)p->total;
  return f < 0 ? 0 : f > 1 ? 1 : f;
}

static void draw(const cl_progress *p, long step, double now, int finished) {
  double fraction = done_fraction(p, step);
  double elapsed = now - p->t0;
  long done = step - p->start_step;
  double rate = elapsed > 0 && done > 0 ? (double)done / elapsed : 0;
  char rate_text[32], when[32];
  /* Slow runs keep their significant digits: "0.25 steps/s", not "0". */
  snprintf(rate_text, sizeof rate_text, rate < 100 ? "%.3g" : "%.0f", rate);
  if (finished)
    cl_progress_format_duration(elapsed, when, sizeof when);
  else
    cl_progress_format_duration(rate > 0 ? (double)(p->total - done) / rate : -1, when,
                                sizeof when);

  int filled = (int)(fraction * p->width);
  fputs("\r[", p->out);
  for (int i = 0; i < p->width; i++) fputc(i < filled ? '#' : ' ', p->out);
  /* "\033[K" clears what a longer previous line left behind. */
  fprintf(p->out, "] %3d%%  %s steps/s  %s %s\033[K", (int)(fraction * 100), rate_text,
          finished ? "took" : "ETA", when);
  fflush(p->out);
}

void cl_progress_update(cl_progress *p, long step) {
  if (!p->out) return;
  double now = cl_monotonic_seconds();
  if (now - p->last_draw < REDRAW_INTERVAL_S) return;
  p->last_draw = now;
  draw(p, step, now, 0);
}

void cl_progress_finish(cl_progress *p, long step) {
  if (!p->out) return;
  draw(p, step, cl_monotonic_seconds(), 1);
  fputc('\n', p->out);
  fflush(p->out);
}
