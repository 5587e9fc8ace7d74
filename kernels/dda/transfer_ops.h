/* The contact transfer of a DDA step on the model's device (the host's cl_dda_transfer, contacts.c),
 * written once for both backends (contact_cpu.c, contact_cuda.cu; model.c drives it, with a device sort
 * between the passes): the contacts found (detect.h: in the pairs' order, each pair's at its offset)
 * are ordered by key vi nv + ej (vertex, then edge: a vertex's index orders its block too, an
 * edge's its block), equal keys in the order found -- the sort takes the keys alone, and each sorted
 * key's r-th equal finds its contact as the r-th with that key in its pair's stretch of the found
 * list (binary search of the pair); each contact then takes its state, bond, anchor, direction and
 * forces from the last step's contact with the same key (cl_dda_find_key, the host's search, in the
 * last step's list, in key order), a new one closed (locked) when touching or penetrating, open
 * otherwise, bonded in the analysis' first step. Where the keys found are the last transfer's in the
 * same order, the sort and the sorted search are skipped (the shortcut, detect.h): each sorted
 * position takes the contact the last transfer's search found for it. */
#ifndef CL_DDA_TRANSFER_OPS_H
#define CL_DDA_TRANSFER_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "contact.h"
#include "narrow.h"

/* The position of key k in keys[0..n) (sorted), or -1: bisection with glibc bsearch's rule (the
 * middle (lo + hi) / 2 of [lo, hi)), so that among equal keys it finds the contact bsearch on the
 * whole list found. */
CL_HD static inline ptrdiff_t cl_dda_find_key(const int64_t *keys, size_t n, int64_t k) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (k < keys[mid]) hi = mid;
    else if (k > keys[mid]) lo = mid + 1;
    else return (ptrdiff_t)mid;
  }
  return -1;
}

/* A contact's key in the transfer's order, of a model of nv vertices: vi nv + ej rather than
 * vi << 32 | ej: the same order in 2 log2(nv) bits rather than 32 + log2(nv), so that the radix sort,
 * which looks only at the bits the largest key has, takes fewer passes. */
CL_HD static inline int64_t cl_dda_contact_key(int32_t vi, int32_t ej, size_t nv) {
  return (int64_t)vi * (int64_t)nv + (int64_t)ej;
}

/* A step's contacts on the device (SoA, in key order). */
typedef struct cl_dda_device_list {
  int64_t *key;
  int32_t *bi, *bj, *vi, *ej, *kind, *state, *flips, *bonded;
  double *t_ref, *length, *sgn, *N, *S;
} cl_dda_device_list;

typedef enum cl_dda_transfer_pass {
  CL_DDA_TRANSFER_KEYS, /* nfound items: keys[k] = found k's key; with last_keys, differ[k] = 1 where it is
                           not last_keys[k], else 0 */
  CL_DDA_TRANSFER_FILL  /* nfound items: out's contact k from sorted[k] and prev, perm[k] its found index;
                           with shortcut, from found[perm[k]] (the last transfer's order) and prev */
} cl_dda_transfer_pass;

typedef struct cl_dda_transfer_args {
  cl_dda_geometry g;          /* the device's vertices (the new contacts' gaps) */
  size_t nv, nfound, npairs, nprev; /* nv: the model's vertices (the keys' width) */
  int first;                  /* the analysis' first step: new contacts bonded */
  const cl_dda_found *found;  /* in the pairs' order */
  const int32_t *pairs;       /* (i, j), i < j, sorted */
  const int64_t *offset;      /* npairs + 1: each pair's stretch of found */
  uint64_t *keys;
  const uint64_t *sorted;
  /* The shortcut (detect.h): the last transfer's keys in the order found (NULL: no compare), the
   * compare's flags, and each sorted position's contact in the found list -- the sorted search's
   * answer, written where it searches and read in its place where shortcut is set: the keys found
   * are the last transfer's, in the same order, so that the sort would give the same keys and the
   * same permutation. */
  const uint64_t *last_keys;
  double *differ;
  int64_t *perm;
  int shortcut;
  cl_dda_device_list prev, out;
} cl_dda_transfer_args;

/* The found contact behind sorted key k: the r-th with that key (r: its rank among the equal sorted
 * keys before it) in its pair's stretch. */
CL_HD static inline const cl_dda_found *cl_dda_transfer_found(const cl_dda_transfer_args *a, size_t k) {
  const uint64_t key = a->sorted[k];
  size_t r = 0;
  while (r < k && a->sorted[k - r - 1] == key) r++;
  /* the pair: the vertex's block and the edge's, in order; its stretch by binary search of the pairs */
  const int32_t vi = (int32_t)(key / a->nv), ej = (int32_t)(key % a->nv);
  int32_t lo_b = 0, hi_b = 0;
  { /* the blocks of vertex vi and of edge ej: the last whose first vertex is at most the index */
    size_t lo = 0, hi = a->g.n;
    while (hi - lo > 1) {
      const size_t mid = (lo + hi) / 2;
      if (a->g.vstart[mid] <= vi) lo = mid;
      else hi = mid;
    }
    lo_b = (int32_t)lo;
    lo = 0, hi = a->g.n;
    while (hi - lo > 1) {
      const size_t mid = (lo + hi) / 2;
      if (a->g.vstart[mid] <= ej) lo = mid;
      else hi = mid;
    }
    hi_b = (int32_t)lo;
  }
  const int32_t pi = lo_b < hi_b ? lo_b : hi_b, pj = lo_b < hi_b ? hi_b : lo_b;
  size_t lo = 0, hi = a->npairs;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const int32_t mi = a->pairs[2 * mid], mj = a->pairs[2 * mid + 1];
    if (mi < pi || (mi == pi && mj < pj)) lo = mid + 1;
    else hi = mid;
  }
  for (int64_t q = a->offset[lo]; q < a->offset[lo + 1]; q++) {
    const cl_dda_found *f = &a->found[q];
    if (f->vi == vi && f->ej == ej) {
      if (r == 0) return f;
      r--;
    }
  }
  return NULL; /* not reached: every sorted key is a found contact's */
}

CL_HD static inline void cl_dda_transfer_item(const cl_dda_transfer_args *a, int pass, size_t k) {
  if (pass == CL_DDA_TRANSFER_KEYS) {
    const uint64_t key = (uint64_t)cl_dda_contact_key(a->found[k].vi, a->found[k].ej, a->nv);
    a->keys[k] = key;
    if (a->last_keys) a->differ[k] = key != a->last_keys[k];
    return;
  }
  const cl_dda_found *f = a->shortcut ? &a->found[a->perm[k]] : cl_dda_transfer_found(a, k);
  if (!f) return;
  if (!a->shortcut) a->perm[k] = f - a->found;
  const cl_dda_device_list *o = &a->out, *p = &a->prev;
  const int64_t key = cl_dda_contact_key(f->vi, f->ej, a->nv);
  o->key[k] = key, o->bi[k] = f->bi, o->vi[k] = f->vi, o->bj[k] = f->bj, o->ej[k] = f->ej, o->kind[k] = f->kind;
  o->length[k] = f->length, o->flips[k] = 0;
  const ptrdiff_t at = cl_dda_find_key(p->key, a->nprev, key);
  if (at >= 0) {
    o->state[k] = p->state[at], o->bonded[k] = p->bonded[at], o->t_ref[k] = p->t_ref[at], o->sgn[k] = p->sgn[at];
    o->N[k] = p->N[at], o->S[k] = p->S[at];
  } else {
    double t;
    o->state[k] = cl_dda_edge_gap(&a->g, f->vi, f->bj, f->ej, &t) <= 0 ? CL_DDA_LOCK : CL_DDA_OPEN;
    o->bonded[k] = a->first, o->t_ref[k] = f->t, o->sgn[k] = 1, o->N[k] = 0, o->S[k] = 0;
  }
}

#endif
