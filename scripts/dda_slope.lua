-- A jointed rock slope (DDA, cleave.dda): a slope 12 m wide and 8 m high cut by two joint sets
-- (35° and 125°) with the block cutter, resting on a fixed base and wall, released under gravity
-- with a friction angle of 30° (default): blocks on the face slide and topple.
--   cleave run scripts/dda_slope.lua [friction] [steps] [outdir]
-- Writes outdir (default out/dda_slope): history.csv (a row per step) and the blocks and contacts
-- as VTU every 20 steps; prints the blocks cut, the time reached and the energies.
local cl = require "cleave"
local friction, steps = tonumber(arg[1]) or 30, tonumber(arg[2]) or 100
local outdir = arg[3] or "out/dda_slope"

local rock = cl.dda.cut {
  domain = { 0, 0, 12, 0, 12, 4, 4, 8, 0, 8 },
  joints = { { dip = 35, spacing = 1.5, origin = { 0.1, 0.2 } }, { dip = 125, spacing = 2, origin = { 0.3, 0.1 } } },
}
local ground = cl.dda.blocks { { -2, -2, 14, -2, 14, 0, -2, 0 }, { -2, 0, 0, 0, 0, 10, -2, 10 } }
local model = cl.dda.model {
  blocks = { ground, rock },
  materials = { { rho = 2500, E = 1e10, nu = 0.25 } },
  joints = { { friction = friction } },
  fixed = { { -2, -2 }, { 14, -2 }, { -2, 0 }, { -2, 10 }, { -1, 5 } },
  gravity = { 0, -9.81 },
}
print(string.format("%d blocks cut, %d in all", #rock.polygons, model:count()))
local t0 = cl.clock()
local s = model:run { steps = steps, dt = 2e-3, csv = outdir .. "/history.csv", vtu = outdir .. "/blocks", every = 20 }
print(string.format("t = %.4f s after %d steps (%.1f s): kinetic %.1f J, work of gravity %.1f J, friction work %.1f J",
  s.t, s.steps, cl.clock() - t0, s.kinetic, s.gravity_work, s.friction_work))
