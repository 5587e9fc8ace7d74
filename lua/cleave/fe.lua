-- cleave.fe: quasi-static small-strain elastoplastic FE in 2D (paper 002, Devloo et al.):
-- Lagrange quadrilaterals of order 1-3 and T3/T6 triangles, elastic or Mohr-Coulomb material,
-- Dirichlet constraints, edge pressures, an in-situ stress, and the initial stiffness,
-- accelerated initial stiffness and Newton solvers over a load factor. The device model is C
-- (lua/l_fe.c, kernels/fe_ep/); this file holds the mesh generators, the checks of named
-- arguments and the output. See docs/methods/elastoplastic-fe.md.
local cl = ...
local fe = cl.fe

-- ---- meshes: { shape, order, x = {x1, y1, ...}, elem = {1-based nodes}, nnodes, nelems,
-- nodes = { set = {node, ...} }, edges = { set = { {node, ...}, ... } } } ----------------------

local mesh_mt = {}
mesh_mt.__index = mesh_mt
mesh_mt.__tostring = function(m)
  return string.format("fe.mesh<%s%d, %d elements, %d nodes>", m.shape == "quad" and "Q" or "T",
    m.shape == "quad" and (m.order + 1) ^ 2 // 1 or (m.order == 1 and 3 or 6), m.nelems, m.nnodes)
end

local function check_order(fn, order)
  if order ~= 1 and order ~= 2 and order ~= 3 then
    error(string.format("%s: 'order' must be 1, 2 or 3 (got %s): quadrilaterals of higher order are not supported",
      fn, tostring(order)), 3)
  end
end

-- "quad" (default) or "tri" (two triangles per cell, order 1 or 2)
local function tri_shape(fn, args, order)
  local shape = args.shape or "quad"
  if shape ~= "quad" and shape ~= "tri" then error(fn .. ": 'shape' must be \"quad\" or \"tri\"", 3) end
  if shape == "tri" and order == 3 then error(fn .. ": triangles are of order 1 (T3) or 2 (T6), not 3", 3) end
  return shape == "tri"
end

local function positive_int(fn, args, key, default)
  local v = args[key] == nil and default or args[key]
  if math.type(v) ~= "integer" or v < 1 then
    error(string.format("%s: '%s' must be a positive integer (got %s)", fn, key, tostring(args[key])), 3)
  end
  return v
end

-- A structured grid of (p nr + 1) x (p nc + 1) nodes mapped by place(s, t) (s, t in [0, 1]),
-- cut into nr x nc Lagrange quadrilaterals of order p; wrap: the last column of nodes is the
-- first (a full ring). Node (i, j) has index 1 + i + (p nr + 1) j (the mesh's grid = { ni, nj, wrap }:
-- the multigrid solver coarsens it); element nodes in the
-- lexicographic order of kernels/fe/quad.h. Boundary edge sets s0, s1 (s = 0, 1: columns of
-- edges along t) and t0, t1 (t = 0, 1), node sets likewise.
local function grid(p, nr, nc, wrap, place, tri)
  local ni, nj = p * nr + 1, wrap and p * nc or p * nc + 1
  local x, elem = {}, {}
  for j = 0, nj - 1 do
    for i = 0, ni - 1 do
      local px, py = place(i / (ni - 1), j / (p * nc))
      x[#x + 1] = px
      x[#x + 1] = py
    end
  end
  local function node(i, j) return 1 + i + ni * (j % (p * nc + (wrap and 0 or 1))) end
  -- triangles (p <= 2): each cell cut along its diagonal (0,0)-(p,p), corners counter-clockwise,
  -- then the mid-side nodes of edges 0-1, 1-2, 2-0 (kernels/fe/tri.h)
  local halves = p == 1 and { { 0, 0, 1, 0, 1, 1 }, { 0, 0, 1, 1, 0, 1 } }
    or { { 0, 0, 2, 0, 2, 2, 1, 0, 2, 1, 1, 1 }, { 0, 0, 2, 2, 0, 2, 1, 1, 1, 2, 0, 1 } }
  for cj = 0, nc - 1 do
    for ci = 0, nr - 1 do
      if tri then
        for _, h in ipairs(halves) do
          for k = 1, #h, 2 do elem[#elem + 1] = node(ci * p + h[k], cj * p + h[k + 1]) end
        end
      else
        for b = 0, p do
          for a = 0, p do elem[#elem + 1] = node(ci * p + a, cj * p + b) end
        end
      end
    end
  end
  local edges, nodes = { s0 = {}, s1 = {}, t0 = {}, t1 = {} }, { s0 = {}, s1 = {}, t0 = {}, t1 = {} }
  for cj = 0, nc - 1 do
    local e0, e1 = {}, {}
    for b = 0, p do e0[#e0 + 1], e1[#e1 + 1] = node(0, cj * p + b), node(ni - 1, cj * p + b) end
    edges.s0[#edges.s0 + 1], edges.s1[#edges.s1 + 1] = e0, e1
  end
  if not wrap then
    for ci = 0, nr - 1 do
      local e0, e1 = {}, {}
      for a = 0, p do e0[#e0 + 1], e1[#e1 + 1] = node(ci * p + a, 0), node(ci * p + a, p * nc) end
      edges.t0[#edges.t0 + 1], edges.t1[#edges.t1 + 1] = e0, e1
    end
    for i = 0, ni - 1 do nodes.t0[#nodes.t0 + 1], nodes.t1[#nodes.t1 + 1] = node(i, 0), node(i, p * nc) end
  end
  for j = 0, nj - 1 do nodes.s0[#nodes.s0 + 1], nodes.s1[#nodes.s1 + 1] = node(0, j), node(ni - 1, j) end
  return setmetatable({ shape = tri and "tri" or "quad", order = p, x = x, elem = elem, nnodes = #x // 2,
    nelems = (tri and 2 or 1) * nr * nc, grid = { ni = ni, nj = nj, wrap = wrap },
    nodes = nodes, edges = edges }, mesh_mt)
end

--- cl.fe.wellbore{ r_int =, r_ext =, quarter = true, order = 2, level = | nr =, nt =, grading =
---   "geometric" | number, shape = "quad" | "tri" } -> a mesh of the annulus r_int..r_ext in Lagrange quadrilaterals:
--- nr elements radially, nt around (the quarter 0..90 degrees, or the full ring). level l gives
--- nr = nt = 2^(l+5) - 2, the element counts of the paper's Table 1 (3844 at l = 1). grading:
--- "geometric" (radial size proportional to r: r = r_int (r_ext/r_int)^s, the default) or a
--- number g >= 1 (r = r_int + (r_ext - r_int) s^g, g = 1 uniform). shape = "tri": each cell cut into
--- two triangles (T3 for order 1, T6 for order 2). Node and edge sets: inner,
--- outer, and for the quarter xsym (on x = 0) and ysym (on y = 0).
function fe.wellbore(args)
  local fn = "cleave.fe.wellbore"
  cl.check_args(fn, args, { r_int = true, r_ext = true, quarter = true, order = true, level = true, nr = true,
    nt = true, grading = true, shape = true })
  local a, b = args.r_int, args.r_ext
  if type(a) ~= "number" or type(b) ~= "number" or not (a > 0 and b > a) then
    error(fn .. ": give r_int > 0 and r_ext > r_int (radii of the hole and of the outer boundary)", 2)
  end
  local order = args.order or 2
  check_order(fn, order)
  local n
  if args.level ~= nil then
    if args.nr ~= nil or args.nt ~= nil then error(fn .. ": give 'level' or 'nr' and 'nt', not both", 2) end
    local l = positive_int(fn, args, "level")
    n = 2 ^ (l + 5) // 1 - 2
  end
  local nr, nt = n or positive_int(fn, args, "nr", 8), n or positive_int(fn, args, "nt", 8)
  local quarter = args.quarter ~= false
  local grading, radius = args.grading or "geometric", nil
  if grading == "geometric" then
    radius = function(s) return a * (b / a) ^ s end
  elseif type(grading) == "number" and grading >= 1 then
    radius = function(s) return a + (b - a) * s ^ grading end
  else
    error(fn .. ": 'grading' must be \"geometric\" or a number >= 1 (1: uniform)", 2)
  end
  local sweep = quarter and math.pi / 2 or 2 * math.pi
  local m = grid(order, nr, nt, not quarter, function(s, t)
    local r, th = radius(s), t * sweep
    -- exact values on the axes: the symmetry planes must hold their nodes exactly
    if quarter and t == 1 then return 0, r end
    return r * math.cos(th), r * math.sin(th)
  end, tri_shape(fn, args, order))
  m.nodes.inner, m.nodes.outer, m.edges.inner, m.edges.outer = m.nodes.s0, m.nodes.s1, m.edges.s0, m.edges.s1
  if quarter then m.nodes.ysym, m.nodes.xsym = m.nodes.t0, m.nodes.t1 end
  m.r_int, m.r_ext = a, b
  return m
end

--- cl.fe.rect{ x0 = 0, x1 =, y0 = 0, y1 =, nx =, ny =, order = 1, shape = "quad" | "tri" } -> a mesh of
--- the rectangle in nx x ny Lagrange quadrilaterals (or twice as many triangles); node and edge
--- sets left, right, bottom, top.
function fe.rect(args)
  local fn = "cleave.fe.rect"
  cl.check_args(fn, args, { x0 = true, x1 = true, y0 = true, y1 = true, nx = true, ny = true, order = true,
    shape = true })
  local x0, x1, y0, y1 = args.x0 or 0, args.x1, args.y0 or 0, args.y1
  if type(x1) ~= "number" or type(y1) ~= "number" or not (x1 > x0 and y1 > y0) then
    error(fn .. ": give x1 > x0 and y1 > y0 (the corners)", 2)
  end
  local order = args.order or 1
  check_order(fn, order)
  local m = grid(order, positive_int(fn, args, "nx", 4), positive_int(fn, args, "ny", 4), false,
    function(s, t) return x0 + (x1 - x0) * s, y0 + (y1 - y0) * t end, tri_shape(fn, args, order))
  for _, k in ipairs { "nodes", "edges" } do
    local t = m[k]
    t.left, t.right, t.bottom, t.top = t.s0, t.s1, t.t0, t.t1
  end
  return m
end

-- The element edges (their nodes in order along them) of element e of a mesh: quadrilaterals in
-- quad.h's lexicographic order, triangles in tri.h's.
local function element_edges(shape, order, elem, e)
  local p, nn = order, shape == "quad" and (order + 1) ^ 2 // 1 or (order == 2 and 6 or 3)
  local function node(k) return elem[e * nn + k + 1] end
  if shape ~= "quad" then
    return p == 1 and { { node(0), node(1) }, { node(1), node(2) }, { node(2), node(0) } }
      or { { node(0), node(3), node(1) }, { node(1), node(4), node(2) }, { node(2), node(5), node(0) } }
  end
  local sides = { {}, {}, {}, {} }
  for s = 0, p do
    sides[1][s + 1] = node(s)                       -- j = 0
    sides[2][s + 1] = node(p + (p + 1) * s)         -- i = p
    sides[3][s + 1] = node(p - s + (p + 1) * p)     -- j = p
    sides[4][s + 1] = node((p + 1) * (p - s))       -- i = 0
  end
  return sides
end

-- Edge sets from node sets: every element edge whose nodes all lie in the set (Abaqus meshes name
-- boundaries by node sets).
local function edges_of_node_sets(mesh)
  local edges = {}
  for name, list in pairs(mesh.nodes) do
    local inside, found = {}, {}
    for _, n in ipairs(list) do inside[n] = true end
    for e = 0, mesh.nelems - 1 do
      for _, edge in ipairs(element_edges(mesh.shape, mesh.order, mesh.elem, e)) do
        local all = true
        for _, n in ipairs(edge) do all = all and inside[n] == true end
        if all then found[#found + 1] = edge end
      end
    end
    edges[name] = found
  end
  return edges
end

--- cl.fe.read(path) -> a mesh from a Gmsh file (.msh 2.2 or 4.1 ASCII) of 3- or 6-node triangles or
--- 4-, 9- or 16-node quadrangles (the reader of runtime/io/msh.h); each physical group of lines
--- becomes an edge set and a node set of the same name, each physical group of surfaces a region
--- (mesh.regions[name]: its 1-based elements). A path ending in .inp is read as Abaqus input
--- (runtime/io/inp.h: CPE3/CPE6 triangles, CPE4/CPS4 and CPE8 quadrilaterals, the last as 9-node
--- Lagrange elements with their centre node added): each *NSET becomes a node set and an edge set (the
--- element edges lying in it), each *ELSET (and *ELEMENT, ELSET=) a region.
function fe.read(path)
  if type(path) ~= "string" then error("cleave.fe.read: give the path of a .msh or .inp file", 2) end
  local abaqus = path:lower():match("%.inp$") ~= nil
  local ok, t = pcall(abaqus and fe._read_inp or fe._read_msh, path)
  if not ok then error(t, 2) end
  local nn = t.shape == "quad" and (t.order + 1) ^ 2 // 1 or (t.order == 2 and 6 or 3)
  local mesh = setmetatable({ shape = t.shape, order = t.order, x = t.x, elem = t.elem, nnodes = #t.x // 2,
    nelems = #t.elem // nn, regions = t.regions }, mesh_mt)
  if abaqus then
    mesh.nodes = t.node_sets
    mesh.edges = edges_of_node_sets(mesh)
    return mesh
  end
  mesh.nodes, mesh.edges = {}, t.edges
  for name, edges in pairs(t.edges) do
    local seen, list = {}, {}
    for _, e in ipairs(edges) do
      for _, n in ipairs(e) do
        if not seen[n] then seen[n], list[#list + 1] = true, n end
      end
    end
    table.sort(list)
    mesh.nodes[name] = list
  end
  return mesh
end

-- ---- the model ---------------------------------------------------------------------

local model_mt = {}
model_mt.__index = model_mt
model_mt.__tostring = function(self)
  local i = self.core:info()
  return string.format("fe.model<%s%d, %d elements, %d dofs, %s, on %s>", i.shape == "quad" and "Q" or "T",
    i.shape == "quad" and (i.order + 1) ^ 2 // 1 or (i.order == 1 and 3 or 6), i.elements, i.dofs, self.law, i.device)
end

local function check_number(fn, t, key, ok, what)
  local v = t[key]
  if type(v) ~= "number" or v ~= v or not ok(v) then
    error(string.format("%s: '%s' %s (got %s)", fn, key, what, tostring(v)), 3)
  end
  return v
end

-- The default residual kind of quadrilateral meshes (triangles: "matrix_free", having no tensor
-- product): sum factorization was the fastest kind at every order's largest level on the H100
-- (bench_fe.lua table 1, docs/benchmarks.md)
local QUAD_RESIDUAL = "sum_factorized"
local RESIDUALS = { stored = true, matrix_free = true, sum_factorized = true }

--- cl.fe.model{ mesh =, material = { law = "elastic" | "mohr_coulomb" | "j2" | a law, E =, nu =, c =, phi =,
---   sy =, H = }, plane = "strain" | "stress", thickness = 1,
---   residual = "matrix_free" | "sum_factorized" | "stored" } -> a
--- model at rest (zero displacement and stress) on the current device, precision f64. phi in degrees.
--- residual: the element kernels recompute B-bar and W from the node coordinates at every Gauss point
--- ("matrix_free", the default for triangles; B-bar's 16 n bytes per Gauss point are never allocated),
--- compute the residual's gradients and forces element by element by sum factorization
--- ("sum_factorized", the default for quadrilaterals, the H100's fastest; the tangents as "matrix_free")
--- or read B-bar computed once ("stored"); the results agree to rounding. "elastic" and "mohr_coulomb" are
--- compiled into the element kernels; "j2" (yield stress sy, hardening modulus H = 0) and a law made
--- by cleave.jit.stress_update{...} run as run-time compiled element kernels (law:fe_module), E and
--- nu then being the initial stiffness of the IS solvers. A law's state "ep" is the plastic strain
--- that gauss() and vtu() report.
function fe.model(args)
  local fn = "cleave.fe.model"
  cl.check_args(fn, args, { mesh = true, material = true, plane = true, thickness = true, residual = true })
  local mesh, mat = args.mesh, args.material
  if getmetatable(mesh) ~= mesh_mt then
    error(fn .. ": 'mesh' must be a mesh of cleave.fe.wellbore, rect or read", 2)
  end
  if type(mat) ~= "table" then error(fn .. ": give 'material' = { law =, E =, nu =, ... }", 2) end
  cl.check_args(fn .. " material", mat, { law = true, E = true, nu = true, c = true, phi = true, sy = true, H = true }, 3)
  local law = mat.law or "elastic"
  local user = getmetatable(law) == cl.jit.law_mt
  if user and law.kind ~= "stress_update" then
    error(fn .. ": material.law must be a stress_update law (got a " .. law.kind .. " law)", 2)
  end
  if not user and law ~= "elastic" and law ~= "mohr_coulomb" and law ~= "j2" then
    error(fn .. ": material.law must be \"elastic\", \"mohr_coulomb\", \"j2\" or a law of cleave.jit.stress_update " ..
      "(got " .. tostring(law) .. ")", 2)
  end
  check_number(fn, mat, "E", function(v) return v > 0 end, "(Young's modulus) must be > 0")
  local plane = args.plane or "strain"
  if plane ~= "strain" and plane ~= "stress" then error(fn .. ": 'plane' must be \"strain\" or \"stress\"", 2) end
  check_number(fn, mat, "nu", function(v) return v > -1 and v < 0.5 end,
    "(Poisson's ratio) must lie in (-1, 0.5): 0.5 is incompressible, which displacement elements lock on")
  if law == "mohr_coulomb" then
    check_number(fn, mat, "c", function(v) return v >= 0 end, "(cohesion) must be >= 0")
    check_number(fn, mat, "phi", function(v) return v >= 0 and v < 90 end,
      "(friction angle) must lie in [0, 90) degrees")
  end
  if law == "j2" then
    check_number(fn, mat, "sy", function(v) return v > 0 end, "(yield stress) must be > 0")
    if mat.H ~= nil then check_number(fn, mat, "H", function(v) return v >= 0 end, "(hardening modulus) must be >= 0") end
    law = cl.jit.stress_update { name = "j2", source = cl.jit.law_source "j2",
      params = { E = mat.E, nu = mat.nu, sy = mat.sy, H = mat.H or 0 }, state = { ep = 0 } }
    user = true
  end
  if law ~= "elastic" and plane ~= "strain" then
    error(fn .. ": a plastic law needs plane = \"strain\" (plane stress is elastic only here)", 2)
  end
  local thickness = args.thickness or 1
  if type(thickness) ~= "number" or not (thickness > 0) then error(fn .. ": 'thickness' must be > 0", 2) end
  local core_args = { shape = mesh.shape, order = mesh.order, x = mesh.x, elem = mesh.elem, law = user and "jit" or law,
    E = mat.E, nu = mat.nu, c = mat.c or 0, phi = mat.phi or 0, plane_strain = plane == "strain",
    thickness = thickness }
  if user then
    local ok, module = pcall(law.fe_module, law, cl.field { n = 1 })
    if not ok then error(module, 2) end
    core_args.module, core_args.state0, core_args.ep_index = module, {}, 0
    for k, name in ipairs(law.state_names) do
      core_args.state0[k] = law.state[name]
      if name == "ep" then core_args.ep_index = k end
    end
  end
  local residual = args.residual or (mesh.shape == "quad" and QUAD_RESIDUAL or "matrix_free")
  if not RESIDUALS[residual] then
    error(fn .. ": 'residual' must be \"matrix_free\" (B-bar and W recomputed at every Gauss point), " ..
      "\"sum_factorized\" (recomputed element by element, quadrilaterals) " ..
      "or \"stored\" (B-bar computed once and kept) (got " .. tostring(residual) .. ")", 2)
  end
  if residual == "sum_factorized" and mesh.shape ~= "quad" then
    error(fn .. ": 'residual' = \"sum_factorized\" needs quadrilaterals (tensor-product elements): give " ..
      "\"matrix_free\" for triangles", 2)
  end
  local ok, core = pcall(fe._model, core_args)
  if not ok then error(core, 2) end
  if residual ~= "matrix_free" then
    local built, why = pcall(core.residual, core, residual)
    if not built then error(fn .. ": " .. tostring(why), 2) end
  end
  if mesh.grid then core:grid(mesh.grid.ni, mesh.grid.nj, mesh.grid.wrap) end
  return setmetatable({ core = core, mesh = mesh, law = user and law.name or law, fixed = 0, pressures = {},
    timed_fixes = {} }, model_mt)
end

-- A prescribed value: a finite number, or a string parsed as an expression of the pseudo-time t
-- (cleave.jit.value: a syntax error points at its column), or nil when not given.
local function timed_value(fn, key, v)
  if v == nil or type(v) == "number" and v == v and math.abs(v) ~= math.huge then return v end
  if type(v) ~= "string" then
    error(string.format("%s: '%s' must be a finite number or an expression of the pseudo-time t (a string)", fn, key), 3)
  end
  local ok, value = pcall(cl.jit.value, v, { what = fn .. " " .. key })
  if not ok then error(value, 3) end
  return value
end

local function node_list(fn, mesh, where, kind)
  if type(where) == "string" then
    local set = mesh[kind][where]
    if not set then
      local names = {}
      for k in pairs(mesh[kind]) do names[#names + 1] = k end
      table.sort(names)
      error(string.format("%s: the mesh has no %s set '%s' (%s)", fn, kind == "nodes" and "node" or "edge", where,
        table.concat(names, ", ")), 3)
    end
    return set
  end
  if type(where) == "table" then return where end
  error(fn .. ": 'where' must name a set of the mesh (\"inner\", \"left\", ...) or list its entries", 3)
end

--- model:fix{ where = set name | {nodes}, x =, y = }: prescribes the x and/or y displacement of
--- the nodes (reached by the next solve, in its increments): a number, or an expression of the
--- pseudo-time t (a string, "0.01 * sin(pi * t)"): t runs from 0 to 1 over the next solve, increment k
--- of n reaching the value at t = k / n.
function model_mt:fix(args)
  local fn = "model:fix"
  cl.check_args(fn, args, { where = true, x = true, y = true })
  if args.x == nil and args.y == nil then error(fn .. ": give x and/or y (the prescribed displacement)", 2) end
  local nodes = node_list(fn, self.mesh, args.where, "nodes")
  for c, key in ipairs { "x", "y" } do
    local v = timed_value(fn, key, args[key])
    if v ~= nil then
      for _, n in ipairs(nodes) do
        self.timed_fixes[n * 2 + c - 1] = type(v) ~= "number" and { n, c - 1, v } or nil
        self.core:fix(n, c - 1, type(v) == "number" and v or v(1))
      end
    end
  end
  return self
end

--- model:pressure{ where = edge set name | { {nodes of an edge}, ... }, p = }: a normal pressure
--- on the edges (positive pushes into the body), replacing the one given before on the same set;
--- reached by the next solve. p: a number, or an expression of the pseudo-time t as in model:fix.
function model_mt:pressure(args)
  local fn = "model:pressure"
  cl.check_args(fn, args, { where = true, p = true })
  local p = timed_value(fn, "p", args.p)
  if p == nil then error(fn .. ": give 'p' (the pressure: a number or an expression of the pseudo-time t)", 2) end
  self.pressures[args.where] = { edges = node_list(fn, self.mesh, args.where, "edges"), p = p }
  self:_reload(1)
  return self
end

-- the external forces again from the loads set, at pseudo-time t: the pressures and the body force
function model_mt:_reload(t)
  self.core:clear_loads()
  for _, load in pairs(self.pressures) do
    local p = type(load.p) == "number" and load.p or load.p(t)
    for _, e in ipairs(load.edges) do self.core:pressure(e, p) end
  end
  if self.body then self.core:body_force(self.body[1], self.body[2]) end
end

--- model:gravity{ rho =, g = { gx, gy } }: the body force rho g per unit volume (g = { 0, -9.81 } by
--- default, in the model's units), replacing the one given before; reached by the next solve.
function model_mt:gravity(args)
  local fn = "model:gravity"
  cl.check_args(fn, args, { rho = true, g = true })
  check_number(fn, args, "rho", function(v) return v >= 0 and math.abs(v) < math.huge end,
    "(density) must be a finite number >= 0")
  local g = args.g or { 0, -9.81 }
  if type(g) ~= "table" or #g ~= 2 or type(g[1]) ~= "number" or type(g[2]) ~= "number" or g[1] ~= g[1] or
    g[2] ~= g[2] or math.abs(g[1]) == math.huge or math.abs(g[2]) == math.huge then
    error(fn .. ": 'g' must be { gx, gy }, two finite numbers (the acceleration of gravity)", 2)
  end
  self.body = { args.rho * g[1], args.rho * g[2] }
  self:_reload(1)
  return self
end

--- model:initial_stress{ xx =, yy =, zz =, xy = 0 }: the in-situ stress (tension positive) at
--- every Gauss point, as the converged state the next solve starts from.
function model_mt:initial_stress(args)
  local fn = "model:initial_stress"
  cl.check_args(fn, args, { xx = true, yy = true, zz = true, xy = true })
  local v = {}
  for i, k in ipairs { "xx", "yy", "zz", "xy" } do
    v[i] = args[k] or 0
    if type(v[i]) ~= "number" or v[i] ~= v[i] then error(fn .. ": '" .. k .. "' must be a number", 2) end
  end
  self.core:initial_stress(v[1], v[2], v[3], v[4])
  return self
end

--- model:wellbore_loads{ in_situ =, support =, form = "total" | "increment" }: the loads of the
--- paper's wellbore (Table 2; issue 14, case 2) on a mesh of cleave.fe.wellbore, pressures
--- compression positive. The outer boundary r_ext carries the radial stress an infinite medium has
--- there. form = "total" (default): the isotropic in-situ stress -in_situ is the starting state, the
--- hole's pressure goes from in_situ to support and the yield check sees the total stress.
--- form = "increment": the model starts stress-free and the difference |in_situ - support| is
--- applied as a cavity expansion (a pressure pushing into the rock at the hole), the yield check
--- seeing only that increment: the reading that gives the paper's Fig. 4 plastic zone. Replaces the
--- pressures on "inner" and "outer"; reached by the next solve.
function model_mt:wellbore_loads(args)
  local fn = "model:wellbore_loads"
  cl.check_args(fn, args, { in_situ = true, support = true, form = true })
  local mesh = self.mesh
  if not (mesh.r_int and mesh.edges.inner and mesh.edges.outer) then
    error(fn .. ": the model's mesh must come from cleave.fe.wellbore (it needs r_int, r_ext and the inner and " ..
      "outer edges)", 2)
  end
  for _, key in ipairs { "in_situ", "support" } do
    local v = args[key]
    if type(v) ~= "number" or v ~= v or math.abs(v) == math.huge then
      error(fn .. ": '" .. key .. "' must be a finite number (a pressure, compression positive)", 2)
    end
  end
  local form = args.form or "total"
  local decay = (mesh.r_int / mesh.r_ext) ^ 2 -- the cavity's radial stress falls as 1/r^2
  local P0, ps = args.in_situ, args.support
  if form == "total" then
    self:initial_stress { xx = -P0, yy = -P0, zz = -P0 }
    self:pressure { where = "inner", p = ps }
    self:pressure { where = "outer", p = P0 - (P0 - ps) * decay }
  elseif form == "increment" then
    local dp = math.abs(P0 - ps)
    self:pressure { where = "inner", p = dp }
    self:pressure { where = "outer", p = dp * decay }
  else
    error(fn .. ": 'form' must be \"total\" (in-situ stress plus the support) or \"increment\" (the difference " ..
      "as a cavity expansion from rest)", 2)
  end
  return self
end

local METHODS = { mis = true, is = true, newton = true }

-- the convergence history as CSV: one row per residual evaluation the solver checked
-- linear = "auto" takes the multigrid CG from this many dofs on a GPU (for a generated mesh): there
-- cuSOLVER's factorization (11.3 s at 128 018 dofs on the H100) grows faster than the multigrid's
-- setup and solves; on the CPU backend CHOLMOD's factor-once stays faster at every level measured
-- (in a build without CHOLMOD the multigrid replaces the host's Jacobi-CG there too)
local MG_MIN_DOFS = 20000

local function write_history(path, history)
  local w <close> = cl.io.csv { path = path, columns = { "increment", "iteration", "lambda", "residual" } }
  for _, h in ipairs(history) do w:row { h.increment, h.iteration, h.lambda, h.residual } end
end

--- model:solve{ method = "mis" | "is" | "newton", increments = 1, tol = 1e-8, max_iter = 200,
---   max_cutbacks = 4, linear = "auto" | "factor" | "pcg" | "mg", linear_tol } -> report { increments,
--- iterations, residuals, factorizations, cutbacks, cg_iterations, mg_levels, residual, t_residual, t_tangent,
--- t_factor, t_solve, linear_solver, history = { {increment,
--- iteration, lambda, residual}, ... } }. An increment that does not converge is halved; when
--- the cut-backs run out, the error gives the history's last residuals and the state stays at
--- the last converged increment. linear: "factor" (a sparse Cholesky, factored once for IS and
--- modified IS: cuSOLVER's on a GPU, the matrix staying there; CHOLMOD's on the host for the CPU, CG
--- there when built without CHOLMOD), "pcg" (Jacobi-PCG on the model's device), "mg" (CG on the
--- model's device preconditioned by a geometric multigrid V-cycle; meshes of cl.fe.wellbore and
--- cl.fe.rect) or "auto" (the default: "mg" on a GPU, or on a CPU built without CHOLMOD, from
--- MG_MIN_DOFS dofs; else "factor").
--- linear_tol: each CG solve's relative residual (default 1e-6 for "mg", 1e-12 for "pcg"; it sets
--- how fast the nonlinear iteration converges, not where to). csv: a path to write the history to
--- (increment, iteration, lambda, residual), also when the solve fails.
function model_mt:solve(args)
  local fn = "model:solve"
  args = args or {}
  cl.check_args(fn, args, { method = true, increments = true, tol = true, max_iter = true, max_cutbacks = true,
    linear = true, linear_tol = true, csv = true })
  if args.csv ~= nil and type(args.csv) ~= "string" then error(fn .. ": 'csv' must be a file path", 2) end
  local linear = args.linear or "auto"
  if linear ~= "auto" and linear ~= "factor" and linear ~= "pcg" and linear ~= "mg" then
    error(fn .. ": 'linear' must be \"auto\", \"factor\" (sparse Cholesky), \"pcg\" (Jacobi conjugate gradients on " ..
      "the device) or \"mg\" (multigrid conjugate gradients on the device)", 2)
  end
  if linear == "auto" then -- docs/methods/elastoplastic-fe.md: the measurements behind the choice
    local info = self.core:info()
    local no_cholesky = info.linear_solver == "cg" -- a CPU build without CHOLMOD: "factor" is Jacobi-CG there
    linear = (self.mesh.grid and info.dofs >= MG_MIN_DOFS and (info.device == "cuda" or no_cholesky)) and "mg"
      or "factor"
  end
  local linear_tol = args.linear_tol or (linear == "mg" and 1e-6 or 1e-12)
  if type(linear_tol) ~= "number" or not (linear_tol > 0 and linear_tol < 1) then
    error(fn .. ": 'linear_tol' (each CG solve's relative residual) must lie in (0, 1)", 2)
  end
  if linear == "mg" and not self.mesh.grid then
    error(fn .. ": linear = \"mg\" needs a mesh of cleave.fe.wellbore or cleave.fe.rect (a structured node grid); " ..
      "use linear = \"factor\" or \"pcg\" for a mesh that was read", 2)
  end
  local method = args.method or "mis"
  if not METHODS[method] then error(fn .. ": 'method' must be \"mis\", \"is\" or \"newton\"", 2) end
  local tol = args.tol or 1e-8
  if type(tol) ~= "number" or not (tol > 0 and tol < 1) then error(fn .. ": 'tol' must lie in (0, 1)", 2) end
  local increments = positive_int(fn, args, "increments", 1)
  local max_iter = positive_int(fn, args, "max_iter", 200)
  local cut = args.max_cutbacks or 4
  if math.type(cut) ~= "integer" or cut < 0 then error(fn .. ": 'max_cutbacks' must be an integer >= 0", 2) end
  -- values that are expressions of the pseudo-time: one increment at a time, each reaching them at t = k / n
  local timed = next(self.timed_fixes) ~= nil
  for _, load in pairs(self.pressures) do timed = timed or type(load.p) ~= "number" end
  local steps = timed and increments or 1
  local report, history = nil, {}
  for k = 1, steps do
    if timed then
      local t = k / steps
      for _, f in pairs(self.timed_fixes) do self.core:fix(f[1], f[2], f[3](t)) end
      self:_reload(t)
    end
    local ok, rep, hist, failed = pcall(self.core.solve, self.core, method, timed and 1 or increments, tol, max_iter,
      cut, linear, linear_tol)
    if not ok then error(rep, 2) end
    for _, h in ipairs(rep and hist or failed) do
      if timed then h.increment, h.lambda = k, k / steps end
      history[#history + 1] = h
    end
    if rep == nil then -- hist is the message: the history's last residuals go with it
      local tail = {}
      for i = math.max(1, #history - 2), #history do
        local h = history[i]
        tail[#tail + 1] = string.format("increment %d iteration %d: %.3g", h.increment, h.iteration, h.residual)
      end
      self.history = history
      if args.csv then write_history(args.csv, history) end
      error(string.format("%s: %s%s%s", fn, timed and string.format("increment %d of %d (t = %g): ", k, steps, k / steps)
        or "", hist, #tail > 0 and " (last residuals: " .. table.concat(tail, "; ") .. ")" or ""), 2)
    end
    if report then -- the sums over the increments
      for _, key in ipairs { "iterations", "residuals", "factorizations", "cutbacks", "cg_iterations", "t_residual",
        "t_tangent", "t_factor", "t_solve" } do report[key] = report[key] + rep[key] end
      report.increments, report.residual = report.increments + rep.increments, rep.residual
    else
      report = rep
    end
  end
  report.history = history
  if args.csv then write_history(args.csv, history) end
  return report
end

--- model:displacements() -> ux, uy: arrays over the nodes.
function model_mt:displacements()
  local u, n, ux, uy = self.core:get("u"), self.mesh.nnodes, {}, {}
  for i = 1, n do ux[i], uy[i] = u[i], u[n + i] end
  return ux, uy
end

--- model:gauss() -> { x = {}, y = {}, w = {}, xx = {}, yy = {}, zz = {}, xy = {}, ep = {} }: the
--- Gauss points' positions, integration weights (weight x det J x thickness: sum w f is the
--- integral of f), stresses and equivalent plastic strains (converged state).
function model_mt:gauss()
  local xg, s, ep = self.core:get("xg"), self.core:get("sig"), self.core:get("ep")
  local G = #ep
  local r = { x = {}, y = {}, w = self.core:get("w"), xx = {}, yy = {}, zz = {}, xy = {}, ep = ep }
  for g = 1, G do
    r.x[g], r.y[g] = xg[2 * g - 1], xg[2 * g]
    r.xx[g], r.yy[g], r.zz[g], r.xy[g] = s[g], s[G + g], s[2 * G + g], s[5 * G + g]
  end
  return r
end

--- model:vtu(path): the mesh (each element of order p cut into p^2 linear quadrilaterals, a T6 into
--- four triangles) with
--- the displacement u at the nodes, and per cell its element's mean stress (xx, yy, zz, xy),
--- mean equivalent plastic strain ep and a plastic indicator (1 where a Gauss point yielded).
function model_mt:vtu(path)
  local mesh, p = self.mesh, self.mesh.order
  local g, ux, uy = self:gauss(), self:displacements()
  -- linear cells of each element: local node indices (0-based) and the VTK type
  local sub, vtk = {}, 9
  if mesh.shape == "quad" then
    for j = 0, p - 1 do
      for i = 0, p - 1 do
        sub[#sub + 1] = { i + (p + 1) * j, i + 1 + (p + 1) * j, i + 1 + (p + 1) * (j + 1), i + (p + 1) * (j + 1) }
      end
    end
  else
    vtk = 5
    sub = p == 1 and { { 0, 1, 2 } } or { { 0, 3, 5 }, { 3, 1, 4 }, { 5, 4, 2 }, { 3, 4, 5 } }
  end
  local nn, ngp = #mesh.elem // mesh.nelems, #g.ep // mesh.nelems
  local conn, offsets, types, cells = {}, { 0 }, {}, { sig = {}, ep = {}, plastic = {} }
  for e = 0, mesh.nelems - 1 do
    local mean, epm, plastic = { 0, 0, 0, 0 }, 0, 0
    for k = 1, ngp do
      local q = e * ngp + k
      mean[1], mean[2], mean[3], mean[4] = mean[1] + g.xx[q] / ngp, mean[2] + g.yy[q] / ngp, mean[3] + g.zz[q] / ngp,
        mean[4] + g.xy[q] / ngp
      epm = epm + g.ep[q] / ngp
      if g.ep[q] > 0 then plastic = 1 end
    end
    for _, cell in ipairs(sub) do
      for _, a in ipairs(cell) do conn[#conn + 1] = mesh.elem[e * nn + a + 1] end
      offsets[#offsets + 1], types[#types + 1] = #conn, vtk
      cells.sig[#cells.sig + 1], cells.ep[#cells.ep + 1], cells.plastic[#cells.plastic + 1] = mean, epm, plastic
    end
  end
  local xy = {}
  for i = 1, mesh.nnodes do xy[i] = { mesh.x[2 * i - 1], mesh.x[2 * i] } end
  local u = {}
  for i = 1, mesh.nnodes do u[i] = { ux[i], uy[i] } end
  cl.io.vtu { path = path, mesh = { x = cl.field { k = 2, data = xy }, cells = {
      types = cl.field { dtype = "u8", data = types }, offsets = cl.field { dtype = "i32", data = offsets },
      connectivity = cl.field { dtype = "i32", data = conn } } },
    point_data = { u = cl.field { k = 2, data = u } },
    cell_data = { stress = cl.field { k = 4, data = cells.sig }, ep = cl.field { data = cells.ep },
      plastic = cl.field { dtype = "u8", data = cells.plastic } } }
end
