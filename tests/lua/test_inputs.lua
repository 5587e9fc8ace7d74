-- What a user gives the API: every documented form of an input accepted, and bad input refused
-- with an error that names the argument, suggests the fix and points at the script's line.
local cl = require "cleave"
local T = require "testing"

local here = "test_inputs.lua:"

-- The error of fn, which must point at this file (the line of the call, not cleave's inside).
local function raised_here(fn, needles, what)
  local err = T.raises(fn, needles, what)
  T.ok(err:find(here, 1, true), string.format("%s: error %q does not point at the script", what, err))
  return err
end

-- A plane-stress strip whose left edge (x = 0) is driven along x; returns the body's u after
-- `steps` steps of dt, for each form of the same prescribed history.
local function czm_strip(kind, value, steps)
  local mesh = cl.czm.rect { x0 = 0, x1 = 0.02, y0 = 0, y1 = 0.004, nx = 10, ny = 2, order = 1 }
  local law = cl.jit.ppr { G_I = 1e9, G_II = 1e9, sigma_max = 1e15, tau_max = 1e15 }
  local b = cl.czm.body { mesh = mesh, E = 200e9, nu = 0, rho = 8000, plane = "stress", law = law }
  b[kind](b, { where = "x < 1e-9", x = value })
  local run = cl.czm.explicit { b, dt = 1e-8, steps = steps, progress = false }
  run:go()
  return b.u:to_table(), run
end

-- The documented forms (number, function(t), expression in t) of a prescribed velocity or
-- displacement, for both methods: the same history gives the same displacements. The host
-- function and the compiled expression evaluate the same formula in f64, so they agree to
-- rounding (1e-12 relative, of the largest displacement).
T.case("cohesive velocity and displacement: numbers, functions of t and expressions of t", function()
  local steps = 20
  for _, case in ipairs {
    { "velocity", function(t) return 3 + 2e8 * t end, "3 + 2e8 * t" },
    { "displacement", function(t) return 1e-3 * t end, "1e-3 * t" },
  } do
    local kind, fn, text = case[1], case[2], case[3]
    local with_fn = czm_strip(kind, fn, steps)
    local with_text = czm_strip(kind, text, steps)
    local scale = 0
    for i = 1, #with_fn do scale = math.max(scale, math.abs(with_fn[i][1])) end
    T.ok(scale > 0, kind .. ": the driven edge moved")
    for i = 1, #with_fn do
      T.near(with_text[i][1], with_fn[i][1], 1e-12, kind .. ": expression against function, node " .. i, scale)
    end
  end
  -- a number: a constant velocity moves the edge by v t
  local u = czm_strip("velocity", 3, steps)
  T.near(u[1][1], 3 * steps * 1e-8, 1e-12, "constant velocity: u of the driven corner")
end)

T.case("peridynamic velocity: numbers, functions of t and expressions of t", function()
  local function run_with(value)
    local b = cl.pd.body { shape = cl.geom.rect { 0, 0.01, 0, 0.004 }, dx = 1e-3,
      material = cl.pd.pmb { E = 70e9, rho = 2700 } }
    b:velocity { where = "x < dx", vx = value }
    cl.explicit { b, steps = 10, progress = false }:go()
    return b.u:to_table()
  end
  local with_fn, with_text = run_with(function(t) return 2 + 1e7 * t end), run_with("2 + 1e7 * t")
  local with_number = run_with(2)
  T.ok(with_fn[1][1] > with_number[1][1], "the growing velocity moved the edge further than the constant one")
  for i = 1, #with_fn do T.near(with_text[i][1], with_fn[i][1], 1e-12, "node " .. i, with_fn[1][1]) end
end)

-- Misspelt keys: the key named, the nearest valid one suggested, this line pointed at; also
-- for the runs that take a positional body (their key sets hold the number 1).
T.case("a misspelt key names the key, suggests the nearest and points at the script", function()
  local pd_body = cl.pd.body { shape = cl.geom.rect { 0, 0.01, 0, 0.004 }, dx = 1e-3,
    material = cl.pd.pmb { E = 70e9, rho = 2700 } }
  raised_here(function() cl.explicit { pd_body, stpes = 10 } end,
    { "cleave.explicit: unknown argument 'stpes'", "did you mean 'steps'?", "valid: body, dt, output" }, "cl.explicit")
  local mesh = cl.czm.rect { x0 = 0, x1 = 0.02, y0 = 0, y1 = 0.004, nx = 4, ny = 1, order = 1 }
  local law = cl.jit.ppr { G_I = 1e9, G_II = 1e9, sigma_max = 1e15, tau_max = 1e15 }
  local b = cl.czm.body { mesh = mesh, E = 200e9, nu = 0, rho = 8000, plane = "stress", law = law }
  raised_here(function() cl.czm.explicit { b, stesp = 10 } end,
    { "unknown argument 'stesp'", "did you mean 'steps'?" }, "cl.czm.explicit")
  raised_here(function() cl.czm.explicit { b, steps = 1, output = { evry = 1 } } end,
    { "output: unknown argument 'evry'", "did you mean 'every'?" }, "output")
  raised_here(function() b:velocity { where = "x < 1e-9", X = 1 } end,
    { "body:velocity: unknown argument 'X'", "did you mean 'x'?" }, "body:velocity")
  raised_here(function() cl.czm.body { mesh = mesh, E = 1, nu = 0, rho = 1, law = law, thicknes = 1 } end,
    { "did you mean 'thickness'?" }, "cl.czm.body")
  -- the C bindings share the check
  raised_here(function() cl.field { n = 3, dtyp = "f32" } end,
    { "cleave.field: unknown argument 'dtyp'", "did you mean 'dtype'?" }, "cl.field")
  -- nothing near: no suggestion, the valid names
  local err = raised_here(function() cl.explicit { pd_body, zzzzzz = 1 } end, { "unknown argument 'zzzzzz'" }, "far")
  T.ok(not err:find("did you mean", 1, true), "no suggestion for a name far from every valid one")
  -- a positional entry where none is taken
  raised_here(function() cl.mesh.grid2d { 3, nx = 2, ny = 2, dx = 1 } end,
    { "unexpected positional entry [1]", "valid: dx, nx, ny, x0, y0" }, "positional")
end)

-- Cohesive FEM objects print summaries, as the peridynamic ones do.
T.case("cohesive FEM meshes, models, bodies and runs print summaries", function()
  local mesh = cl.czm.rect { x0 = 0, x1 = 0.02, y0 = 0, y1 = 0.004, nx = 4, ny = 1, order = 1 }
  T.eq(tostring(mesh), "czm.mesh<T3, 16 elements, 14 nodes, 19 interior and 10 boundary facets, 0 cracked>", "mesh")
  local law = cl.jit.ppr { G_I = 1e9, G_II = 1e9, sigma_max = 1e15, tau_max = 1e15 }
  local b = cl.czm.body { mesh = mesh, E = 200e9, nu = 0, rho = 8000, plane = "stress", law = law }
  T.eq(tostring(b.model), "czm.model<T3, 16 elements, 14 nodes, 0 cohesive, f64 on " .. b.x.device .. ">", "model")
  local run = cl.czm.explicit { b, dt = 1e-9, steps = 3, progress = false }
  run:go { steps = 2 }
  T.eq(tostring(run), "czm.explicit<" .. tostring(b) .. ", dt = 1e-09, step 2 of 3, t = 2e-09>", "run")
end)

-- Bad numbers are refused where they enter, naming the argument, at the script's line: the
-- issue's internal errors (a 2D shape with dim = 3, a string shape, an infinite modulus, a
-- negative field size) and a sweep of the numeric arguments of pd, czm, geom, field, explicit,
-- jit, io and the demo.
T.case("non-finite and out-of-range numbers are refused where they enter", function()
  local inf, nan = math.huge, 0 / 0
  local pmb = cl.pd.pmb { E = 70e9, rho = 2700 }
  local rect = cl.geom.rect { 0, 0.004, 0, 0.004 }
  local function pd_body(extra)
    local args = { shape = rect, dx = 1e-3, material = pmb }
    for k, v in pairs(extra or {}) do args[k] = v end
    return cl.pd.body(args)
  end
  local b = pd_body()
  local mesh = cl.czm.rect { x0 = 0, x1 = 0.02, y0 = 0, y1 = 0.004, nx = 4, ny = 1, order = 1 }
  local law = cl.jit.ppr { G_I = 1e9, G_II = 1e9, sigma_max = 1e15, tau_max = 1e15 }
  local cb = cl.czm.body { mesh = mesh, E = 200e9, nu = 0, rho = 8000, plane = "stress", law = law }
  local grid = cl.mesh.grid2d { nx = 3, ny = 3, dx = 1 }
  for _, case in ipairs {
    { function() pd_body { dim = 3 } end, { "cleave.pd.body: the shape is 2D but dim = 3", "bounded in z" } },
    { function() pd_body { shape = "rect" } end, { "argument 'shape' must be a shape", "got string" } },
    { function() pd_body { shape = cl.geom.box { 0, 0.004, 0, 0.004, 0, 0.004 }, dim = 2 } end,
      { "the shape is 3D but dim = 2", "leave 'dim' out" } },
    { function() cl.pd.pmb { E = inf, rho = 1 } end, { "cleave.pd.pmb: argument 'E' must be a positive finite number" } },
    { function() cl.pd.pmb { E = 1, rho = 1, G0 = nan } end, { "argument 'G0'" } },
    { function() pd_body { horizon = inf } end, { "argument 'horizon' must be a positive finite number" } },
    { function() pd_body { thickness = inf } end, { "argument 'thickness' must be a finite number" } },
    { function() pd_body { delta = nan } end, { "argument 'delta'" } },
    { function() b:velocity { where = "x < dx", vx = inf } end, { "body:velocity: argument 'vx' must be a finite number" } },
    { function() b:body_force { where = "x < dx", by = nan } end, { "body:body_force: argument 'by'" } },
    { function() b:traction { where = "x < dx", tx = 1, layer = 0 } end, { "body:traction: argument 'layer'" } },
    { function() cl.explicit { b, dt = nan } end, { "argument 'dt' must be \"auto\" or a positive number" } },
    { function() cl.explicit { b, steps = inf } end, { "argument 'steps' must be an integer >= 0" } },
    { function() cl.field { n = -1 } end, { "cleave.field: argument 'n' must be an integer >= 0, got -1" } },
    { function() cl.geom.rect { 0, inf, 0, 1 } end, { "cleave.geom.rect: x1 must be finite" } },
    { function() cl.geom.polygon { { 0, 0 }, { 1, 0 }, { 0, 1 }, z0 = 0, z1 = inf } end,
      { "cleave.geom.polygon: argument 'z1' must be a finite number" } },
    { function() rect:points { dx = nan } end, { "cleave.shape:points: argument 'dx' must be a finite number" } },
    { function() cl.czm.rect { x0 = 0, x1 = nan, y0 = 0, y1 = 1, nx = 2, ny = 2 } end, { "argument 'x1' must be a finite number" } },
    { function() cl.czm.body { mesh = mesh, E = inf, nu = 0, rho = 1, law = law } end, { "argument 'E' must be a finite number" } },
    { function() cl.czm.body { mesh = mesh, E = 1, nu = 0, rho = 1, law = law, fracture_energy = -1 } end,
      { "argument 'fracture_energy'" } },
    { function() cb:velocity { where = "x < 1e-9", x = nan } end, { "body:velocity: argument 'x' must be a finite number" } },
    { function() cb:pressure { where = "x < 1e-9", value = inf } end, { "body:pressure: argument 'value'" } },
    { function() cb:velocity { where = "x > 1", x = 1 } end, { "body:velocity: the region 'where' holds no node" } },
    { function() cb:pressure { where = 3, value = 1 } end, { "body:pressure: 'where' must be a function(x, y)" } },
    { function() cb:initial_strain { xx = inf } end, { "body:initial_strain: argument 'xx'" } },
    { function() cl.jit.bond_force { source = "return 0;", params = { c = inf } } end, { "parameter 'c' must be a finite number" } },
    { function() cl.io.png { path = "x.png", mesh = grid, field = cl.field { n = 9 }, width = -5 } end,
      { "cleave.io.png: argument 'width' must be a positive number of pixels" } },
    { function() cl.io.png { path = "x.png", mesh = grid, field = cl.field { n = 9 }, point_size = inf } end,
      { "argument 'point_size' must be a finite number" } },
    { function() cl.run { pipeline = cl.pipeline {}, steps = 1, dt = nan } end, { "cleave.run: argument 'dt' must be a finite number" } },
    { function() cl.mesh.grid2d { nx = 3, ny = 3, dx = inf } end, { "argument 'dx' must be a positive finite number" } },
  } do
    raised_here(case[1], case[2], case[2][1])
  end
  -- a 3D shape makes a 3D body without dim = 3 (it was silently cut to its x-y section)
  local cube = pd_body { shape = cl.geom.box { 0, 0.004, 0, 0.004, 0, 0.004 } }
  T.eq(cube.dim, 3, "dimension inferred from the shape")
  T.eq(cube.n, 64, "4 x 4 x 4 points")
  T.eq(cl.geom.box { 0, 1, 0, 1, 0, 1 }:points { dx = 0.5 }.k, 3, "shape:points of a 3D shape are 3D")
  -- data may hold anything: a field filled with NaN is a field
  T.ok(cl.field { n = 2, value = nan }[1] ~= cl.field { n = 2, value = nan }[1], "a NaN fill value is data")
end)

T.run()
