-- A unit block on a 30° incline (DDA, cleave.dda): with a friction angle of 20° it slides
-- d = g (sin θ − cos θ tan φ) t² / 2, with 35° it stays. Writes out/dda_incline/ (CSV history,
-- VTU of blocks and contacts every 100 steps) and prints the slide against the exact value.
--   cleave run scripts/dda_incline.lua
local cl = require "cleave"

local g, theta = 9.81, math.rad(30)
local function turned(list)
  local c, s, out = math.cos(theta), math.sin(theta), {}
  for k = 1, #list, 2 do out[k], out[k + 1] = c * list[k] - s * list[k + 1], s * list[k] + c * list[k + 1] end
  return out
end

local base = turned { -1, -1, 6, -1, 6, 0, -1, 0 }
for _, phi in ipairs { 20, 35 } do
  local model = cl.dda.model {
    blocks = { cl.dda.blocks { base }, cl.dda.blocks { turned { 3, 0, 4, 0, 4, 1, 3, 1 } } },
    materials = { { rho = 2500, E = 1e10, nu = 0.25 } },
    joints = { { friction = phi } },
    fixed = { { base[1], base[2] }, { base[3], base[4] }, { base[7], base[8] } },
    gravity = { 0, -g }, max_displacement = 0.01,
  }
  local out = string.format("out/dda_incline/phi%d", phi)
  local stats = model:run { steps = 1000, dt = 1e-3, csv = out .. "/history.csv", vtu = out .. "/blocks", every = 100 }
  local b = model:block(2)
  local slide = -(b.ux * math.cos(theta) + b.uy * math.sin(theta))
  local exact = math.max(0, 0.5 * g * (math.sin(theta) - math.cos(theta) * math.tan(math.rad(phi))) * stats.t ^ 2)
  print(string.format("phi = %d deg: slide %.6f m after %.3f s (exact %.6f m), friction work %.1f J", phi, slide,
    stats.t, exact, stats.friction_work))
end
