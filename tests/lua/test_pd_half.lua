-- The half-stencil step kernel (kernel = "half", kernels/pd/half_stencil.h: each lattice bond
-- computed once for both its points) against the thread-per-point kernel: the same run with
-- breaking, in 2D and 3D, f64, on the current device. A bond's stretch is the same bitwise from
-- either end, so only the order of the force sums differs: u and damage agree to f64 round-off,
-- and the same bonds break.
local cl = require "cleave"
local T = require "testing"

local steel = cl.pd.pmb { E = 191e9, rho = 8000, G0 = 2000 }

local function max_abs_diff(a, b, scale)
  local ta, tb, worst = a:to_table(), b:to_table(), 0
  for i = 1, #ta do
    local ra, rb = ta[i], tb[i]
    if type(ra) == "number" then ra, rb = { ra }, { rb } end
    for c = 1, #ra do worst = math.max(worst, math.abs(ra[c] - rb[c]) / scale) end
  end
  return worst
end

-- A notched body struck on both sides of the notch (cracks grow), run with `kernel`.
local function run(kernel, dim)
  local b
  if dim == 2 then
    b = cl.pd.body { shape = cl.geom.rect { 0, 0.02, -0.01, 0.01 }, dx = 0.5e-3, material = steel, kernel = kernel }
    b:precrack { { -0.001, 0 }, { 0.008, 0 } }
  else
    b = cl.pd.body { shape = cl.geom.box { 0, 0.008, -0.004, 0.004, 0, 0.004 }, dx = 0.5e-3, dim = 3,
      material = steel, kernel = kernel }
    b:precrack { { -0.001, 0, -0.001 }, { 0.004, 0, 0 }, { 0, 0, 0.006 } }
  end
  b:velocity { where = "x < 3*dx and y > 0", vx = -40 }
  b:velocity { where = "x < 3*dx and y < 0", vx = 40 }
  cl.explicit { b, steps = dim == 2 and 150 or 60, progress = false }:go()
  return b
end

for _, dim in ipairs { 2, 3 } do
  T.case(dim .. "D: the half stencil equals the point kernel, cracks included", function()
    local point, half = run("point", dim), run("half", dim)
    T.ok(point.bonds:broken() > point.bonds.count // 100, string.format("bonds broke: %d", point.bonds:broken()))
    T.eq(half.bonds:broken(), point.bonds:broken(), "the same number of broken bonds")
    local state_p, state_h = point.bonds:state():to_table(), half.bonds:state():to_table()
    local same = true
    for k = 1, #state_p do same = same and state_p[k] == state_h[k] end
    T.ok(same, "the same bonds broken, at both their ends")
    local du = max_abs_diff(half.u, point.u, point.u:norm() / math.sqrt(point.n))
    local dd = max_abs_diff(half.damage, point.damage, 1)
    print(string.format("  %dD: u %.3g (of its rms), damage %.3g", dim, du, dd))
    -- f64 sums in another order: ~1e-16 per step, grown over the run; 1e-10 is the parity bound
    T.ok(du < 1e-10, "u within 1e-10: " .. du)
    T.ok(dd < 1e-10, "damage within 1e-10: " .. dd)
  end)
end

-- The point kernel's benchmark variants (issue 19), "walk" (the stencil from global memory) and
-- "tile" (u from shared-memory tiles on the GPU, 2D), are the point kernel's physics: on the CPU
-- they run its loop, so the run is the same bit for bit.
T.case("kernels \"walk\" and \"tile\" run the point kernel's physics", function()
  for _, dim in ipairs { 2, 3 } do
    local point = run("point", dim)
    for _, kernel in ipairs { "walk", "tile" } do
      local other = run(kernel, dim)
      T.eq(other.bonds:broken(), point.bonds:broken(), dim .. "D " .. kernel .. ": the same number of broken bonds")
      local du = max_abs_diff(other.u, point.u, point.u:norm() / math.sqrt(point.n))
      -- the GPU sums each point's bonds in the same order in every variant: f64 round-off at most
      T.ok(du < 1e-10, dim .. "D " .. kernel .. ": u within 1e-10: " .. du)
    end
  end
end)

-- CPU/GPU parity (issue 19: 1e-10 in f64), where a GPU is usable, against the CPU's point kernel:
-- the half stencil (the GPU's atomic sums run in any order, the CPU's in another) and the GPU's
-- point kernel, which at delta = 3.015 dx (28 stencil entries in 2D, 122 in 3D) takes the stencil
-- as launch constants (kernels/pd/stencil_table.cuh) where the CPU walks it, and its variants.
T.case("on the GPU the point and half kernels equal the CPU's point kernel (f64, 1e-10)", function()
  local info = cl.info()
  if not (info.backends.cuda and info.gpu_count > 0) then T.skip("needs a usable GPU") end
  for _, dim in ipairs { 2, 3 } do
    local cpu = T.on_device("cpu", function() return run("point", dim) end)
    for _, kernel in ipairs { "point", "walk", "tile", "half" } do
      local gpu = T.on_device("cuda", function() return run(kernel, dim) end)
      T.eq(gpu.u.device, "cuda", "ran on the GPU")
      T.eq(gpu.bonds:broken(), cpu.bonds:broken(), dim .. "D " .. kernel .. ": the same number of broken bonds")
      local du = max_abs_diff(gpu.u, cpu.u, cpu.u:norm() / math.sqrt(cpu.n))
      print(string.format("  %dD: GPU %s against CPU point: u %.3g (of its rms)", dim, kernel, du))
      T.ok(du < 1e-10, dim .. "D " .. kernel .. ": u within 1e-10: " .. du)
    end
  end
end)

-- The tile kernel over row ranges (issue 19: a partitioned step computes its interior rows, then the
-- rest, and the tile kernel must serve both to become the default): a body's forces computed as two
-- ranges equal one launch over all rows bit for bit (each point runs the same code either way), in
-- 2D and 3D, with and without the surface correction (the kernel's general and plain instances).
T.case("on the GPU the tile kernel over two row ranges equals one launch over all rows", function()
  local info = cl.info()
  if not (info.backends.cuda and info.gpu_count > 0) then T.skip("needs a usable GPU") end
  T.on_device("cuda", function()
    for _, dim in ipairs { 2, 3 } do
      for _, surface in ipairs { true, false } do
        local shape = dim == 2 and cl.geom.rect { 0, 0.02, 0, 0.01 } or cl.geom.box { 0, 0.006, 0, 0.005, 0, 0.004 }
        local b = cl.pd.body { shape = shape, dx = 0.5e-3, dim = dim, material = steel, kernel = "tile",
          surface_correction = surface }
        -- strains of ~1e-4, far below the critical stretch: nothing breaks, every bond pulls
        b.u:assign(function(i)
          return 1e-8 * ((i * 7919) % 100), 1e-8 * ((i * 104729) % 100), dim == 3 and 1e-8 * ((i * 15485863) % 100) or nil
        end)
        b:force_stage():run()
        local whole = b.a:to_table()
        b.a:fill(0)
        local first = b.n // 3
        b:force_stage { rows = { 0, first } }:run()
        b:force_stage { rows = { first, b.n - first } }:run()
        local split, differ = b.a:to_table(), 0
        for i = 1, #whole do
          for c = 1, dim do differ = differ + (split[i][c] == whole[i][c] and 0 or 1) end
        end
        T.ok(math.abs(whole[first + 1][1]) > 0, dim .. "D: the forces are not zero")
        T.eq(differ, 0, string.format("%dD, surface correction %s: components that differ", dim, surface))
      end
    end
  end)
end)

-- The tile kernel's f32 instances with the surface correction (the 2D and 3D f32 tiles hold the
-- points' factors in shared memory, the f64 3D one reads them from global memory, stencil_tile.cuh)
-- against the CPU's point kernel: one force evaluation of a strained body. Tolerance 1e-4 of the
-- largest acceleration, the f32 CPU/GPU bound of docs/testing.md (the GPU's reciprocal square
-- roots are approximate to 2 ulp; 28 or 122 bond forces summed).
T.case("on the GPU the tile kernel's f32 forces with the surface correction equal the CPU's", function()
  local info = cl.info()
  if not (info.backends.cuda and info.gpu_count > 0) then T.skip("needs a usable GPU") end
  for _, dim in ipairs { 2, 3 } do
    local function forces(device, kernel)
      return T.on_device(device, function()
        local shape = dim == 2 and cl.geom.rect { 0, 0.02, 0, 0.01 } or cl.geom.box { 0, 0.006, 0, 0.005, 0, 0.004 }
        local b = cl.pd.body { shape = shape, dx = 0.5e-3, dim = dim, material = steel, kernel = kernel, precision = "f32" }
        b.u:assign(function(i)
          return 1e-8 * ((i * 7919) % 100), 1e-8 * ((i * 104729) % 100), dim == 3 and 1e-8 * ((i * 15485863) % 100) or nil
        end)
        b:force_stage():run()
        return b.a:to_table()
      end)
    end
    local cpu, gpu, worst, largest = forces("cpu", "point"), forces("cuda", "tile"), 0, 0
    for i = 1, #cpu do
      for c = 1, dim do worst, largest = math.max(worst, math.abs(gpu[i][c] - cpu[i][c])), math.max(largest, math.abs(cpu[i][c])) end
    end
    print(string.format("  %dD f32 tile against CPU point: %.3g of the largest acceleration", dim, worst / largest))
    T.ok(largest > 0 and worst <= 1e-4 * largest, dim .. "D: within 1e-4: " .. worst / largest)
  end
end)

T.case("the half stencil refuses a bond list and a run-time law, naming the fix", function()
  T.raises(function()
    cl.pd.body { shape = cl.geom.rect { 0, 0.01, 0, 0.01 }, dx = 1e-3, material = steel, layout = "list",
      kernel = "half" }:force_stage()
  end, { "half", "lattice" })
  local law = cl.jit.bond_force { source = cl.jit.law_source("pmb"), params = { c = 1, s0 = 0.01 } }
  T.raises(function()
    local b = cl.pd.body { shape = cl.geom.rect { 0, 0.01, 0, 0.01 }, dx = 1e-3, material = steel, kernel = "half" }
    cl.stage.pd_force { x = b.x, u = b.u, a = b.a, bonds = b.bonds, c = b.c, rho = 8000, delta = b.delta,
      volume = b.volume, kernel = "half", law = law:module(b.x, "lattice", "point") }
  end, { "half", "law", "point" })
end)

T.run()
