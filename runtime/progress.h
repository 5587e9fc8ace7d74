/* A one-line progress bar (percentage, steps/s, ETA) for long runs. It draws
 * only when the stream is a terminal, at most ten times a second. */
#ifndef CL_PROGRESS_H
#define CL_PROGRESS_H

#include <stdio.h>

typedef struct cl_progress {
  FILE *out;        /* NULL when not a terminal: every call is a no-op */
  long total, start_step;
  double t0, last_draw;
  int width;
} cl_progress;

/* total is the number of steps this run makes after start_step; update and
 * finish take the current (absolute) step number. */
void cl_progress_start(cl_progress *p, FILE *stream, long start_step, long total);
void cl_progress_update(cl_progress *p, long step);
void cl_progress_finish(cl_progress *p, long step);
/* Seconds on the monotonic clock (for durations). */
double cl_monotonic_seconds(void);

/* Formats a duration in seconds as "1h02m", "3m04s" or "5.2s". */
void cl_progress_format_duration(double seconds, char *buf, size_t len);

#endif
