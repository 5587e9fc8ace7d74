-- A user's bond law, compiled at run time: Kalthoff-Winkler (dx = 1 mm on the CPU, 0.25 mm on a
-- GPU) with a bilinear softening bond instead of PMB. The law is C, written here; cleave wraps it
-- in the step kernel's template and compiles it for the device (NVRTC or cc), caching the result.
--   cleave run scripts/user_law.lua [dx_mm]
local cl = require "cleave"
local dx = (tonumber(arg[1]) or (cl.device() == "cuda" and 0.25 or 1.0)) * 1e-3
local L = 0.1
local steel = cl.pd.pmb { E = 191e9, rho = 8000, G0 = 22170 }

-- bilinear softening: c s up to s1, then down to zero at s2, where the bond breaks for good
local softening = [[
if (s > s2) {
  broken = 1;
  return 0;
}
if (s <= s1) return c * s;
return c * s1 * (s2 - s) / (s2 - s1);
]]

local function kalthoff_winkler(law_of)
  local shape = cl.geom.rect { 0, L, -L, L }
  local probe = cl.pd.body { shape = cl.geom.rect { 0, 10 * dx, 0, 10 * dx }, dx = dx, thickness = 0.09 * L, material = steel }
  local plate = cl.pd.body { shape = shape, dx = dx, thickness = 0.09 * L, material = steel,
    law = law_of and law_of(probe.c, probe.s0) }
  plate:precrack { { -dx, L / 4 }, { L / 2, L / 4 } }
  plate:precrack { { -dx, -L / 4 }, { L / 2, -L / 4 } }
  plate:velocity { where = "x < 3 * dx and abs(y) < 0.025", vx = 32 }
  local run = cl.explicit { plate, dt = "auto", steps = math.floor(90e-6 / (0.8 * plate:stable_dt())), progress = false }
  local stats = run:go()
  return plate, stats
end

for _, case in ipairs {
  { "PMB (built in)" },
  { "bilinear softening (user law)", function(c, s0)
    return cl.jit.bond_force { name = "softening", source = softening, params = { c = c, s1 = s0, s2 = 3 * s0 } }
  end },
} do
  local plate, stats = kalthoff_winkler(case[2])
  local angles = cl.pd.crack_angles(plate, { { L / 2, L / 4, 1 }, { L / 2, -L / 4, -1 } })
  print(string.format("%-30s %6d broken bonds, cracks at %.1f and %.1f degrees, %.2f s on %s", case[1],
    plate.bonds:broken(), angles[1].angle, angles[2].angle, stats.seconds, cl.device()))
  if plate.law then
    local m = plate.law:module(plate.x, plate.bonds.layout, plate.kernel)
    print(string.format("%-30s compiled module: %s", "", tostring(m)))
  end
end
