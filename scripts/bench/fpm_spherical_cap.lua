-- The spherical cap under a 600 psi step pressure (issue 15, verification 5; the paper's Fig. 11-12):
-- R = 22.27 in, h = 0.41 in, half-angle 26.67 degrees, clamped rim, E = 10.5e6 psi, nu = 0.3,
-- rho = 2.45e-4 lbf s^2 / in^4; elastic, or elastoplastic (J2, sy = 24 000 psi, Et = 0.21e6 psi) at
-- `layers` Simpson points through the thickness. A follower pressure for 1 ms. Usage:
--   cleave run scripts/bench/fpm_spherical_cap.lua [elastic|plastic] [rings] [layers] [device]
-- Prints the apex deflection (in) every 0.05 ms, its first peak, and its mean over 0.5-1 ms.
local cl = require "cleave"
local kind, rings, layers = arg[1] or "plastic", tonumber(arg[2] or "12"), tonumber(arg[3] or "5")
cl.device(arg[4] or "auto")
local R, angle = 22.27, 26.67
local constants = { E = 10.5e6, nu = 0.3, rho = 2.45e-4 }
if kind == "plastic" then constants.sy, constants.Et = 24000, 0.21e6 end
local cap = cl.fpm.spherical_cap { radius = R, angle = angle, rings = rings, thickness = 0.41, layers = layers,
  material = kind == "plastic" and cl.fpm.j2(constants) or cl.fpm.elastic(constants) }
cap:fix { where = "z < " .. R * math.cos(math.rad(angle)) .. " + 1e-6" }
cap:pressure { p = 600 }
local run = cl.fpm.explicit { cap, steps = 1, progress = false }
print(string.format("spherical cap, %s, %d rings (%d triangles), %d layers, dt = %.3g s, %s", kind, rings, cap.ne,
  layers, run.dt, cap.x0.device))
print("  t (ms)   apex deflection (in)")
local peak, at, sum, count, next_print = 0, 0, 0, 0, 0
while run.t < 1e-3 do
  run:go { steps = 1 }
  local w = -cap.d[1][3] -- the apex is particle 1
  if w > peak and run.t < 0.6e-3 then peak, at = w, run.t end
  if run.t >= 0.5e-3 then sum, count = sum + w, count + 1 end
  if run.t >= next_print then
    print(string.format("  %6.3f   %.4f", run.t * 1e3, w))
    next_print = next_print + 0.05e-3
  end
end
print(string.format("first peak %.4f in at %.3f ms; mean over 0.5-1 ms %.4f in", peak, at * 1e3, sum / count))
