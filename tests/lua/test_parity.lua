-- CPU and CUDA backends compute the same results from the same physics
-- source. Runs only where a GPU is usable (the GPU machine); skipped here.
local cl = require "cleave"
local T = require "testing"

local info = cl.info()
local gpu = info.backends.cuda and info.gpu_count > 0

local on = T.on_device

-- relative difference ||a - b|| / ||b|| of two fields' host copies (any number of components)
local function rel_diff(a, b)
  local ta, tb, num, den = a:to_table(), b:to_table(), 0, 0
  for i = 1, #ta do
    local ra, rb = ta[i], tb[i]
    if type(ra) == "number" then ra, rb = { ra }, { rb } end
    for c = 1, #ra do num, den = num + (ra[c] - rb[c]) ^ 2, den + rb[c] ^ 2 end
  end
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

-- A small Kalthoff-Winkler-like plate with breaking: impact on a strip, 150 steps.
local function pd_plate_on(device, precision, kernel, layout)
  return on(device, function()
    local dx = 0.5e-3
    local b = cl.pd.body { shape = cl.geom.rect { 0, 0.02, -0.02, 0.02 }, dx = dx, precision = precision,
      kernel = kernel, layout = layout, material = cl.pd.pmb { E = 191e9, rho = 8000, G0 = 2000 } }
    b:precrack { { -dx, 0.005 }, { 0.01, 0.005 } }
    b:velocity { where = function(x, y) return x < 3 * dx and math.abs(y) < 0.005 end, vx = 40 }
    cl.explicit { b, steps = 150, progress = false }:go()
    return b
  end)
end

T.case("peridynamics, f64: cuda equals cpu to 1e-10 after 150 steps with breaking", function()
  if not gpu then T.skip("needs a usable GPU") end
  for _, layout in ipairs { "lattice", "list" } do
    local c = pd_plate_on("cpu", "f64", "point", layout)
    for _, kernel in ipairs { "point", "group", "group32" } do
      local g = pd_plate_on("cuda", "f64", kernel, layout)
      T.eq(g.u.device, "cuda", "ran on the GPU")
      T.eq(g.bonds.count, c.bonds.count, "same bonds")
      local du, dd = rel_diff(g.u, c.u), rel_diff(g.damage, c.damage)
      print(string.format("  f64 %s, %s kernel: relative difference of u %.3g, of damage %.3g, broken bonds %d / %d",
        layout, kernel, du, dd, g.bonds:broken(), c.bonds:broken()))
      T.ok(c.bonds:broken() > 0, "bonds broke")
      T.ok(du < 1e-10, "u difference " .. du)
      T.eq(g.bonds:broken(), c.bonds:broken(), "same bonds broken")
    end
  end
end)

T.case("peridynamics, f32: cuda equals cpu to 1e-4 without breaking; breaking statistics agree", function()
  if not gpu then T.skip("needs a usable GPU") end
  -- without breaking the two backends differ only by rounding (FMA contraction on the GPU)
  local elastic = cl.pd.pmb { E = 191e9, rho = 8000 }
  local function elastic_on(device)
    return on(device, function()
      local b = cl.pd.body { shape = cl.geom.rect { 0, 0.02, -0.02, 0.02 }, dx = 0.5e-3, precision = "f32", material = elastic }
      b:velocity { where = function(x, y) return x < 1.5e-3 and math.abs(y) < 0.005 end, vx = 40 }
      cl.explicit { b, steps = 150, progress = false }:go()
      return b
    end)
  end
  local du = rel_diff(elastic_on("cuda").u, elastic_on("cpu").u)
  print(string.format("  f32 without breaking: relative difference of u %.3g", du))
  T.ok(du < 1e-4, "u difference " .. du)
  -- with breaking a bond at the threshold may break one step apart, and cracks are chaotic:
  -- compare how many bonds broke
  for _, layout in ipairs { "lattice", "list" } do
    local c, g = pd_plate_on("cpu", "f32", "point", layout), pd_plate_on("cuda", "f32", "point", layout)
    local bc, bg = c.bonds:broken(), g.bonds:broken()
    print(string.format("  f32 %s with breaking: broken bonds %d (cpu) and %d (cuda)", layout, bc, bg))
    T.ok(math.abs(bg - bc) <= 0.05 * bc, "broken bonds within 5%")
  end
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
