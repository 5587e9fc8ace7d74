-- Run-time compiled bond laws: compile times (cold, from the disk cache, from memory) and the
-- step rate of the PMB law as a snippet against the built-in kernel (same body, same kernel
-- shape), after checking both give the same displacements.
--   cleave [--device D] run scripts/bench/bench_jit.lua [points] [steps]
-- Run it twice: the second process finds the laws of the first on disk ("disk" row).
-- Timed runs print their energy balance and report no time when it is off by more than 1% or
-- went non-finite (balance.lua).
local cl = require "cleave"
local balance = dofile((arg[0]:match("^(.*)/") or ".") .. "/balance.lua")
local points = tonumber(arg[1]) or (cl.device() == "cuda" and 10e6 or 250000)
local steps = tonumber(arg[2]) or (cl.device() == "cuda" and 100 or 10)
local side = math.floor(math.sqrt(points))

local function median(t) table.sort(t); return t[(#t + 1) // 2] end

local function body(precision, law)
  return cl.pd.body { shape = cl.geom.rect { 0, 1, 0, 1 }, dx = 1 / side, precision = precision,
    surface_correction = false, material = cl.pd.pmb { E = 191e9, rho = 8000, G0 = 22170 }, law = law }
end

-- The snippet is PMB's own source, so the built-in PMB energy is the jitted body's energy too
-- (body:energy() gives NaN for a user law, whose energy it cannot know in general).
local function pmb_energies(b)
  local law = b.law
  b.law = nil
  local energies = balance.energies(b)
  b.law = law
  return energies
end

local function step_ms(b, label)
  local before = pmb_energies(b)
  local pipeline = cl.pipeline {
    cl.stage.verlet_kick_drift { u = b.u, v = b.v, a = b.a, dt = 1e-9 },
    b:force_stage {},
    cl.stage.verlet_kick { v = b.v, a = b.a, dt = 1e-9 },
  }
  cl.run { pipeline = pipeline, steps = 2, progress = false }
  local samples = {}
  for k = 1, 3 do samples[k] = cl.run { pipeline = pipeline, steps = steps, progress = false }.seconds / steps end
  local seconds = balance.checked(label, before, pmb_energies(b), median(samples))
  return seconds and seconds * 1e3
end

local rows, compiles = {}, {}
for _, precision in ipairs { "f32", "f64" } do
  local builtin = body(precision)
  local pmb = cl.jit.law_source("pmb")
  -- a fresh constant makes code no cache has seen (NVRTC keeps a cache of its own): a cold compile
  local cold = cl.jit.bond_force { source = "if (s > s0) { broken = 1; return 0; }\nreturn c * s * token;",
    params = { c = builtin.c, s0 = builtin.s0, token = 1 + (os.time() % 100000) * 1e-12 + os.clock() * 1e-15 } }
  local m = cold:module(builtin.x, "lattice", "point")
  compiles[#compiles + 1] = { precision, "cold", m.origin, m.seconds }
  local law = cl.jit.bond_force { source = pmb, params = { c = builtin.c, s0 = builtin.s0 } }
  m = law:module(builtin.x, "lattice", "point")
  compiles[#compiles + 1] = { precision, "same law", m.origin, m.seconds }
  m = cl.jit.bond_force { source = pmb, params = { c = builtin.c, s0 = builtin.s0 } }:module(builtin.x, "lattice", "point")
  compiles[#compiles + 1] = { precision, "again", m.origin, m.seconds }
  local jitted = body(precision, law)
  -- same start, two steps of both, then compare before timing
  for _, b in ipairs { builtin, jitted } do
    b.u:assign(function(i) return 1e-9 * (i % 97), 1e-9 * (i % 89) end)
    b:force_stage():run()
  end
  local diff = 0
  local ab, aj = builtin.a:to_table(), jitted.a:to_table()
  for i = 1, builtin.n, math.max(1, builtin.n // 100000) do
    diff = math.max(diff, math.abs(ab[i][1] - aj[i][1]) / (math.abs(ab[i][1]) + 1e-30))
  end
  ab, aj = nil, nil
  rows[#rows + 1] = { precision, step_ms(builtin, precision .. " builtin"), step_ms(jitted, precision .. " jit"), diff,
    builtin.bonds.entries }
  builtin, jitted = nil, nil
  collectgarbage()
end

local info = cl.info()
print(string.format("device: %s (%s), %d points, %d steps", cl.device(), info.device_name, side * side, steps))
print(string.format("%-5s %-9s %-9s %9s", "prec", "law", "origin", "seconds"))
for _, c in ipairs(compiles) do print(string.format("%-5s %-9s %-9s %9.4f", c[1], c[2], c[3], c[4])) end
print(string.format("%-5s %12s %12s %8s %14s %12s", "prec", "builtin ms", "jit ms", "jit/bi", "bond upd/s jit", "max rel diff"))
for _, r in ipairs(rows) do
  if r[2] and r[3] then
    print(string.format("%-5s %12.3f %12.3f %8.3f %14.3e %12.2e", r[1], r[2], r[3], r[3] / r[2], r[5] / (r[3] * 1e-3), r[4]))
  else
    print(string.format("%-5s %12s %12s %8s %14s %12.2e", r[1], balance.time(r[2], "%.3f"), balance.time(r[3], "%.3f"),
      "-", "-", r[4]))
  end
end
balance.exit()
