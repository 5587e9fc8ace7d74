-- A notched plate pulled apart, run on as many MPI ranks as it is launched with: the same script
-- on one process or on N (docs/scale-out.md).
--
--   cleave run scripts/pd_ranks.lua [dx_mm] [steps] [outdir]
--   mpirun -np 4 cleave run scripts/pd_ranks.lua 0.125 2000 out/pd_ranks
--
-- The body partitions itself over the ranks (owned + ghost points, a halo exchange per step);
-- rank 0 prints and writes the CSV, every rank a piece of each .pvtu. The broken bonds and the
-- energies are the same on any number of ranks.
local cl = require "cleave"
local dx = (tonumber(arg[1]) or 0.25) * 1e-3
local steps = tonumber(arg[2]) or 1000
local outdir = arg[3] or "out/pd_ranks"
local L, H = 0.04, 0.02

local body = cl.pd.body { shape = cl.geom.rect { 0, L, 0, H }, dx = dx, precision = "f64", thickness = 1e-3,
  material = cl.pd.pmb { E = 192e9, rho = 8000, G0 = 500 } }
body:precrack { { 0, H / 2 }, { L / 2, H / 2 } }
body:velocity { where = string.format("y > %.17g", H - 3 * dx), vy = 5 }
body:velocity { where = string.format("y < %.17g", 3 * dx), vy = -5 }
print(body)
local run = cl.explicit { body, steps = steps, output = { every = math.max(1, steps // 4), vtu = outdir .. "/plate",
  csv = outdir .. "/history.csv" } }
local stats = run:go()
local strain, kinetic = body:energy()
local seconds = cl.comm.max(stats.seconds) -- the slowest rank's
print(string.format("%d ranks, %d points, %d steps in %.2f s: broken bonds %d, max damage %.4f, strain energy %.6g J, " ..
  "kinetic %.6g J", cl.comm.size(), body.global_n, steps, seconds, body:broken_bonds(), body:max_damage(), strain, kinetic))
print("output: " .. outdir .. "/plate.pvd, history.csv")
