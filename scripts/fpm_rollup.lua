-- The finite particle method's large-rotation check as an example (docs/methods/finite-particle.md):
-- a shell strip and a beam, clamped at x = 0, rolled into a full circle by an end moment 2 pi EI / L
-- ramped over 4 periods of their first mode, then damped to rest (xi = 2 omega_1). Writes a VTU series
-- of each to out/fpm_rollup_*.pvd (open them in ParaView) and prints how far the tips end from the
-- roots and their strain energy against the circle's. Run: cleave run scripts/fpm_rollup.lua
-- Expected (CPU, a few seconds each): shell tip 4.2e-06 m, beam tip ~1e-13 m from the root, both
-- strain energies 1.645e+05 J.
local cl = require "cleave"

local E, rho, L = 2e11, 7850, 0.1
local steel = cl.fpm.elastic { E = E, nu = 0, rho = rho }

local function roll(name, body, I, area, tip_moment)
  body:fix { where = "x < 1e-9" }
  local omega = 3.516 * math.sqrt(E * I / (rho * area * L ^ 4))
  local period = 2 * math.pi / omega
  local tip = body:select("x > " .. L .. " - 1e-9")
  body:load { where = "x > " .. L .. " - 1e-9", my = tip_moment .. " / n * min(t / T, 1)",
    params = { n = tip.n, T = 4 * period } }
  local run = cl.fpm.explicit { body, steps = 1, xi = 2 * omega, progress = true,
    output = { every = 5000, vtu = "out/fpm_rollup_" .. name, csv = "out/fpm_rollup_" .. name .. ".csv" } }
  run.steps = math.ceil(8 * period / run.dt)
  local stats = run:go()
  local gap = 0
  for _, i in ipairs(tip:to_table()) do
    local p, d = body.points[i], body.d[i]
    gap = math.max(gap, math.sqrt((p[1] + d[1]) ^ 2 + d[3] ^ 2))
  end
  local e = body:energies()
  print(string.format("%-6s %d elements, %d steps in %.2f s: the tip ends %.3g m from the root (L = %g m); " ..
    "strain energy %.4g J (the circle's 2 pi^2 EI / L = %.4g J)", name, body.ne, run.steps, stats.seconds, gap, L,
    e.strain, 2 * math.pi ^ 2 * E * I / L))
end

local b, t = 0.05, 0.01
local I = b * t ^ 3 / 12
roll("shell", cl.fpm.cantilever { kind = "shell", length = L, elements = 20, width = b, ny = 1, thickness = t,
  material = steel }, I, b * t, 2 * math.pi * E * I / L)
roll("beam", cl.fpm.cantilever { kind = "beam", length = L, elements = 20, section = { b = b, h = t },
  material = steel }, I, b * t, 2 * math.pi * E * I / L)
