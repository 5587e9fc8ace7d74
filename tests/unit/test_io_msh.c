/* Gmsh files: one square of two triangles (and its 6-node version) written
 * by hand in MSH 2.2 and 4.1 reads the same from both; physical groups by
 * name; every error with its file and line. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw (scratch_dir.h) */
#endif

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/io/msh.h"
#include "scratch_dir.h"

static char path[128];

static void make_dir(void) {
  scratch_dir_make("cl_msh");
  snprintf(path, sizeof path, "%s/mesh.msh", scratch_dir);
}

static void remove_dir(void) { scratch_dir_remove(); }

TestSuite(msh, .init = make_dir, .fini = remove_dir);

static void write_file(const char *text) {
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f, "cannot write %s", path);
  fputs(text, f);
  fclose(f);
}

static cl_msh read_ok(const char *text) {
  write_file(text);
  cl_msh m;
  cl_error err = {0};
  cr_assert_eq(cl_msh_read(path, &m, &err), CL_OK, "%s", err.msg);
  return m;
}

/* The error for text must be CL_ERR_ARG and contain "mesh.msh:<needle>". */
static void expect_error(const char *text, const char *needle) {
  write_file(text);
  cl_msh m;
  cl_error err = {0};
  cr_expect_eq(cl_msh_read(path, &m, &err), CL_ERR_ARG, "expected an error mentioning '%s', got '%s'", needle, err.msg);
  cr_expect(strstr(err.msg, needle), "'%s' does not mention '%s'", err.msg, needle);
  cr_expect(strstr(err.msg, path) == err.msg, "'%s' does not start with the path", err.msg);
  cr_expect(m.x == NULL && m.elem == NULL && m.groups == NULL && m.nnodes == 0, "no result on error");
}

/* Nodes in file order: tags 10 (0,0), 40 (0,1), 30 (1,0), 20 (1,1); the
 * left edge 40-10 is in physical line 5 "left", the triangles in physical
 * surface 7 "plate". */
#define NAMES "$PhysicalNames\n2\n1 5 \"left\"\n2 7 \"plate\"\n$EndPhysicalNames\n"

static const char square22[] = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n" NAMES
                               "$Nodes\n4\n"
                               "10 0 0 0\n40 0 1 0\n30 1 0 0\n20 1 1 0\n"
                               "$EndNodes\n"
                               "$Elements\n3\n"
                               "2 1 2 5 4 40 10\n"
                               "3 2 2 7 1 10 30 20\n"
                               "4 2 2 7 1 10 20 40\n"
                               "$EndElements\n";

/* Entities: points 1 (0,0) and 2 (0,1), curve 4 (group 5), surface 1 (group 7). */
#define ENTITIES               \
  "$Entities\n2 1 1 0\n"       \
  "1 0 0 0 0\n2 0 1 0 0\n"     \
  "4 0 0 0 0 1 0 1 5 2 1 -2\n" \
  "1 0 0 0 1 1 0 1 7 1 4\n"    \
  "$EndEntities\n"

static const char square41[] = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n" NAMES ENTITIES
                               "$Nodes\n3 4 10 40\n"
                               "0 1 0 1\n10\n0 0 0\n"
                               "0 2 0 1\n40\n0 1 0\n"
                               "2 1 0 2\n30\n20\n1 0 0\n1 1 0\n"
                               "$EndNodes\n"
                               "$Elements\n3 4 1 4\n"
                               "0 1 15 1\n1 10\n"
                               "1 4 1 1\n2 40 10\n"
                               "2 1 2 2\n3 10 30 20\n4 10 20 40\n"
                               "$EndElements\n";

/* The same with midside nodes 90 (0,0.5) on 40-10, 50 (0.5,0) on 10-30,
 * 60 (1,0.5) on 30-20, 70 (0.5,0.5) on 20-10, 80 (0.5,1) on 20-40; file
 * order 10 40 90 30 20 50 60 70 80. The curve block is parametric in 4.1. */
static const char square22_t6[] = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n" NAMES
                                  "$Nodes\n9\n"
                                  "10 0 0 0\n40 0 1 0\n90 0 0.5 0\n30 1 0 0\n20 1 1 0\n"
                                  "50 0.5 0 0\n60 1 0.5 0\n70 0.5 0.5 0\n80 0.5 1 0\n"
                                  "$EndNodes\n"
                                  "$Elements\n3\n"
                                  "2 8 2 5 4 40 10 90\n"
                                  "3 9 2 7 1 10 30 20 50 60 70\n"
                                  "4 9 2 7 1 10 20 40 70 80 90\n"
                                  "$EndElements\n";

static const char square41_t6[] = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n" NAMES ENTITIES
                                  "$Nodes\n3 9 10 90\n"
                                  "0 1 0 1\n10\n0 0 0\n"
                                  "1 4 1 2\n40\n90\n0 1 0 0\n0 0.5 0 0.5\n"
                                  "2 1 0 6\n30\n20\n50\n60\n70\n80\n"
                                  "1 0 0\n1 1 0\n0.5 0 0\n1 0.5 0\n0.5 0.5 0\n0.5 1 0\n"
                                  "$EndNodes\n"
                                  "$Elements\n3 4 1 4\n"
                                  "0 1 15 1\n1 10\n"
                                  "1 4 8 1\n2 40 10 90\n"
                                  "2 1 9 2\n3 10 30 20 50 60 70\n4 10 20 40 70 80 90\n"
                                  "$EndElements\n";

static void expect_square(const cl_msh *m, int order, size_t nskipped) {
  static const double x1[] = {0, 0, 0, 1, 1, 0, 1, 1};
  static const double x2[] = {0, 0, 0, 1, 0, 0.5, 1, 0, 1, 1, 0.5, 0, 1, 0.5, 0.5, 0.5, 0.5, 1};
  static const uint32_t e1[] = {0, 2, 3, 0, 3, 1}, e2[] = {0, 3, 4, 5, 6, 7, 0, 4, 1, 7, 8, 2};
  static const uint32_t d1[] = {1, 0}, d2[] = {1, 0, 2};
  const double *x = order == 1 ? x1 : x2;
  const uint32_t *e = order == 1 ? e1 : e2, *d = order == 1 ? d1 : d2;
  cr_assert_eq(m->order, order);
  cr_assert_eq(m->nnodes, order == 1 ? 4 : 9);
  for (size_t i = 0; i < 2 * m->nnodes; i++) cr_expect_eq(m->x[i], x[i], "x[%zu]", i);
  cr_assert_eq(m->nelems, 2);
  for (size_t i = 0; i < 2 * 3 * (size_t)order; i++) cr_expect_eq(m->elem[i], e[i], "elem[%zu]", i);
  cr_expect(m->elem_group[0] == 7 && m->elem_group[1] == 7);
  cr_assert_eq(m->nedges, 1);
  for (int i = 0; i <= order; i++) cr_expect_eq(m->edge[i], d[i], "edge[%d]", i);
  cr_expect_eq(m->edge_group[0], 5);
  cr_assert_eq(m->ngroups, 2);
  cr_expect(m->groups[0].dim == 1 && m->groups[0].tag == 5 && !strcmp(m->groups[0].name, "left"));
  cr_expect(m->groups[1].dim == 2 && m->groups[1].tag == 7 && !strcmp(m->groups[1].name, "plate"));
  cr_expect_eq(m->nskipped, nskipped);
}

Test(msh, square_22) {
  cl_msh m = read_ok(square22);
  expect_square(&m, 1, 0);
  cl_msh_free(&m);
}

Test(msh, square_41_skips_the_point) {
  cl_msh m = read_ok(square41);
  expect_square(&m, 1, 1);
  cl_msh_free(&m);
  cr_expect(m.x == NULL && m.nnodes == 0, "free zeroes");
}

Test(msh, square_t6_22) {
  cl_msh m = read_ok(square22_t6);
  expect_square(&m, 2, 0);
  cl_msh_free(&m);
}

Test(msh, square_t6_41_with_parametric_nodes) {
  cl_msh m = read_ok(square41_t6);
  expect_square(&m, 2, 1);
  cl_msh_free(&m);
}

Test(msh, crlf_unknown_sections_and_lines_without_a_group) {
  cl_msh m = read_ok(
      "$MeshFormat\r\n2.2 0 8\r\n$EndMeshFormat\r\n"
      "$Comments\r\nanything $Nodes\r\n$EndComments\r\n"
      "$Nodes\r\n3\r\n1 0 0 0\r\n2 1 0 0\r\n3 0 1 0\r\n$EndNodes\r\n"
      "$Elements\r\n3\r\n1 1 2 0 1 1 2\r\n2 15 2 0 1 1\r\n3 2 0 1 2 3\r\n$EndElements\r\n"
      "$NodeData\r\n1\r\n\"A scalar view\"\r\n$EndNodeData\r\n");
  cr_expect_eq(m.nelems, 1);
  cr_expect_eq(m.elem_group[0], -1, "no tags: no group");
  cr_expect_eq(m.nedges, 0, "a line without a group is skipped");
  cr_expect_eq(m.nskipped, 2);
  cr_expect_eq(m.ngroups, 0);
  cl_msh_free(&m);
}

Test(msh, group_by_name) {
  cl_msh m = read_ok(square41);
  int dim = 0, tag = 0;
  cl_error err = {0};
  cr_expect_eq(cl_msh_group(&m, "plate", &dim, &tag, &err), CL_OK, "%s", err.msg);
  cr_expect(dim == 2 && tag == 7);
  cr_expect_eq(cl_msh_group(&m, "nope", &dim, &tag, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "no physical group named \"nope\"; the groups are: \"left\", \"plate\""), "%s", err.msg);
  cl_msh_free(&m);
}

Test(msh, group_without_physical_names) {
  cl_msh m = {0};
  int dim, tag;
  cl_error err = {0};
  cr_expect_eq(cl_msh_group(&m, "plate", &dim, &tag, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "the file has no $PhysicalNames"), "%s", err.msg);
}

/* text up to its first occurrence of cut, with cut itself left out */
static char *cut_before(const char *text, const char *cut) {
  const char *at = strstr(text, cut);
  cr_assert_not_null(at);
  size_t n = (size_t)(at - text);
  char *s = malloc(n + 1);
  cr_assert_not_null(s);
  memcpy(s, text, n);
  s[n] = '\0';
  return s;
}

/* text with the first occurrence of from replaced by to */
static char *replace(const char *text, const char *from, const char *to) {
  const char *at = strstr(text, from);
  cr_assert_not_null(at, "'%s' not in the text", from);
  size_t n = strlen(text) - strlen(from) + strlen(to);
  char *s = malloc(n + 1);
  cr_assert_not_null(s);
  sprintf(s, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  return s;
}

static void expect_error_replacing(const char *text, const char *from, const char *to, const char *needle) {
  char *s = replace(text, from, to);
  expect_error(s, needle);
  free(s);
}

Test(msh, truncated_file) {
  char *s = cut_before(square41, "$EndElements");
  expect_error(s, "mesh.msh:38: the file ends; expected $EndElements");
  free(s);
  s = cut_before(square22, "$EndNodes");
  expect_error(s, "mesh.msh:14: the file ends; expected $EndNodes");
  free(s);
}

Test(msh, letter_in_a_coordinate) {
  expect_error_replacing(square22, "40 0 1 0", "40 0 1x 0", "mesh.msh:12: expected the y coordinate, found '1x'");
  expect_error_replacing(square41, "1 1 0\n$End", "1 a 0\n$End", "mesh.msh:28: expected the y coordinate, found 'a'");
}

Test(msh, element_with_an_undefined_node) {
  expect_error_replacing(square22, "3 2 2 7 1 10 30 20", "3 2 2 7 1 10 99 20",
                         "mesh.msh:19: expected a node defined in $Nodes, found node 99");
  expect_error_replacing(square41, "4 10 20 40", "4 10 20 99",
                         "mesh.msh:38: expected a node defined in $Nodes, found node 99");
}

Test(msh, unsupported_versions) {
  expect_error_replacing(square22, "2.2 0 8", "3.0 0 8", "mesh.msh:2: MSH version 3.0: only ASCII 2.2 and 4.1");
  expect_error_replacing(square41, "4.1 0 8", "4.1 1 8", "mesh.msh:2: binary MSH file (file-type 1)");
  expect_error_replacing(square41, "4.1 0 8", "4.1 1 8", "gmsh FILE -save -format msh41 -o OUT.msh");
  expect_error("$MeshFormat\n4 0 8\n", "mesh.msh:2: MSH version 4: only");
  expect_error("solid cube\n", "mesh.msh:1: expected $MeshFormat, found 'solid'");
}

Test(msh, mixed_orders) {
  expect_error_replacing(square22, "4 2 2 7 1 10 20 40", "4 9 2 7 1 10 20 40 30 30 30",
                         "mesh.msh:20: 6-node triangles (type 9) after 3-node triangles (type 2) (line 19)");
  expect_error_replacing(square22, "2 1 2 5 4 40 10", "2 8 2 5 4 40 10 20",
                         "mesh.msh:18: 3-node lines (type 8) with 3-node triangles (type 2) (line 19)");
}

Test(msh, no_triangles) {
  expect_error(
      "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
      "$Nodes\n1 2 1 2\n1 1 0 2\n1\n2\n0 0 0\n1 0 0\n$EndNodes\n"
      "$Elements\n1 1 1 1\n1 1 1 1\n1 1 2\n$EndElements\n",
      "mesh.msh: no triangles (element type 2 or 9) in the file; 1 other elements");
}

Test(msh, wrong_counts) {
  expect_error_replacing(square22, "$Nodes\n4", "$Nodes\n5",
                         "mesh.msh:15: expected a node: tag x y z, found '$EndNodes'");
  expect_error_replacing(square22, "$Nodes\n4", "$Nodes\n3", "mesh.msh:14: expected $EndNodes, found '20'");
  expect_error_replacing(square41, "$Nodes\n3 4 10 40", "$Nodes\n3 5 10 40",
                         "mesh.msh:17: expected 5 nodes as the header says, the blocks hold 4");
  expect_error_replacing(square41, "3 10 30 20", "3 10 30",
                         "mesh.msh:37: expected 4 numbers (an element: tag node...), found 3");
  expect_error_replacing(square22, "3 2 2 7 1 10 30 20", "3 2 2 7 1 10 30 20 40",
                         "mesh.msh:19: expected 8 numbers (an element: tag type ntags tags... nodes...), found 9");
}

Test(msh, other_errors) {
  expect_error_replacing(square22, "20 1 1 0", "10 1 1 0",
                         "mesh.msh:14: node tag 10 is defined again (first at line 11)");
  expect_error_replacing(square22, "20 1 1 0", "20 1 1 0.5", "mesh.msh:14: z = 0.5: only 2D meshes in the plane z = 0");
  expect_error_replacing(square22, "2 7 \"plate\"", "2 7 plate",
                         "mesh.msh:7: expected a \"quoted name\", found 'plate'");
  expect_error_replacing(square22, "$Nodes\n4\n10", "$Nodes\n4\n-10",
                         "mesh.msh:11: expected a node tag (a positive integer), found '-10'");
  expect_error_replacing(square22, "$EndMeshFormat\n", "$EndMeshFormat\n$Elements\n0\n$EndElements\n",
                         "mesh.msh:4: expected $Nodes before $Elements");
}

Test(msh, sections_out_of_place) {
  expect_error_replacing(square22, "$EndElements\n", "$EndElements\n$Nodes\n", "mesh.msh:22: a second $Nodes section");
  expect_error_replacing(square22, "$EndElements\n", "$EndElements\n$Entities\n",
                         "mesh.msh:22: expected $Entities before $Elements");
  expect_error_replacing(square22, "$EndElements\n", "$EndElements\nstray\n",
                         "mesh.msh:22: expected a section such as $Nodes, found 'stray'");
  expect_error("", "mesh.msh:1: the file is empty; expected $MeshFormat");
}

Test(msh, missing_file) {
  snprintf(path, sizeof path, "%s/no_such_file.msh", scratch_dir);
  cl_msh m;
  cl_error err = {0};
  cr_expect_eq(cl_msh_read(path, &m, &err), CL_ERR_IO);
  cr_expect(strstr(err.msg, "no_such_file.msh: No such file or directory"), "%s", err.msg);
  cr_expect(m.x == NULL && m.nnodes == 0);
}
