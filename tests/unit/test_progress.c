/* Progress bar: duration format, silence off a terminal, the drawn line. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* posix_openpt, grantpt, unlockpt, ptsname */
#endif

#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../runtime/progress.h"

static const char *duration(double seconds) {
  static char buf[32];
  cl_progress_format_duration(seconds, buf, sizeof buf);
  return buf;
}

Test(progress, durations_under_a_minute_have_tenths) {
  cr_expect_str_eq(duration(0), "0.0s");
  cr_expect_str_eq(duration(5.23), "5.2s");
  cr_expect_str_eq(duration(59.9), "59.9s");
}

Test(progress, durations_under_an_hour_have_minutes_and_seconds) {
  cr_expect_str_eq(duration(59.97), "1m00s", "rounding up to a minute");
  cr_expect_str_eq(duration(184), "3m04s");
  cr_expect_str_eq(duration(3599.4), "59m59s");
}

Test(progress, long_durations_have_hours_and_minutes) {
  cr_expect_str_eq(duration(3599.6), "1h00m");
  cr_expect_str_eq(duration(3720), "1h02m");
  cr_expect_str_eq(duration(100 * 3600 + 59 * 60 + 40), "101h00m");
}

Test(progress, unknown_durations_are_dashes) {
  cr_expect_str_eq(duration(-1), "--");
  cr_expect_str_eq(duration(NAN), "--");
  cr_expect_str_eq(duration(INFINITY), "--");
}

Test(progress, short_buffers_are_truncated_safely) {
  char buf[4];
  cl_progress_format_duration(184, buf, sizeof buf);
  cr_expect_str_eq(buf, "3m0");
}

Test(progress, nothing_is_written_to_a_file) {
  FILE *f = tmpfile();
  cr_assert_not_null(f);
  cl_progress p;
  cl_progress_start(&p, f, 0, 100);
  cr_expect_null(p.out);
  for (long step = 1; step <= 100; step++) cl_progress_update(&p, step);
  cl_progress_finish(&p, 100);
  cr_expect_eq(ftell(f), 0, "a file gets no progress bar");
  fclose(f);
}

/* A pseudo-terminal: the bar is drawn on the slave side and read on the master. */
typedef struct pty {
  int master;
  FILE *slave;
} pty;

static pty open_pty(void) {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0)
    cr_skip_test("no pseudo-terminal available");
  FILE *slave = fopen(ptsname(master), "w");
  cr_assert_not_null(slave);
  return (pty){master, slave};
}

static char *read_pty(int master) {
  static char buf[4096];
  size_t used = 0;
  struct pollfd pfd = {.fd = master, .events = POLLIN};
  while (used + 1 < sizeof buf && poll(&pfd, 1, 200) > 0) {
    ssize_t n = read(master, buf + used, sizeof buf - 1 - used);
    if (n <= 0) break;
    used += (size_t)n;
  }
  buf[used] = '\0';
  return buf;
}

static int count(const char *s, char c) {
  int n = 0;
  for (; *s; s++) n += *s == c;
  return n;
}

Test(progress, terminal_gets_the_bar_at_most_ten_times_a_second) {
  pty t = open_pty();
  cl_progress p;
  cl_progress_start(&p, t.slave, 1000, 200);
  cr_assert_eq(p.out, t.slave);
  for (long step = 1001; step <= 1100; step++) cl_progress_update(&p, step);
  cl_progress_finish(&p, 1200);
  char *out = read_pty(t.master);
  cr_expect_eq(count(out, '%'), 2, "the first update and the finish draw: %s", out);
  cr_expect(strstr(out, "\r[  "), "the first update shows an empty bar: %s", out);
  cr_expect(strstr(out, "  0%"), "%s", out);
  cr_expect(strstr(out, "] 100%"), "finish shows 100%%: %s", out);
  cr_expect(strstr(out, " steps/s"), "%s", out);
  cr_expect(strstr(out, "took "), "finish shows the elapsed time: %s", out);
  cr_expect(strchr(out, '\n'), "finish ends the line");
  fclose(t.slave);
  close(t.master);
}

Test(progress, half_way_fills_half_the_bar) {
  pty t = open_pty();
  cl_progress p;
  cl_progress_start(&p, t.slave, 0, 10);
  cl_progress_update(&p, 5);
  char *out = read_pty(t.master);
  char expected[64];
  snprintf(expected, sizeof expected, "\r[%.*s%*s]  50%%", p.width / 2,
           "##############################", p.width - p.width / 2, "");
  cr_expect(strncmp(out, expected, strlen(expected)) == 0, "'%s' starts with '%s'", out,
            expected);
  cr_expect(strstr(out, "ETA "), "%s", out);
  fclose(t.slave);
  close(t.master);
}
