-- Peridynamics benchmark: the whole explicit time step (kick-drift, bond
-- forces + breaking + damage, kick) on a 2D square body, delta = 3.015 dx
-- (28 bonds per interior point, as in the paper's Tables 2/4), both bond
-- layouts, both GPU kernel shapes, f32 and f64; plus set-up times and memory
-- per point.
--   cleave [--device D] run scripts/bench/bench_pd.lua [points] [steps] [layouts] [dim]
-- dim 3: a cube, delta = 3.015 dx (122 bonds per interior point; issue 19's 3D case); floors
-- (f32/f64) lattice 148/272 B (u, the cell, four words of bond bits, a map entry, a, damage, and
-- 96/192 B of Verlet), list 628/764 B.
-- Timed: median of 3 runs of `steps` steps after a warm-up run (wall clock
-- between device synchronisations). Floor (f32, 2D), bytes per point and step
-- that must move if every neighbour's u comes from cache:
--   list:    read x, u, the row offset and 28 neighbour indices, write a and
--            damage (144 B); the two Verlet updates move 64 B more: 208 B;
--   lattice: read u, the cell, the bond bits and a map entry, write a and
--            damage (32 B) + 64 B Verlet: 96 B.
-- f64 adds 4 B per real value (list +60 B, lattice +84 B).
-- The body starts with a small velocity field (no bond breaks in the timed steps), so that each
-- kernel's timed runs print an energy balance and report no time when it is off by more than 1%
-- or went non-finite (balance.lua).
-- With the lattice layout the kernels include "half" (each lattice bond computed once for both
-- its points, atomic sums: kernels/pd/half_stencil.h). With the list layout (2D), two more kernels
-- run on the same body: "peer", a plain CSR step
-- kernel of our own (pd_peer_csr.inc: thread per point, fused force + breaking + damage, the
-- issue's peer), and "pmb-hook", cleave's own PMB law through the same run-time-compiled-law hook
-- the peer is launched by (the hook reads an 8-byte flag back per step). Before they are timed,
-- their accelerations are checked against cleave's built-in kernel: f64 to 1e-8, the check of the
-- peer's physics (its stretch's cancellation leaves ~1e-16 / s, 1.2e-10 measured at 10 000 points);
-- f32 only to 0.25, since the peer's stretch (r - r0) / r0 has an absolute error
-- of a few 1e-7 and the strains here are ~1e-6 (measured: 6% at 10 000 points). The last
-- table gives cleave's default (lattice, point) over the peer, and the hook's PMB over the peer.
local cl = require "cleave"
local here = arg[0]:match("^(.*)/") or "."
local balance = dofile(here .. "/balance.lua")
local points = tonumber(arg[1]) or (cl.device() == "cuda" and 10e6 or 1e6)
local steps = tonumber(arg[2]) or (cl.device() == "cuda" and 100 or 10)
local layouts = {}
for layout in (arg[3] or "lattice,list"):gmatch("[^,]+") do layouts[#layouts + 1] = layout end
local dim = tonumber(arg[4]) or 2
assert(dim == 2 or dim == 3, "dim (argument 4) must be 2 or 3")
local floors = dim == 2 and { lattice = { f32 = 96, f64 = 180 }, list = { f32 = 208, f64 = 268 } }
  or { lattice = { f32 = 148, f64 = 272 }, list = { f32 = 628, f64 = 764 } }
local side = math.floor(points ^ (1 / dim) + 1e-9)
local dx = 1 / side
local shape = dim == 2 and cl.geom.rect { 0, 1, 0, 1 } or cl.geom.box { 0, 1, 0, 1, 0, 1 }

local function median(t) table.sort(t); return t[(#t + 1) // 2] end

local function field_bytes(f) return f and f.bytes or 0 end

local peer_source = assert(io.open(here .. "/pd_peer_csr.inc")):read("a")

-- The force stages of the list body beyond cleave's built-in kernel: the peer and cleave's PMB
-- through the law hook (nil for a lattice or 3D body).
local function hook_stages(body)
  if body.bonds.layout ~= "list" or body.dim ~= 2 then return {} end
  local function stage(module)
    return cl.stage.pd_force { x = body.x, u = body.u, a = body.a, bonds = body.bonds, c = body.c,
      rho = body.material.rho, s0 = body.s0, delta = body.delta, dx = body.partial_volume and body.dx or 0,
      volume = body.volume, damage = body.damage, law = module }
  end
  local peer = cl.jit.compile { what = "pd_peer_csr", field = body.x, symbols = { "pd_peer_csr" },
    source = (body.precision == "f32" and "#define CL_PRECISION_F32\n" or "") .. peer_source }
  local pmb = cl.jit.bond_force { source = cl.jit.law_source("pmb"), params = { c = body.c, s0 = body.s0 } }
  return { peer = stage(peer), ["pmb-hook"] = stage(pmb:module(body.x, "list", "point")) }
end

-- ||a - b|| / ||b|| over every component of two fields' host copies.
local function rel_diff(a, b)
  local ta, tb, num, den = a:to_table(), b:to_table(), 0, 0
  for i = 1, #ta do for c = 1, #ta[i] do num, den = num + (ta[i][c] - tb[i][c]) ^ 2, den + tb[i][c] ^ 2 end end
  return math.sqrt(num / den)
end

-- The accelerations of `stage` against cleave's built-in kernel on the body's current state.
local function check_against_builtin(body, name, stage)
  body:force_stage():run()
  local reference = body.a:copy()
  local broken = body.bonds:broken()
  stage:run()
  local d = rel_diff(body.a, reference)
  local tolerance = body.precision == "f64" and 1e-8 or 0.25
  print(string.format("%s %s: accelerations against cleave's built-in kernel: %.3g (tolerance %g)", name,
    body.precision, d, tolerance))
  if not (d <= tolerance) or body.bonds:broken() ~= broken then
    error(string.format("%s %s gives other accelerations or broken bonds than cleave's kernel", name, body.precision), 0)
  end
end

local rows = {}
for _, layout in ipairs(layouts) do
for _, precision in ipairs { "f32", "f64" } do
  cl.sync()
  local t0 = cl.clock()
  local body = cl.pd.body { shape = shape, dx = dx, dim = dim, precision = precision, layout = layout,
    surface_correction = false, material = cl.pd.pmb { E = 191e9, rho = 8000, G0 = 22170 } }
  cl.sync()
  local setup = cl.clock() - t0
  -- 0.1 m/s in a pattern of the point index: strains far below the bonds' critical stretch
  body.v:assign(function(i)
    return 0.1 * ((i * 7919) % 1000 / 500 - 1), 0.1 * ((i * 104729) % 1000 / 500 - 1),
      dim == 3 and 0.1 * ((i * 15485863) % 1000 / 500 - 1) or nil
  end)
  local bytes = field_bytes(body.x) + field_bytes(body.u) + field_bytes(body.v) + field_bytes(body.a)
    + field_bytes(body.damage) + body.bonds.bytes
  local dt = 1e-9
  local hooks = hook_stages(body)
  local kernels = { "point", "group4", "group8", "group16", "group32" }
  if hooks.peer then kernels[#kernels + 1], kernels[#kernels + 2] = "peer", "pmb-hook" end
  if layout == "lattice" then table.insert(kernels, 2, "half") end -- each lattice bond once (half_stencil.h)
  for _, kernel in ipairs(kernels) do
    local pipeline = cl.pipeline {
      cl.stage.verlet_kick_drift { u = body.u, v = body.v, a = body.a, dt = dt },
      hooks[kernel] or body:force_stage { kernel = kernel },
      cl.stage.verlet_kick { v = body.v, a = body.a, dt = dt },
    }
    local before = balance.energies(body)
    cl.run { pipeline = pipeline, steps = 2, progress = false }
    if hooks[kernel] then check_against_builtin(body, kernel, hooks[kernel]) end
    local samples = {}
    for k = 1, 3 do samples[k] = cl.run { pipeline = pipeline, steps = steps, progress = false }.seconds / steps end
    local per_step = balance.checked(string.format("%s %s %s", layout, precision, kernel), before,
      balance.energies(body), median(samples))
    rows[#rows + 1] = { layout = layout, precision = precision, kernel = kernel, n = body.n,
      bonds = body.bonds.entries, step_ms = per_step and per_step * 1e3, rate = per_step and body.bonds.entries / per_step,
      bytes = bytes / body.n, setup = setup, gbs = per_step and body.n * floors[layout][precision] / per_step / 1e9 }
  end
  body = nil
  collectgarbage()
end
end

local info = cl.info()
print(string.format("device: %s (%s), %dD, %d steps", cl.device(), info.device_name, dim, steps))
print(string.format("%-7s %-5s %-7s %11s %12s %10s %14s %9s %9s %8s", "layout", "prec", "kernel", "points", "bonds",
  "ms/step", "bond upd/s", "floor GB/s", "B/point", "setup s"))
for _, r in ipairs(rows) do
  if r.step_ms then
    print(string.format("%-7s %-5s %-7s %11d %12d %10.3f %14.3e %9.0f %9.1f %8.2f", r.layout, r.precision, r.kernel, r.n,
      r.bonds, r.step_ms, r.rate, r.gbs, r.bytes, r.setup))
  else
    print(string.format("%-7s %-5s %-7s %11d %12d %10s %14s %9s %9.1f %8.2f", r.layout, r.precision, r.kernel, r.n,
      r.bonds, "REFUSED", "-", "-", r.bytes, r.setup))
  end
end
print("floor GB/s: the floor bytes of the step (header) over the step time")

-- the peer against cleave, each precision: peer ms / cleave ms (above 1: cleave is faster)
local function step_of(layout, precision, kernel)
  for _, r in ipairs(rows) do
    if r.layout == layout and r.precision == precision and r.kernel == kernel then return r.step_ms end
  end
end
for _, precision in ipairs { "f32", "f64" } do
  local peer = step_of("list", precision, "peer")
  local default, list, hook = step_of("lattice", precision, "point"), step_of("list", precision, "point"),
    step_of("list", precision, "pmb-hook")
  if peer then
    print(string.format("%s: peer (plain CSR kernel) %.3f ms/step; peer / cleave: lattice default %s, list %s, " ..
      "PMB through the same hook %s (issue target >= 2)", precision, peer,
      default and string.format("%.2f", peer / default) or "-", list and string.format("%.2f", peer / list) or "-",
      hook and string.format("%.2f", peer / hook) or "-"))
  end
end
balance.exit()
