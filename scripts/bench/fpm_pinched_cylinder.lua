-- The pinched semi-cylinder (issue 15, verification 4; Sze, Liu & Lo 2004, "pinched semi-cylindrical
-- isotropic shell"): R = 1.016 m, L = 3.048 m, t = 0.03 m, E = 2.0685e7, nu = 0.3; the end z = 0
-- clamped, the straight edges (y = 0) on the full cylinder's mid-plane (no vertical translation, no
-- rotation about the axis), a point force P down at the middle of the free end's arc. Half of it is
-- modelled, with the symmetry plane x = 0 and P/2 (cleave.fpm.pinched_semicylinder). The load-deflection
-- curve by damped dynamics (cleave.fpm.static), load level after load level along the reference's 25
-- points (steps of 50 to 100 N), each settled to a residual force below 1e-5 of the forces. Usage:
--   cleave run scripts/bench/fpm_pinched_cylinder.lua [around] [along] [device] [tol] [substeps]
-- (cells around the half and along the length; defaults 32 x 64; substeps: levels settled between two
-- reference points, default 1, for a load-step study). Prints P, the deflection W of the load point,
-- the reference, the difference and the steps, a line per reference point as it is settled.
local cl = require "cleave"
if arg[1] == "mesh" then
  dofile((arg[0]:match("^(.*)/") or ".") .. "/fpm_pinched_cylinder_paper.lua")
  return
end
local around, along = tonumber(arg[1] or "32"), tonumber(arg[2] or "64")
cl.device(arg[3] or "auto")
local tol, substeps = tonumber(arg[4] or "1e-5"), math.tointeger(tonumber(arg[5] or "1"))
local shell, tip = cl.fpm.pinched_semicylinder { around = around, along = along }
-- xi: about twice the first circular frequency of this mass (~5 1/s): near critical damping
local static = cl.fpm.static { shell, xi = 20, tol = tol, every = 200, max_steps = 4000000 }
-- Sze, Liu & Lo (2004), the semi-cylinder's table (ABAQUS S4R, 40 x 40 on the half): P (N), W (m)
local reference = { { 100, 0.05421 }, { 200, 0.16100 }, { 250, 0.22195 }, { 300, 0.27657 }, { 350, 0.32700 },
  { 400, 0.37582 }, { 450, 0.42633 }, { 500, 0.48537 }, { 550, 0.56355 }, { 600, 0.66410 }, { 650, 0.79810 },
  { 700, 0.94669 }, { 800, 1.13704 }, { 900, 1.24751 }, { 1000, 1.32653 }, { 1100, 1.38920 }, { 1200, 1.44185 },
  { 1300, 1.48770 }, { 1400, 1.52863 }, { 1500, 1.56584 }, { 1600, 1.60015 }, { 1700, 1.63211 }, { 1800, 1.66200 },
  { 1900, 1.68973 }, { 2000, 1.71505 } }
print(string.format("pinched semi-cylinder: %d x %d cells, %d triangles, %s, dt = %.3g s, residual <= %g, %d level(s) " ..
  "per reference point", around, along, shell.ne, shell.x0.device, static.dt, tol, substeps))
print("     P (N)    W (m)   reference   difference     steps")
local seconds, worst, previous = 0, 0, 0
for _, point in ipairs(reference) do
  local P, W_ref = point[1], point[2]
  local steps = 0
  for k = 1, substeps do
    local level = static:settle(previous + (P - previous) * k / substeps)
    seconds, steps = seconds + level.seconds, steps + level.steps
  end
  previous = P
  local W = -shell.d[tip][2]
  worst = math.max(worst, math.abs(W / W_ref - 1))
  print(string.format("%10d %8.4f %10.4f %+11.2f%% %9d", P, W, W_ref, 100 * (W / W_ref - 1), steps))
  io.stdout:flush()
end
print(string.format("largest difference %.2f%%, %d steps in %.1f s", 100 * worst, static.steps, seconds))
