-- Foundation benchmark: achieved memory bandwidth of the elementary kernels
-- and of the demonstration wave step, as a fraction of the measured ceiling
-- (a device-to-device copy). Usage: cleave [--device D] run scripts/bench/bench_foundation.lua [log2 n]
--
-- Floors (bytes that must move per entry): copy 2 (read + write), axpy 3,
-- sum 1, first_nonfinite 1, dot 2, wave step 10 (kick-drift reads u, v, a and writes u, v;
-- the Laplacian reads u once if neighbours hit in cache and writes a; the
-- kick reads v, a and writes v). Times are wall-clock between device
-- synchronisations over many repetitions (the median of 5 runs).
-- The wave step (the one method here) prints its energy balance and reports no time when it is off
-- by more than 1% or went non-finite (balance.lua); the elementary kernels compute no physics.
local cl = require "cleave"
local balance = dofile((arg[0]:match("^(.*)/") or ".") .. "/balance.lua")

local log2n = tonumber(arg[1]) or (cl.device() == "cuda" and 26 or 23)
local n = 1 << log2n
local reps = cl.device() == "cuda" and 200 or 20

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

-- seconds per repetition of a pipeline, median of 5 timed runs after a warm-up
local function time_pipeline(p)
  cl.run { pipeline = p, steps = 3, progress = false }
  local samples = {}
  for i = 1, 5 do samples[i] = cl.run { pipeline = p, steps = reps, progress = false }.seconds / reps end
  return median(samples)
end

local function time_call(fn)
  fn()
  local samples = {}
  for i = 1, 5 do
    cl.sync()
    local t0 = cl.clock()
    for _ = 1, reps do fn() end
    cl.sync()
    samples[i] = (cl.clock() - t0) / reps
  end
  return median(samples)
end

local rows = {}
local function record(name, precision, bytes, seconds)
  rows[#rows + 1] = { name = name, precision = precision, gbs = bytes / seconds / 1e9, seconds = seconds }
end

for _, precision in ipairs { "f32", "f64" } do
  local size = precision == "f32" and 4 or 8
  local x = cl.field { n = n, dtype = precision, value = 1.5 }
  local y = cl.field { n = n, dtype = precision, value = 0.5 }
  record("copy", precision, 2 * n * size, time_pipeline(cl.pipeline { cl.stage.copy { dst = y, src = x } }))
  record("axpy", precision, 3 * n * size, time_pipeline(cl.pipeline { cl.stage.axpy { y = y, x = x, a = 1e-9 } }))
  record("sum", precision, n * size, time_call(function() return x:sum() end))
  -- the non-finite check of every run (explicit.nonfinite): one such reduction per state field
  record("nonfinite", precision, n * size, time_call(function() return x:first_nonfinite() end))
  record("dot", precision, 2 * n * size, time_call(function() return cl.dot(x, y) end))
  local side = math.min(math.floor(math.sqrt(n)), 4096) -- the set-up runs in Lua: keep it to seconds
  local model = cl.demo.wave { nx = side, ny = side, dx = 1 / side, precision = precision,
    pulse = { width = 0.05, x = 0.5, y = 0.5 } }
  local function energies()
    local kinetic, potential = model:energy()
    return { kinetic = kinetic, potential = potential }
  end
  local before = energies()
  local seconds = time_pipeline(model.pipeline)
  seconds = balance.checked("wave step " .. precision, before, energies(), seconds)
  if seconds then record("wave step", precision, 10 * side * side * size, seconds) end
end

local ceiling = {}
for _, r in ipairs(rows) do
  if r.name == "copy" then ceiling[r.precision] = r.gbs end
end
local info = cl.info()
print(string.format("device: %s (%s), n = 2^%d = %d entries, %d repetitions", cl.device(),
  info.device_name, log2n, n, reps))
print(string.format("%-10s %-5s %12s %10s %12s", "kernel", "prec", "time/rep", "GB/s", "of copy"))
for _, r in ipairs(rows) do
  print(string.format("%-10s %-5s %10.3f ms %10.1f %11.0f%%", r.name, r.precision, r.seconds * 1e3, r.gbs,
    100 * r.gbs / ceiling[r.precision]))
end
balance.exit()
