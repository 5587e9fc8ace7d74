-- cleave.pd: bond-based peridynamics (paper 003). Bodies discretised on a grid
-- clipped to a shape or read from a point file, the PMB material, pre-cracks,
-- loads and constraints on regions, explicit velocity-Verlet runs.
-- The kernels (bond lists, the step kernel) are in lua/l_pd.c and kernels/pd/.
local cl = ...
local pd = cl.pd

-- Micromodulus c and critical stretch s0 (see kernels/pd/pmb.h for the sources).
local function micromodulus(dim, plane, E, delta, thickness)
  if dim == 3 then return 12 * E / (math.pi * delta ^ 4) end
  if plane == "strain" then return 48 * E / (5 * math.pi * thickness * delta ^ 3) end
  return 9 * E / (math.pi * thickness * delta ^ 3)
end

local function critical_stretch(dim, plane, E, G0, delta)
  if dim == 3 then return math.sqrt(5 * G0 / (6 * E * delta)) end
  if plane == "strain" then return math.sqrt(5 * math.pi * G0 / (12 * E * delta)) end
  return math.sqrt(4 * math.pi * G0 / (9 * E * delta))
end

-- Poisson's ratio that bond-based PD fixes for each setting.
local function fixed_poisson(dim, plane)
  if dim == 2 and plane ~= "strain" then return 1 / 3 end
  return 1 / 4
end
pd.micromodulus, pd.critical_stretch, pd.poisson = micromodulus, critical_stretch, fixed_poisson

-- The 2D square lattice of points with a horizon of m dx is isotropic only where its stiffness
-- ratio C11/C12 = R = sum w n_x^4 / sum w n_x^2 n_y^2 (w = |xi| beta over the stencil, beta the
-- partial volume) is 3 (docs/methods/peridynamics.md, "Horizon and Poisson's ratio"). Under
-- uniaxial stress it behaves with nu = 1/R (plane stress) or 1/(R + 1) (plane strain).
local function lattice_poisson(m, partial_volume, plane)
  local a4, a22, n = 0, 0, math.ceil(m)
  for i = -n, n do
    for j = -n, n do
      local r = math.sqrt(i * i + j * j)
      if r > 0 and r < m then
        local w = r * ((not partial_volume or r <= m - 0.5) and 1 or m + 0.5 - r)
        a4, a22 = a4 + w * (i / r) ^ 4, a22 + w * (i / r) ^ 2 * (j / r) ^ 2
      end
    end
  end
  local R = a4 / a22
  return plane == "strain" and 1 / (R + 1) or 1 / R, R
end
pd.lattice_poisson = lattice_poisson

-- Horizons (in dx) whose lattice nu is within this fraction of the continuum's count as
-- near-isotropic (3.015 dx: 0.7% in plane stress, 4.015 dx: 1.3%).
local ISOTROPY_TOLERANCE = 0.02

-- The nearest range of near-isotropic horizons from m downwards (step = -1) or upwards (+1), on a
-- grid of 0.005 dx, as "a-b"; nil when none lies between 1 and 8 dx.
local function isotropic_range(m, partial_volume, plane, step)
  local target = fixed_poisson(2, plane)
  local function ok(k) return math.abs(lattice_poisson(k / 200, partial_volume, plane) / target - 1) <= ISOTROPY_TOLERANCE end
  local k = math.floor(m * 200 + 0.5) + step
  while k > 200 and k < 1600 and not ok(k) do k = k + step end
  if not (k > 200 and k < 1600) then return nil end
  local far = k
  while ok(far + step) do far = far + step end
  return string.format("%.3f-%.3f", math.min(k, far) / 200, math.max(k, far) / 200)
end

-- Warns (cl.warn) when a 2D grid body's horizon makes its Poisson's ratio differ from the
-- continuum's by more than ISOTROPY_TOLERANCE, with the nearest near-isotropic horizons.
local function check_isotropy(fn, m, partial_volume, plane)
  local target = fixed_poisson(2, plane)
  local nu, R = lattice_poisson(m, partial_volume, plane)
  if math.abs(nu / target - 1) <= ISOTROPY_TOLERANCE then return end
  local below, above = isotropic_range(m, partial_volume, plane, -1), isotropic_range(m, partial_volume, plane, 1)
  local ranges = {}
  if below then ranges[#ranges + 1] = below end
  if above then ranges[#ranges + 1] = above end
  cl.warn(string.format("%s: a horizon of %.4g dx makes the square lattice of points anisotropic " ..
    "(C11/C12 = %.3f, not 3): the body behaves with Poisson's ratio %.3f instead of %s (plane %s), " ..
    "%.1f%% off; near-isotropic horizons nearby (nu within %d%%): %s dx (the default is 3.015)", fn, m, R, nu,
    plane == "strain" and "1/4" or "1/3", plane, 100 * math.abs(nu / target - 1), math.floor(100 * ISOTROPY_TOLERANCE + 0.5),
    table.concat(ranges, " or ")))
end

--- cleave.pd.pmb{ E =, rho =, G0 = | s0 = , nu = (optional check) }
function pd.pmb(args)
  local fn = "cleave.pd.pmb"
  cl.check_args(fn, args, { E = true, rho = true, G0 = true, s0 = true, nu = true })
  local m = { kind = "pmb", E = cl.positive_number(fn, args, "E"), rho = cl.positive_number(fn, args, "rho") }
  if args.G0 ~= nil and args.s0 ~= nil then error(fn .. ": give 'G0' or 's0', not both", 2) end
  if args.G0 ~= nil then m.G0 = cl.positive_number(fn, args, "G0") end
  if args.s0 ~= nil then m.s0 = cl.positive_number(fn, args, "s0") end
  if args.nu ~= nil then m.nu = cl.positive_number(fn, args, "nu") end
  return setmetatable(m, { __tostring = function(t)
    return string.format("pmb<E = %g, rho = %g, %s>", t.E, t.rho,
      t.G0 and ("G0 = " .. t.G0) or t.s0 and ("s0 = " .. t.s0) or "unbreakable")
  end })
end

-- Runs make(...) and re-raises its error (an expression's, with the caret) under fn's name;
-- level counts from expression's caller, which must not tail-call it.
local function expression(fn, level, make, ...)
  local ok, result = pcall(make, ...)
  if not ok then error(fn .. ": " .. tostring(result), level + 1) end
  return result
end

-- A region: a Lua function(x, y, z), or an expression string in x, y, z, dx, the math
-- functions and the parameters, compiled for the device (cleave.jit.region).
local function region(fn, where, params, level)
  if type(where) == "function" then return where end
  if type(where) ~= "string" then error(fn .. ": 'where' must be a function(x, y, z) or an expression string", level) end
  local compiled = expression(fn, level, cl.jit.region, where, { what = "where", params = params })
  return compiled
end

-- A load value: number, function(t), or an expression string in t and the parameters
-- (cleave.jit.value: compiled for the device in runs, evaluated on the host at set-up).
local function time_function(fn, key, value, params, level)
  if type(value) == "number" then return cl.finite_number(fn, key, value, level) end
  if type(value) == "function" then return value end
  if type(value) ~= "string" then error(string.format("%s: '%s' must be a number, a function(t) or an expression", fn, key), level) end
  local compiled = expression(fn, level, cl.jit.value, value, { what = key, params = params })
  return compiled
end

-- What cleave.stage.set_rows takes for a load value on a field: the compiled kernel of an
-- expression (times scale), or the number or function (times scale).
local function stage_value(value, field, scale)
  scale = scale or 1
  if getmetatable(value) == cl.jit.value_mt then return value:module(field, scale) end
  if type(value) == "function" and scale ~= 1 then return function(t) return value(t) * scale end end
  return type(value) == "number" and value * scale or value
end

-- Grid cells over the shape's bounds at spacing dx (an upper bound of its points).
local function grid_cells(shape, dim, dx)
  local b = shape:bounds()
  local cells = math.ceil((b.xmax - b.xmin) / dx) * math.ceil((b.ymax - b.ymin) / dx)
  if dim == 3 then cells = cells * math.ceil((b.zmax - b.zmin) / dx) end
  return cells
end

-- Device bytes per point: coordinates, u, v, a (dim each), damage, and the bonds: a list holds a
-- row offset and 4 bytes per bond (pi h^2 or 4/3 pi h^3 bonds for a horizon of h dx), a lattice a
-- map cell, the point's cell and a bit per stencil entry; plus the temporaries of set-up (8 dim
-- bytes, freed before cleave.explicit makes the default step's second u buffer, u_next: dim reals).
local function bytes_per_point(dim, precision, horizon_dx, layout)
  local real = precision == "f32" and 4 or 8
  local bonds = dim == 2 and math.pi * horizon_dx ^ 2 or 4 / 3 * math.pi * horizon_dx ^ 3
  local bond_bytes = layout == "lattice" and 8 + 4 * math.ceil(bonds / 32) or 4 + 4 * bonds
  return (4 * dim + 2) * real + bond_bytes + 8 * dim
end

-- A rank's local rows are 32-bit (bond entries, halo rows, kernels' indices); global indices are 64-bit.
local local_points_max = 4294967295

-- Refuses, before allocating, a body whose rank would hold 2^32 points or more, or would not fit in
-- the current device's free memory (points: this rank's, owned and ghosts); the message names both
-- when both hold.
local function check_memory(fn, points, dim, precision, horizon_dx, layout, level)
  local ranks = cl.comm.size()
  local need = points * bytes_per_point(dim, precision, horizon_dx, layout)
  local info = cl.info()
  local too_many, too_big = points > local_points_max, need > info.memory_free
  if not (too_many or too_big) then return end
  local why, fix = {}, {}
  if too_big then
    why[1] = string.format("would need about %.3g GB (%.0f bytes) on %s, which has %.3g GB free", need / 1e9, need,
      info.device, info.memory_free / 1e9)
  end
  if too_many then
    why[#why + 1] = "a rank holds at most 2^32 - 1 (its local indices are 32-bit)"
    fix[1] = string.format("more ranks (mpirun -np %d or more)", math.ceil(ranks * points / local_points_max))
  end
  fix[#fix + 1] = "a larger dx"
  if too_big then
    if precision ~= "f32" then fix[#fix + 1] = "precision = \"f32\"" end
    if not too_many then fix[#fix + 1] = "more ranks" end
    fix[#fix + 1] = "a device with more memory"
  end
  error(string.format("%s: about %.0f points%s %s; use %s", fn, points,
    ranks > 1 and string.format(" per rank (%d ranks)", ranks) or "", table.concat(why, ", and "),
    table.concat(fix, ", ")), level + 1)
end

local body_mt = {}
body_mt.__index = body_mt
body_mt.__tostring = function(b)
  local part = b.plan and string.format(", rank %d of %d: %d owned + %d ghost points of %d", b.plan.rank,
    b.plan.parts, b.owned, b.n - b.owned, b.global_n) or ""
  return string.format("pd.body<%dD%s, %d points, %d bonds, dx = %g, delta = %g (%.3f dx), %s on %s%s>",
    b.dim, b.dim == 2 and (" plane " .. b.plane) or "", b.n, b.bonds.count, b.dx, b.delta, b.delta / b.dx,
    b.precision, b.x.device, part)
end

local body_keys = { shape = true, points = true, dx = true, horizon = true, delta = true, dim = true,
  plane = true, thickness = true, precision = true, material = true, partial_volume = true,
  surface_correction = true, kernel = true, reorder = true, layout = true, law = true, partition = true, overlap = true,
  transport = true }

-- Under mpirun with several ranks a body is partitioned (docs/scale-out.md): this rank keeps the
-- points it owns (recursive coordinate bisection balanced by bonds) and, as ghosts, those of other
-- ranks within a horizon of them. Local rows: owned points in the global (Morton) order, then the
-- ghosts. Each rank computes the forces of its own points from their whole family (owner
-- computes: no force is summed across ranks); a halo stage refreshes the ghosts' displacements
-- before every force evaluation. Both methods read the bond graph of the whole body, a list that
-- reaches 1e-6 of delta further than the body's bonds (so that it holds every bond of either layout
-- whatever the rounding of a distance near delta): "rcb" weighs each point by its bonds, "graph" has
-- METIS cut the graph (cl.comm.partition{ method = "graph" }); the ghosts are exactly the other ranks'
-- bond neighbours of the rank's points. Returns the local x (and volume) and the plan.
local function partition(x, volume, delta, method)
  local graph = pd.bonds { x = x, delta = delta * (1 + 1e-6), layout = "list" }
  local plan
  if method == "graph" then
    plan = cl.comm.partition { x = x, reach = delta, method = "graph", bonds = graph }
  else
    plan = cl.comm.partition { x = x, weights = graph:counts():convert("f64"), reach = delta, bonds = graph }
  end
  graph = nil
  if type(volume) ~= "number" then volume = cl.comm.take_rows(volume, plan) end
  return cl.comm.take_rows(x, plan), volume, plan
end

-- A partitioned body of a box shape (shape:grid_box): this rank makes only its own points and its
-- ghosts from the grid (cl.comm.partition_grid: a block of grid indices per rank, balanced by point
-- count, ghosts within the stencil's reach of it), in the rows, global indices and coordinates
-- the global path gives them, so nothing of the whole body is built. Returns x, the number of
-- points of the body, and the plan.
local function local_grid(grid, dim, dx, delta, precision, reorder)
  -- the lattice's stencil holds the steps s with |s| < delta / dx: none reaches past floor(delta / dx)
  local plan, x = cl.comm.partition_grid { grid = grid, dx = dx, dim = dim, precision = precision,
    cell = reorder and delta or 0, reach = math.floor(delta / dx) }
  return x, plan.points, plan
end

--- cleave.pd.body{ shape = | points = "file", dx =, horizon = 3.015 (in dx) | delta = (metres),
---   dim = 2, plane = "stress", thickness = 1, precision = "f64", material = cleave.pd.pmb{...},
---   partial_volume = true, surface_correction = true, kernel = "point" | "half" | "group" | "group8" ...,
---   reorder = true, layout = "lattice" (shapes) | "list" (point files), law = cleave.jit.bond_force{...},
---   partition = "rcb" | "graph" | false, overlap = true, transport = "auto" }
function pd.body(args)
  local fn = "cleave.pd.body"
  cl.check_args(fn, args, body_keys)
  local shape = args.shape
  if shape ~= nil and (getmetatable(shape) or {}).__name ~= "cleave.shape" then
    error(fn .. ": argument 'shape' must be a shape (cleave.geom.rect{...}, cleave.geom.box{...}, ...), got " ..
      type(shape), 2)
  end
  -- the dimension is the shape's (a 3D one is bounded in z) unless given; a mismatch is refused
  local dim = args.dim or (shape and shape:dim()) or 2
  if dim ~= 2 and dim ~= 3 then error(fn .. ": argument 'dim' must be 2 or 3", 2) end
  if shape and shape:dim() ~= dim then
    error(string.format("%s: the shape is %dD but dim = %d; %s", fn, shape:dim(), dim, dim == 3 and
      "give a shape bounded in z (cleave.geom.box, sphere, cylinder, or polygon with z0, z1) or dim = 2" or
      "leave 'dim' out (a 3D shape makes a 3D body) or give a 2D shape"), 2)
  end
  local plane = args.plane or "stress"
  if plane ~= "stress" and plane ~= "strain" then error(fn .. ": argument 'plane' must be \"stress\" or \"strain\"", 2) end
  local thickness = dim == 2 and cl.optional_number(fn, args, "thickness", 1) or 1
  if not (thickness > 0) then error(fn .. ": argument 'thickness' must be positive", 2) end
  local precision = args.precision or "f64"
  if precision ~= "f32" and precision ~= "f64" then error(fn .. ": argument 'precision' must be \"f32\" or \"f64\"", 2) end
  local material = args.material
  if type(material) ~= "table" or material.kind ~= "pmb" then
    error(fn .. ": argument 'material' must be a material such as cleave.pd.pmb{ E =, rho =, G0 = }", 2)
  end
  if material.nu and math.abs(material.nu - fixed_poisson(dim, plane)) > 1e-9 then
    error(string.format("%s: bond-based PD fixes nu = %.4g for %s; the material says nu = %g (remove 'nu' or " ..
      "change 'dim'/'plane')", fn, fixed_poisson(dim, plane), dim == 3 and "3D" or ("plane " .. plane), material.nu), 2)
  end
  local layout = args.layout or (args.points ~= nil and "list" or "lattice")
  if layout ~= "lattice" and layout ~= "list" then
    error(fn .. ": argument 'layout' must be \"lattice\" (bonds from the grid stencil) or \"list\" (a bond list)", 2)
  end
  -- partition = false keeps the whole body on every rank; "rcb" / "graph" choose how the global path
  -- cuts it (a box shape is cut per rank from its grid). The default: "graph" for point files when
  -- built with METIS (fewer ghosts and halo bytes at the same balance of bonds: docs/scale-out.md),
  -- else "rcb"
  local partition_method = args.partition
  if partition_method == nil or partition_method == true then
    partition_method = args.points ~= nil and cl.comm.graph_available() and "graph" or "rcb"
  end
  if partition_method ~= "rcb" and partition_method ~= "graph" and type(partition_method) ~= "boolean" then
    error(fn .. ": argument 'partition' must be \"rcb\" (coordinate bisection), \"graph\" (METIS on the bond graph) " ..
      "or false (the whole body on every rank)", 2)
  end
  local x64, volume, dx, grid
  if args.points ~= nil then
    if args.shape ~= nil then error(fn .. ": give 'shape' or 'points', not both", 2) end
    local file_dim
    x64, volume, file_dim = cl.geom.read_points(args.points)
    if file_dim ~= dim then
      error(string.format("%s: '%s' holds %dD points but dim = %d", fn, args.points, file_dim, dim), 2)
    end
    dx = args.dx and cl.positive_number(fn, args, "dx") or (volume:max() / thickness) ^ (1 / dim)
  else
    if args.shape == nil then error(fn .. ": give 'shape' (a cleave.geom shape) or 'points' (a file)", 2) end
    dx = cl.positive_number(fn, args, "dx")
    local cells = grid_cells(args.shape, dim, dx)
    local horizon_dx = args.delta and cl.positive_number(fn, args, "delta") / dx or
      args.horizon and cl.positive_number(fn, args, "horizon") or 3.015
    volume = dx ^ dim * thickness
    grid = cl.comm.size() > 1 and partition_method == "rcb" and args.shape:grid_box { dx = dx, dim = dim } or nil
    if grid then -- this rank's points, owned and ghosts (local_grid below), counted from the grid alone
      local owned, ghosts = cl.comm.grid_counts { grid = grid, dx = dx, dim = dim,
        reach = math.floor((args.delta or horizon_dx * dx) / dx) }
      cells = owned + ghosts
    end
    check_memory(fn, cells, dim, precision, horizon_dx, layout, 3) -- before making points that would not fit
    if not grid then x64 = args.shape:points { dx = dx, dim = dim, max_points = math.max(cells, 1) } end
  end
  local delta
  if args.delta ~= nil then
    if args.horizon ~= nil then error(fn .. ": give 'horizon' (in dx) or 'delta' (metres), not both", 2) end
    delta = cl.positive_number(fn, args, "delta")
  else
    delta = cl.optional_number(fn, args, "horizon", 3.015) * dx
  end
  if not (delta > dx) then
    error(string.format("%s: the horizon (%g) must be larger than dx (%g): a point would have no bonds", fn, delta, dx), 2)
  end
  if dim == 2 and args.shape ~= nil then check_isotropy(fn, delta / dx, args.partial_volume ~= false, plane) end
  local kernel = args.kernel or "point"
  if args.law ~= nil and getmetatable(args.law) ~= cl.jit.law_mt then
    error(fn .. ": argument 'law' must be a law made by cleave.jit.bond_force{...}", 2)
  end
  local x, global_n, plan
  if grid then
    x, global_n, plan = local_grid(grid, dim, dx, delta, precision, args.reorder ~= false)
  else
    x = x64:convert(precision)
    x64 = nil
    collectgarbage() -- free the f64 coordinates before the reordering's buffers
    if type(volume) ~= "number" then volume = volume:convert(precision) end
    if args.reorder ~= false then
      local order = pd.morton_order(x, delta)
      x = pd.gather(x, order)
      if type(volume) ~= "number" then volume = pd.gather(volume, order) end
    end
    global_n = x.n
    if cl.comm.size() > 1 and args.partition ~= false then
      x, volume, plan = partition(x, volume, delta, partition_method)
    end
  end
  collectgarbage() -- the reordering's temporaries hold device memory the body needs
  local n = x.n
  local b = setmetatable({
    dim = dim, plane = plane, thickness = thickness, precision = precision, material = material,
    dx = dx, delta = delta, n = n, x = x, volume = volume, kernel = kernel,
    u = cl.field { n = n, k = dim, dtype = precision },
    v = cl.field { n = n, k = dim, dtype = precision },
    a = cl.field { n = n, k = dim, dtype = precision },
    damage = cl.field { n = n, dtype = precision },
    c = micromodulus(dim, plane, material.E, delta, thickness),
    s0 = material.s0 or (material.G0 and critical_stretch(dim, plane, material.E, material.G0, delta)) or 0,
    partial_volume = args.partial_volume ~= false, law = args.law,
    constraints = {}, body_load = nil,
    plan = plan, owned = plan and plan.owned or n, global_n = global_n,
    overlap = args.overlap ~= false, transport = args.transport,
  }, body_mt)
  b.bonds = pd.bonds { x = x, delta = delta, layout = layout, dx = dx }
  if b.law then b:allocate_law_state() end
  if args.surface_correction ~= false then b.surface = b:surface_factors() end
  return b
end

-- Strain energy density of a uniform extension eps along each axis in the continuum:
-- E eps^2 / (2 (1 - nu^2)) in plane stress (nu = 1/3), (lambda + 2 mu) eps^2 / 2 = 0.6 E eps^2
-- in plane strain and 3D (nu = 1/4).
local function uniform_extension_energy(dim, plane, E, eps)
  if dim == 2 and plane ~= "strain" then return 9 / 16 * E * eps * eps end
  return 0.6 * E * eps * eps
end

--- The surface correction factors (Madenci & Oterkus 2014): for each axis, the continuum
--- strain energy density of a uniform extension over the PD one at each point (n x dim).
--- They correct both the missing neighbours near free surfaces and the discretisation of
--- the horizon in the interior.
function body_mt:surface_factors()
  local eps = 1e-3
  local target = uniform_extension_energy(self.dim, self.plane, self.material.E, eps)
  local energy = cl.field { n = self.n, dtype = self.precision }
  local factors = cl.field { n = self.n, k = self.dim, dtype = self.precision }
  local columns, xs = {}, self.x:to_table()
  self.surface = nil -- the stage below measures the uncorrected body
  local stage = self:force_stage { energy = energy, break_bonds = false }
  for axis = 1, self.dim do
    self.u:assign(function(i)
      local row = { 0, 0, 0 }
      row[axis] = eps * xs[i][axis]
      return table.unpack(row, 1, self.dim)
    end)
    stage:run()
    columns[axis] = energy:to_table()
  end
  factors:assign(function(i)
    local row = {}
    for axis = 1, self.dim do row[axis] = target / columns[axis][i] end
    return table.unpack(row, 1, self.dim)
  end)
  self.u:fill(0)
  self.a:fill(0)
  -- a ghost misses part of its family here: its factors (which its bonds with owned points use) come from its owner
  if self.plan then self:halo(factors):run() end
  return factors
end

--- body:step_force_stages([kick]) -> the stages of a step's forces: the force stage, after the halo stage
--- that refreshes the ghosts' displacements on a partitioned body. With overlap (the default; not with
--- kernel = "half", which writes both ends of a bond) the halo is started, the interior rows (whose
--- family is all owned: plan.interior) are computed while its messages travel, and the other owned
--- rows once it has finished; ghost rows are not computed (nothing reads their forces). kick = { dt =,
--- held = } fuses the step's closing kick into them (force_stage).
function body_mt:step_force_stages(kick)
  if not self.plan then return { self:force_stage { kick = kick } } end
  local halo = self:halo(self.u)
  if not self.overlap or self.kernel == "half" then return { halo, self:force_stage { kick = kick } } end
  local interior, owned = self.plan.interior, self.owned
  return { cl.stage.halo_start { halo = halo }, self:force_stage { rows = { 0, interior }, kick = kick },
    cl.stage.halo_finish { halo = halo }, self:force_stage { rows = { interior, owned - interior }, kick = kick } }
end

--- body:halo(field) -> the stage that copies the ghost rows of a field of a partitioned body
--- from their owners (cl.stage.halo)
function body_mt:halo(field) return cl.stage.halo { field = field, plan = self.plan, transport = self.transport } end

-- The rows of the points this rank owns (all of them when the body is not partitioned).
local function owned_rows(self, field)
  if not self.plan then return field end
  self.owned_order = self.owned_order or cl.field { data = (function()
    local t = {}
    for i = 1, self.owned do t[i] = i - 1 end
    return t
  end)(), dtype = "u32" }
  return pd.gather(field, self.owned_order)
end

-- value combined over the ranks of a partitioned body (op: "sum", "min", "max")
local function over_ranks(self, op, value)
  if not self.plan then return value end
  return cl.comm[op](value)
end

--- body:broken_bonds() -> the number of broken bonds of the whole body (over all ranks)
function body_mt:broken_bonds()
  if not self.plan then return self.bonds:broken() end
  return math.tointeger(cl.comm.sum(self.bonds:broken(self.owned)) // 2)
end

--- body:max_damage() -> the largest damage of the whole body (over all ranks)
function body_mt:max_damage() return over_ranks(self, "max", owned_rows(self, self.damage):max()) end

--- body:owned(field) -> the rows of a field (one per local point) of the points this rank owns: a
--- copy on a partitioned body, the field itself otherwise
function body_mt:owned(field) return owned_rows(self, field) end

--- body:min(field [, c]), body:max, body:sum, body:norm: the field's reduction (as f:min(c) ...) over
--- the whole body, on every rank: a partitioned body's owned rows, combined over the ranks
function body_mt:min(field, c) return over_ranks(self, "min", owned_rows(self, field):min(c)) end
function body_mt:max(field, c) return over_ranks(self, "max", owned_rows(self, field):max(c)) end
function body_mt:sum(field, c) return over_ranks(self, "sum", owned_rows(self, field):sum(c)) end
function body_mt:norm(field, c)
  if not self.plan then return field:norm(c) end
  return math.sqrt(cl.comm.sum(owned_rows(self, field):norm(c) ^ 2))
end

--- body:select(where [, params]) -> u32 field of the 1-based rows of the points in the region
--- (where: a function(x, y, z) or an expression; params: named numbers the expression uses)
function body_mt:select(where, params, fn, level)
  fn, level = fn or "body:select", level or 2
  local inside = region(fn, where, params, level + 1)
  local rows = {}
  if type(inside) == "function" then
    local coords = self.x:to_table()
    for i = 1, self.n do
      local p = coords[i]
      if inside(p[1], p[2], p[3] or 0) then rows[#rows + 1] = i end
    end
  else
    for i, flag in ipairs(inside:inside(self.x, self.dx):to_table()) do
      if flag ~= 0 then rows[#rows + 1] = i end
    end
  end
  if over_ranks(self, "sum", #rows) == 0 then
    error(string.format("%s: the region %s holds no points of the body", fn,
      type(where) == "string" and ("'" .. where .. "'") or "(function)"), level)
  end
  return cl.field { data = rows, dtype = "u32" }
end

--- body:precrack{ {x1, y1}, {x2, y2} } (2D segment) or { corner, edge1, edge2 } (3D rectangle):
--- breaks every bond crossing it. Returns the number of bonds broken.
function body_mt:precrack(geometry)
  if type(geometry) ~= "table" then error("body:precrack: give a segment {{x1, y1}, {x2, y2}} or a rectangle", 2) end
  local lo, hi = {}, {}
  for c = 1, self.dim do
    lo[c], hi[c] = over_ranks(self, "min", self.x:min(c)) - self.delta, over_ranks(self, "max", self.x:max(c)) + self.delta
  end
  for _, p in ipairs(geometry) do
    for c = 1, self.dim do
      if type(p[c]) == "number" and self.dim == 2 and (p[c] < lo[c] or p[c] > hi[c]) then
        error(string.format("body:precrack: point (%g, %g) lies outside the body (%g..%g x %g..%g)",
          p[1], p[2], lo[1], hi[1], lo[2], hi[2]), 2)
      end
    end
  end
  local cut
  if self.plan then
    local before = self:broken_bonds()
    self.bonds:cut(geometry)
    cut = self:broken_bonds() - before
  else
    cut = self.bonds:cut(geometry)
  end
  if cut == 0 then error("body:precrack: the crack crosses no bond of the body", 2) end
  return cut
end

local function components(self, fn, args, prefix, level)
  local names = { prefix .. "x", prefix .. "y", prefix .. "z" }
  local out = {}
  for c = 1, self.dim do
    if args[names[c]] ~= nil then out[c] = time_function(fn, names[c], args[names[c]], args.params, level + 1) end
  end
  if next(out) == nil then
    error(string.format("%s: give at least one of %s", fn, table.concat(names, ", ", 1, self.dim)), level)
  end
  return out
end

local function load_keys(prefix)
  return { where = true, params = true, [prefix .. "x"] = true, [prefix .. "y"] = true, [prefix .. "z"] = true }
end

-- Records a constraint of `kind` on each given component of the region (called from a method).
local function constrain(self, kind, fn, args, prefix)
  cl.check_args(fn, args, load_keys(prefix), 4)
  local rows = self:select(args.where, args.params, fn, 4)
  for c, value in pairs(components(self, fn, args, prefix, 4)) do
    self.constraints[#self.constraints + 1] = { kind = kind, rows = rows, component = c, value = value }
  end
end

--- body:velocity{ where =, vx =, vy =, vz = }: prescribed velocity (number, function(t) or expression)
function body_mt:velocity(args) constrain(self, "velocity", "body:velocity", args, "v") end

--- body:displacement{ where =, ux =, uy =, uz = }: prescribed displacement
function body_mt:displacement(args) constrain(self, "displacement", "body:displacement", args, "u") end

local function at_time_zero(value) return type(value) == "number" and value or value(0) end

--- body:initial_velocity{ where =, vx =, vy =, vz = } (numbers or functions of t, taken at t = 0)
function body_mt:initial_velocity(args)
  cl.check_args("body:initial_velocity", args, load_keys("v"))
  local rows = self:select(args.where, args.params, "body:initial_velocity", 3)
  for c, value in pairs(components(self, "body:initial_velocity", args, "v", 3)) do
    cl.stage.set_rows { field = self.v, rows = rows, component = c, value = at_time_zero(value) }:run()
  end
end

-- Adds a force density value * scale to component c of rows. Constant ones are summed into
-- self.body_constant now; those varying in time (functions of t) are kept and added to it at
-- every step by body:load_stages(). self.body_load is what the step kernel reads.
local function add_body_force(self, rows, c, value, scale)
  self.body_constant = self.body_constant or cl.field { n = self.n, k = self.dim, dtype = self.precision }
  if type(value) == "number" then
    local current = self.body_constant:to_table()
    for _, i in ipairs(rows:to_table()) do
      local row = current[i]
      row[c] = row[c] + value * scale
      self.body_constant[i] = row
    end
  else
    self.varying_loads = self.varying_loads or {}
    table.insert(self.varying_loads, { rows = rows, component = c, value = value, scale = scale })
  end
  if not self.varying_loads then
    self.body_load = self.body_constant
    return
  end
  if self.body_load == nil or self.body_load == self.body_constant then
    self.body_load = cl.field { n = self.n, k = self.dim, dtype = self.precision }
  end
  self:set_loads(0)
end

--- The stages that put the loads at the step's time into body.body_load (none when every load
--- is constant).
function body_mt:load_stages()
  if not self.varying_loads then return {} end
  local stages = { cl.stage.copy { dst = self.body_load, src = self.body_constant } }
  for _, l in ipairs(self.varying_loads) do
    stages[#stages + 1] = cl.stage.set_rows { field = self.body_load, rows = l.rows, component = l.component,
      value = stage_value(l.value, self.body_load, l.scale), add = true }
  end
  return stages
end

--- Puts the loads at time t into body.body_load.
function body_mt:set_loads(t)
  for _, stage in ipairs(self:load_stages()) do stage:run(0, t) end
end

--- body:body_force{ where =, bx =, by =, bz = }: force per unit volume (number, function(t) or
--- expression in t)
function body_mt:body_force(args)
  local fn = "body:body_force"
  cl.check_args(fn, args, load_keys("b"))
  local rows = self:select(args.where, args.params, fn, 3)
  for c, value in pairs(components(self, fn, args, "b", 3)) do add_body_force(self, rows, c, value, 1) end
end

--- body:traction{ where =, tx =, ty =, tz =, layer = dx }: a traction (force per area) on a
--- boundary, applied as the body force traction / layer on the points of the region (a layer
--- of that thickness).
function body_mt:traction(args)
  local keys = load_keys("t")
  keys.layer = true
  cl.check_args("body:traction", args, keys)
  local fn = "body:traction"
  local layer = args.layer == nil and self.dx or cl.positive_number(fn, args, "layer")
  local rows = self:select(args.where, args.params, fn, 3)
  for c, value in pairs(components(self, fn, args, "t", 3)) do add_body_force(self, rows, c, value, 1 / layer) end
end

--- Per-point bond stiffness S_i = sum_j V_j / |xi_ij| (cached: the bond geometry never changes).
function body_mt:stiffness()
  self.stiffness_sums = self.stiffness_sums or self.bonds:stiffness(self.volume)
  return self.stiffness_sums
end

--- Stable time step (Silling & Askari 2005): dt < sqrt(2 rho / (c max_i S_i)).
function body_mt:stable_dt()
  -- a ghost's sum misses bonds, so the largest local sum is an owned point's (or below the owner's)
  return math.sqrt(2 * self.material.rho / (self.c * over_ranks(self, "max", self:stiffness():max())))
end

--- Strain and kinetic energy of the body (J; per unit thickness times thickness in 2D). With a
--- user law the strain energy is NaN: a law gives forces, not energies.
function body_mt:energy()
  self.energy_density = self.energy_density or cl.field { n = self.n, dtype = self.precision }
  local energy = self.energy_density
  -- accelerations into a field of its own: a run's body.a (zero on constrained points) must
  -- stay as the step left it, or asking for energies would change the run
  self.energy_a = self.energy_a or cl.field { n = self.n, k = self.dim, dtype = self.precision }
  self:force_stage { energy = energy, break_bonds = false, a = self.energy_a }:run()
  local strain, kinetic
  energy = owned_rows(self, energy) -- a ghost's energy is its owner's to count
  if type(self.volume) == "number" then
    strain = energy:sum() * self.volume
    kinetic = 0.5 * self.material.rho * self.volume * owned_rows(self, self.v):norm() ^ 2
  else
    strain = cl.dot(energy, owned_rows(self, self.volume))
    local v2 = 0
    local vt, vol = self.v:to_table(), self.volume:to_table()
    for i = 1, self.owned do
      local s = 0
      for c = 1, self.dim do s = s + vt[i][c] ^ 2 end
      v2 = v2 + s * vol[i]
    end
    kinetic = 0.5 * self.material.rho * v2
  end
  if self.law then strain = 0 / 0 end
  if self.plan then strain, kinetic = table.unpack(cl.comm.sum { strain, kinetic }) end
  return strain, kinetic
end

--- The fields of the law's state variables (body.law_state.name): one value per bond entry (a
--- lattice's n x stencil entries, a list's bond entries), set to the law's initial values.
function body_mt:allocate_law_state()
  self.law_state = {}
  local rows, k = self.n, self.bonds.stencil
  if not k then rows, k = self.bonds.entries, 1 end
  for _, name in ipairs(self.law.state_names) do
    self.law_state[name] = cl.field { n = rows, k = k, dtype = self.precision, value = self.law.state[name] }
  end
end

local function law_state_fields(body)
  if not body.law then return nil end
  if not body.law_state then body:allocate_law_state() end
  local fields = {}
  for k, name in ipairs(body.law.state_names) do fields[k] = body.law_state[name] end
  return fields
end

--- The step kernel as a stage (options: energy = field, break_bonds = false, kernel =, rows = { first, count },
--- kick = { dt =, held = u8 field or nil }: v += dt/2 a after a is written, except the held components; or
--- kick = { advance = a cl.stage.pd_advance }: that and the next step's kick-drift, into its u_next). With a
--- user law (body.law) the stage runs it, except for energies: only PMB has a strain energy here.
function body_mt:force_stage(opts)
  opts = opts or {}
  local kernel = opts.kernel or self.kernel
  local law = self.law and opts.energy == nil and self.law:module(self.x, self.bonds.layout, kernel) or nil
  return cl.stage.pd_force {
    x = self.x, u = self.u, bonds = self.bonds, c = self.c, rho = opts.rho or self.material.rho,
    s0 = opts.break_bonds == false and 0 or self.s0, delta = self.delta, a = opts.a or self.a,
    dx = self.partial_volume and self.dx or 0, volume = self.volume, body = self.body_load,
    surface = self.surface,
    damage = self.damage, energy = opts.energy, kernel = kernel, law = law, law_state = law and law_state_fields(self),
    rows = opts.rows, advance = opts.kick and opts.kick.advance,
    v = opts.kick and not opts.kick.advance and self.v or nil, kick_dt = opts.kick and opts.kick.dt,
    kick_held = opts.kick and opts.kick.held,
  }
end

--- The force density rho a (N/m^3) of the last step, in a field kept for output.
function body_mt:force_density()
  self.force_density_field = self.force_density_field or cl.field { n = self.n, k = self.dim, dtype = self.precision }
  self.force_density_field:fill(0)
  cl.stage.axpy { y = self.force_density_field, x = self.a, a = self.material.rho }:run()
  return self.force_density_field
end

--- A mesh table for output: the points as VTK vertices (a partitioned body's owned points).
function body_mt:mesh()
  local coords = owned_rows(self, self.x)
  if self.precision ~= "f64" then coords = coords:convert("f64") end
  return { x = coords }
end

pd.body_mt = body_mt
-- the region and load-value helpers, which cleave.fpm shares
pd.region, pd.time_function, pd.stage_value = region, time_function, stage_value

-- Reactions of prescribed points (the object cleave.czm bodies give too, lua/cleave/explicit.lua).
-- The force the constraint exerts on point i's prescribed component c is minus the force the bonds
-- and loads put there, -rho V_i a_ic before the step zeroes a (the point's own inertia, zero under a
-- constant prescribed value, left out); its work is summed by the trapezoid rule on the point's
-- displacement, the rule velocity Verlet's balance holds. Recorded by a host stage each step that
-- reads the region's rows of a and u (one transfer of each field per step, no table of the whole
-- body: a cost only runs with reactions pay).

--- body:reaction{ where =, params =, name = } -> r: r:force() ({fx, fy[, fz]}), r:work(),
--- r:displacement() (the region's mean), tostring(r); run CSV columns <name>_fx ... _work.
function body_mt:reaction(args)
  local fn = "body:reaction"
  cl.check_args(fn, args, { where = true, params = true, name = true })
  if self.has_run then
    error(fn .. ": define reactions before the body's run (cl.explicit) is made: the run records those it found", 2)
  end
  local rows = self:select(args.where, args.params, fn, 3):to_table()
  if self.plan then -- a partitioned body: each point's reaction is recorded by its owner
    local mine = {}
    for _, i in ipairs(rows) do if i <= self.owned then mine[#mine + 1] = i end end
    rows = mine
  end
  local count = over_ranks(self, "sum", #rows)
  local dim, body = self.dim, self
  local record = { force = {}, work = 0, last = {} } -- last[i][c] = { force, u } of the last step
  for c = 1, dim do record.force[c] = 0 end
  local r = cl.explicit_run.reaction(fn, self, args, count, "points", dim, function()
    local u, mean = body.u, {}
    for c = 1, dim do mean[c] = 0 end
    for _, i in ipairs(rows) do
      local ui = u[i]
      for c = 1, dim do mean[c] = mean[c] + ui[c] / count end
    end
    local force, work = { table.unpack(record.force) }, record.work
    if body.plan then -- summed over the ranks: every rank asks at once (as a run's CSV rows do)
      local all = { work }
      for c = 1, dim do all[1 + c], all[1 + dim + c] = force[c], mean[c] end
      all = cl.comm.sum(all)
      work = all[1]
      for c = 1, dim do force[c], mean[c] = all[1 + c], all[1 + dim + c] end
    end
    return force, work, mean
  end)
  r.rows, r.record = rows, record
  return r
end

-- The prescribed components of each point (bit c - 1), from the constraints.
local function prescribed(body)
  local mask = {}
  for _, k in ipairs(body.constraints) do
    for _, i in ipairs(k.rows:to_table()) do mask[i] = (mask[i] or 0) | (1 << (k.component - 1)) end
  end
  return mask
end

--- body:reaction_stage() -> the stage recording the reactions (step_pipeline adds it).
function body_mt:reaction_stage()
  local body = self
  local mask = prescribed(body) -- the constraints of the run this stage is made for
  return cl.stage.call(function()
    local a, u, volume = body.a, body.u, body.volume
    for _, r in ipairs(body.reactions) do
      local rec = r.record
      for c = 1, body.dim do rec.force[c] = 0 end
      for _, i in ipairs(r.rows) do
        local m = body.material.rho * (type(volume) == "number" and volume or volume[i])
        local last, ai, ui = rec.last[i], a[i], u[i]
        for c = 1, body.dim do
          if (mask[i] or 0) >> (c - 1) & 1 == 1 then
            local f = -m * ai[c]
            if last then rec.work = rec.work + (last[c][1] + f) / 2 * (ui[c] - last[c][2]) end
            rec.force[c] = rec.force[c] + f
            rec.last[i] = rec.last[i] or {}
            rec.last[i][c] = { f, ui[c] }
          end
        end
      end
    end
  end)
end

--- body:reaction_work() -> the work of all the body's reactions (the external work of prescribed motion)
function body_mt:reaction_work()
  local w = 0
  for _, r in ipairs(self.reactions or {}) do w = w + r.record.work end
  return over_ranks(self, "sum", w) -- every rank of a partitioned body asks at once
end

-- The components each point's constraints prescribe as a u8 field (bit c - 1: component c),
-- which the fused kick leaves alone; nil without constraints.
local function held_field(body)
  if #body.constraints == 0 then return nil end
  local mask, data = prescribed(body), {}
  for i = 1, body.n do data[i] = mask[i] or 0 end
  return cl.field { data = data, dtype = "u8" }
end

--- Whether a body's step fuses the next step's opening kick-drift into its force pass (u double-buffered:
--- body.u_next; docs/methods/peridynamics.md). The one switch for the default (a body's own
--- body.fused_drift = true / false overrides it, for tests and benchmarks). On: on the H100
--- (2026-11-25, bench_pd.lua 10e6 10e6 50 point,fused,fused2, the lead) it was the fastest step of
--- all four cases, 2D f32 0.563 ms against 0.662 with the closing kick alone (docs/benchmarks.md).
--- The half stencil keeps the separate kick-drift stage whatever this says (step_pipeline).
pd.fused_drift = true

-- The velocity-Verlet time step of a body as a pipeline (see docs/methods/peridynamics.md):
-- prescribed velocities at mid-step, kick-drift, prescribed displacements, bond forces
-- (+ breaking + damage) and the closing kick of the unconstrained components in the same
-- pass, zero acceleration on constrained points. With the fused drift (pd.fused_drift) the force
-- pass also kicks and drifts the unconstrained components for the next step, writing u(n+1) to
-- body.u_next, and the step's kick-drift stage becomes pd_advance: it swaps u(n+1) in and
-- kick-drifts the constrained components after their velocities were set (not with the half
-- stencil, which sums its forces in a). body.separate_kick (an internal switch, for tests and
-- benchmarks) runs the kick as its own stage after the zeroing, the kick-drift as its own
-- before the forces: the same numbers. Returns the pipeline and its pd_advance stage, if any.
local function step_pipeline(body, dt)
  local stages = {}
  local function add(stage) stages[#stages + 1] = stage end
  for _, k in ipairs(body.constraints) do
    if k.kind == "velocity" then
      add(cl.stage.set_rows { field = body.v, rows = k.rows, component = k.component, value = stage_value(k.value, body.v),
        time_offset = -dt / 2 })
    end
  end
  local fused = not body.separate_kick
  local held = fused and held_field(body) or nil
  local drift = fused and body.kernel ~= "half"
  if body.fused_drift ~= nil then drift = drift and body.fused_drift else drift = drift and pd.fused_drift end
  local advance, kick
  if drift then
    body.u_next = body.u_next or cl.field { n = body.n, k = body.dim, dtype = body.precision }
    advance = cl.stage.pd_advance { u = body.u, u_next = body.u_next, v = body.v, a = body.a, dt = dt, held = held }
    add(advance)
    kick = { advance = advance }
  else
    add(cl.stage.verlet_kick_drift { u = body.u, v = body.v, a = body.a, dt = dt })
    kick = fused and { dt = dt, held = held } or nil
  end
  for _, k in ipairs(body.constraints) do
    if k.kind == "displacement" then
      add(cl.stage.set_rows { field = body.u, rows = k.rows, component = k.component, value = stage_value(k.value, body.u) })
      add(cl.stage.set_rows { field = body.v, rows = k.rows, component = k.component, value = 0 })
    end
  end
  for _, stage in ipairs(body:load_stages()) do add(stage) end
  for _, stage in ipairs(body:step_force_stages(kick)) do add(stage) end
  if body.reactions then add(body:reaction_stage()) end -- before the constraints zero a
  body.has_run = true -- a reaction made later would not be in this pipeline: body:reaction refuses it
  for _, k in ipairs(body.constraints) do
    add(cl.stage.set_rows { field = body.a, rows = k.rows, component = k.component, value = 0 })
  end
  if not kick then add(cl.stage.verlet_kick { v = body.v, a = body.a, dt = dt }) end
  return cl.pipeline(stages), advance
end

local run_mt = {}
run_mt.__index = run_mt
run_mt.__tostring = function(r)
  return string.format("explicit<%s, dt = %g, step %d of %d, t = %g>", tostring(r.body), r.dt, r.step, r.steps, r.t)
end

-- A partitioned body's checkpoint is the one-rank checkpoint of the whole body (rows in global
-- order, gathered to rank 0), so that it restores on any number of ranks, one included. Its bond
-- state: a lattice's is the same words per point on every rank; a list's entries name each rank's
-- own rows, so a list's checkpoint holds each point's broken flags in the order of its neighbours'
-- global indices (bonds:sorted_state), in words planes as a lattice's, on one rank as on several.
local function state_words(b)
  if b.bonds.layout == "lattice" then return b.bonds.words end
  -- the largest family over the ranks (a ghost's is a part of its owner's): the same words everywhere
  b.state_words = b.state_words or math.max(1, (math.tointeger(over_ranks(b, "max", b.bonds:counts():max())) + 31) // 32)
  return b.state_words
end

-- The bond entries of the whole body (each bond at both ends), over all ranks.
local function global_entries(b)
  if not b.plan then return b.bonds.entries end
  b.entries_global = b.entries_global or math.tointeger(cl.comm.sum(owned_rows(b, b.bonds:counts():convert("f64")):sum()))
  return b.entries_global
end

--- cleave.explicit{ body, dt = "auto" | number, steps =, output = { every =, vtu =, csv =,
---   png = path or { path =, field = "damage" }, checkpoint = path }, progress = true } -> run; run:go()
--- With output.checkpoint the state is saved every `every` steps and when Ctrl-C stops the run.
function cl.explicit(args)
  local fn = "cleave.explicit"
  cl.check_args(fn, args, cl.explicit_run.keys)
  local body = args[1] or args.body
  if getmetatable(body) ~= body_mt then error(fn .. ": the first entry must be a body (cleave.pd.body{...})", 2) end
  local run = cl.explicit_run.new(fn, args, body, run_mt, body:stable_dt(), 0.8, "this body (Silling & Askari)")
  run.pipeline, run.advance = step_pipeline(body, run.dt)
  run.collective = body.plan ~= nil -- the ranks step together: Ctrl-C stops them at one step
  body:set_loads(0)
  if body.plan then body:halo(body.u):run() end
  body:force_stage():run() -- accelerations of the initial state, for the first kick
  return run
end

-- The names and fields a checkpoint holds: u, v, a, damage, and the law's state variables.
local function state_fields(b)
  local names, fields = { "u", "v", "a", "damage" }, { u = b.u, v = b.v, a = b.a, damage = b.damage }
  for _, name in ipairs(b.law and b.law.state_names or {}) do
    names[#names + 1] = "law_" .. name
    fields["law_" .. name] = b.law_state[name]
  end
  return names, fields
end

--- run:save(path [, step]): a checkpoint of the body's state (u, v, a, damage, bond states, a
--- law's state variables) and the run's step; run:restore(path) continues from one written for
--- the same body and dt, on any number of ranks.
function run_mt:save(path, step)
  local b = self.body
  local names, fields = state_fields(b)
  local words, list = state_words(b), b.bonds.layout == "list"
  fields.bonds = list and b.bonds:sorted_state(words, b.plan and b.plan.global) or b.bonds:state()
  local values = { step = step or self.step, dt = self.dt, n = b.global_n, bonds = global_entries(b), -- entries, as always: old checkpoints restore
    bond_words = list and words or nil }
  if b.plan then
    -- in the same order on every rank (a gather is collective; pairs' order differs between ranks)
    for _, name in ipairs(names) do fields[name] = cl.comm.gather_rows(fields[name], b.plan) end -- rank 0: global rows
    fields.bonds = cl.comm.gather_rows(fields.bonds, b.plan, words)
  end
  if cl.comm.rank() == 0 or not b.plan then cl.io.save_checkpoint { path = path, fields = fields, values = values } end
  -- written when any rank returns (after Ctrl-C each then stops the job: rank 0 must have finished)
  if b.plan then cl.comm.barrier() end
end

function run_mt:restore(path)
  local b = self.body
  local fields, values = cl.io.load_checkpoint(path)
  local entries = global_entries(b)
  if values.n ~= b.global_n or values.bonds ~= entries or values.dt ~= self.dt then
    error(string.format("run:restore: checkpoint '%s' was written for %s points, %s bond entries, dt = %s; this run has %d, %d, %g",
      path, tostring(values.n), tostring(values.bonds), tostring(values.dt), b.global_n, entries, self.dt), 2)
  end
  -- a list's flags in global neighbour order (values.bond_words), or its entries of one rank (older checkpoints)
  local sorted, list = values.bond_words ~= nil, b.bonds.layout == "list"
  if sorted and not list then
    error(string.format("run:restore: checkpoint '%s' holds the bonds of the list layout; this body has the lattice " ..
      "layout: give cleave.pd.body{ layout = \"list\" }", path), 2)
  elseif list and not sorted and b.plan then
    error(string.format("run:restore: checkpoint '%s' holds one rank's bond list (an older checkpoint) or a lattice's bits; " ..
      "a body partitioned over %d ranks needs a list checkpoint of this cleave: restore it on one rank (without " ..
      "mpirun) and save it again", path, b.plan.parts), 2)
  end
  local names, mine = state_fields(b)
  local bonds = fields.bonds
  if b.plan then -- this rank's rows (owned and ghosts) of the whole body's
    for _, name in ipairs(names) do
      if fields[name] then fields[name] = cl.comm.take_rows(fields[name], b.plan) end
    end
    if bonds then bonds = cl.comm.take_rows(bonds, b.plan, sorted and math.tointeger(values.bond_words) or b.bonds.words) end
  end
  cl.explicit_run.restore_fields(self, path, fields, values, mine, names)
  if sorted then
    b.bonds:set_sorted_state(bonds:copy(b.x.device), b.owned, b.plan and b.plan.global)
  else
    b.bonds:set_state(bonds:copy(b.x.device))
  end
end

-- Writes the outputs due at this step.
function run_mt:write(step, t)
  local b, out = self.body, self.output
  if out.checkpoint and step > 0 then self:save(out.checkpoint, step) end
  if out.vtu then
    self.series = self.series or cl.io.pvd(out.vtu .. ".pvd")
    self.mesh = self.mesh or b:mesh()
    local data = { u = b.u, v = b.v, damage = b.damage, force_density = b:force_density() }
    for _, name in ipairs(b.law and b.law.state_names or {}) do
      data["law_" .. name .. "_max"] = b.bonds:point_max(b.law_state[name]) -- per bond: each point's largest
    end
    -- a partitioned body: each rank its owned points as a piece of a .pvtu (rank 0 writes the .pvtu and .pvd)
    for name, field in pairs(data) do data[name] = owned_rows(b, field) end
    self.series:write { time = t, mesh = self.mesh, point_data = data, pieces = b.plan ~= nil }
  end
  if out.csv then
    local columns = { "step", "t", "strain_energy", "kinetic_energy", "total_energy", "broken_bonds", "max_damage" }
    for _, c in ipairs(cl.explicit_run.reaction_columns(b)) do columns[#columns + 1] = c end
    -- every rank takes part in the reductions; rank 0 writes the file
    local strain, kinetic = b:energy()
    local values = cl.explicit_run.reaction_values(b,
      { step, t, strain, kinetic, strain + kinetic, b:broken_bonds(), b:max_damage() })
    if cl.comm.rank() == 0 then
      self.history = self.history or cl.io.csv { path = out.csv, columns = columns }
      self.history:row(values)
    end
  end
end

-- The state may have changed since the last step (a script between two go calls, run:restore): the
-- first step drifts u itself instead of taking the u(n+1) the last force pass wrote.
function run_mt:go(args)
  if self.advance then self.advance:reset() end
  return cl.explicit_run.go(self, args)
end

-- What the run checks for NaN and infinities (explicit.nonfinite): every field the step writes
-- per point (a law's per-bond state feeds only the force, which a law's own check covers).
function run_mt:checked_fields()
  local b = self.body
  return { what = "point", x = b.x, fields = { { "u", b.u }, { "v", b.v }, { "a", b.a }, { "damage", b.damage } } }
end

function run_mt:statistics(steps, seconds)
  -- a partitioned body: the whole body's bond updates in the slowest rank's time
  if self.body.plan and seconds then seconds = cl.comm.max(seconds) end
  return { steps = steps, seconds = seconds,
    bond_updates_per_second = seconds and seconds > 0 and steps * global_entries(self.body) / seconds or nil }
end

-- The fields output.png may show (those of the body with a row per point) and its keys; not the
-- fused step's u_next, which holds the next step's u (a picture shows the state of its step).
function run_mt.png_fields(body)
  local names = {}
  for k, v in pairs(body) do
    if type(k) == "string" and k ~= "u_next" and (getmetatable(v) or {}).__name == "cleave.field" and v.n == body.n then
      names[#names + 1] = k
    end
  end
  return names, { path = true, field = true }
end

-- output.png: a path, or { path =, field = "damage" } (a field of the body)
function run_mt:png(spec)
  local path, field = spec, "damage"
  if type(spec) == "table" then path, field = spec.path, spec.field or "damage" end
  local b = self.body
  local mesh, values = nil, b[field]
  if b.plan then -- one picture of the whole body, drawn by rank 0 from every rank's own points
    local x = cl.comm.gather_rows(b.x, b.plan)
    values = cl.comm.gather_rows(values, b.plan)
    if cl.comm.rank() ~= 0 then return end
    mesh = { x = b.precision == "f64" and x or x:convert("f64") }
  else
    mesh = b:mesh()
  end
  cl.io.png { path = path, mesh = mesh, field = values, title = field, component = values.k > 1 and "magnitude" or 1 }
end

-- The damaged points (damage >= threshold) on a tip's side, in the tip's frame with the side turned
-- to +y: { dx, dy, r, theta }. The notch flank behind the tip (x < 0, y < flank) is left out: its
-- points are damaged by the pre-crack, not by the crack that grows.
local function side_points(xs, damage, tip, threshold, flank)
  local points = {}
  for i = 1, #xs do
    local px, py = xs[i][1] - tip[1], (xs[i][2] - tip[2]) * tip[3]
    if damage[i] >= threshold and py > 0 and not (px < 0 and py < flank) then
      points[#points + 1] = { px, py, math.sqrt(px * px + py * py), math.atan(py, px) }
    end
  end
  return points
end

-- The groups of one ring's points (sorted by angle) separated by an arc wider than gap.
local function angular_groups(ring, radius, gap)
  table.sort(ring, function(p, q) return p[4] < q[4] end)
  local groups, current = {}, { ring[1] }
  for j = 2, #ring do
    if (ring[j][4] - ring[j - 1][4]) * radius > gap then
      groups[#groups + 1], current = current, {}
    end
    current[#current + 1] = ring[j]
  end
  groups[#groups + 1] = current
  for _, g in ipairs(groups) do
    local sum = 0
    for _, p in ipairs(g) do sum = sum + p[4] end
    g.theta = sum / #g
  end
  return groups
end

-- The group of `groups` a trace at angle theta continues into: the nearest within 45 degrees.
local function continuing(groups, theta)
  local best
  for _, g in ipairs(groups or {}) do
    if math.abs(g.theta - theta) <= math.rad(45) and (not best or math.abs(g.theta - theta) < math.abs(best.theta - theta)) then
      best = g
    end
  end
  return best
end

-- The last ring a trace entering ring k at angle theta reaches, continuing ring by ring.
local function reach(groups, k, theta, last)
  while k < last do
    local g = continuing(groups[k + 1], theta)
    if not g then break end
    k, theta = k + 1, g.theta
  end
  return k
end

-- The main crack from the tip: the points in rings of width `width` about the tip, outwards up to
-- `to`, grouped by angle; from ring to ring the trace continues into a group within 45 degrees of
-- the last one, choosing the group whose own continuation reaches farthest (a side branch ends
-- sooner), then the one turning least. It ends at a ring with no such group. Returns the points of
-- the groups followed.
local function trace_crack(points, width, to)
  local rings, last = {}, math.floor(to / width)
  for _, p in ipairs(points) do
    local k = math.floor(p[3] / width)
    if k <= last then
      rings[k] = rings[k] or {}
      table.insert(rings[k], p)
    end
  end
  local groups = {}
  for k, ring in pairs(rings) do groups[k] = angular_groups(ring, (k + 0.5) * width, width) end
  local followed, theta = {}, nil
  for k = 0, last do
    local best, best_reach
    for _, g in ipairs(groups[k] or {}) do
      if not theta or math.abs(g.theta - theta) <= math.rad(45) then
        local r = reach(groups, k, g.theta, last)
        local better = not best or r > best_reach or (r == best_reach and (theta and
          math.abs(g.theta - theta) < math.abs(best.theta - theta) or not theta and #g > #best))
        if better then best, best_reach = g, r end
      end
    end
    if not best then
      if theta then break end
    else
      theta = best.theta
      for _, p in ipairs(best) do followed[#followed + 1] = p end
    end
  end
  return followed
end

--- cleave.pd.crack_angles(body, tips [, opts]) -> { { angle =, points = }, ... }
--- For each tip { x, y, side } (side = +1: the crack runs towards +y, -1: towards -y), the
--- angle in degrees between +x (the notch direction, the notch lying at x < tip) and the line
--- through the tip that best fits the main crack: the damaged points (damage >= opts.threshold,
--- default 0.4) on that side traced outwards from the tip one horizon at a time (trace_crack:
--- side branches and the notch flank behind the tip are left out), of which those at a distance
--- between opts.from (default 3 horizons) and opts.to (default 40 horizons) are fitted.
--- points: how many were fitted.
function pd.crack_angles(body, tips, opts)
  opts = opts or {}
  local threshold, from, to = opts.threshold or 0.4, opts.from or 3 * body.delta, opts.to or 40 * body.delta
  local xs, damage = body.x, body.damage
  if body.plan then -- the whole body's points, on rank 0 (the others measure nothing and take rank 0's result)
    xs, damage = cl.comm.gather_rows(xs, body.plan), cl.comm.gather_rows(damage, body.plan)
  end
  xs, damage = xs and xs:to_table() or {}, damage and damage:to_table() or {}
  local result = {}
  for k, tip in ipairs(tips) do
    local sxx, sxy, syy, count = 0, 0, 0, 0
    for _, p in ipairs(trace_crack(side_points(xs, damage, tip, threshold, 2 * body.delta), body.delta, to)) do
      if p[3] >= from then
        sxx, sxy, syy, count = sxx + p[1] * p[1], sxy + p[1] * p[2], syy + p[2] * p[2], count + 1
      end
    end
    if count < 3 then
      result[k] = { angle = 0 / 0, points = count }
    else
      -- principal direction of the scatter about the tip: the line through it that fits best
      local theta = 0.5 * math.atan(2 * sxy, sxx - syy)
      local ux, uy = math.cos(theta), math.sin(theta)
      if uy < 0 then ux, uy = -ux, -uy end
      result[k] = { angle = math.deg(math.atan(uy, ux)), points = count }
    end
  end
  if body.plan then
    local flat = {}
    for k = 1, #tips do flat[2 * k - 1], flat[2 * k] = result[k].angle, result[k].points end
    flat = cl.comm.broadcast(flat)
    for k = 1, #tips do result[k] = { angle = flat[2 * k - 1], points = math.tointeger(flat[2 * k]) } end
  end
  return result
end

--- cleave.pd.relax{ body, steps = 20000, tolerance = 1e-5, check = 100 }
--- Quasi-static solution by adaptive dynamic relaxation (Kilic & Madenci 2010; kernels/pd/adr.h):
--- iterates until the out-of-balance force |f| falls below tolerance times the applied load
--- |b| (checked every `check` iterations) or `steps` iterations have run. Displacement
--- constraints hold; velocity constraints do not apply to a static problem. Bonds do not break.
--- Returns { steps =, residual =, converged = }.
function pd.relax(args)
  local fn = "cleave.pd.relax"
  cl.check_args(fn, args, { [1] = true, body = true, steps = true, tolerance = true, check = true })
  local body = args[1] or args.body
  if getmetatable(body) ~= body_mt then error(fn .. ": the first entry must be a body (cleave.pd.body{...})", 2) end
  local steps = args.steps and cl.positive_integer(fn, args, "steps", 1) or 20000
  local tolerance = args.tolerance and cl.positive_number(fn, args, "tolerance") or 1e-5
  local check = args.check and cl.positive_integer(fn, args, "check", 1) or 100
  if not body.body_load then error(fn .. ": the body carries no load (use body:traction or body:body_force)", 2) end
  local load = body:norm(body.body_load)
  local f = cl.field { n = body.n, k = body.dim, dtype = body.precision }
  local f_prev = cl.field { n = body.n, k = body.dim, dtype = body.precision }
  -- fictitious density: 5 times Kilic & Madenci's bound lambda >= dt^2/4 sum_j |K_ij| (dt = 1)
  local lambda = cl.field { n = body.n, dtype = body.precision }
  cl.stage.axpy { y = lambda, x = body:stiffness(), a = 1.25 * body.c }:run()
  local stages = {}
  for _, k in ipairs(body.constraints) do
    if k.kind == "displacement" then
      stages[#stages + 1] = cl.stage.set_rows { field = body.u, rows = k.rows, component = k.component,
        value = stage_value(k.value, body.u) }
    end
  end
  if body.plan then stages[#stages + 1] = body:halo(body.u) end -- the ghosts' displacements, for the owned points' bonds
  stages[#stages + 1] = body:force_stage { a = f, rho = 1, break_bonds = false }
  for _, k in ipairs(body.constraints) do
    if k.kind == "displacement" then
      stages[#stages + 1] = cl.stage.set_rows { field = f, rows = k.rows, component = k.component, value = 0 }
    end
  end
  -- a partitioned body: the damping's sums over every rank's own points (the same bits as one rank's)
  stages[#stages + 1] = cl.stage.pd_adr { u = body.u, v = body.v, f = f, f_prev = f_prev, lambda = lambda,
    owned = body.owned, over_ranks = body.plan ~= nil }
  local pipeline = cl.pipeline(stages)
  local done, residual = 0, math.huge
  while done < steps do
    local chunk = math.min(check, steps - done)
    cl.run { pipeline = pipeline, steps = chunk, progress = false, collective = body.plan ~= nil }
    done = done + chunk
    residual = body:norm(f) / load
    if residual < tolerance then break end
  end
  body.v:fill(0)
  return { steps = done, residual = residual, converged = residual < tolerance }
end
