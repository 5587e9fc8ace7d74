-- CPU and CUDA backends compute the same results from the same physics
-- source. Runs only where a GPU is usable (the GPU machine); skipped here.
local cl = require "cleave"
local T = require "testing"

local info = cl.info()
local gpu = info.backends.cuda and info.gpu_count > 0

local function on(device, fn)
  local before = cl.device()
  cl.device(device)
  local ok, a, b = pcall(fn)
  cl.device(before)
  if not ok then error(a, 0) end
  return a, b
end

-- relative difference ||a - b|| / ||b|| of two fields' host copies
local function rel_diff(a, b)
  local ta, tb, num, den = a:to_table(), b:to_table(), 0, 0
  for i = 1, #ta do num, den = num + (ta[i] - tb[i]) ^ 2, den + tb[i] ^ 2 end
  return math.sqrt(num / den)
end

local function wave_on(device, precision)
  return on(device, function()
    local m = cl.demo.wave { nx = 201, ny = 151, dx = 0.01, precision = precision, pulse = { width = 0.1 } }
    m:run { steps = 100, progress = false }
    return m
  end)
end

T.case("wave model, f64: cuda equals cpu to 1e-12 after 100 steps", function()
  if not gpu then T.skip("needs a usable GPU") end
  local c, g = wave_on("cpu", "f64"), wave_on("cuda", "f64")
  T.eq(g.u.device, "cuda", "ran on the GPU")
  local d = rel_diff(g.u, c.u)
  print(string.format("  f64 relative difference of u: %.3g", d))
  -- same operations in the same order per point; only FMA contraction may differ
  T.ok(d < 1e-12, "relative difference " .. d)
end)

T.case("wave model, f32: cuda equals cpu to 1e-5 after 100 steps", function()
  if not gpu then T.skip("needs a usable GPU") end
  local c, g = wave_on("cpu", "f32"), wave_on("cuda", "f32")
  local d = rel_diff(g.u, c.u)
  print(string.format("  f32 relative difference of u: %.3g", d))
  T.ok(d < 1e-5, "relative difference " .. d)
end)

T.case("reductions agree for every dtype", function()
  if not gpu then T.skip("needs a usable GPU") end
  local rand = T.rng(11)
  for _, dt in ipairs { "f32", "f64", "i32", "u32", "u8" } do
    local data = {}
    for i = 1, 300001 do data[i] = math.floor(rand() * 200) end
    local c = on("cpu", function() return cl.field { data = data, dtype = dt } end)
    local g = c:copy("cuda")
    for _, op in ipairs { "min", "max", "sum", "norm" } do
      T.near(g[op](g), c[op](c), 1e-12, dt .. " " .. op, 1)
    end
  end
end)

T.run()
