-- cleave.czm: explicit dynamic FEM of T3/T6 meshes with extrinsic cohesive fracture (paper 000,
-- Alhadeff et al.): cohesive elements are inserted on the fly where the averaged facet stress
-- reaches the strength. Meshes, the device model and its stages are C (lua/l_czm.c); this file
-- holds the body (material, law, loads) and the explicit run. See docs/methods/cohesive-fem.md.
local cl = ...
local czm = cl.czm

local body_mt = {}
body_mt.__index = body_mt
body_mt.__tostring = function(b)
  local info = b.model:info()
  return string.format("czm.body<T%d, %d elements, %d nodes, %d cohesive>", info.order == 2 and 6 or 3,
    info.elements, info.nodes, info.cohesive)
end

-- Summaries of the C objects (meshes and device models, lua/l_czm.c), like the bodies': their
-- metatables are the registry's entries of their names.
local function element(order) return order == 2 and "T6" or "T3" end
local registry = debug.getregistry()
registry["cleave.czm.mesh"].__tostring = function(m)
  local i = m:info()
  return string.format("czm.mesh<%s, %d elements, %d nodes, %d interior and %d boundary facets, %d cracked>",
    element(i.order), i.elements, i.nodes, i.interior_facets, i.boundary_facets, i.cracks)
end
registry["cleave.czm.model"].__tostring = function(m)
  local i, x = m:info(), m:field("x")
  return string.format("czm.model<%s, %d elements, %d nodes, %d cohesive, %s on %s>", element(i.order), i.elements,
    i.nodes, i.cohesive, x.dtype, x.device)
end

local body_keys = { mesh = true, E = true, nu = true, rho = true, thickness = true, plane = true, law = true,
  sigma_max = true, tau_max = true, contact = true, contact_after_breaking = true, friction = true, check_every = true,
  precision = true, stiffness = true, scatter = true, fracture_energy = true, insertion = true, strength = true,
  insert_where = true }

-- Strengths and fracture energy from the law when it knows them (cleave.jit.ppr, linear_softening).
local function law_property(law, key)
  if law.ppr and law.ppr[key] then return law.ppr[key] end
  if law.name == "linear_softening" then
    local p = law.params
    if key == "sigma_max" then return p.sigma_max end
    if key == "G_I" then return p.sigma_max and p.delta_c and p.sigma_max * p.delta_c / 2 end
  end
end

-- A built-in law started at the insertion stress: the prelude (kernels/czm/laws/<prelude>.c)
-- computes the rescaled constants, then the law's body runs in a block where `shadow` (C
-- declarations) rebinds its parameters to them; the state gains tn0, tt0, which insertion sets.
local function started_at_insertion(name, prelude, shadow, params, state)
  local source = cl.jit.embedded("kernels/czm/laws/" .. prelude .. ".c") .. "{\n" .. shadow .. "\n" ..
    cl.jit.law_source(name) .. "\n}\n"
  state.tn0, state.tt0 = 0, 0
  return cl.jit.traction { name = name, source = source, params = params, state = state }
end

--- cleave.czm.linear_softening{ sigma_max =, G_c = | delta_c =, beta = 1, start = "strength" |
---   "insertion" } -> the extrinsic linear-softening traction law (kernels/czm/laws/linear_softening.c,
---   Camacho & Ortiz) with fracture energy G_c = sigma_max delta_c / 2. start = "insertion": the
---   traction starts at the facet's stress when the check marked it (state tn0, tt0, written at
---   insertion) with delta_c rescaled so that G_c stays exact (laws/insertion_start.c).
function czm.linear_softening(args)
  local fn = "cleave.czm.linear_softening"
  cl.check_args(fn, args, { sigma_max = true, G_c = true, delta_c = true, beta = true, start = true })
  local sigma_max = cl.positive_number(fn, args, "sigma_max")
  if (args.G_c == nil) == (args.delta_c == nil) then
    error(fn .. ": give one of 'G_c' (fracture energy, J/m^2) and 'delta_c' (final opening, m)", 2)
  end
  local delta_c = args.delta_c and cl.positive_number(fn, args, "delta_c") or 2 * cl.positive_number(fn, args, "G_c") / sigma_max
  local beta = cl.optional_number(fn, args, "beta", 1)
  if not (beta >= 0) then error(fn .. ": 'beta' (the shear weight) must be >= 0", 2) end
  local start = args.start or "strength"
  local params = { sigma_max = sigma_max, delta_c = delta_c, beta = beta }
  if start == "strength" then
    return cl.jit.traction { name = "linear_softening", source = cl.jit.law_source("linear_softening"),
      params = params, state = { dmax = 0 } }
  elseif start ~= "insertion" then
    error(fn .. ": 'start' must be \"strength\" (the traction starts at sigma_max) or \"insertion\" (at the " ..
      "facet's stress found at insertion)", 2)
  end
  return started_at_insertion("linear_softening", "insertion_start",
    "const real sigma_max = start_strength, delta_c = start_opening;", params, { dmax = 0 })
end

--- cleave.czm.ppr{ the arguments of cleave.jit.ppr, start = "strength" | "insertion" } -> the PPR law;
---   start = "insertion" (extrinsic only: lambda_n = lambda_t = 0): both strengths scaled by the
---   ratio that made the check crack the facet, max(<sigma_n> / sigma_max, |tau| / tau_max), the
---   final openings divided by it, so both fracture energies stay exact (laws/ppr_insertion_start.c).
function czm.ppr(args)
  local fn = "cleave.czm.ppr"
  if type(args) ~= "table" then error(fn .. ": give a table of named arguments", 2) end
  local start = args.start or "strength"
  local given = {}
  for k, v in pairs(args) do if k ~= "start" then given[k] = v end end
  local ok, law = pcall(cl.jit.ppr, given)
  if not ok then error((tostring(law):gsub("cleave%.jit%.ppr", fn)), 2) end
  if start == "strength" then return law end
  if start ~= "insertion" then
    error(fn .. ": 'start' must be \"strength\" (the traction starts at sigma_max) or \"insertion\" (at the " ..
      "facet's stress found at insertion)", 2)
  end
  local p = law.ppr
  if p.m ~= 0 or p.n ~= 0 then
    error(fn .. ": start = \"insertion\" needs the extrinsic law (lambda_n = lambda_t = 0): an intrinsic law's " ..
      "traction rises from zero and has no insertion stress to start at", 2)
  end
  local params = { sigma_max = p.sigma_max, tau_max = p.tau_max }
  for k, v in pairs(law.params) do params[k] = v end
  local started = started_at_insertion("ppr", "ppr_insertion_start",
    "const real delta_n = start_delta_n, delta_t = start_delta_t;", params, { dn_max = 0, dt_max = 0 })
  started.ppr = p
  return started
end

-- Where cohesive elements may be inserted, per facet of the model (u8 field ne x 3, edge k of
-- element e at row e component k): a facet whose midpoint is in the region (a group: both ends).
local function insertion_allowed(b, where, fn)
  local test, set = b:region(where, fn, 4) -- errors point at the caller of czm.body
  local m = b.model
  local ne = m:info().elements
  local elem, x = m:field("elem"), m:field("x")
  return cl.field { n = ne, k = 3, dtype = "u8" }:assign(function(e)
    local row, inside = elem[e], {}
    for k = 1, 3 do
      local a, c = row[k] + 1, row[k % 3 + 1] + 1
      if set then inside[k] = set[a] and set[c] and 1 or 0 else
        local pa, pc = x[a], x[c]
        inside[k] = test((pa[1] + pc[1]) / 2, (pa[2] + pc[2]) / 2) and 1 or 0
      end
    end
    return inside[1], inside[2], inside[3]
  end)
end

local strength_keys = { distribution = true, spread = true, modulus = true, area = true, seed = true }

--- cleave.czm.body{ mesh =, E =, nu =, rho =, thickness = 1, plane = "strain" | "stress",
---   law = a traction law (cleave.jit.ppr{...}, cleave.jit.traction{...}), sigma_max =, tau_max =
---   (facet strengths of the insertion check; default from the law), contact = penalty (Pa/m;
---   default E / shortest element edge), check_every = 10, precision = "f64",
---   stiffness = "matrix_free" | "stored", scatter = "auto" (atomics on the GPU, colours on the
---   CPU) | "colour" | "atomic", insertion = "ordered" (deterministic
---   numbering) | "block_counter" (GPU: Appendix A's block-local counters),
---   strength = { distribution = "uniform", spread =, seed = 1 } | { distribution = "weibull",
---   modulus =, area =, seed = 1 } (random facet strengths: a factor on sigma_max and tau_max per
---   facet, kernels/czm/czm_strength.h), insert_where = region (cohesive elements only on the
---   facets there) } -> body
function czm.body(args)
  local fn = "cleave.czm.body"
  cl.check_args(fn, args, body_keys)
  local law = args.law
  if getmetatable(law) ~= cl.jit.law_mt or law.kind ~= "traction" then
    error(fn .. ": argument 'law' must be a traction law (cleave.jit.ppr{...} or cleave.jit.traction{...})", 2)
  end
  local sigma_max = args.sigma_max or law_property(law, "sigma_max")
  if not sigma_max then error(fn .. ": give 'sigma_max' (the law does not say its strength)", 2) end
  local tau_max = args.tau_max or law_property(law, "tau_max") or sigma_max
  local state, insertion_state = {}, {}
  for i, name in ipairs(law.state_names) do
    state[i] = law.state[name]
    -- a law's tn0, tt0 receive the facet's stress at insertion
    if name == "tn0" then insertion_state.sn = i elseif name == "tt0" then insertion_state.ss = i end
  end
  if args.strength ~= nil then
    if type(args.strength) ~= "table" then error(fn .. ": 'strength' must be a table { distribution =, ... }", 2) end
    cl.check_args(fn .. " strength", args.strength, strength_keys, 3)
  end
  local ok, model = pcall(czm.model, { mesh = args.mesh, E = args.E, nu = args.nu, rho = args.rho,
    thickness = args.thickness, plane = args.plane, sigma_max = sigma_max, tau_max = tau_max, contact = args.contact,
    contact_after_breaking = args.contact_after_breaking, friction = args.friction,
    precision = args.precision, stiffness = args.stiffness, scatter = args.scatter, law_state = state,
    insertion = args.insertion, insertion_state = insertion_state })
  if not ok then error(model, 2) end
  model:set_law(law:cohesive_module(model:field("x")))
  local every = args.check_every or 10
  if math.type(every) ~= "integer" or every < 1 then error(fn .. ": 'check_every' must be a positive integer", 2) end
  model:set_check_every(every)
  local b = setmetatable({ model = model, mesh = args.mesh, thickness = args.thickness or 1, law = law,
    E = args.E, nu = args.nu, plane_strain = (args.plane or "strain") == "strain", constraints = {}, check_every = every,
    fracture_energy = args.fracture_energy and cl.positive_number(fn, args, "fracture_energy") or
      law_property(law, "G_I") }, body_mt)
  for _, name in ipairs { "x", "u", "v", "a", "mass", "stress" } do b[name] = model:field(name) end
  if args.strength ~= nil or args.insert_where ~= nil then
    local s = args.strength or {}
    local allowed = args.insert_where ~= nil and insertion_allowed(b, args.insert_where, fn) or nil
    local ok2, err = pcall(model.set_strength, model, { distribution = s.distribution or "constant", spread = s.spread,
      modulus = s.modulus, area = s.area, seed = s.seed, allowed = allowed })
    if not ok2 then error(err, 2) end
  end
  return b
end

-- A region of the plane: a function(x, y) -> boolean, an expression in x and y ("x < 0.01 and
-- y > 0"), or { group = "name" } (a physical group of the Gmsh file the mesh came from).
-- Returns a predicate on (x, y) or, for a group, the set of its nodes (1-based).
function body_mt:region(where, fn, level)
  if type(where) == "function" then return where end
  if type(where) == "string" then
    local test = cl.expr.evaluator(where, { what = "where", kind = "boolean", variables = { "x", "y" } })
    local env = {}
    return function(x, y)
      env.x, env.y = x, y
      return test(env)
    end
  end
  if type(where) == "table" and type(where.group) == "string" then
    local set = {}
    for _, i in ipairs(self.mesh:group_nodes(where.group)) do set[i] = true end
    return nil, set
  end
  error(fn .. ": 'where' must be a function(x, y), an expression in x and y, or { group = \"name\" }", level)
end

-- Rows (1-based, u32 field) of the mesh's initial nodes in the region.
-- (level: of its errors, 2 when a script calls it)
function body_mt:select(where, fn, level)
  level = level or 2
  fn = fn or "body:select"
  local test, set = self:region(where, fn, level + 1)
  local x = self.x
  local rows = {}
  for i = 1, self.model:info().initial_nodes do
    local inside
    if set then inside = set[i] else
      local p = x[i]
      inside = test(p[1], p[2])
    end
    if inside then rows[#rows + 1] = i end
  end
  if #rows == 0 then error(fn .. ": the region 'where' holds no node", level) end
  local f = cl.field { n = #rows, dtype = "u32" }
  for i, r in ipairs(rows) do f[i] = r end
  return f
end

-- A prescribed value: a number, a function of t, or an expression in t (compiled for the device).
local function load_value(fn, key, value)
  if type(value) == "string" then return cl.jit.value(value, { what = key }) end
  if type(value) == "number" then return cl.finite_number(fn, key, value, 4) end
  if type(value) ~= "function" then
    error(string.format("%s: '%s' must be a number, a function of t or an expression in t", fn, key), 4)
  end
  return value
end

-- body:displacement{ where =, x = value, y = value } / body:velocity{ ... }: values held on the
-- nodes of the region (where: see region above; values: numbers, functions of t or expressions in
-- t). Nodes duplicated later by a crack through the region are not held: keep constrained edges
-- off crack paths.
local function constrain(self, kind, args)
  local fn = "body:" .. kind
  cl.check_args(fn, args, { where = true, x = true, y = true }, 4) -- the caller of body:velocity
  local rows = self:select(args.where, fn, 4)
  for c, key in ipairs { "x", "y" } do
    if args[key] ~= nil then
      self.constraints[#self.constraints + 1] = { kind = kind, rows = rows, component = c,
        value = load_value(fn, key, args[key]) }
      self.model:fix(rows, c)
    end
  end
end

function body_mt:displacement(args) constrain(self, "displacement", args) end
function body_mt:velocity(args) constrain(self, "velocity", args) end

--- body:reaction{ where = region (as body:velocity takes it), name = } -> the reaction of the
--- prescribed components of the region's nodes (cleave.explicit_run's reaction: force, work,
--- mean displacement): minus the internal, cohesive and external forces summed on those nodes at
--- the last step, which hold them on their prescribed course; the nodes' own inertia is left out
--- (zero under a constant prescribed velocity or displacement).
function body_mt:reaction(args)
  local fn = "body:reaction"
  cl.check_args(fn, args, { where = true, name = true })
  local rows = self:select(args.where, fn)
  local count = #rows
  local body = self
  return cl.explicit_run.reaction(fn, self, args, count, "nodes", 2, function()
    local force, u, work = { 0, 0 }, { 0, 0 }, 0
    local ok, r = pcall(body.model.field, body.model, "reaction")
    for i = 1, count do
      local n = rows[i]
      local d = body.u[n]
      u[1], u[2] = u[1] + d[1] / count, u[2] + d[2] / count
      if ok then
        local q = r[n]
        force[1], force[2], work = force[1] + q[1], force[2] + q[2], work + q[3]
      end
    end
    return force, work, u
  end)
end

--- body:reaction_work() -> the work every prescribed node's reaction has done on the body
function body_mt:reaction_work()
  local ok, r = pcall(self.model.field, self.model, "reaction")
  return ok and r:sum(3) or 0
end

-- Sets a nodal field (n x 2) from a function(x, y) -> vx, vy on the initial nodes.
local function set_nodes(self, field, f)
  local x = self.x
  for i = 1, self.model:info().initial_nodes do
    local p = x[i]
    local a, b = f(p[1], p[2])
    field[i] = { a or 0, b or 0 }
  end
end

--- body:initial_velocity(function(x, y) -> vx, vy)
function body_mt:initial_velocity(f) set_nodes(self, self.v, f) end

--- body:initial_displacement(function(x, y) -> ux, uy)
function body_mt:initial_displacement(f) set_nodes(self, self.u, f) end

--- body:initial_strain{ xx =, yy =, xy = (engineering shear), origin = { x, y } }: the uniform
--- strain's displacement u = eps (p - origin) on every node (xy split evenly between the two)
function body_mt:initial_strain(args)
  cl.check_args("body:initial_strain", args, { xx = true, yy = true, xy = true, origin = true })
  local fn = "body:initial_strain"
  local exx, eyy = cl.optional_number(fn, args, "xx", 0), cl.optional_number(fn, args, "yy", 0)
  local gxy = cl.optional_number(fn, args, "xy", 0)
  local o = args.origin or { 0, 0 }
  cl.finite_number(fn, "origin[1]", o[1])
  cl.finite_number(fn, "origin[2]", o[2])
  set_nodes(self, self.u, function(x, y)
    local dx, dy = x - o[1], y - o[2]
    return exx * dx + gxy / 2 * dy, gxy / 2 * dx + eyy * dy
  end)
end

--- body:pressure{ where = region (facet midpoints; a group: facets with both ends in it),
--- value = number, function of t or expression in t }: a pressure on those boundary facets,
--- pushing into the body; one per body.
function body_mt:pressure(args)
  local fn = "body:pressure"
  cl.check_args(fn, args, { where = true, value = true })
  if self.pressure_value ~= nil then
    error(fn .. ": the body has a pressure already; one per body (combine the regions in one 'where')", 2)
  end
  local test, set = self:region(args.where, fn, 3)
  local where = test
  if set then
    where = cl.field { n = self.model:info().nodes, dtype = "u8" }
    for i in pairs(set) do where[i] = 1 end
  end
  local value = args.value
  if type(value) == "string" then value = cl.jit.value(value, { what = "value" }) end
  if type(value) == "number" then cl.finite_number(fn, "value", value) end
  if type(value) ~= "number" and type(value) ~= "function" and getmetatable(value) ~= cl.jit.value_mt then
    error(fn .. ": 'value' must be a number, a function of t or an expression in t", 2)
  end
  if self.model:pressure_load(where) == 0 then error(fn .. ": no boundary facet lies in 'where'", 2) end
  self.pressure_value = value
  -- a constant pressure's work is p load . (u - u at this point); a varying one is summed per step
  self.external_work, self.load_u0 = 0, self.model:field("load"):dot(self.u)
  self.model:set_load_scale(type(value) == "number" and value or value(0))
end

function body_mt:stable_dt() return self.model:stable_dt() end

--- body:energies() -> { strain, kinetic, cohesive_stored, cohesive_dissipated, contact_stored,
--- contact_dissipated, external_work, balance }: the cohesive terms are the law's work on the
--- interfaces split into what it would give back on unloading and the rest; the contact terms
--- the same of the penalty (elastic) and friction (dissipated). The external work is that of the
--- pressure (summed step by step, p at mid-step times the load vector dotted with the step's
--- displacement) and of the prescribed motions (their reactions' work) since they were set;
--- balance = kinetic + strain + cohesive + contact - external work - the energy at the start
--- (cleave.czm.explicit records it), 0 for an exact run. The balance takes the kinetic energy
--- velocity Verlet conserves with the trapezoid rule's work, m v(n-1/2) . v(n+1/2) / 2 (the
--- whole-step kinetic energy less dt^2/8 sum |f|^2 / m, docs/methods/cohesive-fem.md).
function body_mt:energies()
  local strain, kinetic, work, stored, contact_work, contact_stored, staggered = self.model:energies(self.dt or 0)
  local external = self.external_work or 0
  if type(self.pressure_value) == "number" then
    external = self.pressure_value * (self.model:field("load"):dot(self.u) - self.load_u0)
  end
  external = external + self:reaction_work()
  local e = { strain = strain, kinetic = kinetic, cohesive_stored = stored, cohesive_dissipated = work - stored,
    contact_stored = contact_stored, contact_dissipated = contact_work - contact_stored, external_work = external }
  e.balance = staggered + strain + work + contact_work - external - (self.initial_energy or 0)
  return e
end

czm.body_mt = body_mt

-- Prescribed values that do not change are set once (with the node mask that keeps their
-- acceleration 0 they then stay); those that vary are set every step by the pipeline.
local function constant(value) return type(value) == "number" end

-- What cleave.stage.set_rows takes for a varying value on a field: an expression's kernel for it.
local function stage_value(value, field)
  if getmetatable(value) == cl.jit.value_mt then return value:module(field) end
  return value
end

local function set_constant_constraints(body)
  for _, k in ipairs(body.constraints) do
    if constant(k.value) then
      local field = k.kind == "velocity" and body.v or body.u
      cl.stage.set_rows { field = field, rows = k.rows, component = k.component, value = k.value }:run()
      if k.kind == "displacement" then
        cl.stage.set_rows { field = body.v, rows = k.rows, component = k.component, value = 0 }:run()
      end
    end
  end
end

-- The step (eqs. 1-2 as kick-drift-kick, model:stage): the load scale of a pressure varying in
-- time, varying prescribed velocities at mid-step, begin (kick-drift, accumulators reset to the
-- load), varying prescribed displacements, forces (with the stress check and insertion every n
-- steps), end (accelerations, 0 on prescribed components, and the kick). With nothing varying
-- the three run as one stage, replayed as a cuda graph on the GPU.
local function step_pipeline(body, dt)
  local before, after, m = {}, {}, body.model
  local p = body.pressure_value
  if p ~= nil and type(p) ~= "number" then
    before[#before + 1] = cl.stage.call(function(_, t) m:set_load_scale(p(t)) end)
    -- external work of a varying pressure: after the kick-drift v is v(n+1/2), and the step's
    -- displacement dt v(n+1/2)
    local load, v = m:field("load"), body.v
    after[#after + 1] = cl.stage.call(function(_, t)
      body.external_work = body.external_work + p(t - dt / 2) * dt * load:dot(v)
    end)
  end
  for _, k in ipairs(body.constraints) do
    if not constant(k.value) then
      if k.kind == "velocity" then
        before[#before + 1] = cl.stage.set_rows { field = body.v, rows = k.rows, component = k.component,
          value = stage_value(k.value, body.v), time_offset = -dt / 2 }
      else
        after[#after + 1] = cl.stage.set_rows { field = body.u, rows = k.rows, component = k.component,
          value = stage_value(k.value, body.u) }
        after[#after + 1] = cl.stage.set_rows { field = body.v, rows = k.rows, component = k.component, value = 0 }
      end
    end
  end
  if #before == 0 and #after == 0 then return cl.pipeline { m:stage("step", dt) } end
  local stages = before
  stages[#stages + 1] = m:stage("begin", dt)
  for _, stage in ipairs(after) do stages[#stages + 1] = stage end
  stages[#stages + 1] = m:stage("forces")
  stages[#stages + 1] = m:stage("end", dt)
  return cl.pipeline(stages)
end

local run_mt = {}
run_mt.__index = run_mt
-- the VTU series a run writes (explicit.continue_series continues them after a restore)
run_mt.series_files = { series = "", cracks = "_cracks" }
run_mt.__tostring = function(r)
  return string.format("czm.explicit<%s, dt = %g, step %d of %d, t = %g>", tostring(r.body), r.dt, r.step, r.steps, r.t)
end

--- cleave.czm.explicit{ body, dt = "auto" | number, steps =, output = { every =, vtu = (the bulk
---   mesh in vtu.pvd, the crack faces in vtu_cracks.pvd), csv = (energies, cohesive elements,
---   nodes), png = path or { path, field, scale } (after each go), checkpoint = path (every `every`
---   steps and on Ctrl-C) }, progress = true } -> run
function czm.explicit(args)
  local fn = "cleave.czm.explicit"
  cl.check_args(fn, args, cl.explicit_run.keys)
  local body = args[1] or args.body
  if getmetatable(body) ~= body_mt then error(fn .. ": the first entry must be a body (cleave.czm.body{...})", 2) end
  local run = cl.explicit_run.new(fn, args, body, run_mt, body:stable_dt(), 0.9,
    "this mesh (element frequency bound)")
  set_constant_constraints(body)
  body.dt = run.dt -- the step of the staggered kinetic energy in the balance
  run.pipeline = step_pipeline(body, run.dt)
  body.model:forces() -- accelerations of the initial state, for the first kick (and the reactions)
  if not body.initial_energy then -- the energy the balance starts from, on the body's first run
    local e = body:energies()
    body.initial_energy = e.balance
  end
  return run
end

-- The mesh and point data for VTU, on the nodes in use.
local function vtu_data(body)
  local m = body.model
  local info = m:info()
  local nn, ne, nper = info.nodes, info.elements, info.order == 2 and 6 or 3
  local function rows(field, k)
    local f = cl.field { n = nn, k = k, dtype = field.dtype }
    for i = 1, nn do f[i] = field[i] end
    return f
  end
  local elem = m:field("elem")
  local types = cl.field { n = ne, dtype = "u8", value = nper == 6 and 22 or 5 }
  local offsets = cl.field { n = ne + 1, dtype = "i32" }
  local conn = cl.field { n = ne * nper, dtype = "i32" }
  for e = 1, ne do
    offsets[e] = (e - 1) * nper
    local row = elem[e]
    for p = 1, nper do conn[(e - 1) * nper + p] = row[p] + 1 end
  end
  offsets[ne + 1] = ne * nper
  local stress = rows(body.stress, 4)
  local sigma, energy = body:nodal_stress()
  return { x = rows(body.x, 2), cells = { types = types, offsets = offsets, connectivity = conn } },
    { u = rows(body.u, 2), v = rows(body.v, 2), stress = sigma, strain_energy_density = energy }
end

--- body:nodal_stress() -> stress (n x 3: xx, yy, xy, the mean of the elements' extrapolations at
--- each node in use), strain energy density (n): sigma . D^-1 sigma / 2 of plane elasticity
function body_mt:nodal_stress()
  self.model:stresses()
  local nn = self.model:info().nodes
  local stress = self.stress
  local sigma = cl.field { n = nn, k = 3, dtype = stress.dtype }
  local energy = cl.field { n = nn, dtype = stress.dtype }
  -- plane strain's in-plane compliance is plane stress's with E / (1 - nu^2), nu / (1 - nu)
  local E, nu = self.E, self.nu
  if self.plane_strain then E, nu = E / (1 - nu * nu), nu / (1 - nu) end
  for i = 1, nn do
    local s = stress[i]
    local w = s[4] > 0 and s[4] or 1
    local sx, sy, txy = s[1] / w, s[2] / w, s[3] / w
    sigma[i] = { sx, sy, txy }
    energy[i] = (sx * sx + sy * sy - 2 * nu * sx * sy + 2 * (1 + nu) * txy * txy) / (2 * E)
  end
  return sigma, energy
end

-- Fragments: connected components of the elements through facets that are uncracked or whose
-- cohesive element still carries traction. Returns the root (1-based element) of each element.
local function fragment_roots(m, info)
  local ne = info.elements
  local adj, coh, hist = m:field("adj"), m:field("coh"), m:field("hist")
  local ng = info.order == 2 and 3 or 2
  local parent = {}
  for e = 1, ne do parent[e] = e end
  local function find(a)
    while parent[a] ~= a do
      parent[a] = parent[parent[a]]
      a = parent[a]
    end
    return a
  end
  local function holds(c) -- cohesive c (0-based) still transmits traction at some Gauss point
    if coh[c + 1][2] & 4 ~= 0 then return false end
    for g = 0, ng - 1 do
      local h = hist[c * ng + g + 1]
      if h[3] ~= 0 or h[4] ~= 0 then return true end
    end
    return false
  end
  for e = 1, ne do
    local a = adj[e]
    for k = 1, 3 do
      local f = a[k]
      local other
      if f >= 0 then other = f + 1
      elseif f <= -2 and holds(-2 - f) then
        local c = coh[-1 - f]
        other = (c[1] + 1 == e) and c[3] + 1 or c[1] + 1
      end
      if other then parent[find(e)] = find(other) end
    end
  end
  for e = 1, ne do parent[e] = find(e) end
  return parent
end

--- body:fragments{ csv = path } -> list of { elements, mass, centre = { x, y }, velocity = { vx, vy } }:
--- the connected pieces (through uncracked facets and cohesive elements that still carry
--- traction), ordered by their first element; mass, centre of mass (current positions) and
--- velocity of the centre from the lumped nodal masses (every node belongs to one piece: the
--- elements around a node are connected through uncracked facets). With csv the list is also
--- written there (columns fragment, elements, mass, x, y, vx, vy).
function body_mt:fragments(args)
  local fn = "body:fragments"
  args = args or {}
  cl.check_args(fn, args, { csv = true })
  if args.csv ~= nil and type(args.csv) ~= "string" then error(fn .. ": 'csv' must be a path", 2) end
  local m = self.model
  local info = m:info()
  local root = fragment_roots(m, info)
  local elem, nper = m:field("elem"), info.order == 2 and 6 or 3
  local node_root, index, list = {}, {}, {}
  for e = 1, info.elements do
    local r = root[e]
    if not index[r] then
      list[#list + 1] = { elements = 0, mass = 0, centre = { 0, 0 }, velocity = { 0, 0 } }
      index[r] = #list
    end
    local piece = list[index[r]]
    piece.elements = piece.elements + 1
    local row = elem[e]
    for p = 1, nper do node_root[row[p] + 1] = index[r] end
  end
  local mass, x, u, v = self.mass, self.x, self.u, self.v
  for i = 1, info.nodes do
    local k = node_root[i]
    if k then -- a node no element uses any more carries no mass
      local piece, mi, xi, ui, vi = list[k], mass[i], x[i], u[i], v[i]
      piece.mass = piece.mass + mi
      for c = 1, 2 do
        piece.centre[c] = piece.centre[c] + mi * (xi[c] + ui[c])
        piece.velocity[c] = piece.velocity[c] + mi * vi[c]
      end
    end
  end
  for _, piece in ipairs(list) do
    for c = 1, 2 do
      piece.centre[c] = piece.centre[c] / piece.mass
      piece.velocity[c] = piece.velocity[c] / piece.mass
    end
  end
  if args.csv then
    local w <close> = cl.io.csv { path = args.csv, columns = { "fragment", "elements", "mass", "x", "y", "vx", "vy" } }
    for k, piece in ipairs(list) do
      w:row { k, piece.elements, piece.mass, piece.centre[1], piece.centre[2], piece.velocity[1], piece.velocity[2] }
    end
  end
  return list
end

-- Calls visit(c, a, b, free, points) for each cohesive element c (1-based, insertion order):
-- a, b the 1-based nodes of side 0's facet corners, free whether it is a traction-free crack
-- (a precrack), points its Gauss points' history rows (kernels/czm/czm_args.h's columns).
local function each_cohesive(body, visit)
  local m = body.model
  local info = m:info()
  local ng = info.order == 2 and 3 or 2
  local coh, elem, hist = m:field("coh"), m:field("elem"), m:field("hist")
  for c = 1, info.cohesive do
    local r = coh[c]
    local e = elem[r[1] + 1]
    local k0 = r[2] & 3
    local points = {}
    for g = 1, ng do points[g] = hist[(c - 1) * ng + g] end
    visit(c, e[k0 + 1] + 1, e[(k0 + 1) % 3 + 1] + 1, r[2] & 4 ~= 0, points)
  end
end

-- The law's dissipated work (J) summed over a cohesive element's Gauss points: work - stored.
local function dissipated_of(points)
  local w = 0
  for _, h in ipairs(points) do w = w + h[5] - h[6] end
  return w
end

--- body:cracks{ csv = path } -> list of { x, y, tx, ty, length, dissipated, broken, free }, one
--- per cohesive element in insertion order: its facet's midpoint, unit tangent and length on the
--- reference mesh, the energy its law has dissipated (J), broken when every Gauss point has failed
--- completely, free for a traction-free crack (a precrack). With csv also written there.
function body_mt:cracks(args)
  local fn = "body:cracks"
  args = args or {}
  cl.check_args(fn, args, { csv = true })
  if args.csv ~= nil and type(args.csv) ~= "string" then error(fn .. ": 'csv' must be a path", 2) end
  local x, list = self.x, {}
  each_cohesive(self, function(_, a, b, free, points)
    local pa, pb = x[a], x[b]
    local broken = true
    for _, h in ipairs(points) do broken = broken and h[11] ~= 0 end
    local length = math.sqrt((pb[1] - pa[1]) ^ 2 + (pb[2] - pa[2]) ^ 2)
    list[#list + 1] = { x = (pa[1] + pb[1]) / 2, y = (pa[2] + pb[2]) / 2, tx = (pb[1] - pa[1]) / length,
      ty = (pb[2] - pa[2]) / length, length = length, dissipated = dissipated_of(points), broken = free or broken,
      free = free }
  end)
  if args.csv then
    local w <close> = cl.io.csv { path = args.csv, columns = { "cohesive", "x", "y", "tx", "ty", "length", "dissipated",
      "broken", "free" } }
    for k, c in ipairs(list) do w:row { k, c.x, c.y, c.tx, c.ty, c.length, c.dissipated, c.broken and 1 or 0, c.free and 1 or 0 } end
  end
  return list
end

-- Crack faces for VTU: one line cell per cohesive element between its side-0 corners (reference
-- positions, with that side's displacement), and per cell the mean jump and traction over its
-- Gauss points, the work dissipated per unit area and, when the law's fracture energy is known,
-- damage = that / G (at most 1). Nil while there are no cohesive elements.
local function crack_data(body)
  local n = body.model:info().cohesive
  if n == 0 then return nil end
  local x, u = body.x, body.u
  local dtype, G = x.dtype, body.fracture_energy
  local px = cl.field { n = 2 * n, k = 2, dtype = dtype }
  local pu = cl.field { n = 2 * n, k = 2, dtype = dtype }
  local types = cl.field { n = n, dtype = "u8", value = 3 } -- VTK_LINE
  local offsets = cl.field { n = n + 1, dtype = "i32" }
  local conn = cl.field { n = 2 * n, dtype = "i32" }
  local opening, traction = cl.field { n = n, k = 2, dtype = dtype }, cl.field { n = n, k = 2, dtype = dtype }
  local dissipated = cl.field { n = n, dtype = dtype }
  local damage = G and cl.field { n = n, dtype = dtype }
  local thickness = body.thickness
  each_cohesive(body, function(c, a, b, _, points)
    px[2 * c - 1], px[2 * c] = x[a], x[b]
    pu[2 * c - 1], pu[2 * c] = u[a], u[b]
    offsets[c] = 2 * (c - 1)
    conn[2 * c - 1], conn[2 * c] = 2 * c - 1, 2 * c
    local j, tr, ng = { 0, 0 }, { 0, 0 }, #points
    for _, h in ipairs(points) do
      j[1], j[2], tr[1], tr[2] = j[1] + h[1] / ng, j[2] + h[2] / ng, tr[1] + h[3] / ng, tr[2] + h[4] / ng
    end
    local pa, pb = x[a], x[b]
    local area = math.sqrt((pb[1] - pa[1]) ^ 2 + (pb[2] - pa[2]) ^ 2) * thickness
    local w = dissipated_of(points)
    opening[c], traction[c], dissipated[c] = j, tr, w / area
    if damage then damage[c] = math.min(1, w / area / G) end
  end)
  offsets[n + 1] = 2 * n
  return { x = px, cells = { types = types, offsets = offsets, connectivity = conn } }, { u = pu },
    { opening = opening, traction = traction, dissipated_per_area = dissipated, damage = damage }
end

-- The fields a checkpoint holds: the nodes, the tables (topology changes with insertion), the
-- cohesive history and the law's state variables.
local CHECKPOINT_FIELDS = { "x", "u", "v", "a", "mass", "elem", "adj", "coh", "hist" }

local function state_fields(body)
  local names, fields = {}, {}
  for _, name in ipairs(CHECKPOINT_FIELDS) do names[#names + 1], fields[name] = name, body.model:field(name) end
  local has_reaction, reaction = pcall(body.model.field, body.model, "reaction")
  if has_reaction then names[#names + 1], fields.reaction = "reaction", reaction end
  for k, name in ipairs(body.law.state_names) do
    names[#names + 1] = "law_" .. name
    fields["law_" .. name] = body.model:field(k)
  end
  return names, fields
end

--- run:save(path [, step]): a checkpoint of the model's state (nodes, topology, cohesive history
--- and law state) and the run's step; run:restore(path) continues from one written for the same
--- mesh, model and dt (bit for bit on the same device).
function run_mt:save(path, step)
  local b = self.body
  local info = b.model:info()
  local _, fields = state_fields(b)
  cl.io.save_checkpoint { path = path, fields = fields, values = { step = step or self.step, dt = self.dt,
    nodes = info.nodes, cohesive = info.cohesive, elements = info.elements, external_work = b.external_work or 0,
    load_u0 = b.load_u0 or 0, initial_energy = b.initial_energy or 0 } }
end

function run_mt:restore(path)
  local fields, values = cl.io.load_checkpoint(path)
  local b = self.body
  local info = b.model:info()
  if values.elements ~= info.elements or values.dt ~= self.dt then
    error(string.format("run:restore: checkpoint '%s' was written for %s elements and dt = %s; this run has %d and %g",
      path, tostring(values.elements), tostring(values.dt), info.elements, self.dt), 2)
  end
  local names, mine = state_fields(b)
  cl.explicit_run.restore_fields(self, path, fields, values, mine, names)
  b.model:set_counts(math.tointeger(values.nodes), math.tointeger(values.cohesive))
  b.external_work, b.load_u0, b.initial_energy = values.external_work, values.load_u0, values.initial_energy
end

function run_mt:write(step, t)
  local b, out = self.body, self.output
  if out.checkpoint and step > 0 then self:save(out.checkpoint, step) end
  if out.vtu then
    self.series = self.series or cl.io.pvd(out.vtu .. ".pvd")
    local mesh, data = vtu_data(b)
    self.series:write { time = t, mesh = mesh, point_data = data }
    local cmesh, cpoints, ccells = crack_data(b)
    if cmesh then
      self.cracks = self.cracks or cl.io.pvd(out.vtu .. "_cracks.pvd")
      self.cracks:write { time = t, mesh = cmesh, point_data = cpoints, cell_data = ccells }
    end
  end
  if out.csv then
    if not self.history then
      local columns = { "step", "t", "kinetic", "strain", "cohesive_stored", "cohesive_dissipated", "contact_stored",
        "contact_dissipated", "external_work", "balance", "cohesive_elements", "nodes" }
      for _, c in ipairs(cl.explicit_run.reaction_columns(b)) do columns[#columns + 1] = c end
      self.history = cl.io.csv { path = out.csv, columns = columns }
    end
    local e = b:energies()
    local info = b.model:info()
    self.history:row(cl.explicit_run.reaction_values(b, { step, t, e.kinetic, e.strain, e.cohesive_stored,
      e.cohesive_dissipated, e.contact_stored, e.contact_dissipated, e.external_work, e.balance, info.cohesive,
      info.nodes }))
  end
end

--- body:png{ path =, field = "speed" | "displacement" | "stress" (von Mises), scale = 1 }: the
--- deformed mesh (corner triangles, displacements times scale) coloured by the field; cracks
--- show as gaps between the duplicated nodes.
function body_mt:png(args)
  local fn = "body:png"
  cl.check_args(fn, args, { path = true, field = true, scale = true, title = true })
  local m = self.model
  local info = m:info()
  local nn, ne = info.nodes, info.elements
  local scale, which = args.scale or 1, args.field or "speed"
  local x, u, v = self.x, self.u, self.v
  local pos = cl.field { n = nn, k = 2, dtype = x.dtype }
  local value = cl.field { n = nn, dtype = x.dtype }
  if which == "stress" then m:stresses() end
  local stress = which == "stress" and self.stress
  for i = 1, nn do
    local p, d = x[i], u[i]
    pos[i] = { p[1] + scale * d[1], p[2] + scale * d[2] }
    if which == "speed" then
      local w = v[i]
      value[i] = math.sqrt(w[1] ^ 2 + w[2] ^ 2)
    elseif which == "displacement" then
      value[i] = math.sqrt(d[1] ^ 2 + d[2] ^ 2)
    elseif which == "stress" then
      local s = stress[i]
      local wgt = s[4] > 0 and s[4] or 1
      local sx, sy, txy = s[1] / wgt, s[2] / wgt, s[3] / wgt
      value[i] = math.sqrt(sx * sx - sx * sy + sy * sy + 3 * txy * txy)
    else
      error(fn .. ": 'field' must be \"speed\", \"displacement\" or \"stress\"", 2)
    end
  end
  local tri = cl.field { n = ne, k = 3, dtype = "u32" }
  local elem = m:field("elem")
  for e = 1, ne do
    local r = elem[e]
    tri[e] = { r[1] + 1, r[2] + 1, r[3] + 1 }
  end
  cl.io.png { path = args.path, mesh = { x = pos, triangles = tri }, field = value, title = args.title or which }
end

--- run:go{ steps = remaining } -> stats { steps, seconds, element_steps_per_second }
run_mt.go = cl.explicit_run.go

-- What the run checks for NaN and infinities (explicit.nonfinite): the nodal state.
function run_mt:checked_fields()
  local b = self.body
  return { what = "node", x = b.x, fields = { { "u", b.u }, { "v", b.v }, { "a", b.a } } }
end

function run_mt:statistics(steps, seconds)
  return { steps = steps, seconds = seconds,
    element_steps_per_second = seconds and seconds > 0 and steps * self.body.model:info().elements / seconds or nil }
end

-- What output.png may show (body:png's fields) and the keys it takes.
function run_mt.png_fields()
  return { "speed", "displacement", "stress" }, { path = true, field = true, scale = true, title = true }
end

function run_mt:png(spec) self.body:png(type(spec) == "table" and spec or { path = spec }) end
