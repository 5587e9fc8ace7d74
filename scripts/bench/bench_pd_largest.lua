-- Largest peridynamic problems: 2D square bodies in f32 with breaking (lattice bonds,
-- delta = 3.015 dx, no surface correction), built and stepped; reports the device memory the
-- body holds (free memory before minus after, so everything allocated counts), set-up time and
-- the step rate.
--   cleave --device cuda run scripts/bench/bench_pd_largest.lua [points,points,...] [steps]
-- The timed steps start from a small velocity field and report no time when the energy balance is
-- off by more than 1% or went non-finite (balance.lua).
local cl = require "cleave"
local balance = dofile((arg[0]:match("^(.*)/") or ".") .. "/balance.lua")
local sizes = {}
for n in (arg[1] or "1e6"):gmatch("[^,]+") do sizes[#sizes + 1] = tonumber(n) end
local steps = tonumber(arg[2]) or 10

local function free_bytes() cl.sync(); collectgarbage(); collectgarbage(); return cl.info().memory_free end

local rows = {}
for _, points in ipairs(sizes) do
  local side = math.floor(math.sqrt(points))
  local before = free_bytes()
  local t0 = cl.clock()
  local ok, body = pcall(cl.pd.body, { shape = cl.geom.rect { 0, 1, 0, 1 }, dx = 1 / side, precision = "f32",
    surface_correction = false, material = cl.pd.pmb { E = 191e9, rho = 8000, G0 = 22170 } })
  if not ok then
    rows[#rows + 1] = { points = points, error = tostring(body) }
  else
    cl.sync()
    local setup = cl.clock() - t0
    collectgarbage()
    local held = before - free_bytes()
    -- 0.1 m/s in a pattern of the point index: strains far below the bonds' critical stretch
    body.v:assign(function(i) return 0.1 * ((i * 7919) % 1000 / 500 - 1), 0.1 * ((i * 104729) % 1000 / 500 - 1) end)
    local pipeline = cl.pipeline {
      cl.stage.verlet_kick_drift { u = body.u, v = body.v, a = body.a, dt = 1e-9 },
      body:force_stage {},
      cl.stage.verlet_kick { v = body.v, a = body.a, dt = 1e-9 },
    }
    local energies = balance.energies(body)
    cl.run { pipeline = pipeline, steps = 1, progress = false }
    local seconds = cl.run { pipeline = pipeline, steps = steps, progress = false }.seconds / steps
    seconds = balance.checked(string.format("%d points", body.n), energies, balance.energies(body), seconds)
    rows[#rows + 1] = { points = body.n, bonds = body.bonds.entries, held = held, setup = setup,
      step_ms = seconds and seconds * 1e3, rate = seconds and body.bonds.entries / seconds }
    body, pipeline = nil, nil
  end
end

local info = cl.info()
print(string.format("device: %s (%s, %.1f GB), f32, 2D, lattice bonds, %d steps", cl.device(),
  info.device_name or "", (info.memory_total or 0) / 1e9, steps))
print(string.format("%13s %14s %10s %9s %9s %10s %12s", "points", "bonds", "device GB", "B/point", "setup s",
  "ms/step", "bond upd/s"))
for _, r in ipairs(rows) do
  if r.error then
    print(string.format("%13.0f  failed: %s", r.points, r.error))
  elseif not r.step_ms then
    print(string.format("%13d %14d %10.2f %9.1f %9.1f %10s", r.points, r.bonds, r.held / 1e9, r.held / r.points, r.setup,
      "REFUSED"))
  else
    print(string.format("%13d %14d %10.2f %9.1f %9.1f %10.2f %12.3e", r.points, r.bonds, r.held / 1e9,
      r.held / r.points, r.setup, r.step_ms, r.rate))
  end
end
balance.exit()
