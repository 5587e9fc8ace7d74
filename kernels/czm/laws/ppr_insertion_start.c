/* The start of ppr.c at the stress found at insertion (cleave.czm.ppr{ start = "insertion" } puts
 * this before that law, whose body then sees delta_n and delta_t shadowed by start_delta_n and
 * start_delta_t). State tn0, tt0: the facet's normal and shear stress when the check marked it,
 * written by the method at insertion. The strengths are scaled by the ratio that made the check
 * crack the facet, s = max(<tn0> / sigma_max, |tt0| / tau_max): the strength envelope through the
 * insertion stress in the mode that governed (scaling each mode by its own ratio would give a
 * facet cracked in shear, whose normal stress may be ~0, no normal strength at all). Extrinsic
 * PPR's final openings are alpha phi_n / sigma_max and beta phi_t / tau_max, and its Gamma do not
 * depend on the strengths, so dividing delta_n and delta_t by s starts the tractions at
 * s sigma_max and s tau_max and keeps both fracture energies exactly. s = 0 (no recorded stress:
 * the law evaluated outside the method, or a facet inserted by hand): the law as it is. */
const real start_ratio = fmax(tn0 > 0 ? tn0 / sigma_max : 0, fabs(tt0) / tau_max);
const real start_scale = start_ratio > 0 ? start_ratio : 1;
const real start_delta_n = delta_n / start_scale;
const real start_delta_t = delta_t / start_scale;
