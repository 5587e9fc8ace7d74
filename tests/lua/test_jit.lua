-- Run-time compiled bond laws (cleave.jit.bond_force): the built-in PMB law as a snippet gives
-- bitwise the built-in results on the CPU, a softening law behaves as one should, compile
-- errors point at the snippet, non-finite forces are caught, safe mode refuses what it must.
local cl = require "cleave"
local T = require "testing"

local steel = cl.pd.pmb { E = 191e9, rho = 8000, G0 = 22170 }
local gpu = cl.device() == "cuda"

local function pmb_law(body)
  return cl.jit.bond_force { source = cl.jit.law_source("pmb"), params = { c = body.c, s0 = body.s0 } }
end

-- The largest |a - b| over two fields' rows, relative to the largest |b|.
local function rel_diff(a, b)
  local ta, tb, worst, scale = a:to_table(), b:to_table(), 0, 0
  for i = 1, #tb do
    local ra, rb = ta[i], tb[i]
    if type(rb) == "number" then ra, rb = { ra }, { rb } end
    for c = 1, #rb do
      worst = math.max(worst, math.abs(ra[c] - rb[c]))
      scale = math.max(scale, math.abs(rb[c]))
    end
  end
  return scale > 0 and worst / scale or worst
end

-- Kalthoff-Winkler (1 mm, the CI resolution) with the built-in law and with a given one.
local function kalthoff_winkler(law_of)
  local L, dx = 0.1, 1e-3
  local b = cl.pd.body { shape = cl.geom.rect { 0, L, -L, L }, dx = dx, thickness = 0.09 * L, material = steel }
  if law_of then
    b = cl.pd.body { shape = cl.geom.rect { 0, L, -L, L }, dx = dx, thickness = 0.09 * L, material = steel,
      law = law_of(b) }
  end
  b:precrack { { -dx, L / 4 }, { L / 2, L / 4 } }
  b:precrack { { -dx, -L / 4 }, { L / 2, -L / 4 } }
  b:velocity { where = function(x, y) return x < 3 * dx and math.abs(y) < L / 4 end, vx = 32 }
  cl.explicit { b, dt = "auto", steps = 300, progress = false }:go()
  return b
end

T.case("the PMB snippet reproduces the built-in Kalthoff-Winkler run (bitwise on the CPU)", function()
  local builtin, jitted = kalthoff_winkler(), kalthoff_winkler(pmb_law)
  T.ok(builtin.bonds:broken() > builtin.bonds:counts():sum() * 0 + 1000, "bonds broke")
  T.eq(jitted.bonds:broken(), builtin.bonds:broken(), "broken bonds")
  local du, dd = rel_diff(jitted.u, builtin.u), rel_diff(jitted.damage, builtin.damage)
  print(string.format("  relative difference of u %.3g, of damage %.3g", du, dd))
  if gpu then
    T.ok(du <= 1e-12, "u within 1e-12 on the GPU: " .. du)
  else
    T.eq(du, 0, "u bitwise")
    T.eq(dd, 0, "damage bitwise")
  end
end)

-- Plate in tension (test_pd's case at dx = 2 mm) solved by dynamic relaxation.
local function plate(law_of)
  local function make(law)
    local b = cl.pd.body { shape = cl.geom.rect { 0, 0.1, 0, 0.05 }, dx = 0.002,
      material = cl.pd.pmb { E = 100e9, rho = 5000 }, law = law }
    b:traction { where = "y > 0.05 - dx", ty = 100e6 }
    b:traction { where = "y < dx", ty = -100e6 }
    return b
  end
  local b = make()
  if law_of then b = make(law_of(b)) end
  cl.pd.relax { b, steps = 4000, tolerance = 1e-9 }
  return b
end

T.case("the PMB snippet reproduces the built-in plate in tension (dynamic relaxation)", function()
  local builtin, jitted = plate(), plate(function(b) return cl.jit.bond_force { source = cl.jit.law_source("pmb"),
    params = { c = b.c, s0 = 0 } } end)
  local du = rel_diff(jitted.u, builtin.u)
  print(string.format("  relative difference of u %.3g", du))
  T.ok(du <= (gpu and 1e-12 or 0), "u difference " .. du)
end)

-- Bilinear softening: c s up to s1, then falling linearly to zero at s2, broken beyond.
local softening = [[
if (s > s2) { broken = 1; return 0; }
if (s <= s1) return c * s;
return c * s1 * (s2 - s) / (s2 - s1);
]]

T.case("a bilinear softening law: elastic below s1 as PMB, and it resists cracking longer", function()
  local soft = kalthoff_winkler(function(b)
    return cl.jit.bond_force { source = softening, params = { c = b.c, s1 = b.s0, s2 = 3 * b.s0 }, name = "softening" }
  end)
  local brittle = kalthoff_winkler()
  local bs, bb = soft.bonds:broken(), brittle.bonds:broken()
  print(string.format("  broken bond entries: softening %d, PMB %d; max damage %.3f, %.3f", bs, bb,
    soft.damage:max(), brittle.damage:max()))
  -- a softening bond takes 2x the work of a PMB bond to break (area under its law): fewer break
  T.ok(bs > 0 and bs < 0.8 * bb, "fewer bonds break with softening")
  -- below s1 the law is PMB: a plate at small strain answers identically (1e-12: same sums)
  local elastic = plate(function(b)
    return cl.jit.bond_force { source = softening, params = { c = b.c, s1 = 1, s2 = 2 } }
  end)
  T.ok(rel_diff(elastic.u, plate().u) <= 1e-12, "elastic range equals PMB")
end)

-- Irreversible softening: the largest stretch a bond has seen (its state variable smax) sets its
-- secant stiffness, so an unloaded bond does not recover.
local irreversible = [[
smax = fmax(smax, s);
if (smax > s2) { broken = 1; return 0; }
if (smax <= s1) return c * s;
return c * s1 * (s2 - smax) / ((s2 - s1) * smax) * s;
]]

T.case("a law's per-bond state: kept between steps, the same in both bond layouts, checkpointed", function()
  local function run(layout, steps, law_source, restore_from)
    local b = cl.pd.body { shape = cl.geom.rect { 0, 0.02, -0.01, 0.01 }, dx = 0.001, material = steel, layout = layout }
    local law = cl.jit.bond_force { name = "irreversible", source = law_source or irreversible,
      params = { c = b.c, s1 = b.s0 / 4, s2 = 2 * b.s0 }, state = { smax = 0 } }
    b = cl.pd.body { shape = cl.geom.rect { 0, 0.02, -0.01, 0.01 }, dx = 0.001, material = steel, layout = layout, law = law }
    b:velocity { where = "x < 0.003 and abs(y) < 0.003", vx = 40 }
    local r = cl.explicit { b, dt = 1e-8, steps = steps, progress = false }
    if restore_from then r:restore(restore_from) end
    r:go()
    return b, r
  end
  local lattice, run_l = run("lattice", 120)
  local list = run("list", 120)
  local smax = lattice.law_state.smax
  T.eq(smax.k, lattice.bonds.stencil, "a lattice keeps one value per stencil entry")
  T.eq(list.law_state.smax.n, list.bonds.entries, "a list one per bond entry")
  T.ok(smax:max() > lattice.s0 / 4, "bonds softened: largest stretch seen " .. smax:max())
  T.ok(smax:min() >= 0, "never below its start")
  local per_point, list_point = lattice.bonds:point_max(smax), list.bonds:point_max(list.law_state.smax)
  T.near(per_point:max(), smax:max(), 1e-15, "each point's largest stretch, the largest of all")
  T.ok(rel_diff(list_point, per_point) <= 1e-12, "per point the same in both layouts")
  -- the output files hold each point's largest value of every state variable
  local dir = T.outdir("law_state_vtu")
  local law = lattice.law
  local b = cl.pd.body { shape = cl.geom.rect { 0, 0.005, 0, 0.005 }, dx = 0.001, material = steel, law = law }
  cl.explicit { b, dt = 1e-8, steps = 4, progress = false, output = { every = 2, vtu = dir .. "/s" } }:go()
  local f = assert(io.open(dir .. "/s_000002.vtu", "rb"))
  local text = f:read("a")
  f:close()
  T.ok(text:find('Name="law_smax_max"', 1, true), "VTU has law_smax_max")
  T.ok(rel_diff(lattice.u, list.u) <= 1e-12, "same run in both layouts")
  T.eq(lattice.bonds:broken(), list.bonds:broken(), "same broken bonds")
  -- without the history the law answers differently (it reloads along the elastic line)
  local forgetful = run("lattice", 120, (irreversible:gsub("smax = fmax%(smax, s%);", "smax = s;")))
  T.ok(rel_diff(forgetful.u, lattice.u) > 1e-9, "the history matters")
  -- a checkpoint carries the state: 60 steps, save, then restore into a new run and finish
  local half, run_h = run("lattice", 60)
  local path = T.outdir("law_state") .. "/half.ckpt"
  run_h:save(path)
  local resumed = run("lattice", 120, nil, path)
  T.eq(rel_diff(resumed.u, lattice.u), 0, "restored run continues bit for bit")
  T.eq(rel_diff(resumed.law_state.smax, smax), 0, "with the state")
  local _ = half, run_l
end)

T.case("compile errors point at the snippet's own line and column", function()
  local b = cl.pd.body { shape = cl.geom.rect { 0, 0.01, 0, 0.01 }, dx = 0.001, material = steel }
  local law = cl.jit.bond_force { name = "mylaw", params = { c = 1 }, source = "real k = c * s;\nreturn k +* ;\n" }
  local body = cl.pd.body { shape = cl.geom.rect { 0, 0.01, 0, 0.01 }, dx = 0.001, material = steel, law = law }
  local ok, err = pcall(function() body:force_stage() end)
  T.ok(not ok, "the stage refuses a law that does not compile")
  print("  " .. tostring(err):gsub("\n", "\n  "))
  T.ok(err:find("mylaw: does not compile", 1, true), "names the law")
  T.ok(err:find(gpu and "mylaw(2)" or "mylaw:2:", 1, true), "line 2 of the snippet")
  T.ok(err:find("return k +* ;", 1, true), "shows the snippet's line")
  T.ok(not err:find("cleave-template", 1, true), "no template lines")
  local _ = b
end)

T.case("a law giving NaN stops the run naming the step and the point", function()
  -- a root of a negative number once a bond stretches past 1e-4
  local law = cl.jit.bond_force { name = "bad", params = { c = 1e20 }, source = "return s > 1e-4 ? sqrt(-s) : c * s;" }
  local b = cl.pd.body { shape = cl.geom.rect { 0, 0.01, 0, 0.01 }, dx = 0.001, material = steel, law = law }
  b:initial_velocity { where = "x < 0.002", vx = -100 }
  local run = cl.explicit { b, dt = "auto", steps = 50, progress = false }
  local ok, err = pcall(function() run:go() end)
  T.ok(not ok, "the run stops")
  local step = tonumber(tostring(err):match("bad: the law gave a NaN or infinite force at step (%d+), point %d+ %(x = "))
  T.ok(step and step >= 1 and step <= 50, "names the law, the step and the point: " .. tostring(err))
  T.eq(run.step, step - 1, "the run stopped before the step that failed")
end)

T.case("compiled laws are cached in memory and on disk", function()
  local src = "return c * s * 1.0;"
  local b = cl.pd.body { shape = cl.geom.rect { 0, 0.005, 0, 0.005 }, dx = 0.001, material = steel }
  local first = cl.jit.bond_force { source = src, params = { c = 2 } }:module(b.x, "lattice", "point")
  local again = cl.jit.bond_force { source = src, params = { c = 2 } }:module(b.x, "lattice", "point")
  T.eq(again.origin, "memory", "a second law of the same text")
  T.eq(again.key, first.key, "same entry")
  local other = cl.jit.bond_force { source = src, params = { c = 3 } }:module(b.x, "lattice", "point")
  T.ok(other.key ~= first.key, "another parameter value is another entry")
end)

-- Expressions (cleave.expr) compiled for the device: regions and loads varying in time give what
-- the same Lua functions give (the same IEEE operations, so to round-off at most).
T.case("expression regions and loads equal their Lua functions", function()
  local function run(where, vx, params)
    local b = cl.pd.body { shape = cl.geom.rect { 0, 0.02, -0.01, 0.01 }, dx = 0.001, material = steel }
    local rows = b:select(where, params)
    b:velocity { where = where, vx = vx, params = params }
    b:body_force { where = "x > 0.015", by = type(vx) == "string" and "-1e9 * sin(1e6 * t)" or
      function(t) return -1e9 * math.sin(1e6 * t) end }
    cl.explicit { b, dt = "auto", steps = 100, progress = false }:go()
    return b, rows
  end
  local e, re = run("x < 3*dx and abs(y) < 0.005", "v0 * min(t / t1, 1)", { v0 = 20, t1 = 1e-6 })
  local f, rf = run(function(x, y) return x < 3 * 0.001 and math.abs(y) < 0.005 end,
    function(t) return 20 * math.min(t / 1e-6, 1) end)
  T.eq(#re, #rf, "same region size")
  local a, b = re:to_table(), rf:to_table()
  table.sort(a)
  table.sort(b)
  for k = 1, #a do T.eq(a[k], b[k], "row " .. k) end
  local du = rel_diff(e.u, f.u)
  print(string.format("  %d points in the region; relative difference of u %.3g", #re, du))
  T.ok(e.u:norm() > 0 and du <= 1e-13, "u difference " .. du)
  local v = cl.jit.value("v0 * min(t / t1, 1)", { params = { v0 = 20, t1 = 1e-6 } })
  T.near(v(0.5e-6), 10, 1e-15, "a value evaluates on the host too")
  T.raises(function() cl.pd.body { shape = cl.geom.rect { 0, 0.01, 0, 0.01 }, dx = 0.001, material = steel }:velocity {
    where = "x < q", vx = 1 } end, { "where: unknown", "column 5", "^" })
end)

T.case("bad laws name the argument", function()
  T.raises(function() cl.jit.bond_force { params = { c = 1 } } end, "'source'")
  T.raises(function() cl.jit.bond_force { source = "return 0;", params = { s = 1 } } end, "'s' is taken")
  T.raises(function() cl.jit.bond_force { source = "return 0;", params = { ["1x"] = 1 } } end, "not a C identifier")
  T.raises(function() cl.jit.bond_force { source = "return 0;", params = { c = "1" } } end, "finite number")
  T.raises(function() cl.jit.bond_force { source = "return 0;", params = { c = 1 }, state = { c = 0 } } end,
    "both a parameter and a state variable")
  T.raises(function() cl.jit.bond_force { source = "return 0;", state = { a = 0, b = 0, d = 0, e = 0, f = 0 } } end,
    "at most 4 state variables")
  T.raises(function() cl.jit.bond_force { file = "/nonexistent/law.c" } end, "cannot read 'file'")
  T.raises(function() cl.pd.body { shape = cl.geom.rect { 0, 0.01, 0, 0.01 }, dx = 0.001, material = steel,
    law = {} } end, "'law'")
  cl.jit.safe = true
  T.raises(function() cl.jit.bond_force { source = "#include <stdlib.h>\nreturn 0;" } end, "safe mode refuses")
  T.raises(function() cl.jit.bond_force { source = "system(0); return 0;" } end, "safe mode refuses")
  T.ok(cl.jit.bond_force { source = cl.jit.law_source("pmb"), params = { c = 1, s0 = 1 } }, "PMB passes")
  cl.jit.safe = false
end)

T.run()
