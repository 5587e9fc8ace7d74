-- Verification of the demonstration physics (wave equation, velocity
-- Verlet) against its exact discrete and continuous solutions.
local cl = require "cleave"
local T = require "testing"

-- The standing mode u0 = sin(pi x/Lx) sin(pi y/Ly) is an eigenvector of the
-- five-point Laplacian with u = 0 on the edge, with eigenvalue
-- -(4/dx^2)(sin^2(pi dx/2Lx) + sin^2(pi dx/2Ly)). Velocity Verlet from rest
-- then gives exactly u_n = cos(n theta) u0 with cos(theta) = 1 - (omega dt)^2/2.
local function standing_mode(nx, ny, dx, precision)
  local lx, ly = (nx - 1) * dx, (ny - 1) * dx
  local model = cl.demo.wave {
    nx = nx, ny = ny, dx = dx, c = 1, cfl = 0.9, precision = precision,
    u0 = function(x, y) return math.sin(math.pi * x / lx) * math.sin(math.pi * y / ly) end,
  }
  local lambda = 4 / dx ^ 2 * (math.sin(math.pi * dx / (2 * lx)) ^ 2 + math.sin(math.pi * dx / (2 * ly)) ^ 2)
  local theta = math.acos(1 - lambda * model.dt ^ 2 / 2)
  local omega_exact = math.pi * math.sqrt(1 / lx ^ 2 + 1 / ly ^ 2)
  return model, theta, omega_exact
end

-- peak of the mode at the grid point nearest the centre, divided by its start value
local function amplitude(model, u_start)
  local centre = (model.ny // 2) * model.nx + model.nx // 2 + 1
  return model.u[centre] / u_start[centre]
end

T.case("f64: Verlet reproduces the exact discrete solution to 1e-10", function()
  local model, theta = standing_mode(41, 31, 0.025, "f64")
  local start = model.u:to_table()
  model:run { steps = 500, progress = false }
  -- round-off grows about linearly with steps: 500 steps x 1e-16 << 1e-10
  T.near(amplitude(model, start), math.cos(500 * theta), 1e-10, "amplitude", 1)
end)

T.case("f32: same solution within single-precision round-off (2e-4)", function()
  local model, theta = standing_mode(41, 31, 0.025, "f32")
  local start = model.u:to_table()
  model:run { steps = 500, progress = false }
  T.near(amplitude(model, start), math.cos(500 * theta), 2e-4, "amplitude", 1)
end)

T.case("frequency converges to the continuous one at second order", function()
  local errors = {}
  for level, n in ipairs { 11, 21, 41 } do
    local model, theta, omega = standing_mode(n, n, 1 / (n - 1), "f64")
    errors[level] = math.abs(theta / model.dt - omega) / omega
  end
  for level = 2, 3 do
    local rate = math.log(errors[level - 1] / errors[level], 2)
    T.ok(rate > 1.9 and rate < 2.1, string.format("convergence rate %.3f (errors %.3g, %.3g)", rate,
      errors[level - 1], errors[level]))
  end
  T.ok(errors[3] < 2e-3, "frequency error on the 41 x 41 grid: " .. errors[3])
end)

T.case("energy stays within 1% over 10 000 steps (no dissipation)", function()
  local model = cl.demo.wave { nx = 60, ny = 40, dx = 0.02, pulse = { width = 0.1 } }
  local k0, p0 = model:energy()
  local e0, worst = k0 + p0, 0
  cl.run { pipeline = model.pipeline, steps = 10000, every = 100, progress = false,
    on_output = function()
      local k, p = model:energy()
      worst = math.max(worst, math.abs(k + p - e0) / e0)
    end }
  -- velocity Verlet conserves a modified energy; the plain energy oscillates by O(dt^2)
  T.ok(worst < 0.01, string.format("largest relative energy change %.3g", worst))
  T.ok(worst > 0, "energy was measured")
end)

T.case("a model keeps its step count and time across runs", function()
  local model = cl.demo.wave { nx = 30, ny = 30, dx = 0.05 }
  model:run { steps = 10, progress = false }
  T.eq(model.step, 10, "step after 10")
  model:run { steps = 5, progress = false }
  T.eq(model.step, 15, "steps accumulate")
  T.near(model.t, 15 * model.dt, 1e-15, "time follows steps")
end)

T.case("outputs of later runs extend the same series and history", function()
  local dir = T.outdir("wave_series")
  local m = cl.demo.wave { nx = 20, ny = 20, dx = 0.05 }
  local out = { every = 5, vtu = dir .. "/w", csv = dir .. "/w.csv" }
  m:run { steps = 10, progress = false, output = out }
  m:run { steps = 10, progress = false, output = out }
  local pvd, frames = T.read(dir .. "/w.pvd"), 0
  for _ in pvd:gmatch("<DataSet") do frames = frames + 1 end
  T.eq(frames, 5, "frames at steps 0, 5, 10, 15, 20")
  local rows = 0
  for _ in io.lines(dir .. "/w.csv") do rows = rows + 1 end
  T.eq(rows, 6, "header and five rows")
end)

T.case("bad model arguments name the parameter and the fix", function()
  T.raises(function() cl.demo.wave { nx = 20, ny = 20, dx = 0.1, dt = 1 } end,
    { "'dt'", "stable limit", "dt = \"auto\"" })
  T.raises(function() cl.demo.wave { nx = 20, ny = 20, dx = -0.1 } end, "'dx'")
  local err = T.raises(function() cl.demo.wave { nx = 1, ny = 20, dx = 0.1 } end, { "cleave.demo.wave", "'nx'" })
  T.ok(err:find("test_wave.lua", 1, true), "the error points at the caller's line: " .. err)
  T.raises(function() cl.demo.wave { nx = 20, ny = 20, dx = 0.1, c = 0 } end, "'c'")
  T.raises(function() cl.demo.wave { nx = 20, ny = 20, dx = 0.1, precision = "f16" } end, "'precision'")
  T.raises(function() cl.demo.wave { nx = 20, ny = 20, dx = 0.1, speed = 2 } end,
    { "unknown argument 'speed'", "valid:" })
  local m = cl.demo.wave { nx = 20, ny = 20, dx = 0.1 }
  T.raises(function() m:run { step = 3 } end, { "unknown argument 'step'", "steps" })
  m.step = 7
  T.raises(function() m:run {} end, "'steps'")
  T.eq(m.step, 7, "a run refused for its arguments leaves the step alone")
  local err = T.raises(function() m:run { steps = 1, output = { evry = 2 } } end, "unknown argument 'evry'")
  T.ok(err:find("test_wave.lua", 1, true), "nested argument errors point at the caller: " .. err)
end)

T.run()
