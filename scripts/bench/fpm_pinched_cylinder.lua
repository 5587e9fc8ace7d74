-- The pinched semi-cylinder (issue 15, verification 4; Sze, Liu & Lo 2004, "pinched semi-cylindrical
-- isotropic shell"): R = 1.016 m, L = 3.048 m, t = 0.03 m, E = 2.0685e7, nu = 0.3. One curved end
-- (z = 0) clamped; the straight edges (y = 0) hinged: their translations in the cross-section plane
-- (x, y) held, the axial one and the rotations free; a point force P down (-y) at the top of the free
-- end (x = 0, y = R, z = L). Modelled as the reference does: half the semi-cylinder (a quarter of the
-- cylinder, a = 0..90 degrees) with the plane x = 0 a symmetry plane and P/2 at the load point. The
-- load-deflection curve by damped dynamics (cleave.fpm.static), level after level of P, each to a
-- residual force below 1e-5 of the forces. Usage:
--   cleave run scripts/bench/fpm_pinched_cylinder.lua [around] [along] [device]
-- (cells around the quarter and along the length; defaults 32 x 64 on the GPU if there is one).
-- Prints P, the deflection W of the load point, the reference and the difference.
local cl = require "cleave"
local around, along = tonumber(arg[1] or "32"), tonumber(arg[2] or "64")
cl.device(arg[3] or "auto")
local R, L = 1.016, 3.048
-- rho only sets the time scale of the damped dynamics; it has no part in the static answer
local material = cl.fpm.elastic { E = 2.0685e7, nu = 0.3, rho = 1000 }
local shell = cl.fpm.cylinder { radius = R, length = L, thickness = 0.03, part = "quarter", around = around,
  along = along, material = material }
shell:fix { where = { group = "z0" } }
shell:fix { where = { group = "y0" }, dofs = { "x", "y" } }
shell:symmetry { where = { group = "x0" }, normal = "x" }
local function at_load(x, _, z) return x == 0 and z > L * (1 - 1e-9) end
local tip = shell:select(at_load):to_table()[1]
shell:load { where = at_load, fy = "-t / 2" } -- t is the load P; half of it on the half model
-- xi: about twice the first circular frequency of this mass (~5 1/s): near critical damping
local static = cl.fpm.static { shell, xi = 20, tol = 1e-5, every = 200, max_steps = 2000000 }
local reference = { 0.161, 0.376, 0.664, 1.137, 1.327, 1.442, 1.529, 1.600, 1.662, 1.715 }
print(string.format("pinched semi-cylinder: %d x %d cells, %d triangles, %s, dt = %.3g s", around, along, shell.ne,
  shell.x0.device, static.dt))
print("     P (N)    W (m)   reference   difference   steps")
local seconds, worst = 0, 0
for k, W_ref in ipairs(reference) do
  local P = 200 * k
  local r = static:settle(P)
  seconds = seconds + r.seconds
  local W = -shell.d[tip][2]
  worst = math.max(worst, math.abs(W / W_ref - 1))
  print(string.format("%10d %8.4f %10.3f %+11.2f%% %7d", P, W, W_ref, 100 * (W / W_ref - 1), r.steps))
end
print(string.format("largest difference %.2f%%, %d steps in %.1f s", 100 * worst, static.steps, seconds))
