-- The foundation's flagship example: a Gaussian pulse spreading on a
-- membrane (scalar wave equation, velocity Verlet) on the default device.
-- Writes out/wave.pvd (+ .vtu frames) for ParaView, out/wave_energy.csv and
-- out/wave.png. Usage: cleave run scripts/wave_demo.lua [nx] [steps]
local cl = require "cleave"

local nx = tonumber(arg[1]) or 400
local steps = tonumber(arg[2]) or 600
os.execute("mkdir -p out")

local model = cl.demo.wave {
  nx = nx, ny = nx // 2, dx = 1 / nx, c = 1, precision = "f64",
  pulse = { x = 0.3, y = 0.25, width = 0.03 },
}
print(model)
local k0, p0 = model:energy()
local result = model:run {
  steps = steps,
  output = { every = steps // 10, vtu = "out/wave", csv = "out/wave_energy.csv", png = "out/wave.png" },
}
local k, p = model:energy()
print(string.format("%d steps in %.2f s (%.0f steps/s, %.3g point-updates/s) on %s",
  result.steps, result.seconds, result.steps_per_second,
  result.steps_per_second * model.u.n, cl.device()))
print(string.format("energy: start %.6e, end %.6e, relative change %.2e",
  k0 + p0, k + p, (k + p - k0 - p0) / (k0 + p0)))
print("wrote out/wave.pvd, out/wave_energy.csv, out/wave.png")
