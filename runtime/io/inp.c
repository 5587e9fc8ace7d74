/* Abaqus .inp reader for 2D meshes (inp.h). One pass collects nodes, elements and sets by id;
 * ids become indices at the end, when every node and element is known. */
#include "inp.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { SKIP, NODES, ELEMENTS, SET };

typedef struct id_key {
  long long id;
  size_t index;
} id_key;

typedef struct pending_set { /* a set as ids, resolved at the end */
  cl_inp_set set;
  long long *ids;
  size_t n, cap;
} pending_set;

typedef struct parse {
  FILE *f;
  const char *path;
  size_t line;
  cl_inp m;
  size_t x_cap, elem_cap;
  long long *node_ids, *elem_ids, *elem_nodes; /* by index; elements' node ids until resolved */
  size_t node_id_cap, elem_id_cap;
  pending_set *sets;
  size_t nsets, set_cap;
  int mode, generate;
  int space;                  /* cl_inp_read_3d: z kept, S3 or C3D8 elements */
  pending_set *set;           /* the set being read (SET), or the ELSET= of an *ELEMENT block */
  long long buf[1 + 8];       /* an element's id and nodes, across continued lines */
  int nbuf;
} parse;

static int grow(void **p, size_t need, size_t size, size_t *cap) {
  if (need <= *cap) return 1;
  size_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  void *q = realloc(*p, c * size);
  if (!q) return 0;
  *p = q, *cap = c;
  return 1;
}

static cl_status oom(parse *P, cl_error *err) {
  return cl_error_set(err, CL_ERR_OOM, "%s:%zu: out of memory", P->path, P->line);
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = 0;
  return s;
}

/* The set called name of the kind, created when new. */
static pending_set *set_named(parse *P, const char *name, int elements) {
  for (size_t i = 0; i < P->nsets; i++)
    if (P->sets[i].set.elements == elements && !strcasecmp(P->sets[i].set.name, name)) return &P->sets[i];
  if (!grow((void **)&P->sets, P->nsets + 1, sizeof *P->sets, &P->set_cap)) return NULL;
  pending_set *s = &P->sets[P->nsets++];
  memset(s, 0, sizeof *s);
  snprintf(s->set.name, sizeof s->set.name, "%s", name);
  s->set.elements = elements;
  return s;
}

static int add_id(pending_set *s, long long id) {
  if (!grow((void **)&s->ids, s->n + 1, sizeof *s->ids, &s->cap)) return 0;
  s->ids[s->n++] = id;
  return 1;
}

/* Nodes per element of an Abaqus plane element type (CPE/CPS + 3, 4, 6, 8 + any of R, H, I), 0 if not one. */
static int type_nodes(const char *t) {
  if (strncasecmp(t, "CPE", 3) && strncasecmp(t, "CPS", 3)) return 0;
  if (!strchr("3468", t[3]) || !t[3]) return 0;
  for (const char *c = t + 4; *c; c++)
    if (!strchr("RHIrhi", *c)) return 0;
  return t[3] - '0';
}

/* Nodes per element of a shell or solid type in space (S3, S3R; C3D8 + any of R, I, H), 0 if not one. */
static int type_nodes_3d(const char *t) {
  if (!strcasecmp(t, "S3") || !strcasecmp(t, "S3R")) return 3;
  if (strncasecmp(t, "C3D8", 4)) return 0;
  for (const char *c = t + 4; *c; c++)
    if (!strchr("RHIrhi", *c)) return 0;
  return 8;
}

/* A keyword line: *KEYWORD, PARAM=value, ... */
static cl_status keyword(parse *P, char *text, cl_error *err) {
  char *save = NULL, *first = strtok_r(text + 1, ",", &save);
  P->mode = SKIP, P->set = NULL, P->nbuf = 0;
  if (!first) return CL_OK;
  char *kw = trim(first);
  char type[32] = "", name[CL_INP_NAME_MAX] = "";
  int generate = 0;
  for (char *tok; (tok = strtok_r(NULL, ",", &save));) {
    char *eq = strchr(tok, '=');
    char *key = trim(eq ? (*eq = 0, tok) : tok), *val = eq ? trim(eq + 1) : "";
    if (!strcasecmp(key, "TYPE")) snprintf(type, sizeof type, "%s", val);
    else if (!strcasecmp(key, "NSET") || !strcasecmp(key, "ELSET")) snprintf(name, sizeof name, "%s", val);
    else if (!strcasecmp(key, "GENERATE")) generate = 1;
  }
  P->generate = generate;
  if (!strcasecmp(kw, "NODE")) {
    P->mode = NODES;
  } else if (!strcasecmp(kw, "ELEMENT")) {
    const int nodes = P->space ? type_nodes_3d(type) : type_nodes(type);
    if (!nodes && P->space)
      return cl_error_set(err, CL_ERR_ARG, "%s:%zu: element type '%s' is not read: give S3 (S3R) shells or C3D8 "
                          "(C3D8R, C3D8I, C3D8H) hexahedra", P->path, P->line, type);
    if (!nodes)
      return cl_error_set(err, CL_ERR_ARG, "%s:%zu: element type '%s' is not read: give CPE3, CPE4, CPE6 or CPE8 (or "
                          "CPS, with R, H or I variants) elements", P->path, P->line, type);
    if (P->m.type[0] && strcasecmp(P->m.type, type))
      return cl_error_set(err, CL_ERR_ARG, "%s:%zu: elements of type %s after %s: a file of one element type is "
                          "expected", P->path, P->line, type, P->m.type);
    for (size_t i = 0; type[i] && i < sizeof P->m.type - 1; i++) P->m.type[i] = (char)toupper((unsigned char)type[i]);
    P->m.nodes_per_elem = nodes, P->mode = ELEMENTS;
    if (name[0] && !(P->set = set_named(P, name, 1))) return oom(P, err);
  } else if ((!strcasecmp(kw, "NSET") || !strcasecmp(kw, "ELSET")) && name[0]) {
    if (!(P->set = set_named(P, name, !strcasecmp(kw, "ELSET")))) return oom(P, err);
    P->mode = SET;
  }
  return CL_OK;
}

/* The comma-separated numbers of a data line into v (at most max); *more: it ends with a comma. */
static cl_status numbers(parse *P, char *text, double *v, int max, int *count, int *more, cl_error *err) {
  *count = 0, *more = 0;
  char *s = text;
  for (;;) {
    char *comma = strchr(s, ',');
    if (comma) *comma = 0;
    char *tok = trim(s), *end;
    if (*tok) {
      if (*count == max)
        return cl_error_set(err, CL_ERR_ARG, "%s:%zu: more than %d numbers on a line", P->path, P->line, max);
      errno = 0;
      v[*count] = strtod(tok, &end);
      if (*end || errno)
        return cl_error_set(err, CL_ERR_ARG, "%s:%zu: expected a number, found '%.40s'", P->path, P->line, tok);
      (*count)++;
    } else if (!comma) {
      *more = *count > 0 && s != text; /* the line ended with a comma */
      return CL_OK;
    }
    if (!comma) return CL_OK;
    s = comma + 1;
  }
}

static cl_status data(parse *P, char *text, cl_error *err) {
  double v[16];
  int n, more;
  if (P->mode == SKIP) return CL_OK;
  CL_TRY(numbers(P, text, v, 16, &n, &more, err));
  cl_inp *m = &P->m;
  if (P->mode == NODES) {
    if (n < 3 || n > 4)
      return cl_error_set(err, CL_ERR_ARG, "%s:%zu: expected a node: id, x, y[, z]", P->path, P->line);
    if (n == 4 && v[3] != 0 && !P->space)
      return cl_error_set(err, CL_ERR_ARG, "%s:%zu: node %.0f has z = %g: only meshes in the plane z = 0 are read",
                          P->path, P->line, v[0], v[3]);
    const size_t dim = P->space ? 3 : 2;
    if (!grow((void **)&m->x, dim * (m->nnodes + 1), sizeof *m->x, &P->x_cap) ||
        !grow((void **)&P->node_ids, m->nnodes + 1, sizeof *P->node_ids, &P->node_id_cap))
      return oom(P, err);
    P->node_ids[m->nnodes] = (long long)v[0];
    for (size_t c = 0; c < dim; c++) m->x[dim * m->nnodes + c] = c < 2 || n == 4 ? v[1 + c] : 0;
    m->nnodes++;
    return CL_OK;
  }
  if (P->mode == SET) {
    if (P->generate) {
      if (n < 2 || n > 3 || (n == 3 && !(v[2] > 0)))
        return cl_error_set(err, CL_ERR_ARG, "%s:%zu: expected first, last[, step > 0] (GENERATE)", P->path, P->line);
      for (long long id = (long long)v[0]; id <= (long long)v[1]; id += n == 3 ? (long long)v[2] : 1)
        if (!add_id(P->set, id)) return oom(P, err);
      return CL_OK;
    }
    for (int i = 0; i < n; i++)
      if (!add_id(P->set, (long long)v[i])) return oom(P, err);
    return CL_OK;
  }
  /* ELEMENTS: id and nodes_per_elem node ids, maybe over several lines */
  const int want = 1 + m->nodes_per_elem;
  for (int i = 0; i < n; i++) {
    if (P->nbuf == want) return cl_error_set(err, CL_ERR_ARG, "%s:%zu: more than %d node ids for a %s element",
                                             P->path, P->line, m->nodes_per_elem, m->type);
    P->buf[P->nbuf++] = (long long)v[i];
  }
  if (more && P->nbuf < want) return CL_OK;
  if (P->nbuf != want)
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: expected an element: id and %d node ids (%s)", P->path, P->line,
                        m->nodes_per_elem, m->type);
  if (!grow((void **)&P->elem_ids, m->nelems + 1, sizeof *P->elem_ids, &P->elem_id_cap) ||
      !grow((void **)&P->elem_nodes, (m->nelems + 1) * 8, sizeof *P->elem_nodes, &P->elem_cap))
    return oom(P, err);
  P->elem_ids[m->nelems] = P->buf[0];
  for (int a = 0; a < m->nodes_per_elem; a++) P->elem_nodes[m->nelems * 8 + a] = P->buf[1 + a];
  if (P->set && !add_id(P->set, P->buf[0])) return oom(P, err);
  m->nelems++, P->nbuf = 0;
  return CL_OK;
}

static int by_id(const void *a, const void *b) {
  const long long x = ((const id_key *)a)->id, y = ((const id_key *)b)->id;
  return (x > y) - (x < y);
}

/* ids sorted with their indices; a repeated id is refused */
static cl_status keys(parse *P, const long long *ids, size_t n, const char *what, id_key **out, cl_error *err) {
  id_key *k = malloc(sizeof *k * (n ? n : 1));
  if (!k) return oom(P, err);
  for (size_t i = 0; i < n; i++) k[i] = (id_key){ids[i], i};
  qsort(k, n, sizeof *k, by_id);
  for (size_t i = 1; i < n; i++)
    if (k[i].id == k[i - 1].id) {
      const long long id = k[i].id;
      free(k);
      return cl_error_set(err, CL_ERR_ARG, "%s: %s %lld is defined twice", P->path, what, id);
    }
  *out = k;
  return CL_OK;
}

static int lookup(const id_key *k, size_t n, long long id, uint32_t *index) {
  const id_key *hit = bsearch(&(id_key){id, 0}, k, n, sizeof *k, by_id);
  if (hit) *index = (uint32_t)hit->index;
  return hit != NULL;
}

/* node and element ids to indices, sets included */
static cl_status resolve(parse *P, cl_error *err) {
  cl_inp *m = &P->m;
  if (!m->nelems) return cl_error_set(err, CL_ERR_ARG, "%s: no elements (*ELEMENT) in the file", P->path);
  id_key *nk = NULL, *ek = NULL;
  CL_TRY(keys(P, P->node_ids, m->nnodes, "node", &nk, err));
  cl_status st = keys(P, P->elem_ids, m->nelems, "element", &ek, err);
  const size_t nn = (size_t)m->nodes_per_elem;
  if (st == CL_OK && !(m->elem = malloc(sizeof *m->elem * m->nelems * nn))) st = oom(P, err);
  for (size_t e = 0; st == CL_OK && e < m->nelems; e++)
    for (size_t a = 0; a < nn && st == CL_OK; a++)
      if (!lookup(nk, m->nnodes, P->elem_nodes[e * 8 + a], &m->elem[e * nn + a]))
        st = cl_error_set(err, CL_ERR_ARG, "%s: element %lld refers to node %lld, which *NODE does not define", P->path,
                          P->elem_ids[e], P->elem_nodes[e * 8 + a]);
  if (st == CL_OK && P->nsets && !(m->sets = calloc(P->nsets, sizeof *m->sets))) st = oom(P, err);
  for (size_t i = 0; st == CL_OK && i < P->nsets; i++) {
    pending_set *s = &P->sets[i];
    cl_inp_set *out = &m->sets[m->nsets++];
    *out = s->set;
    const size_t count = s->set.elements ? m->nelems : m->nnodes;
    uint8_t *seen = calloc(count ? count : 1, 1);
    if (!seen || !(out->items = malloc(sizeof *out->items * (s->n ? s->n : 1)))) {
      free(seen);
      st = oom(P, err);
      break;
    }
    for (size_t j = 0; j < s->n && st == CL_OK; j++) {
      uint32_t idx;
      if (!lookup(s->set.elements ? ek : nk, count, s->ids[j], &idx))
        st = cl_error_set(err, CL_ERR_ARG, "%s: set '%s' names %s %lld, which the file does not define", P->path,
                          s->set.name, s->set.elements ? "element" : "node", s->ids[j]);
      else if (!seen[idx])
        seen[idx] = 1, out->items[out->n++] = idx;
    }
    free(seen);
  }
  free(nk), free(ek);
  return st;
}

void cl_inp_free(cl_inp *m) {
  for (size_t i = 0; i < m->nsets; i++) free(m->sets[i].items);
  free(m->x), free(m->elem), free(m->sets);
  *m = (cl_inp){0};
}

static cl_status read_inp(const char *path, int space, cl_inp *out, cl_error *err) {
  *out = (cl_inp){0};
  parse P = {.path = path, .space = space};
  P.f = fopen(path, "r");
  if (!P.f) return cl_error_set(err, CL_ERR_IO, "%s: %s", path, strerror(errno));
  char *text = NULL;
  size_t cap = 0;
  cl_status st = CL_OK;
  while (st == CL_OK && getline(&text, &cap, P.f) >= 0) {
    P.line++;
    char *s = trim(text);
    if (!*s || (s[0] == '*' && s[1] == '*')) continue;
    st = s[0] == '*' ? keyword(&P, s, err) : data(&P, s, err);
  }
  if (st == CL_OK && P.nbuf)
    st = cl_error_set(err, CL_ERR_ARG, "%s:%zu: the last element's node ids are cut short", path, P.line);
  if (st == CL_OK) st = resolve(&P, err);
  fclose(P.f);
  free(text), free(P.node_ids), free(P.elem_ids), free(P.elem_nodes);
  for (size_t i = 0; i < P.nsets; i++) free(P.sets[i].ids);
  free(P.sets);
  if (st == CL_OK) *out = P.m;
  else cl_inp_free(&P.m);
  return st;
}

cl_status cl_inp_read(const char *path, cl_inp *out, cl_error *err) { return read_inp(path, 0, out, err); }

cl_status cl_inp_read_3d(const char *path, cl_inp *out, cl_error *err) { return read_inp(path, 1, out, err); }
