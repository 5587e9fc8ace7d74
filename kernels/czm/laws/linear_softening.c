/* Extrinsic linear softening cohesive law with unloading towards the origin (traction kind;
 * Camacho & Ortiz 1996): effective opening d = sqrt(<dn>^2 + beta^2 dt^2), history dmax (the
 * largest d reached); on the envelope t = sigma_max (1 - d / delta_c), below it the secant
 * t = sigma_max (1 - dmax / delta_c) d / dmax; broken beyond delta_c. Mode I fracture energy
 * sigma_max delta_c / 2. Parameters: sigma_max, delta_c, beta (shear weight). State: dmax.
 * Closing (dn < 0) gives no normal traction here: contact belongs to the method. */
const real open_n = dn > 0 ? dn : 0;
const real d = sqrt(open_n * open_n + beta * beta * dt * dt);
if (d > dmax) dmax = d;
if (dmax >= delta_c) {
  tn = 0;
  tt = 0;
  return;
}
if (d == 0) { /* round-off closing (above -1e-9 delta_c) does not release the initial traction */
  tn = dmax == 0 && dn > -1e-9 * delta_c ? sigma_max : 0;
  tt = 0;
  return;
}
const real envelope = sigma_max * (1 - dmax / delta_c);
/* unloading needs a history above round-off (1e-9 delta_c): noise is not an opening to unload from */
const real t = d < dmax && dmax > (real)1e-9 * delta_c ? envelope * d / dmax : envelope;
tn = t * open_n / d;
tt = t * beta * beta * dt / d;
