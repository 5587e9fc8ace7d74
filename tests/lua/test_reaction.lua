-- Reactions of prescribed motion in peridynamics (body:reaction, the object cleave.czm bodies
-- give too: their cases are in test_czm.lua): the force equals the applied load on a bar in
-- equilibrium, and a driven run's energy comes from the reaction's work. Tolerances:
-- docs/testing.md.
local cl = require "cleave"
local T = require "testing"

local function bar()
  local dx = 1e-3
  local b = cl.pd.body { shape = cl.geom.rect { 0, 0.04, 0, 0.01 }, dx = dx,
    material = cl.pd.pmb { E = 70e9, rho = 2700, G0 = 1e9 } }
  return b, dx
end

-- Held at x < 3 dx, pulled by a traction on its right end, relaxed to equilibrium (ADR to 1e-7):
-- the reaction on the held points balances the load within 0.5% (the relaxation's residual and
-- the one explicit step taken from rest).
T.case("PD reaction: force = minus the applied load on a held bar in equilibrium", function()
  local b, dx = bar()
  b:displacement { where = string.format("x < %g", 3 * dx), ux = 0, uy = 0 }
  local t = 50e6
  b:traction { where = string.format("x > %g", 0.04 - dx), tx = t }
  local r = b:reaction { where = string.format("x < %g", 3 * dx), name = "held" }
  T.raises(function() b:reaction { where = "x < 0.003", name = "held" } end, { "'held' already" })
  local relaxed = cl.pd.relax { b, tolerance = 1e-7, steps = 200000 }
  T.ok(relaxed.converged, string.format("relaxed to %.2e", relaxed.residual))
  local run = cl.explicit { b, steps = 1, progress = false }
  T.raises(function() b:reaction { where = "x > 0.039", name = "late" } end, { "body:reaction", "before the body's run" })
  run:go()
  local load = b.body_load:sum(1) * (type(b.volume) == "number" and b.volume or 1)
  T.near(-r:force()[1], load, 5e-3, "reaction x = minus the load")
  T.ok(math.abs(r:force()[2]) < 1e-3 * load, string.format("reaction y %.3g N", r:force()[2]))
  T.ok(tostring(r):find("reaction<held:", 1, true) ~= nil, tostring(r))
end)

-- The left end pulled at a constant velocity: kinetic + strain energy = the reaction's work within
-- 1% (the trapezoid rule starts at the first step: its share is 1/steps). The kinetic energy is
-- the one velocity Verlet conserves with trapezoid work, m v(n-1/2) . v(n+1/2) / 2 = the
-- whole-step one less dt^2/8 sum m |a|^2 (docs/methods/cohesive-fem.md).
T.case("PD reaction: a driven bar's energy equals the reaction's work", function()
  local b, dx = bar()
  local held = string.format("x < %g", 3 * dx)
  b:velocity { where = held, vx = -1 }
  b:initial_velocity { where = held, vx = -1 } -- moving from the start: no impulse the forces miss
  local _, kinetic0 = b:energy()
  local r = b:reaction { where = held, name = "drive" }
  local csv = T.outdir("reaction") .. "/h.csv"
  local run = cl.explicit { b, steps = 400, progress = false, output = { every = 200, csv = csv } }
  run:go()
  local strain, kinetic = b:energy()
  kinetic = kinetic - kinetic0
  local header = T.read(csv):match("^[^\n]*")
  for _, c in ipairs { "drive_fx", "drive_fy", "drive_ux", "drive_uy", "drive_work" } do
    T.ok(header:find(c, 1, true) ~= nil, "CSV column " .. c)
  end
  local shadow, a = 0, b.a:to_table()
  for i = 1, b.n do shadow = shadow + b.material.rho * b.volume * (a[i][1] ^ 2 + a[i][2] ^ 2) * run.dt ^ 2 / 8 end
  T.ok(r:work() > 0, string.format("the drive did %.3g J", r:work()))
  T.near(strain + kinetic - shadow, r:work(), 0.01, "kinetic + strain = the reaction's work")
  T.near(b:reaction_work(), r:work(), 1e-12, "the body's reaction work")
end)

T.run()
