-- Cohesive FEM benchmarks against paper 000 (GTX 480, f64): insertion at every facet (Table V,
-- Table A.2), the notched plate (Tables VI-VII) and the ring (Tables VIII-IX), and the bulk force
-- kernel variants (matrix-free / stored K, colour / atomic scatter). Usage:
--   cleave run scripts/bench/bench_czm.lua [insertion|forces|plate|plate_fine|ring|ring_costs|ring_sweep|all] [scale]
--   [ring sigma_max]
-- Every timed run prints its energy balance and reports no time when the balance is off by more
-- than 1% or went non-finite (balance.lua); insertion reports none unless the topology is Table V's.
local cl = require "cleave"
local here = arg[0]:match("^(.*)/") or "."
local balance = dofile(here .. "/balance.lua")
local plate_case = dofile(here .. "/../../tests/lua/czm_plate.lua") -- the notched plate of the tests
local what, scale = arg[1] or "all", tonumber(arg[2] or "1")
local ring_sigma = tonumber(arg[3] or "1.3e9") -- calibrated: Table VIII's 955 cohesive on 20 x 160

local function ppr(G, s) return cl.jit.ppr { G_I = G, G_II = G, sigma_max = s, tau_max = s } end

local function insertion(nr, nt, mode)
  local mesh = cl.czm.ring { r_in = 0.05, r_out = 0.15, nr = nr, nt = nt, order = 2 }
  local b = cl.czm.body { mesh = mesh, E = 210e9, nu = 0.3, rho = 7850, law = ppr(2000, 400e6), insertion = mode }
  local m = b.model
  local inf = m:info()
  local ne = inf.elements
  local adj, mask = m:field("adj"):copy("cpu"), m:field("mask")
  -- every owned interior facet, in 20 batches of 5% by a hash of the facet (random order)
  local batches = {}
  for i = 1, 20 do batches[i] = cl.field { n = ne, dtype = "u8" } end
  local count = 0
  for e = 1, ne do
    local a = adj[e]
    for k = 1, 3 do
      if a[k] >= e then
        local h = ((e * 2654435761 + k * 40503) % 4294967296) % 20 + 1
        local f = batches[h]
        f[e] = f[e] | (1 << (k - 1))
        count = count + 1
      end
    end
  end
  local seconds = 0
  for i = 1, 20 do
    cl.stage.copy { dst = mask, src = batches[i] }:run()
    seconds = seconds + m:insert_marked()
  end
  local after = m:info()
  -- Table V: every interior facet cracked leaves 6 nodes per T6 element
  local right = after.cohesive == count and after.nodes == 6 * ne
  if not right then
    balance.refuse("insertion", string.format("%d cohesive for %d facets, %d nodes for %d", after.cohesive, count,
      after.nodes, 6 * ne))
  end
  print(string.format("insertion (%s) T6 ring %dx%d: %d elements, nodes %d -> %d, cohesive %d (facets %d), 20 batches: %s",
    mode or "ordered", nr, nt, ne, inf.nodes, after.nodes, after.cohesive, count,
    balance.time(right and seconds or nil, "%.4f s")))
  return right and seconds or nil
end

local function plate(nx, ny, dt, steps, opts)
  opts = opts or {}
  local b, mesh, nodes0 = plate_case.body(nx, ny, opts)
  dt = math.min(dt, 0.9 * b:stable_dt()) -- the paper's step, or less where the contact penalty needs it
  local run = cl.czm.explicit { b, dt = dt, steps = steps, progress = false }
  local before = b:energies()
  local s = run:go()
  local inf = b.model:info()
  local label = string.format("plate %d elements", inf.elements)
  s.seconds = balance.checked(label, before, b:energies(), s.seconds)
  print(string.format("%s (%s, %s, sigma_max %g): %d steps of %g s in %s, new nodes %d, cohesive %d (incl. %d notch), fragments %d",
    label, opts.stiffness or "matrix_free", opts.scatter or "auto", opts.sigma_max or 129.6e6, steps, dt,
    balance.time(s.seconds, "%.3f s"), inf.nodes - nodes0, inf.cohesive, mesh:info().cracks, #b:fragments()))
  local c = plate_case.crack(b) -- as tests/lua/test_czm.lua measures it on the coarse meshes
  print(string.format("  crack: tip %.2f mm, band |y| <= %.3f mm (%.1f cells); broken mid-plane %.2f mm^2 at %.1f J/m^2, other broken %.2f mm^2 at %.1f J/m^2 (G_I 352.3); dissipated %.4e J",
    c.tip * 1e3, c.band * 1e3, c.band / (plate_case.H / ny), c.mid.area * 1e6, plate_case.per_area(c.mid),
    c.off.area * 1e6, plate_case.per_area(c.off),
    b:energies().cohesive_dissipated))
  if not s.seconds then s.element_steps_per_second = nil end
  return s
end

local function ring(nr, nt, steps, opts)
  opts = opts or {}
  local mesh = cl.czm.ring { r_in = 0.08, r_out = 0.15, nr = nr, nt = nt, order = 2 }
  mesh:perturb { fraction = 0.2, seed = 1 } -- as the paper (section 7.2); 0.2 keeps cross rings valid
  local b = cl.czm.body { mesh = mesh, E = 210e9, nu = 0.3, rho = 7850, thickness = 1e-3, plane = "stress",
    law = ppr(2000, opts.sigma_max or 400e6), stiffness = opts.stiffness, scatter = opts.scatter }
  b:pressure { where = function(x, y) return x * x + y * y < 0.081 ^ 2 end, value = 400e6 }
  if opts.check_every then b.model:set_check_every(opts.check_every) end -- 0: never
  local dt = math.min(3e-9, 0.9 * b:stable_dt()) -- the paper's step, or less where the contact penalty needs it
  local run = cl.czm.explicit { b, dt = dt, steps = steps, progress = false }
  local before = b:energies()
  local s = run:go()
  local inf = b.model:info()
  local label = string.format("ring %dx%d", nr, nt)
  s.seconds = balance.checked(label, before, b:energies(), s.seconds)
  print(string.format("%s %d elements, sigma_max %g: %d steps of %g s in %s, nodes %d (new %d), cohesive %d, fragments %d",
    label, inf.elements, opts.sigma_max or 400e6, steps, dt, balance.time(s.seconds, "%.3f s"), inf.nodes,
    inf.nodes - inf.initial_nodes, inf.cohesive, #b:fragments()))
  return s
end

if what == "insertion" or what == "all" then
  for _, mode in ipairs { "ordered", "block_counter" } do
    insertion(math.floor(100 * scale), math.floor(9600 * scale), mode) -- 4 x 100 x 9600 = 3.84 M T6 elements
  end
end
if what == "forces" or what == "all" then
  for _, size in ipairs { { 384, 96 }, { 96, 24 } } do
    for _, v in ipairs { { "matrix_free", "colour" }, { "matrix_free", "atomic" }, { "stored", "colour" },
      { "stored", "atomic" } } do
      local s = plate(math.floor(size[1] * scale), math.floor(size[2] * scale), 5e-10, 400,
        { stiffness = v[1], scatter = v[2] })
      print("  -> " .. balance.time(s.element_steps_per_second, "%.3e element-steps/s"))
    end
  end
end
if what == "plate" or what == "all" then
  plate(192, 48, 2e-9, math.floor(10000 * scale))
  plate(192, 48, 1, math.floor(12000 * scale)) -- 0.9 of the stable step: the quadrature's false alarm (issue 13)
  plate(384, 96, 0.5e-9, math.floor(40000 * scale))
  plate(192, 48, 2e-9, math.floor(10000 * scale), { sigma_max = 324e6 }) -- the paper's strength
end
if what == "plate_fine" then plate(384, 96, 0.5e-9, math.floor(40000 * scale)) end -- the 147 456-element plate alone
if what == "ring_sweep" then
  for _, sigma in ipairs { 900e6, 1000e6, 1100e6, 1200e6, 1300e6, 1400e6 } do ring(20, 160, 27000, { sigma_max = sigma }) end
end
if what == "ring_costs" then -- what a step, a check and fracture cost on the smallest ring
  for _, o in ipairs { { sigma_max = 1e12, check_every = 0 }, { sigma_max = 1e12 }, { sigma_max = ring_sigma } } do
    local s = ring(20, 160, math.floor(27000 * scale), o)
    print(string.format("  -> %s per step (check_every %s)", balance.time(s.seconds and s.seconds / s.steps * 1e6, "%.2f us"),
      o.check_every or 10))
  end
end
if what == "ring" or what == "all" then
  for _, r in ipairs { { 20, 160 }, { 30, 240 }, { 40, 320 }, { 96, 768 }, { 115, 787 } } do
    ring(r[1], r[2], math.floor(27000 * scale), { sigma_max = ring_sigma })
  end
end
balance.exit()
