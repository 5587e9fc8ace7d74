/* Random facet strengths that break the symmetry of a regular mesh (Akantu's random
 * sigma_c): a factor on sigma_max and tau_max per facet, drawn from a counter-based hash of
 * the facet and a seed, not from a stateful generator, so that it does not depend on the order
 * facets are visited in, the element numbering (colouring), the device or the thread count.
 * The facet is named by its two corner nodes of the mesh as given (sorted), which both elements
 * of the facet see alike.
 *   uniform: factor = 1 + spread (2 U - 1), U uniform in (0, 1);
 *   Weibull: factor = (A0 / A)^(1/m) (-ln U)^(1/m), A the facet's area (length x thickness), A0
 *            the reference area: the weakest-link size effect, sigma_max being the scale of the
 *            strengths of facets of area A0 (their mean is sigma_max Gamma(1 + 1/m)). */
#ifndef CL_CZM_STRENGTH_H
#define CL_CZM_STRENGTH_H

#include <math.h>
#include <stdint.h>

/* SplitMix64's finaliser: a bijection of 64-bit words whose outputs pass BigCrush. */
static inline uint64_t cl_czm_mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* U in (0, 1), never 0 or 1 (53 bits, centred in its interval), for facet a-b and seed. */
static inline double cl_czm_facet_uniform(uint64_t seed, uint32_t a, uint32_t b) {
  const uint64_t key = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
  const uint64_t h = cl_czm_mix64(cl_czm_mix64(key) ^ cl_czm_mix64(seed ^ 0x5851f42d4c957f2dull));
  return ((double)(h >> 11) + 0.5) * 0x1.0p-53;
}

static inline double cl_czm_weibull_factor(double u, double modulus, double area, double reference_area) {
  return pow(reference_area / area, 1 / modulus) * pow(-log(u), 1 / modulus);
}

#endif
