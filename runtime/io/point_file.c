#include "point_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLUMNS 4 /* x y z volume */

/* The numbers read so far, one growing array per column. */
typedef struct columns {
  int ncols; /* 0 until the first data line */
  size_t n, cap;
  double *col[MAX_COLUMNS];
} columns;

/* '\r' too, so that files written on Windows read the same */
static const char separators[] = " \t,\r\n";

static void columns_free(columns *c) {
  for (int k = 0; k < MAX_COLUMNS; k++) free(c->col[k]);
}

static cl_status columns_append(columns *c, const double *v, cl_error *err) {
  if (c->n == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 1024;
    for (int k = 0; k < c->ncols; k++) {
      double *grown = realloc(c->col[k], cap * sizeof *grown);
      if (!grown) return cl_error_set(err, CL_ERR_OOM, "out of memory reading %zu points", c->n);
      c->col[k] = grown;
    }
    c->cap = cap;
  }
  for (int k = 0; k < c->ncols; k++) c->col[k][c->n] = v[k];
  c->n++;
  return CL_OK;
}

static int is_comment_or_blank(const char *line) {
  line += strspn(line, " \t\r\n");
  return *line == '#' || *line == '\0';
}

/* Splits line in place; keeps the first max tokens and returns how many there are in all. */
static int split(char *line, char **tokens, int max) {
  int count = 0;
  char *save;
  for (char *t = strtok_r(line, separators, &save); t; t = strtok_r(NULL, separators, &save)) {
    if (count < max) tokens[count] = t;
    count++;
  }
  return count;
}

static cl_status parse_number(const char *token, const char *path, size_t line, double *v, cl_error *err) {
  char *end;
  *v = strtod(token, &end);
  if (end == token || *end != '\0')
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: not a number: '%.40s'", path, line, token);
  if (!isfinite(*v)) return cl_error_set(err, CL_ERR_ARG, "%s:%zu: not a finite number: '%.40s'", path, line, token);
  return CL_OK;
}

/* The first data line fixes the number of columns; later lines must match it. */
static cl_status check_count(columns *c, int found, const char *path, size_t line, cl_error *err) {
  if (c->ncols && found != c->ncols)
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: expected %d numbers like the first line, found %d", path, line,
                        c->ncols, found);
  if (!c->ncols && found != 3 && found != 4)
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: expected 3 numbers (x y volume) or 4 (x y z volume), found %d",
                        path, line, found);
  c->ncols = found;
  return CL_OK;
}

static cl_status read_line(char *text, const char *path, size_t line, columns *c, cl_error *err) {
  if (is_comment_or_blank(text)) return CL_OK;
  char *tokens[MAX_COLUMNS];
  int found = split(text, tokens, MAX_COLUMNS);
  if (!found) return CL_OK; /* separators only */
  CL_TRY(check_count(c, found, path, line, err));
  double v[MAX_COLUMNS];
  for (int k = 0; k < found; k++) CL_TRY(parse_number(tokens[k], path, line, &v[k], err));
  if (!(v[found - 1] > 0))
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: non-positive volume (%g)", path, line, v[found - 1]);
  return columns_append(c, v, err);
}

static cl_status read_all(FILE *f, const char *path, columns *c, cl_error *err) {
  char *text = NULL;
  size_t size = 0;
  cl_status s = CL_OK;
  for (size_t line = 1; s == CL_OK && getline(&text, &size, f) >= 0; line++) s = read_line(text, path, line, c, err);
  if (s == CL_OK && ferror(f)) s = cl_error_set(err, CL_ERR_IO, "%s: read failed: %s", path, strerror(errno));
  free(text);
  if (s == CL_OK && !c->n) s = cl_error_set(err, CL_ERR_ARG, "%s: no points (the file has no data lines)", path);
  return s;
}

/* Coordinates into one SoA block; the volume column is handed over as it is. */
static cl_status take_results(columns *c, double **x, double **volume, cl_error *err) {
  int dim = c->ncols - 1;
  double *soa = malloc((size_t)dim * c->n * sizeof *soa);
  if (!soa) return cl_error_set(err, CL_ERR_OOM, "out of memory for %zu points", c->n);
  for (int k = 0; k < dim; k++) memcpy(soa + (size_t)k * c->n, c->col[k], c->n * sizeof *soa);
  *x = soa;
  *volume = c->col[dim];
  c->col[dim] = NULL;
  return CL_OK;
}

cl_status cl_point_file_read(const char *path, int *dim, size_t *n, double **x, double **volume, cl_error *err) {
  *dim = 0, *n = 0, *x = NULL, *volume = NULL;
  FILE *f = fopen(path, "r");
  if (!f) return cl_error_set(err, CL_ERR_IO, "%s: %s", path, strerror(errno));
  columns c = {0};
  cl_status s = read_all(f, path, &c, err);
  fclose(f);
  if (s == CL_OK) s = take_results(&c, x, volume, err);
  if (s == CL_OK) *dim = c.ncols - 1, *n = c.n;
  columns_free(&c);
  return s;
}
