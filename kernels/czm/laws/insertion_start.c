/* The start of linear_softening.c at the stress found at insertion (cleave.czm.linear_softening{
 * start = "insertion" } puts this before that law, whose body then sees sigma_max and delta_c
 * shadowed by start_strength and start_opening). State tn0, tt0: the facet's normal and shear
 * stress when the check marked it, which the method writes when it inserts the cohesive element.
 * The law's traction then starts at the effective stress t0 = sqrt(<tn0>^2 + tt0^2 / beta^2) (its
 * own effective traction: tn^2 + tt^2 / beta^2 = t^2) instead of sigma_max, and the final opening is
 * rescaled to sigma_max delta_c / t0, so that the fracture energy t0 delta_c' / 2 stays
 * sigma_max delta_c / 2 exactly (Akantu's insertion stress, sigma_c_eff and delta_c_eff). A facet
 * with no recorded stress (t0 = 0: the law evaluated outside the method, or inserted by hand)
 * starts at sigma_max. */
const real start_n = tn0 > 0 ? tn0 : 0;
const real start_t = beta > 0 ? tt0 / beta : 0;
const real start_t0 = sqrt(start_n * start_n + start_t * start_t);
const real start_strength = start_t0 > 0 ? start_t0 : sigma_max;
const real start_opening = sigma_max * delta_c / start_strength;
