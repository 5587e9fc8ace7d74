-- The step's Verlet updates fused into the force pass (kernels/pd/point_force.h: cl_pd_finish;
-- docs/methods/peridynamics.md): the closing kick alone ("kick"), or with the next step's opening
-- kick-drift too, u double-buffered ("drift", the default: pd_advance swaps the buffers). A run
-- either way gives bit for bit the numbers of the same run with both updates as stages of their own
-- (body.separate_kick), on bodies with velocity and displacement constraints, loads, reactions and
-- breaking bonds, 2D and 3D, f32 and f64, each kernel path. Bitwise, not within a tolerance: per
-- point the same operations run in the same order (the prescribed components are not kicked instead
-- of kicked by a zeroed acceleration; the drift's kick is recomputed from the same v and a).
local cl = require "cleave"
local T = require "testing"

-- A notched plate (or block) pulled at its top by a prescribed velocity, held at its bottom by a
-- prescribed displacement that moves with time, loaded by a body force and a traction, with
-- reactions on both constrained regions; G0 low enough that bonds break within the steps run.
local function model(opts, mode)
  local dim, dx = opts.dim or 2, 0.5e-3
  local L, H = 40 * dx, 20 * dx
  local shape = dim == 2 and cl.geom.rect { 0, L, 0, H } or cl.geom.box { 0, 12 * dx, 0, 8 * dx, 0, 6 * dx }
  if dim == 3 then L, H = 12 * dx, 8 * dx end
  local args = { shape = shape, dx = dx, precision = opts.precision or "f64", thickness = 1e-3,
    material = cl.pd.pmb { E = 192e9, rho = 8000, G0 = 100 }, layout = opts.layout, kernel = opts.kernel }
  local b = cl.pd.body(args)
  if opts.law then
    args.law = cl.jit.bond_force { source = cl.jit.law_source("pmb"), params = { c = b.c, s0 = b.s0 } }
    b = cl.pd.body(args)
  end
  b.separate_kick, b.fused_drift = mode == "separate", mode == "drift"
  if dim == 2 then
    b:precrack { { 0, H / 2 }, { L / 2, H / 2 } }
  else
    b:precrack { { 0, H / 2, 0 }, { L / 2, 0, 0 }, { 0, 0, 6 * dx } }
  end
  local top, bottom = function(_, y) return y > H - 3 * dx end, function(_, y) return y < 3 * dx end
  b:velocity { where = top, vx = 0, vy = 8 }
  b:displacement { where = bottom, uy = function(t) return -2e3 * t * t end }
  b:body_force { where = function(x) return x > L / 2 end, bx = 1e9 }
  b:traction { where = function(x) return x > L - dx end, tx = 2e7 }
  local reactions = { b:reaction { where = top, name = "top" }, b:reaction { where = bottom, name = "bottom" } }
  return b, reactions
end

local function same_field(fused, separate, what)
  local tf, ts = fused:to_table(), separate:to_table()
  for i = 1, #ts do
    local rf, rs = tf[i], ts[i]
    if type(rs) == "number" then rf, rs = { rf }, { rs } end
    for c = 1, #rs do
      if rf[c] ~= rs[c] then
        error(string.format("%s of point %d, component %d: fused %.17g, separate %.17g", what, i, c, rf[c], rs[c]), 2)
      end
    end
  end
end

-- The frames of a run's VTU series (u, v, damage, force density at each output step), as text.
local function frames(vtu)
  local texts = {}
  for c = 0, 2 do texts[#texts + 1] = T.read(string.format("%s_%06d.vtu", vtu, c)) end -- steps 0, steps / 2, steps
  return texts
end

-- Runs the model each way for `steps` steps and compares every state field, the reactions, the
-- energies, the CSV and the VTU frames written with the separate run's (the fused run's u(n+1) is
-- in u_next at an output step: the frames must show u(n), as the separate run's do).
local function compare(opts, steps)
  local out = T.outdir("pd_kick")
  local runs = {}
  for k, mode in ipairs { "separate", "kick", "drift" } do
    local b, reactions = model(opts, mode)
    local csv, vtu = string.format("%s/%s.csv", out, mode), string.format("%s/%s", out, mode)
    local run = cl.explicit { b, steps = steps, progress = false, output = { every = steps // 2, csv = csv, vtu = vtu } }
    local pipeline = tostring(run.pipeline)
    T.eq(pipeline:find("verlet_kick>", 1, true) ~= nil, mode == "separate", "a separate kick stage in " .. pipeline)
    local drifts = mode == "drift" and opts.kernel ~= "half"
    T.eq(pipeline:find("verlet_kick_drift", 1, true) == nil, drifts, "kick-drift stage in " .. pipeline)
    T.eq(pipeline:find("pd_advance", 1, true) ~= nil, drifts, "pd_advance stage in " .. pipeline)
    -- two go calls each way (a go's time is t0 + k dt: splitting changes the loads' last bits, so
    -- every run splits alike), the state changed between them as a script may (the velocities
    -- halved): the drift's first step in the second go must take its own u(n+1), not the one the
    -- last force pass wrote from the old velocities
    run:go { steps = steps // 2 + 1 }
    cl.stage.axpy { y = b.v, x = b.v, a = -0.5 }:run()
    run:go()
    runs[k] = { body = b, reactions = reactions, csv = T.read(csv), vtu = frames(vtu), mode = mode }
  end
  local separate = runs[1]
  local sb = separate.body
  T.ok(sb.bonds:broken() > 0, "bonds broke")
  local strain_s, kinetic_s = sb:energy()
  T.ok(kinetic_s > 0, "the body moves")
  for k = 2, 3 do
    local fused = runs[k]
    local fb, what = fused.body, " (" .. fused.mode .. ")"
    T.eq(fb.bonds:broken(), sb.bonds:broken(), "broken bonds" .. what)
    for _, name in ipairs { "u", "v", "a", "damage" } do same_field(fb[name], sb[name], name .. what) end
    for r = 1, 2 do
      local ff, fs = fused.reactions[r]:force(), separate.reactions[r]:force()
      for c = 1, #fs do T.eq(ff[c], fs[c], "reaction force " .. r .. what) end
      T.eq(fused.reactions[r]:work(), separate.reactions[r]:work(), "reaction work " .. r .. what)
    end
    local strain_f, kinetic_f = fb:energy()
    T.eq(kinetic_f, kinetic_s, "kinetic energy" .. what)
    -- a run-time law has no strain energy (NaN), the same both ways
    T.ok(strain_f == strain_s or (strain_f ~= strain_f and strain_s ~= strain_s), "strain energy" .. what)
    T.eq(fused.csv, separate.csv, "the CSV written" .. what)
    for c = 1, #separate.vtu do T.ok(fused.vtu[c] == separate.vtu[c], "VTU frame " .. c - 1 .. what) end
  end
end

-- cleave.explicit's step fuses both updates unless pd.fused_drift (or the body's own switch) says
-- false; the half stencil keeps its kick-drift stage whatever the switch says.
T.case("the default step fuses the kick-drift (pd.fused_drift)", function()
  local function stages(fused, kernel)
    local before = cl.pd.fused_drift
    cl.pd.fused_drift = fused
    local b = cl.pd.body { shape = cl.geom.rect { 0, 8e-3, 0, 4e-3 }, dx = 0.5e-3, thickness = 1e-3, kernel = kernel,
      material = cl.pd.pmb { E = 192e9, rho = 8000, G0 = 100 } }
    local ok, pipeline = pcall(function() return tostring(cl.explicit { b, steps = 1, progress = false }.pipeline) end)
    cl.pd.fused_drift = before
    assert(ok, pipeline)
    return pipeline, b
  end
  T.eq(cl.pd.fused_drift, true, "cl.pd.fused_drift by default")
  local pipeline, b = stages(true)
  T.ok(pipeline:find("pd_advance", 1, true) and not pipeline:find("verlet_kick", 1, true), "default step: " .. pipeline)
  T.ok(b.u_next ~= nil, "the default step's second u buffer")
  T.raises(function() cl.explicit { b, steps = 1, progress = false, output = { png = { path = T.outdir("pd_kick") ..
    "/u.png", field = "u_next" } } } end, { "png field 'u_next' is not one this body can draw" }) -- it holds u(n+1)
  pipeline, b = stages(false)
  T.ok(pipeline:find("verlet_kick_drift", 1, true) and not pipeline:find("pd_advance", 1, true), "switched off: " .. pipeline)
  T.ok(b.u_next == nil, "no second u buffer when switched off")
  pipeline = stages(true, "half")
  T.ok(pipeline:find("verlet_kick_drift", 1, true) and not pipeline:find("pd_advance", 1, true), "half stencil: " .. pipeline)
end)

T.case("fused kick = separate kick, 2D lattice f64 (point kernel)", function() compare({}, 120) end)
T.case("fused kick = separate kick, 2D lattice f32", function() compare({ precision = "f32" }, 120) end)
T.case("fused kick = separate kick, 3D f64", function() compare({ dim = 3 }, 40) end)
T.case("fused kick = separate kick, 3D f32", function() compare({ dim = 3, precision = "f32" }, 40) end)
T.case("fused kick = separate kick, 2D bond list", function() compare({ layout = "list" }, 120) end)
-- the other step kernels of cl_pd_finish on the GPU (the default lattice kernel there is the tile
-- kernel): the stencil walk, and 4 lanes a point whose lane 0 finishes it; on the CPU one loop
T.case("fused kick = separate kick, 2D lattice f32, kernels walk and group", function()
  for _, kernel in ipairs { "walk", "group" } do compare({ precision = "f32", kernel = kernel }, 120) end
end)
-- the 3D tile kernel with tiles 6 cells deep (on the CPU the one loop)
T.case("fused kick = separate kick, 3D f64, kernel tile6", function() compare({ dim = 3, kernel = "tile6" }, 40) end)
-- The half stencil sums forces with atomics, in an order that differs from run to run on several
-- threads: its fused kick is checked on one pass instead, against the separate kick applied to
-- the accelerations that pass wrote, after 60 steps (cracks grown, every point moving).
T.case("fused kick = separate kick on the half stencil's finish pass", function()
  local b = model({ kernel = "half" }, "kick")
  local run = cl.explicit { b, steps = 60, progress = false }
  run:go()
  T.ok(b.bonds:broken() > 0, "bonds broke")
  local v0 = b.v:copy()
  b:force_stage { kick = { dt = run.dt } }:run()
  cl.stage.verlet_kick { v = v0, a = b.a, dt = run.dt }:run()
  same_field(b.v, v0, "v")
end)
T.case("fused kick = separate kick, 2D run-time compiled law", function() compare({ law = true }, 120) end)

-- The double buffer follows a restore: the fused run saves a checkpoint, runs 3 steps more (u_next
-- then holds a later state than the checkpoint's), restores it and runs to the end; its state is
-- the separate run's bit for bit. (Reaction work is not in a checkpoint, so it is not compared.)
T.case("fused drift after run:restore = separate", function()
  local steps, out = 60, T.outdir("pd_kick")
  local fields = {}
  for k, mode in ipairs { "separate", "drift" } do
    local b = model({ precision = "f32" }, mode)
    local run = cl.explicit { b, steps = steps, progress = false }
    if mode == "drift" then
      run:go { steps = steps // 2 }
      run:save(out .. "/restore.ckpt")
      run:go { steps = 3 }
      run:restore(out .. "/restore.ckpt")
    end
    run:go()
    fields[k] = b
  end
  T.ok(fields[1].bonds:broken() > 0, "bonds broke")
  T.eq(fields[2].bonds:broken(), fields[1].bonds:broken(), "broken bonds")
  for _, name in ipairs { "u", "v", "a", "damage" } do same_field(fields[2][name], fields[1][name], name) end
end)

T.case("the force stage's kick arguments are checked", function()
  local b = model({}, "kick")
  local stage = function(extra)
    local args = { x = b.x, u = b.u, a = b.a, bonds = b.bonds, c = b.c, rho = 8000, delta = b.delta, volume = b.volume }
    for k, v in pairs(extra) do args[k] = v end
    return cl.stage.pd_force(args)
  end
  T.raises(function() stage { kick_dt = 1e-8 } end, { "cleave.stage.pd_force", "'kick_dt'", "give 'v'" })
  T.raises(function() stage { v = b.v } end, { "cleave.stage.pd_force", "'kick_dt'" })
  T.raises(function() stage { v = b.v, kick_dt = -1 } end, { "'kick_dt' must be positive" })
  T.raises(function() stage { v = b.v, kick_dt = 1e-8, kick_held = cl.field { n = b.n, dtype = "u32" } } end,
    { "'kick_held' must be u8" })
  T.raises(function() stage { v = cl.field { n = b.n, k = 1 }, kick_dt = 1e-8 } end, { "field 'v' must be" })
  local u_next = cl.field { n = b.n, k = 2, dtype = b.precision }
  local advance = cl.stage.pd_advance { u = b.u, u_next = u_next, v = b.v, a = b.a, dt = 1e-8 }
  T.raises(function() stage { advance = b.v } end, { "'advance' must be a cleave.stage.pd_advance stage" })
  T.raises(function() stage { advance = advance, v = b.v } end, { "leave out 'v', 'kick_dt' and 'kick_held'" })
  T.raises(function() stage { advance = advance, kernel = "half" } end, { "kernel \"half\" sums the forces in 'a'" })
  T.raises(function() stage { u = u_next, advance = advance } end, { "'advance' drifts another field than 'u'" })
  T.raises(function() cl.stage.pd_advance { u = b.u, u_next = b.u, v = b.v, a = b.a, dt = 1e-8 } end,
    { "cleave.stage.pd_advance", "'u_next' must be a field other than 'u'" })
  T.raises(function() cl.stage.pd_advance { u = b.u, u_next = u_next, v = b.v, a = b.a, dt = 0 } end,
    { "'dt' must be positive" })
  T.raises(function() cl.stage.pd_advance { u = b.u, u_next = u_next, v = b.v, a = b.a, dt = 1e-8,
    held = cl.field { n = b.n, dtype = "u32" } } end, { "'held' must be u8" })
end)

T.run()
