/* Gmsh reader, line by line: Gmsh writes one record per line, so an error
 * can name its line and an element of a skipped type can be passed over
 * without knowing its node count. */
#include "msh.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The current line, split into tokens; raw keeps it whole for quoted names. */
typedef struct reader {
  FILE *f;
  const char *path;
  size_t line;
  char *text, *raw;
  size_t text_size, raw_cap;
  char **tok;
  size_t ntok, tok_cap;
} reader;

typedef struct node_key {
  uint64_t tag;
  size_t index, line;
} node_key;

/* A 4.1 model entity and the physical group its elements belong to. */
typedef struct entity {
  int dim, tag, group;
} entity;

typedef struct build {
  reader rd;
  int v41; /* format 4.1, else 2.2 */
  cl_msh m;
  size_t x_cap, group_cap;
  size_t cap[2][2]; /* [edges, triangles][node indices, groups] */
  node_key *keys;   /* one per node, sorted by tag once $Nodes is read */
  size_t key_cap;
  entity *ents;
  size_t nents, ent_cap;
  int quads;               /* cl_msh_read_cells: quadrangles are cells too */
  int space;               /* cl_msh_read_3d: x, y, z kept; triangles or hexahedra; groups as node lists */
  size_t tagged_cap[3];
  int tri_type, edge_type; /* the first kept of each, 0 before */
  size_t tri_line, edge_line;
  int seen[4]; /* by section, in the order of sections[] */
} build;

enum { NAMES, ENTITIES, NODES, ELEMENTS };

/* Room for need items of size bytes at p, which holds *cap; NULL if out of memory. */
static void *grow(void *p, size_t need, size_t size, size_t *cap) {
  if (need <= *cap) return p;
  size_t c = *cap ? *cap : 64;
  while (c < need) c *= 2;
  void *q = realloc(p, c * size);
  if (q) *cap = c;
  return q;
}

static cl_status oom(const reader *rd, cl_error *err) {
  return cl_error_set(err, CL_ERR_OOM, "%s:%zu: out of memory", rd->path, rd->line);
}

/* Splits rd->text in place into rd->tok. */
static cl_status split(reader *rd, cl_error *err) {
  rd->ntok = 0;
  char *save;
  for (char *t = strtok_r(rd->text, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
    char **tok = grow(rd->tok, rd->ntok + 1, sizeof *tok, &rd->tok_cap);
    if (!tok) return oom(rd, err);
    rd->tok = tok;
    rd->tok[rd->ntok++] = t;
  }
  return CL_OK;
}

/* The next line that is not blank, in tokens; *got is 0 at the end of the file. */
static cl_status next_line(reader *rd, int *got, cl_error *err) {
  ssize_t len;
  while ((len = getline(&rd->text, &rd->text_size, rd->f)) >= 0) {
    rd->line++;
    char *raw = grow(rd->raw, (size_t)len + 1, 1, &rd->raw_cap);
    if (!raw) return oom(rd, err);
    rd->raw = memcpy(raw, rd->text, (size_t)len + 1);
    CL_TRY(split(rd, err));
    if (rd->ntok) return *got = 1, CL_OK;
  }
  if (ferror(rd->f)) return cl_error_set(err, CL_ERR_IO, "%s: read failed: %s", rd->path, strerror(errno));
  return *got = 0, CL_OK;
}

static cl_status expect_line(reader *rd, const char *what, cl_error *err) {
  int got;
  CL_TRY(next_line(rd, &got, err));
  if (!got && !rd->line) return cl_error_set(err, CL_ERR_ARG, "%s:1: the file is empty; expected %s", rd->path, what);
  if (!got) return cl_error_set(err, CL_ERR_ARG, "%s:%zu: the file ends; expected %s", rd->path, rd->line, what);
  return CL_OK;
}

static cl_status expected(const reader *rd, size_t k, const char *what, cl_error *err) {
  if (k >= rd->ntok)
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: expected %s after the last number", rd->path, rd->line, what);
  return cl_error_set(err, CL_ERR_ARG, "%s:%zu: expected %s, found '%.40s'", rd->path, rd->line, what, rd->tok[k]);
}

static cl_status expect_tokens(const reader *rd, size_t n, const char *what, cl_error *err) {
  if (rd->ntok == n) return CL_OK;
  if (rd->tok[0][0] == '$') return expected(rd, 0, what, err); /* a section ends too soon */
  return cl_error_set(err, CL_ERR_ARG, "%s:%zu: expected %zu numbers (%s), found %zu", rd->path, rd->line, n, what,
                      rd->ntok);
}

static cl_status get_long(const reader *rd, size_t k, const char *what, long long lo, long long hi, long long *v,
                          cl_error *err) {
  if (k >= rd->ntok) return expected(rd, k, what, err);
  char *end;
  errno = 0;
  *v = strtoll(rd->tok[k], &end, 10);
  if (end == rd->tok[k] || *end || errno || *v < lo || *v > hi) return expected(rd, k, what, err);
  return CL_OK;
}

static cl_status get_int(const reader *rd, size_t k, const char *what, int *v, cl_error *err) {
  long long n;
  CL_TRY(get_long(rd, k, what, INT_MIN, INT_MAX, &n, err));
  return *v = (int)n, CL_OK;
}

static cl_status get_size(const reader *rd, size_t k, const char *what, size_t *v, cl_error *err) {
  long long n;
  CL_TRY(get_long(rd, k, what, 0, LLONG_MAX, &n, err));
  return *v = (size_t)n, CL_OK;
}

static cl_status get_double(const reader *rd, size_t k, const char *what, double *v, cl_error *err) {
  if (k >= rd->ntok) return expected(rd, k, what, err);
  char *end;
  *v = strtod(rd->tok[k], &end);
  if (end == rd->tok[k] || *end || !isfinite(*v)) return expected(rd, k, what, err);
  return CL_OK;
}

/* A line holding exactly the word word, such as $EndNodes. */
static cl_status expect_word(reader *rd, const char *word, cl_error *err) {
  CL_TRY(expect_line(rd, word, err));
  if (rd->ntok == 1 && !strcmp(rd->tok[0], word)) return CL_OK;
  return expected(rd, 0, word, err);
}

#define CONVERT "only ASCII 2.2 and 4.1 are read; convert with gmsh FILE -save -format msh41 -o OUT.msh (or msh22)"

/* A line holding one count. */
static cl_status read_count(reader *rd, const char *what, size_t *n, cl_error *err) {
  CL_TRY(expect_line(rd, what, err));
  CL_TRY(expect_tokens(rd, 1, what, err));
  return get_size(rd, 0, what, n, err);
}

static cl_status read_format(build *b, cl_error *err) {
  reader *rd = &b->rd;
  CL_TRY(expect_word(rd, "$MeshFormat", err));
  CL_TRY(expect_line(rd, "version file-type data-size", err));
  CL_TRY(expect_tokens(rd, 3, "version file-type data-size", err));
  if (strcmp(rd->tok[0], "2.2") && strcmp(rd->tok[0], "4.1"))
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: MSH version %.20s: " CONVERT, rd->path, rd->line, rd->tok[0]);
  if (strcmp(rd->tok[1], "0"))
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: binary MSH file (file-type %.20s): " CONVERT, rd->path, rd->line,
                        rd->tok[1]);
  b->v41 = rd->tok[0][0] == '4';
  return expect_word(rd, "$EndMeshFormat", err);
}

static cl_status read_name(build *b, cl_error *err) {
  reader *rd = &b->rd;
  cl_msh_physical g;
  CL_TRY(get_int(rd, 0, "a dimension", &g.dim, err));
  CL_TRY(get_int(rd, 1, "a physical tag", &g.tag, err));
  char *open = strchr(rd->raw, '"'), *close = strrchr(rd->raw, '"');
  if (rd->ntok < 3 || rd->tok[2][0] != '"' || open == close) return expected(rd, 2, "a \"quoted name\"", err);
  size_t len = (size_t)(close - open - 1);
  if (len >= CL_MSH_NAME_MAX)
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: expected a name of at most %d characters, found %zu", rd->path,
                        rd->line, CL_MSH_NAME_MAX - 1, len);
  memcpy(g.name, open + 1, len);
  g.name[len] = '\0';
  cl_msh_physical *groups = grow(b->m.groups, b->m.ngroups + 1, sizeof *groups, &b->group_cap);
  if (!groups) return oom(rd, err);
  b->m.groups = groups;
  groups[b->m.ngroups++] = g;
  return CL_OK;
}

static cl_status read_names(build *b, cl_error *err) {
  reader *rd = &b->rd;
  size_t n;
  CL_TRY(read_count(rd, "the number of physical names", &n, err));
  for (size_t i = 0; i < n; i++) {
    CL_TRY(expect_line(rd, "a physical name: dimension tag \"name\"", err));
    CL_TRY(read_name(b, err));
  }
  return CL_OK;
}

/* tag X Y Z for a point, tag and a bounding box for the others, then
 * numPhysicalTags physicalTag..., then for curves, surfaces and volumes
 * numBounding tag... */
static cl_status read_entity(build *b, int dim, cl_error *err) {
  reader *rd = &b->rd;
  size_t at = dim == 0 ? 4 : 7, nphys, nbound = 0;
  entity e = {dim, 0, -1};
  CL_TRY(get_int(rd, 0, "an entity tag", &e.tag, err));
  for (size_t k = 1; k < at; k++) CL_TRY(get_double(rd, k, "a coordinate of the entity", &(double){0}, err));
  CL_TRY(get_size(rd, at, "the number of physical tags", &nphys, err));
  if (nphys > rd->ntok) return expected(rd, at, "the number of physical tags", err);
  for (size_t k = at + 1; k < at + 1 + nphys; k++) CL_TRY(get_int(rd, k, "a physical tag", &(int){0}, err));
  if (nphys) e.group = atoi(rd->tok[at + 1]);
  if (dim > 0) {
    CL_TRY(get_size(rd, at + 1 + nphys, "the number of bounding entities", &nbound, err));
    nbound++; /* and the count itself */
  }
  CL_TRY(expect_tokens(rd, at + 1 + nphys + nbound, "an entity", err));
  entity *ents = grow(b->ents, b->nents + 1, sizeof *ents, &b->ent_cap);
  if (!ents) return oom(rd, err);
  b->ents = ents;
  ents[b->nents++] = e;
  return CL_OK;
}

static cl_status read_entities(build *b, cl_error *err) {
  reader *rd = &b->rd;
  if (b->seen[ELEMENTS])
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: expected $Entities before $Elements", rd->path, rd->line);
  size_t n[4];
  CL_TRY(expect_line(rd, "numPoints numCurves numSurfaces numVolumes", err));
  CL_TRY(expect_tokens(rd, 4, "numPoints numCurves numSurfaces numVolumes", err));
  for (int d = 0; d < 4; d++) CL_TRY(get_size(rd, (size_t)d, "a number of entities", &n[d], err));
  for (int d = 0; d < 4; d++)
    for (size_t i = 0; i < n[d]; i++) {
      CL_TRY(expect_line(rd, "an entity", err));
      CL_TRY(read_entity(b, d, err));
    }
  return CL_OK;
}

static cl_status add_key(build *b, size_t k, cl_error *err) {
  reader *rd = &b->rd;
  long long tag;
  CL_TRY(get_long(rd, k, "a node tag (a positive integer)", 1, LLONG_MAX, &tag, err));
  if (b->m.nnodes == UINT32_MAX)
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: more than %u nodes", rd->path, rd->line, UINT32_MAX);
  node_key *keys = grow(b->keys, b->m.nnodes + 1, sizeof *keys, &b->key_cap);
  if (!keys) return oom(rd, err);
  b->keys = keys;
  keys[b->m.nnodes] = (node_key){(uint64_t)tag, b->m.nnodes, rd->line};
  b->m.nnodes++;
  return CL_OK;
}

/* x y z from token k on into node i. */
static cl_status set_coords(build *b, size_t i, size_t k, cl_error *err) {
  reader *rd = &b->rd;
  double z;
  if (b->space) {
    double *x = grow(b->m.x, 3 * i + 3, sizeof *x, &b->x_cap);
    if (!x) return oom(rd, err);
    b->m.x = x;
    CL_TRY(get_double(rd, k, "the x coordinate", &x[3 * i], err));
    CL_TRY(get_double(rd, k + 1, "the y coordinate", &x[3 * i + 1], err));
    return get_double(rd, k + 2, "the z coordinate", &x[3 * i + 2], err);
  }
  double *x = grow(b->m.x, 2 * i + 2, sizeof *x, &b->x_cap);
  if (!x) return oom(rd, err);
  b->m.x = x;
  CL_TRY(get_double(rd, k, "the x coordinate", &x[2 * i], err));
  CL_TRY(get_double(rd, k + 1, "the y coordinate", &x[2 * i + 1], err));
  CL_TRY(get_double(rd, k + 2, "the z coordinate", &z, err));
  if (z != 0)
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: z = %g: only 2D meshes in the plane z = 0 are read", rd->path,
                        rd->line, z);
  return CL_OK;
}

static cl_status read_nodes22(build *b, cl_error *err) {
  reader *rd = &b->rd;
  size_t n;
  CL_TRY(read_count(rd, "the number of nodes", &n, err));
  for (size_t i = 0; i < n; i++) {
    CL_TRY(expect_line(rd, "a node: tag x y z", err));
    CL_TRY(expect_tokens(rd, 4, "a node: tag x y z", err));
    CL_TRY(add_key(b, 0, err));
    CL_TRY(set_coords(b, i, 1, err));
  }
  return CL_OK;
}

/* entityDim entityTag parametric numNodesInBlock, the tags one a line, then
 * x y z (and entityDim parametric coordinates, ignored) one a line. */
static cl_status read_node_block(build *b, cl_error *err) {
  reader *rd = &b->rd;
  int dim, parametric;
  size_t n, first = b->m.nnodes;
  CL_TRY(expect_line(rd, "a node block: entityDim entityTag parametric numNodesInBlock", err));
  CL_TRY(expect_tokens(rd, 4, "entityDim entityTag parametric numNodesInBlock", err));
  CL_TRY(get_int(rd, 0, "an entity dimension (0 to 3)", &dim, err));
  CL_TRY(get_int(rd, 2, "parametric (0 or 1)", &parametric, err));
  CL_TRY(get_size(rd, 3, "the number of nodes in the block", &n, err));
  if (dim < 0 || dim > 3) return expected(rd, 0, "an entity dimension (0 to 3)", err);
  if (parametric != 0 && parametric != 1) return expected(rd, 2, "parametric (0 or 1)", err);
  for (size_t i = 0; i < n; i++) {
    CL_TRY(expect_line(rd, "a node tag", err));
    CL_TRY(expect_tokens(rd, 1, "a node tag", err));
    CL_TRY(add_key(b, 0, err));
  }
  for (size_t i = 0; i < n; i++) {
    CL_TRY(expect_line(rd, "node coordinates", err));
    CL_TRY(expect_tokens(rd, 3 + (size_t)(parametric * dim), parametric ? "x y z and u v w" : "x y z", err));
    CL_TRY(set_coords(b, first + i, 0, err));
  }
  return CL_OK;
}

/* What the header line of a 4.1 $Nodes or $Elements says. */
typedef struct header41 {
  size_t blocks, items, line;
} header41;

static cl_status read_header41(reader *rd, const char *what, header41 *h, cl_error *err) {
  CL_TRY(expect_line(rd, what, err));
  CL_TRY(expect_tokens(rd, 4, what, err));
  CL_TRY(get_size(rd, 0, "a number of blocks", &h->blocks, err));
  CL_TRY(get_size(rd, 1, "a total count", &h->items, err));
  for (size_t k = 2; k < 4; k++) CL_TRY(get_size(rd, k, "a tag bound", &(size_t){0}, err));
  h->line = rd->line;
  return CL_OK;
}

static cl_status check_total(const reader *rd, const header41 *h, size_t found, const char *what, cl_error *err) {
  if (found == h->items) return CL_OK;
  return cl_error_set(err, CL_ERR_ARG, "%s:%zu: expected %zu %s as the header says, the blocks hold %zu", rd->path,
                      h->line, h->items, what, found);
}

static cl_status read_nodes41(build *b, cl_error *err) {
  header41 h;
  CL_TRY(read_header41(&b->rd, "numEntityBlocks numNodes minNodeTag maxNodeTag", &h, err));
  for (size_t i = 0; i < h.blocks; i++) CL_TRY(read_node_block(b, err));
  return check_total(&b->rd, &h, b->m.nnodes, "nodes", err);
}

static int by_tag(const void *a, const void *b) {
  uint64_t s = ((const node_key *)a)->tag, t = ((const node_key *)b)->tag;
  return (s > t) - (s < t);
}

/* Sorted for the elements' look-ups; a tag seen twice is an error. */
static cl_status index_nodes(build *b, cl_error *err) {
  qsort(b->keys, b->m.nnodes, sizeof *b->keys, by_tag);
  for (size_t i = 1; i < b->m.nnodes; i++) {
    const node_key *p = &b->keys[i - 1], *q = &b->keys[i];
    if (p->tag != q->tag) continue;
    const node_key *later = p->line > q->line ? p : q, *first = later == p ? q : p;
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: node tag %llu is defined again (first at line %zu)", b->rd.path,
                        later->line, (unsigned long long)later->tag, first->line);
  }
  return CL_OK;
}

static cl_status read_nodes(build *b, cl_error *err) {
  CL_TRY(b->v41 ? read_nodes41(b, err) : read_nodes22(b, err));
  return index_nodes(b, err);
}

/* The element types kept: lines and triangles of order 1 and 2; for cl_msh_read_cells also
 * quadrangles of order 1 to 3 and the 4-node lines that bound the cubic ones. */
typedef struct kept_type {
  int type;
  size_t nodes;
  const char *name;
} kept_type;

static const kept_type kept_types[] = {{1, 2, "2-node lines (type 1)"},
                                       {2, 3, "3-node triangles (type 2)"},
                                       {8, 3, "3-node lines (type 8)"},
                                       {9, 6, "6-node triangles (type 9)"},
                                       {3, 4, "4-node quadrangles (type 3)"},
                                       {10, 9, "9-node quadrangles (type 10)"},
                                       {36, 16, "16-node quadrangles (type 36)"},
                                       {26, 4, "4-node lines (type 26)"}};
#define CL_MSH_TRIANGLE_TYPES 4 /* the first entries: what cl_msh_read keeps */

static int is_quad(int type) { return type == 3 || type == 10 || type == 36; }
static int is_cell(int type) { return type == 2 || type == 9 || is_quad(type); }

/* The entry of type, or NULL for a type that is skipped. */
static const kept_type *kept_by(int quads, int type) {
  const size_t n = quads ? sizeof kept_types / sizeof *kept_types : CL_MSH_TRIANGLE_TYPES;
  for (size_t i = 0; i < n; i++)
    if (kept_types[i].type == type) return &kept_types[i];
  return NULL;
}

static const kept_type *kept(int type) { return kept_by(1, type); }

/* All triangles, and all edges, must have one order. */
static cl_status check_type(build *b, int *first, size_t *first_line, int type, cl_error *err) {
  if (!*first) *first = type, *first_line = b->rd.line;
  if (*first == type) return CL_OK;
  return cl_error_set(err, CL_ERR_ARG, "%s:%zu: %s after %s (line %zu): a file of one order is expected", b->rd.path,
                      b->rd.line, kept(type)->name, kept(*first)->name, *first_line);
}

static cl_status node_index(build *b, size_t k, uint32_t *index, cl_error *err) {
  reader *rd = &b->rd;
  long long tag;
  CL_TRY(get_long(rd, k, "a node tag (a positive integer)", 1, LLONG_MAX, &tag, err));
  node_key *hit = bsearch(&(node_key){.tag = (uint64_t)tag}, b->keys, b->m.nnodes, sizeof *b->keys, by_tag);
  if (!hit)
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: expected a node defined in $Nodes, found node %lld", rd->path,
                        rd->line, tag);
  *index = (uint32_t)hit->index;
  return CL_OK;
}

/* Appends a triangle or an edge: its n node indices and its group. */
static cl_status append(build *b, int triangle, const uint32_t *nodes, size_t n, int group, cl_error *err) {
  cl_msh *m = &b->m;
  uint32_t **list = triangle ? &m->elem : &m->edge;
  int32_t **groups = triangle ? &m->elem_group : &m->edge_group;
  size_t *count = triangle ? &m->nelems : &m->nedges, *cap = b->cap[triangle];
  uint32_t *l = grow(*list, (*count + 1) * n, sizeof *l, &cap[0]);
  if (l) *list = l;
  int32_t *g = grow(*groups, *count + 1, sizeof *g, &cap[1]);
  if (g) *groups = g;
  if (!l || !g) return oom(&b->rd, err);
  memcpy(l + *count * n, nodes, n * sizeof *nodes);
  g[(*count)++] = group;
  return CL_OK;
}

/* An element of a kept type whose node tags start at token k. */
static cl_status add_element(build *b, const kept_type *t, int group, size_t k, cl_error *err) {
  int triangle = is_cell(t->type); /* a cell: a triangle or (cl_msh_read_cells) a quadrangle */
  if (!triangle && group < 0) return b->m.nskipped++, CL_OK;
  CL_TRY(triangle ? check_type(b, &b->tri_type, &b->tri_line, t->type, err)
                  : check_type(b, &b->edge_type, &b->edge_line, t->type, err));
  uint32_t nodes[16];
  for (size_t j = 0; j < t->nodes; j++) CL_TRY(node_index(b, k + j, &nodes[j], err));
  return append(b, triangle, nodes, t->nodes, group, err);
}

/* cl_msh_read_3d: an element whose node tags are the tokens from k on. A triangle (type 2) or a
 * hexahedron (type 5) is a cell; every element of a physical group lists its nodes under it. */
static cl_status add_element_3d(build *b, int type, int dim, int group, size_t k, cl_error *err) {
  reader *rd = &b->rd;
  const int cell = type == 2 || type == 5;
  if (!cell && group < 0) return b->m.nskipped++, CL_OK;
  if (cell && !b->tri_type) b->tri_type = type, b->tri_line = rd->line;
  if (cell && b->tri_type != type)
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: %s after %s (line %zu): one kind of cell per file is expected",
                        rd->path, rd->line, type == 5 ? "a hexahedron (type 5)" : "a triangle (type 2)",
                        b->tri_type == 5 ? "hexahedra (type 5)" : "triangles (type 2)", b->tri_line);
  const size_t n = rd->ntok > k ? rd->ntok - k : 0, want = type == 5 ? 8 : 3;
  if (cell && n != want)
    return expect_tokens(rd, k + want, type == 5 ? "a hexahedron's 8 nodes" : "a triangle's 3 nodes", err);
  if (!n) return expected(rd, k, "node tags", err);
  uint32_t nodes[8];
  for (size_t j = 0; j < n; j++) {
    uint32_t index;
    CL_TRY(node_index(b, k + j, &index, err));
    if (cell) nodes[j] = index;
    if (group < 0) continue;
    uint32_t *tn = grow(b->m.tagged_node, b->m.ntagged + 1, sizeof *tn, &b->tagged_cap[0]);
    if (tn) b->m.tagged_node = tn;
    int32_t *tg = grow(b->m.tagged_group, b->m.ntagged + 1, sizeof *tg, &b->tagged_cap[1]);
    if (tg) b->m.tagged_group = tg;
    int32_t *td = grow(b->m.tagged_dim, b->m.ntagged + 1, sizeof *td, &b->tagged_cap[2]);
    if (td) b->m.tagged_dim = td;
    if (!tn || !tg || !td) return oom(rd, err);
    tn[b->m.ntagged] = index, tg[b->m.ntagged] = group, td[b->m.ntagged++] = dim;
  }
  return cell ? append(b, 1, nodes, want, group, err) : CL_OK;
}

/* The dimension of a 2.2 element type: points, lines, surfaces (triangles, quadrangles of any
 * order), else volumes. */
static int type_dim(int type) {
  static const int lines[] = {1, 8, 26, 27, 28}, surfaces[] = {2, 3, 9, 10, 16, 20, 21, 22, 23, 24, 25, 36, 37};
  if (type == 15) return 0;
  for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
    if (lines[i] == type) return 1;
  for (size_t i = 0; i < sizeof surfaces / sizeof *surfaces; i++)
    if (surfaces[i] == type) return 2;
  return 3;
}

/* elm-number elm-type number-of-tags tag... node... (the first tag is the physical group) */
static cl_status read_element22(build *b, cl_error *err) {
  reader *rd = &b->rd;
  int type, group = -1;
  size_t ntags;
  CL_TRY(get_size(rd, 0, "an element tag", &(size_t){0}, err));
  CL_TRY(get_int(rd, 1, "an element type", &type, err));
  CL_TRY(get_size(rd, 2, "the number of tags", &ntags, err));
  if (b->space) {
    if (3 + ntags >= rd->ntok) return expected(rd, 2, "the number of tags", err);
    for (size_t k = 3; k < 3 + ntags; k++) CL_TRY(get_int(rd, k, "an element tag", &(int){0}, err));
    return add_element_3d(b, type, type_dim(type), ntags && atoi(rd->tok[3]) > 0 ? atoi(rd->tok[3]) : -1, 3 + ntags,
                          err);
  }
  const kept_type *t = kept_by(b->quads, type);
  if (!t) return b->m.nskipped++, CL_OK;
  if (ntags > rd->ntok) return expected(rd, 2, "the number of tags", err);
  CL_TRY(expect_tokens(rd, 3 + ntags + t->nodes, "an element: tag type ntags tags... nodes...", err));
  for (size_t k = 3; k < 3 + ntags; k++) CL_TRY(get_int(rd, k, "an element tag", &(int){0}, err));
  if (ntags && atoi(rd->tok[3]) > 0) group = atoi(rd->tok[3]);
  return add_element(b, t, group, 3 + ntags, err);
}

static cl_status read_elements22(build *b, cl_error *err) {
  reader *rd = &b->rd;
  size_t n;
  CL_TRY(read_count(rd, "the number of elements", &n, err));
  for (size_t i = 0; i < n; i++) {
    CL_TRY(expect_line(rd, "an element", err));
    CL_TRY(read_element22(b, err));
  }
  return CL_OK;
}

static int entity_group(const build *b, int dim, int tag) {
  for (size_t i = 0; i < b->nents; i++)
    if (b->ents[i].dim == dim && b->ents[i].tag == tag) return b->ents[i].group;
  return -1;
}

/* entityDim entityTag elementType numElementsInBlock, then elementTag node... one a line */
static cl_status read_element_block(build *b, size_t *count, cl_error *err) {
  reader *rd = &b->rd;
  int dim, tag, type;
  size_t n;
  CL_TRY(expect_line(rd, "an element block: entityDim entityTag elementType numElementsInBlock", err));
  CL_TRY(expect_tokens(rd, 4, "entityDim entityTag elementType numElementsInBlock", err));
  CL_TRY(get_int(rd, 0, "an entity dimension", &dim, err));
  CL_TRY(get_int(rd, 1, "an entity tag", &tag, err));
  CL_TRY(get_int(rd, 2, "an element type", &type, err));
  CL_TRY(get_size(rd, 3, "the number of elements in the block", &n, err));
  int group = entity_group(b, dim, tag);
  const kept_type *t = kept_by(b->quads, type);
  for (size_t i = 0; i < n; i++, (*count)++) {
    CL_TRY(expect_line(rd, "an element: tag node...", err));
    CL_TRY(get_size(rd, 0, "an element tag", &(size_t){0}, err));
    if (b->space) {
      CL_TRY(add_element_3d(b, type, dim, group, 1, err));
      continue;
    }
    if (!t) {
      b->m.nskipped++;
      continue;
    }
    CL_TRY(expect_tokens(rd, 1 + t->nodes, "an element: tag node...", err));
    CL_TRY(add_element(b, t, group, 1, err));
  }
  return CL_OK;
}

static cl_status read_elements41(build *b, cl_error *err) {
  header41 h;
  size_t count = 0;
  CL_TRY(read_header41(&b->rd, "numEntityBlocks numElements minElementTag maxElementTag", &h, err));
  for (size_t i = 0; i < h.blocks; i++) CL_TRY(read_element_block(b, &count, err));
  return check_total(&b->rd, &h, count, "elements", err);
}

static cl_status read_elements(build *b, cl_error *err) {
  if (!b->seen[NODES])
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: expected $Nodes before $Elements", b->rd.path, b->rd.line);
  return b->v41 ? read_elements41(b, err) : read_elements22(b, err);
}

static const struct {
  const char *name;
  cl_status (*read)(build *, cl_error *);
} sections[] = {[NAMES] = {"$PhysicalNames", read_names},
                [ENTITIES] = {"$Entities", read_entities},
                [NODES] = {"$Nodes", read_nodes},
                [ELEMENTS] = {"$Elements", read_elements}};

/* $Foo ends with $EndFoo. */
static void end_of(const char *section, char end[64]) { snprintf(end, 64, "$End%.50s", section + 1); }

static cl_status read_section(build *b, cl_error *err) {
  reader *rd = &b->rd;
  if (rd->ntok != 1 || rd->tok[0][0] != '$') return expected(rd, 0, "a section such as $Nodes", err);
  char end[64];
  end_of(rd->tok[0], end);
  for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
    if (strcmp(rd->tok[0], sections[i].name)) continue;
    if (b->seen[i])
      return cl_error_set(err, CL_ERR_ARG, "%s:%zu: a second %s section", rd->path, rd->line, sections[i].name);
    b->seen[i] = 1;
    CL_TRY(sections[i].read(b, err));
    return expect_word(rd, end, err);
  }
  do CL_TRY(expect_line(rd, end, err)); /* a section this reader does not use */
  while (strcmp(rd->tok[0], end));
  return CL_OK;
}

/* What can only be judged once everything is read. */
static cl_status check_mesh(build *b, cl_error *err) {
  const char *path = b->rd.path;
  if (b->space) {
    if (!b->m.nelems)
      return cl_error_set(err, CL_ERR_ARG, "%s: no triangles (element type 2) or hexahedra (type 5) in the file; %zu "
                          "other elements", path, b->m.nskipped);
    b->m.order = 1, b->m.hex = b->tri_type == 5;
    return CL_OK;
  }
  if (!b->m.nelems)
    return cl_error_set(err, CL_ERR_ARG, "%s: no triangles (element type 2 or 9)%s in the file; %zu other elements",
                        path, b->quads ? " or quadrangles (3, 10, 36)" : "", b->m.nskipped + b->m.nedges);
  b->m.quad = is_quad(b->tri_type);
  b->m.order = b->tri_type == 2 || b->tri_type == 3 ? 1 : b->tri_type == 36 ? 3 : 2;
  if (b->edge_type && b->edge_type != (b->m.order == 1 ? 1 : b->m.order == 2 ? 8 : 26))
    return cl_error_set(err, CL_ERR_ARG, "%s:%zu: %s with %s (line %zu): a file of one order is expected", path,
                        b->edge_line, kept(b->edge_type)->name, kept(b->tri_type)->name, b->tri_line);
  return CL_OK;
}

static cl_status read_file(build *b, cl_error *err) {
  CL_TRY(read_format(b, err));
  for (;;) {
    int got;
    CL_TRY(next_line(&b->rd, &got, err));
    if (!got) break;
    CL_TRY(read_section(b, err));
  }
  return check_mesh(b, err);
}

void cl_msh_free(cl_msh *m) {
  free(m->x), free(m->elem), free(m->elem_group), free(m->edge), free(m->edge_group), free(m->groups);
  free(m->tagged_node), free(m->tagged_group), free(m->tagged_dim);
  *m = (cl_msh){0};
}

static cl_status read_msh(const char *path, int quads, int space, cl_msh *out, cl_error *err) {
  *out = (cl_msh){0};
  build b = {.rd = {.path = path}, .quads = quads, .space = space};
  b.rd.f = fopen(path, "r");
  if (!b.rd.f) return cl_error_set(err, CL_ERR_IO, "%s: %s", path, strerror(errno));
  cl_status s = read_file(&b, err);
  fclose(b.rd.f);
  free(b.rd.text), free(b.rd.raw), free(b.rd.tok), free(b.keys), free(b.ents);
  if (s == CL_OK)
    *out = b.m;
  else
    cl_msh_free(&b.m);
  return s;
}

cl_status cl_msh_read(const char *path, cl_msh *out, cl_error *err) { return read_msh(path, 0, 0, out, err); }

cl_status cl_msh_read_cells(const char *path, cl_msh *out, cl_error *err) { return read_msh(path, 1, 0, out, err); }

cl_status cl_msh_read_3d(const char *path, cl_msh *out, cl_error *err) { return read_msh(path, 0, 1, out, err); }

cl_status cl_msh_group(const cl_msh *m, const char *name, int *dim, int *tag, cl_error *err) {
  for (size_t i = 0; i < m->ngroups; i++)
    if (!strcmp(m->groups[i].name, name)) return *dim = m->groups[i].dim, *tag = m->groups[i].tag, CL_OK;
  char known[CL_ERROR_MAX / 2] = "";
  size_t at = 0;
  for (size_t i = 0; i < m->ngroups && at < sizeof known; i++)
    at += (size_t)snprintf(known + at, sizeof known - at, "%s\"%s\"", i ? ", " : "", m->groups[i].name);
  if (!m->ngroups) snprintf(known, sizeof known, "none: the file has no $PhysicalNames");
  return cl_error_set(err, CL_ERR_ARG, "no physical group named \"%.100s\"; the groups are: %s", name, known);
}
