-- cleave.fpm: the finite particle method (paper 001, docs/methods/finite-particle.md). Particles
-- with mass (and, on beams, rotations and rotational inertia) joined by 2-particle beams or
-- 8-particle hexahedra; central-difference steps with mass damping; hexahedra's materials are
-- stress_update laws (built-in elastic and J2, or the user's). The kernels are in kernels/fpm/,
-- their stages in lua/l_fpm.c.
local cl = ...
local fpm = cl.fpm
local pd = cl.pd

-- ---- materials and sections ------------------------------------------------------------------

local material_mt = {}
material_mt.__index = material_mt
material_mt.__tostring = function(m)
  return string.format("fpm.material<%s, E = %g, nu = %g, rho = %g>", m.law.name, m.E, m.nu, m.rho)
end

-- E, nu, rho of a material's table: positive (nu in [0, 0.5)), named when not.
local function elastic_constants(fn, args)
  local m = { E = cl.positive_number(fn, args, "E", 3), rho = cl.positive_number(fn, args, "rho", 3) }
  m.nu = cl.optional_number(fn, args, "nu", 0, 3)
  if not (m.nu >= 0 and m.nu < 0.5) then
    error(string.format("%s: argument 'nu' (Poisson's ratio) must be in [0, 0.5) (got %g)", fn, m.nu), 3)
  end
  return m
end

--- cleave.fpm.elastic{ E =, nu = 0, rho = } -> isotropic linear elasticity (the built-in
--- stress_update law kernels/fe/laws/elastic.c)
function fpm.elastic(args)
  local fn = "cleave.fpm.elastic"
  cl.check_args(fn, args, { E = true, nu = true, rho = true })
  local m = elastic_constants(fn, args)
  m.law = cl.jit.stress_update { name = "elastic", source = cl.jit.law_source("elastic"),
    params = { E = m.E, nu = m.nu } }
  m.elastic = true
  m.hex_state = "total" -- hexahedra's Gauss points keep nothing (kernels/fpm/hex.h)
  return setmetatable(m, material_mt)
end

--- cleave.fpm.j2{ E =, nu = 0, rho =, sy =, Et = 0 } -> J2 plasticity with bilinear isotropic
--- hardening: yield stress sy, tangent modulus Et (< E) of the uniaxial curve, so that the
--- hardening modulus is H = E Et / (E - Et) (kernels/fe/laws/j2.c)
function fpm.j2(args)
  local fn = "cleave.fpm.j2"
  cl.check_args(fn, args, { E = true, nu = true, rho = true, sy = true, Et = true })
  local m = elastic_constants(fn, args)
  m.sy = cl.positive_number(fn, args, "sy")
  m.Et = cl.optional_number(fn, args, "Et", 0)
  if not (m.Et >= 0 and m.Et < m.E) then
    error(string.format("%s: argument 'Et' (the tangent modulus) must be in [0, E) (got %g)", fn, m.Et), 2)
  end
  m.H = m.E * m.Et / (m.E - m.Et)
  m.law = cl.jit.stress_update { name = "j2", source = cl.jit.law_source("j2"),
    params = { E = m.E, nu = m.nu, sy = m.sy, H = m.H }, state = { ep = 0 } }
  m.hex_state = "plastic" -- hexahedra's Gauss points keep the plastic strain and ep (kernels/fpm/hex.h)
  return setmetatable(m, material_mt)
end

--- cleave.fpm.material{ law = cleave.jit.stress_update{...}, E =, nu = 0, rho = } -> a user law
--- for hexahedra; E and nu are its initial stiffness, which sets the stable time step.
function fpm.material(args)
  local fn = "cleave.fpm.material"
  cl.check_args(fn, args, { law = true, E = true, nu = true, rho = true })
  if getmetatable(args.law) ~= cl.jit.law_mt or args.law.kind ~= "stress_update" then
    error(fn .. ": argument 'law' must be a law made by cleave.jit.stress_update{...}", 2)
  end
  local m = elastic_constants(fn, args)
  m.law = args.law
  m.hex_state = "incremental" -- hexahedra's Gauss points keep the stress and the strain (kernels/fpm/hex.h)
  return setmetatable(m, material_mt)
end

-- A beam section { A =, Iy =, Iz =, J = } or a rectangle { b =, h = } (b along the local y axis,
-- h along z): the areas and moments, positive.
local function section_of(fn, s)
  if type(s) ~= "table" then
    error(fn .. ": argument 'section' must be { b =, h = } (a rectangle) or { A =, Iy =, Iz =, J = }", 3)
  end
  local f = fn .. " section"
  if s.b ~= nil or s.h ~= nil then
    cl.check_args(f, s, { b = true, h = true }, 4)
    local b, h = cl.positive_number(f, s, "b", 4), cl.positive_number(f, s, "h", 4)
    local short, long = math.min(b, h), math.max(b, h)
    -- Saint-Venant torsion constant of a rectangle (Roark): a b^3 (1/3 - 0.21 b/a (1 - b^4/(12 a^4)))
    local J = long * short ^ 3 * (1 / 3 - 0.21 * short / long * (1 - short ^ 4 / (12 * long ^ 4)))
    return { A = b * h, Iy = b * h ^ 3 / 12, Iz = h * b ^ 3 / 12, J = J, b = b, h = h }
  end
  cl.check_args(f, s, { A = true, Iy = true, Iz = true, J = true }, 4)
  return { A = cl.positive_number(f, s, "A", 4), Iy = cl.positive_number(f, s, "Iy", 4),
    Iz = cl.positive_number(f, s, "Iz", 4), J = cl.positive_number(f, s, "J", 4) }
end

-- ---- geometry checks and masses (host, once) -------------------------------------------------

local function sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
local function cross(a, b) return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] } end
local function norm(a) return math.sqrt(dot(a, a)) end

local CORNERS = { { -1, -1, -1 }, { 1, -1, -1 }, { 1, 1, -1 }, { -1, 1, -1 },
  { -1, -1, 1 }, { 1, -1, 1 }, { 1, 1, 1 }, { -1, 1, 1 } }
local FACES = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 1, 2, 6, 5 }, { 2, 3, 7, 6 }, { 3, 4, 8, 7 }, { 4, 1, 5, 8 } }
local GAUSS = 1 / math.sqrt(3)

-- det J of a hexahedron (corners P[1..8]) at natural point s.
local function hex_jacobian(P, s)
  local J = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } }
  for a = 1, 8 do
    local c = CORNERS[a]
    local dn = { c[1] * (1 + c[2] * s[2]) * (1 + c[3] * s[3]) / 8, c[2] * (1 + c[1] * s[1]) * (1 + c[3] * s[3]) / 8,
      c[3] * (1 + c[1] * s[1]) * (1 + c[2] * s[2]) / 8 }
    for r = 1, 3 do
      for k = 1, 3 do J[r][k] = J[r][k] + P[a][r] * dn[k] end
    end
  end
  return dot(J[1], cross(J[2], J[3])) -- rows are d x_r / d s: det of the transpose, the same
end

-- The largest eigenvalue of a 3 x 3 matrix A with real eigenvalues >= 0 (symmetric positive, or
-- a product of two): power iteration from a vector no eigenvector of a positive matrix is normal to.
local function largest_eigenvalue(A)
  local v, value = { 1, 1, 1 }, 0
  for _ = 1, 200 do
    local w = { dot(A[1], v), dot(A[2], v), dot(A[3], v) }
    local len = norm(w)
    local next_value = len / norm(v)
    v = { w[1] / len, w[2] / len, w[3] / len }
    if math.abs(next_value - value) <= 1e-12 * next_value then return next_value end
    value = next_value
  end
  return value
end

-- The stable step of one hexahedron (eq. 5, L_e / c_e): the highest frequency of a lone element
-- with lumped mass is its uniform-strain mode, omega^2 = 4 lmax(M) / rho with M_ij = (lambda +
-- 2 mu delta_ij) / (h_i h_j) and h_i the element's heights (volume over the mean area of each pair
-- of opposite faces), exact for boxes; an assembly's highest frequency is below its elements'
-- (docs/methods/finite-particle.md, "Time step").
local function hex_stable_dt(m, volume, area)
  local lambda, mu = m.E * m.nu / ((1 + m.nu) * (1 - 2 * m.nu)), m.E / (2 * (1 + m.nu))
  local h = { volume / ((area[4] + area[6]) / 2), volume / ((area[3] + area[5]) / 2), volume / ((area[1] + area[2]) / 2) }
  local M = {}
  for i = 1, 3 do
    M[i] = {}
    for j = 1, 3 do M[i][j] = (lambda + (i == j and 2 * mu or 0)) / (h[i] * h[j]) end
  end
  return 1 / math.sqrt(largest_eigenvalue(M) / m.rho)
end

-- The volume of hexahedron e and its faces' areas (FACES order); refuses one that is degenerate
-- or inverted at a Gauss point, naming it.
local function hex_geometry(fn, e, P)
  local volume, scale = 0, 0
  for a = 2, 8 do scale = math.max(scale, norm(sub(P[a], P[1]))) end
  for g = 1, 8 do
    local c = CORNERS[g]
    local det = hex_jacobian(P, { c[1] * GAUSS, c[2] * GAUSS, c[3] * GAUSS })
    if not (det > 1e-12 * scale ^ 3) then
      error(string.format("%s: hexahedron %d is %s (det J = %g at Gauss point %d): give its corners in VTK order, " ..
        "the bottom face counter-clockwise seen from above it, then the top face above them, and no two corners " ..
        "at one place", fn, e, det < 0 and "inverted" or "degenerate", det, g), 3)
    end
    volume = volume + det
  end
  local area = {}
  for k, f in ipairs(FACES) do
    area[k] = 0.5 * norm(cross(sub(P[f[3]], P[f[1]]), sub(P[f[4]], P[f[2]])))
  end
  return volume, area
end

-- ---- bodies ------------------------------------------------------------------------------------

local body_mt = {}
body_mt.__index = body_mt
body_mt.__tostring = function(b)
  return string.format("fpm.body<%d particles, %d %s, %s on %s>", b.n, b.ne, ({ beam = "beams", shell = "shells",
    hex = "hexahedra" })[b.kind], b.precision, b.x0.device)
end

local function field(b, k) return cl.field { n = b.n, k = k, dtype = b.precision } end

-- Rows of a list of integer tuples of width k (1-based particle numbers) as a 0-based u32 field.
local function connectivity(fn, key, list, k, n)
  if type(list) ~= "table" or #list == 0 then error(string.format("%s: argument '%s' must list elements", fn, key), 3) end
  local rows = {}
  for e, t in ipairs(list) do
    if type(t) ~= "table" or #t ~= k then
      error(string.format("%s: %s element %d must list %d particle numbers", fn, key, e, k), 3)
    end
    local row = {}
    for a = 1, k do
      local p = math.tointeger(t[a])
      if not p or p < 1 or p > n then
        error(string.format("%s: %s element %d names particle %s; particles are 1..%d", fn, key, e, tostring(t[a]), n), 3)
      end
      row[a] = p - 1
    end
    rows[e] = row
  end
  return cl.field { data = rows, k = k, dtype = "u32" }
end

local body_keys = { points = true, beams = true, shells = true, hexes = true, material = true, section = true,
  orient = true, thickness = true, layers = true, precision = true, assembly = true }

-- Particles per element of each kind.
local CORNERS_OF = { beam = 2, shell = 3, hex = 8 }

-- The stable step of one shell triangle (eq. 5): its membrane (a constant-strain triangle with lumped
-- mass: omega^2 = 3 lmax(D B B^T) / (rho), exact for the lone element) and its bending, whose
-- rotational inertia m t^2 / 2 per corner (as beams': 3 rho I L per end) keeps the rotations' frequency
-- near the membrane's; the factor of 1/2 + (t / h)^2 with h the smallest height is the beams' bound
-- (docs/methods/finite-particle.md, "Time step").
local function shell_stable_dt(m, t, P)
  local b = { P[2][2] - P[3][2], P[3][2] - P[1][2], P[1][2] - P[2][2] }
  local c = { P[3][1] - P[2][1], P[1][1] - P[3][1], P[2][1] - P[1][1] }
  local area2 = math.abs((P[2][1] - P[1][1]) * (P[3][2] - P[1][2]) - (P[2][2] - P[1][2]) * (P[3][1] - P[1][1]))
  local bb, cc, bc = 0, 0, 0
  for k = 1, 3 do bb, cc, bc = bb + b[k] ^ 2, cc + c[k] ^ 2, bc + b[k] * c[k] end
  local G = { { bb, 0, bc }, { 0, cc, bc }, { bc, bc, bb + cc } } -- B B^T times area2^2
  local k0 = m.E / (1 - m.nu ^ 2)
  local D = { { k0, k0 * m.nu, 0 }, { k0 * m.nu, k0, 0 }, { 0, 0, k0 * (1 - m.nu) / 2 } }
  local DG = {}
  for i = 1, 3 do
    DG[i] = {}
    for j = 1, 3 do DG[i][j] = D[i][1] * G[1][j] + D[i][2] * G[2][j] + D[i][3] * G[3][j] end
  end
  local omega2 = 3 * largest_eigenvalue(DG) / (area2 ^ 2 * m.rho) -- D G: similar to a symmetric matrix
  local longest = 0
  for k = 1, 3 do longest = math.max(longest, math.sqrt(b[k] ^ 2 + c[k] ^ 2)) end
  local h = area2 / longest
  return 2 / math.sqrt(omega2) / math.sqrt(math.max(1, 0.5 + (t / h) ^ 2))
end

-- The gather assembly's connectivity (paper Algorithm 1, Fig. 7): per particle the rows k ne + e of
-- the element buffer (corner k of element e) that belong to it, as CSR offsets and slots (0-based).
local function gather_lists(list, k, n)
  local count, ne = {}, #list
  for i = 1, n + 1 do count[i] = 0 end
  for _, t in ipairs(list) do
    for a = 1, k do count[t[a]] = count[t[a]] + 1 end
  end
  local offsets, at = { 0 }, {}
  for i = 1, n do
    offsets[i + 1] = offsets[i] + count[i]
    at[i] = offsets[i]
  end
  local slots = {}
  for e, t in ipairs(list) do
    for a = 1, k do
      local p = t[a]
      slots[at[p] + 1] = (a - 1) * ne + (e - 1)
      at[p] = at[p] + 1
    end
  end
  return cl.field { data = offsets, dtype = "u32" }, cl.field { data = slots, dtype = "u32" }
end

--- cleave.fpm.body{ points = { {x, y, z}, ... }, beams = { {i, j}, ... } | hexes = { {8 corners}, ... },
---   material = cleave.fpm.elastic{...} | j2{...} | material{...}, section = (beams) { b =, h = } |
---   { A =, Iy =, Iz =, J = }, orient = (beams) {x, y, z} or a list per beam: a vector in the local x-y
---   plane (local y is the section's b side), precision = "f64", assembly = "scatter" | "gather" }
--- Particle numbers are 1-based; hexahedra's corners in VTK order. Beams are elastic (the section's
--- resultants from E, nu); hexahedra run the material's stress_update law at 8 Gauss points.
--- assembly: how element forces reach the particles, atomic adds ("scatter") or a sum per particle
--- over its elements' rows of an element buffer ("gather", the paper's Algorithm 1: no atomics, the
--- same order on every device, one more pass over 3 (beams: 6) reals per element corner).
-- The assembly a body of each element type gets unless it names one: the faster of the two in
-- scripts/bench/bench_fpm.lua on the GPU (docs/benchmarks.md, finite particle method); the atomic
-- scatter until that run has decided.
local DEFAULT_ASSEMBLY = { beam = "scatter", shell = "scatter", hex = "scatter" }

function fpm.body(args)
  local fn = "cleave.fpm.body"
  cl.check_args(fn, args, body_keys)
  local points = args.points
  if type(points) ~= "table" or #points < 2 then error(fn .. ": argument 'points' must list particles {x, y, z}", 2) end
  for i, p in ipairs(points) do
    if type(p) ~= "table" or type(p[1]) ~= "number" or type(p[2]) ~= "number" or type(p[3]) ~= "number" then
      error(string.format("%s: point %d must be {x, y, z}", fn, i), 2)
    end
  end
  local given = (args.beams and 1 or 0) + (args.shells and 1 or 0) + (args.hexes and 1 or 0)
  if given ~= 1 then
    error(fn .. ": give 'beams' (pairs of particles), 'shells' (triangles) or 'hexes' (8 particles each), one kind " ..
      "per body", 2)
  end
  local m = args.material
  if getmetatable(m) ~= material_mt then
    error(fn .. ": argument 'material' must be cleave.fpm.elastic{...}, cleave.fpm.j2{...} or cleave.fpm.material{...}", 2)
  end
  local precision = args.precision or "f64"
  if precision ~= "f32" and precision ~= "f64" then error(fn .. ": argument 'precision' must be \"f32\" or \"f64\"", 2) end
  local kind = args.beams and "beam" or args.shells and "shell" or "hex"
  local assembly = args.assembly or DEFAULT_ASSEMBLY[kind]
  if assembly ~= "scatter" and assembly ~= "gather" then
    error(fn .. ": argument 'assembly' must be \"scatter\" (atomic adds) or \"gather\" (per particle, Algorithm 1)", 2)
  end
  local n = #points
  local b = setmetatable({ n = n, material = m, precision = precision, points = points,
    constraints = {}, loads = {}, kind = kind,
    assembly = assembly }, body_mt)
  local elements = args.beams or args.shells or args.hexes
  b.x0 = cl.field { data = points, k = 3, dtype = precision }
  local mass = {}
  for i = 1, n do mass[i] = 0 end
  if b.kind == "beam" then
    if not m.elastic then error(fn .. ": beams take cleave.fpm.elastic{...} (their section is elastic)", 2) end
    b.section = section_of(fn, args.section)
    b.conn = connectivity(fn, "beams", args.beams, 2, n)
    b.ne = b.conn.n
    local orient = args.orient
    if type(orient) ~= "table" then
      error(fn .. ": beams need 'orient' ({x, y, z}, a vector in each beam's local x-y plane, not along the beam)", 2)
    end
    local single = type(orient[1]) == "number"
    local s, inertia, dts, rows = b.section, {}, {}, {}
    for i = 1, n do inertia[i] = 0 end
    local Imax = math.max(s.Iy, s.Iz)
    local c = math.sqrt(m.E / m.rho)
    for e, pair in ipairs(args.beams) do
      local axis = sub(points[pair[2]], points[pair[1]])
      local L = norm(axis)
      if not (L > 0) then error(string.format("%s: beam %d joins particle %d to itself (zero length)", fn, e, pair[1]), 2) end
      local o = single and orient or orient[e]
      if type(o) ~= "table" or type(o[1]) ~= "number" or type(o[2]) ~= "number" or type(o[3]) ~= "number" then
        error(string.format("%s: 'orient' must be {x, y, z} or a list of one per beam (beam %d has none)", fn, e), 2)
      end
      if not (norm(cross(o, axis)) > 1e-6 * norm(o) * L) then
        error(string.format("%s: beam %d lies along its 'orient' vector {%g, %g, %g}: give a vector across the beam " ..
          "(in its local x-y plane)", fn, e, o[1], o[2], o[3]), 2)
      end
      rows[e] = { o[1], o[2], o[3] }
      -- lumped: half the mass to each end; rotational inertia 3 rho Imax L per end, which keeps the
      -- rotations' frequencies below the axial one (docs/methods/finite-particle.md, "Time step")
      for _, p in ipairs(pair) do
        mass[p] = mass[p] + m.rho * s.A * L / 2
        inertia[p] = inertia[p] + 3 * m.rho * Imax * L
      end
      local G = m.E / (2 * (1 + m.nu))
      local factor = math.max(1, 0.5 + 12 * Imax / (s.A * L * L), G * s.J / (6 * m.E * Imax))
      dts[e] = L / math.sqrt(factor) / c
    end
    b.orient = cl.field { data = rows, k = 3, dtype = precision }
    b.inertia = cl.field { data = inertia, dtype = precision }
    b.element_dt = dts
    b.G = m.E / (2 * (1 + m.nu))
  elseif b.kind == "shell" then
    if not (m.elastic or m.sy) then
      error(fn .. ": shells take cleave.fpm.elastic{...} or cleave.fpm.j2{...} (their laws are built in)", 2)
    end
    b.thickness = cl.positive_number(fn, args, "thickness")
    b.layers = args.layers == nil and 5 or math.tointeger(args.layers)
    if not (b.layers and b.layers >= 3 and b.layers % 2 == 1) then
      error(fn .. ": argument 'layers' (Simpson points through a shell's thickness) must be an odd integer >= 3", 2)
    end
    b.conn = connectivity(fn, "shells", args.shells, 3, n)
    b.ne = b.conn.n
    local inertia, dts = {}, {}
    for i = 1, n do inertia[i] = 0 end
    for e, tri in ipairs(args.shells) do
      local P = { points[tri[1]], points[tri[2]], points[tri[3]] }
      local normal = cross(sub(P[2], P[1]), sub(P[3], P[1]))
      local longest = math.max(norm(sub(P[2], P[1])), norm(sub(P[3], P[2])), norm(sub(P[1], P[3])))
      if not (norm(normal) > 1e-9 * longest ^ 2) then
        error(string.format("%s: shell %d is degenerate (its corners are in a line or at one place)", fn, e), 2)
      end
      -- in-plane coordinates for the time step
      local e1 = sub(P[2], P[1])
      local l1 = norm(e1)
      e1 = { e1[1] / l1, e1[2] / l1, e1[3] / l1 }
      local e3 = normal
      local l3 = norm(e3)
      e3 = { e3[1] / l3, e3[2] / l3, e3[3] / l3 }
      local e2 = cross(e3, e1)
      local flat = {}
      for k = 1, 3 do
        local r = sub(P[k], P[1])
        flat[k] = { dot(r, e1), dot(r, e2) }
      end
      local corner_mass = m.rho * b.thickness * norm(normal) / 2 / 3
      for _, p in ipairs(tri) do
        mass[p] = mass[p] + corner_mass
        inertia[p] = inertia[p] + corner_mass * b.thickness ^ 2 / 2
      end
      dts[e] = shell_stable_dt(m, b.thickness, flat)
    end
    b.inertia = cl.field { data = inertia, dtype = precision }
    b.element_dt = dts
    if m.sy then b.plastic = cl.field { n = 3 * b.layers * b.ne, k = 4, dtype = precision } end
  else
    b.conn = connectivity(fn, "hexes", args.hexes, 8, n)
    b.ne = b.conn.n
    local dts = {}
    for e, corners in ipairs(args.hexes) do
      local P = {}
      for a = 1, 8 do P[a] = points[corners[a]] end
      local volume, area = hex_geometry(fn, e, P)
      for a = 1, 8 do mass[corners[a]] = mass[corners[a]] + m.rho * volume / 8 end
      dts[e] = hex_stable_dt(m, volume, area)
    end
    b.element_dt = dts
    -- what a Gauss point keeps, per law (kernels/fpm/hex.h): the stress and strain of a user's law,
    -- the plastic strain of J2, nothing of the elastic law (body:stress() evaluates the stress)
    b.hex_state = m.hex_state
    if b.hex_state == "incremental" then
      b.sig = cl.field { n = 8 * b.ne, k = 6, dtype = precision }
      b.eps = cl.field { n = 8 * b.ne, k = 6, dtype = precision }
    elseif b.hex_state == "plastic" then
      b.plastic = cl.field { n = 8 * b.ne, k = 6, dtype = precision }
    end
    b.law_state = {}
    for k, name in ipairs(m.law.state_names) do
      b.law_state[k] = cl.field { n = 8 * b.ne, dtype = precision, value = m.law.state[name] }
    end
  end
  for i = 1, n do
    if mass[i] == 0 then error(string.format("%s: particle %d belongs to no element (it has no mass)", fn, i), 2) end
  end
  b.mass_values = mass
  b.mass = cl.field { data = mass, dtype = precision }
  -- dd_prescribed: the increments of constrained DOFs (zero: fixed; prescribed velocities, step_pipeline)
  b.d, b.dd, b.dd_prescribed, b.f = field(b, 3), field(b, 3), field(b, 3), field(b, 3)
  b.fext_varying, b.fext0 = field(b, 3), field(b, 3)
  b.fext = b.fext0
  b.work = field(b, 5)
  b.energy_density = cl.field { n = b.ne, dtype = precision } -- per element: its elastic energy
  b.rotates = b.kind ~= "hex"
  if assembly == "gather" then
    local k = CORNERS_OF[b.kind]
    b.offsets, b.slots = gather_lists(elements, k, n)
    b.fe = cl.field { n = k * b.ne, k = 3, dtype = precision }
    if b.rotates then b.me = cl.field { n = k * b.ne, k = 3, dtype = precision } end
  end
  if b.rotates then
    local identity = {}
    for i = 1, n do identity[i] = { 1, 0, 0, 0 } end
    b.q = cl.field { data = identity, k = 4, dtype = precision }
    b.dth, b.dth_prescribed, b.m, b.mext_varying, b.mext0 = field(b, 3), field(b, 3), field(b, 3), field(b, 3), field(b, 3)
    b.mext = b.mext0
  end
  return b
end

-- ---- generators ---------------------------------------------------------------------------------

-- Particles of an nx x ny x nz grid of hexahedra over [x0, x1] x [y0, y1] x [z0, z1], with the cells.
local function hex_grid(x0, x1, y0, y1, z0, z1, nx, ny, nz)
  local points, hexes = {}, {}
  local function id(i, j, k) return 1 + i + (nx + 1) * (j + (ny + 1) * k) end
  for k = 0, nz do
    for j = 0, ny do
      for i = 0, nx do
        points[id(i, j, k)] = { x0 + (x1 - x0) * i / nx, y0 + (y1 - y0) * j / ny, z0 + (z1 - z0) * k / nz }
      end
    end
  end
  for k = 0, nz - 1 do
    for j = 0, ny - 1 do
      for i = 0, nx - 1 do
        hexes[#hexes + 1] = { id(i, j, k), id(i + 1, j, k), id(i + 1, j + 1, k), id(i, j + 1, k),
          id(i, j, k + 1), id(i + 1, j, k + 1), id(i + 1, j + 1, k + 1), id(i, j + 1, k + 1) }
      end
    end
  end
  return points, hexes
end

local function cells(fn, args, key, default)
  local v = args[key] == nil and default or args[key]
  if math.type(v) ~= "integer" or v < 1 then error(string.format("%s: argument '%s' must be an integer >= 1", fn, key), 3) end
  return v
end

--- cleave.fpm.box{ x = {x0, x1}, y = {y0, y1}, z = {z0, z1}, nx =, ny =, nz =, material =,
---   precision =, assembly = } -> a body of nx ny nz hexahedra filling the box
function fpm.box(args)
  local fn = "cleave.fpm.box"
  cl.check_args(fn, args, { x = true, y = true, z = true, nx = true, ny = true, nz = true, material = true,
    precision = true, assembly = true })
  local range = {}
  for _, key in ipairs { "x", "y", "z" } do
    local r = args[key]
    if type(r) ~= "table" or type(r[1]) ~= "number" or type(r[2]) ~= "number" or not (r[2] > r[1]) then
      error(string.format("%s: argument '%s' must be {low, high} with high > low", fn, key), 2)
    end
    range[key] = r
  end
  local points, hexes = hex_grid(range.x[1], range.x[2], range.y[1], range.y[2], range.z[1], range.z[2],
    cells(fn, args, "nx"), cells(fn, args, "ny"), cells(fn, args, "nz"))
  return fpm.body { points = points, hexes = hexes, material = args.material, precision = args.precision,
    assembly = args.assembly }
end

-- The shells of an n1 x n2 grid of cells, 2 triangles a cell with alternating diagonals (no
-- preferred direction), each counter-clockwise in (i, j); id(i, j) numbers the grid's particles.
local function grid_triangles(n1, n2, id)
  local shells = {}
  for j = 0, n2 - 1 do
    for i = 0, n1 - 1 do
      local a, b, c, d = id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1)
      if (i + j) % 2 == 0 then
        shells[#shells + 1], shells[#shells + 2] = { a, b, c }, { a, c, d }
      else
        shells[#shells + 1], shells[#shells + 2] = { a, b, d }, { b, c, d }
      end
    end
  end
  return shells
end

-- A generator's shell body: its particles and triangles with the arguments every shell generator passes on.
local function shell_body(args, points, shells)
  return fpm.body { points = points, shells = shells, thickness = args.thickness, layers = args.layers,
    material = args.material, precision = args.precision, assembly = args.assembly }
end

--- cleave.fpm.cantilever{ kind = "beam" | "hex", length =, elements =, material =, precision =, assembly =,
---   beam: section = { b =, h = } | {...}, orient = {0, 1, 0} (default: local y along global y);
---   hex: width =, height =, ny = 1, nz = 1 } -> a straight cantilever along x from the origin, its
--- cross-section centred on the x axis (hex: width along y, height along z); the root is x = 0.
function fpm.cantilever(args)
  local fn = "cleave.fpm.cantilever"
  cl.check_args(fn, args, { kind = true, length = true, elements = true, material = true, precision = true,
    section = true, orient = true, width = true, height = true, ny = true, nz = true, assembly = true,
    thickness = true, layers = true })
  local L = cl.positive_number(fn, args, "length")
  local ne = cells(fn, args, "elements")
  if args.kind == "beam" then
    local points, beams = {}, {}
    for i = 0, ne do points[i + 1] = { L * i / ne, 0, 0 } end
    for e = 1, ne do beams[e] = { e, e + 1 } end
    return fpm.body { points = points, beams = beams, material = args.material, section = args.section,
      orient = args.orient or { 0, 1, 0 }, precision = args.precision, assembly = args.assembly }
  elseif args.kind == "shell" then
    -- a strip in the x-y plane, 2 triangles per cell (alternating diagonals), normal along z
    local w, ny = cl.positive_number(fn, args, "width"), cells(fn, args, "ny", 1)
    local points = {}
    local function id(i, j) return 1 + i + (ne + 1) * j end
    for j = 0, ny do
      for i = 0, ne do points[id(i, j)] = { L * i / ne, -w / 2 + w * j / ny, 0 } end
    end
    return shell_body(args, points, grid_triangles(ne, ny, id))
  elseif args.kind == "hex" then
    local w, h = cl.positive_number(fn, args, "width"), cl.positive_number(fn, args, "height")
    local points, hexes = hex_grid(0, L, -w / 2, w / 2, -h / 2, h / 2, ne, cells(fn, args, "ny", 1),
      cells(fn, args, "nz", 1))
    return fpm.body { points = points, hexes = hexes, material = args.material, precision = args.precision,
      assembly = args.assembly }
  end
  error(fn .. ": argument 'kind' must be \"beam\", \"shell\" or \"hex\"", 2)
end

--- cleave.fpm.spherical_cap{ radius =, angle = (half-angle, degrees, below 90), rings =, thickness =,
---   material =, precision =, assembly = } -> a shell cap of the sphere centred at the origin around
--- the +z axis: the apex at (0, 0, radius) and rings of 6 k particles at polar angles k angle / rings,
--- triangles between neighbouring rings, every normal pointing away from the centre (a pressure
--- p > 0 pushes inwards). The rim is z = radius cos(angle).
function fpm.spherical_cap(args)
  local fn = "cleave.fpm.spherical_cap"
  cl.check_args(fn, args, { radius = true, angle = true, rings = true, thickness = true, layers = true, material = true,
    precision = true, assembly = true })
  local R, angle = cl.positive_number(fn, args, "radius"), cl.positive_number(fn, args, "angle")
  if not (angle < 90) then error(fn .. ": argument 'angle' (the half-angle, degrees) must be below 90", 2) end
  local rings = cells(fn, args, "rings")
  local points, shells = { { 0, 0, R } }, {}
  local alpha = math.rad(angle)
  local rows = { { { 1, 0 } } } -- per ring: { particle, azimuth } in order
  for k = 1, rings do
    local phi, list = alpha * k / rings, {}
    for j = 0, 6 * k - 1 do
      local theta = 2 * math.pi * j / (6 * k)
      points[#points + 1] = { R * math.sin(phi) * math.cos(theta), R * math.sin(phi) * math.sin(theta), R * math.cos(phi) }
      list[#list + 1] = { #points, theta }
    end
    rows[k + 1] = list
  end
  -- between two rings: walk both by azimuth, each step a triangle on the nearer next particle
  local function outward(tri)
    local a, b, c = points[tri[1]], points[tri[2]], points[tri[3]]
    local nrm = cross(sub(b, a), sub(c, a))
    if dot(nrm, { a[1] + b[1] + c[1], a[2] + b[2] + c[2], a[3] + b[3] + c[3] }) < 0 then tri[2], tri[3] = tri[3], tri[2] end
    shells[#shells + 1] = tri
  end
  for k = 1, rings do
    local inner, outer = rows[k], rows[k + 1]
    if #inner == 1 then
      for j = 1, #outer do outward { inner[1][1], outer[j][1], outer[j % #outer + 1][1] } end
    else
      local i, j, ni, no = 1, 1, #inner, #outer
      while i <= ni or j <= no do
        local ti = i <= ni and (i < ni and inner[i + 1][2] or 2 * math.pi) or math.huge
        local tj = j <= no and (j < no and outer[j + 1][2] or 2 * math.pi) or math.huge
        local a, b = inner[(i - 1) % ni + 1][1], outer[(j - 1) % no + 1][1]
        if tj <= ti then
          outward { a, b, outer[j % no + 1][1] }
          j = j + 1
        else
          outward { a, b, inner[i % ni + 1][1] }
          i = i + 1
        end
      end
    end
  end
  return shell_body(args, points, shells)
end

local CYLINDER_PARTS = { full = { 360, 1 }, half = { 180, 1 }, quarter = { 90, 1 }, octant = { 90, 0.5 } }

--- cleave.fpm.cylinder{ radius =, length =, thickness =, part = "full" | "half" | "quarter" | "octant",
---   around =, along =, material =, precision =, assembly = } -> a shell cylinder about the z axis,
--- particles at (radius cos a, radius sin a, z): "full" a = 0..360 degrees, z = 0..length; "half"
--- a = 0..180; "quarter" a = 0..90; "octant" a = 0..90 and z = 0..length/2 (the eighth of the
--- classic pinched cylinder). around x along cells, 2 triangles each (alternating diagonals),
--- normals pointing away from the axis. Named particle groups (where = { group = "name" }): "z0"
--- and "zL" (the ends z = 0 and z = length; the octant has "zmid" at z = length/2 instead),
--- "y0" (the cut edges on the plane y = 0: a = 0 and, for "half", a = 180) and "x0" (the cut
--- edge on the plane x = 0, a = 90, of "quarter" and "octant"). For symmetry use body:symmetry.
function fpm.cylinder(args)
  local fn = "cleave.fpm.cylinder"
  cl.check_args(fn, args, { radius = true, length = true, thickness = true, layers = true, part = true, around = true,
    along = true, material = true, precision = true, assembly = true })
  local R, L = cl.positive_number(fn, args, "radius"), cl.positive_number(fn, args, "length")
  local part = args.part or "full"
  local shape = CYLINDER_PARTS[part]
  if not shape then error(fn .. ": argument 'part' must be \"full\", \"half\", \"quarter\" or \"octant\"", 2) end
  local na, nz = cells(fn, args, "around"), cells(fn, args, "along")
  local closed = part == "full"
  if closed and na < 3 then error(fn .. ": argument 'around' must be >= 3 for the full cylinder", 2) end
  local arc, length = math.rad(shape[1]), L * shape[2]
  local columns = closed and na or na + 1 -- particles around: the full ring closes on itself
  local points = {}
  local function id(i, j) return 1 + i % columns + columns * j end
  for j = 0, nz do
    for i = 0, columns - 1 do
      local a = arc * i / na
      local x, y = R * math.cos(a), R * math.sin(a)
      -- exact zeros on the cut planes (cos 90 degrees is 6e-17), so that regions find them
      if math.abs(x) < 1e-12 * R then x = 0 end
      if math.abs(y) < 1e-12 * R then y = 0 end
      points[id(i, j)] = { x, y, length * j / nz }
    end
  end
  -- counter-clockwise seen from outside (a increasing, then z): normals point away from the axis
  local body = shell_body(args, points, grid_triangles(na, nz, id))
  local top = part == "octant" and "zmid" or "zL" -- the octant ends at its symmetry plane z = length/2
  local groups = { z0 = {}, [top] = {} }
  if not closed then groups.y0 = {} end
  if shape[1] == 90 then groups.x0 = {} end
  for i = 0, columns - 1 do
    table.insert(groups.z0, id(i, 0))
    table.insert(groups[top], id(i, nz))
  end
  for j = 0, nz do
    if groups.y0 then
      table.insert(groups.y0, id(0, j))
      if shape[1] == 180 then table.insert(groups.y0, id(na, j)) end
    end
    if groups.x0 then table.insert(groups.x0, id(na, j)) end
  end
  body.groups = groups
  return body
end

--- cleave.fpm.annulus{ inner =, outer =, thickness =, part = "full" | "quarter", around =, radial =, axial = 1,
---   material =, precision =, assembly = } -> a ring of hexahedra about the z axis, radii inner..outer,
--- z = 0..thickness: "full" a = 0..360 degrees, "quarter" a = 0..90; around x radial x axial cells.
--- Particle groups: "inner", "outer" (the cylindrical faces), "z0", "zT" (the flat ones) and, for the
--- quarter, "x0" and "y0" (the cut faces on the planes x = 0 and y = 0, symmetry planes of the ring).
function fpm.annulus(args)
  local fn = "cleave.fpm.annulus"
  cl.check_args(fn, args, { inner = true, outer = true, thickness = true, part = true, around = true, radial = true,
    axial = true, material = true, precision = true, assembly = true })
  local a, b, T = cl.positive_number(fn, args, "inner"), cl.positive_number(fn, args, "outer"),
    cl.positive_number(fn, args, "thickness")
  if not (b > a) then error(string.format("%s: argument 'outer' (%g) must exceed 'inner' (%g)", fn, b, a), 2) end
  local part = args.part or "full"
  if part ~= "full" and part ~= "quarter" then error(fn .. ": argument 'part' must be \"full\" or \"quarter\"", 2) end
  local na, nr, nz = cells(fn, args, "around"), cells(fn, args, "radial"), cells(fn, args, "axial", 1)
  if part == "full" and na < 3 then error(fn .. ": argument 'around' must be >= 3 for the full ring", 2) end
  local arc, columns = part == "full" and 2 * math.pi or math.pi / 2, part == "full" and na or na + 1
  local points, hexes = {}, {}
  local function id(i, j, k) return 1 + i % columns + columns * (j + (nr + 1) * k) end
  local groups = { inner = {}, outer = {}, z0 = {}, zT = {} }
  if part == "quarter" then groups.x0, groups.y0 = {}, {} end
  for k = 0, nz do
    for j = 0, nr do
      for i = 0, columns - 1 do
        local r, angle = a + (b - a) * j / nr, arc * i / na
        local x, y = r * math.cos(angle), r * math.sin(angle)
        if math.abs(x) < 1e-12 * b then x = 0 end -- exact zeros on the cut planes
        if math.abs(y) < 1e-12 * b then y = 0 end
        local p = id(i, j, k)
        points[p] = { x, y, T * k / nz }
        if j == 0 then table.insert(groups.inner, p) end
        if j == nr then table.insert(groups.outer, p) end
        if k == 0 then table.insert(groups.z0, p) end
        if k == nz then table.insert(groups.zT, p) end
        if groups.y0 and i == 0 then table.insert(groups.y0, p) end
        if groups.x0 and i == na then table.insert(groups.x0, p) end
      end
    end
  end
  for k = 0, nz - 1 do
    for j = 0, nr - 1 do
      for i = 0, na - 1 do
        -- VTK order: the bottom face counter-clockwise seen from +z (r, then a), then the top
        hexes[#hexes + 1] = { id(i, j, k), id(i, j + 1, k), id(i + 1, j + 1, k), id(i + 1, j, k),
          id(i, j, k + 1), id(i, j + 1, k + 1), id(i + 1, j + 1, k + 1), id(i + 1, j, k + 1) }
      end
    end
  end
  local body = fpm.body { points = points, hexes = hexes, material = args.material, precision = args.precision,
    assembly = args.assembly }
  body.groups = groups
  return body
end

--- cleave.fpm.read{ path =, material =, thickness =, layers =, precision =, assembly = } -> a body from
--- a mesh file: a Gmsh .msh (ASCII 2.2 or 4.1) of 3-node triangles (shells) or 8-node hexahedra, or
--- an Abaqus .inp (by the extension) of S3 shells or C3D8 hexahedra, one kind per file. Gmsh's named
--- physical groups of any dimension (points, lines, surfaces, volumes) and Abaqus's *NSET and
--- *ELSET (the nodes of its elements) become particle groups: where = { group = "name" }.
--- Shells need 'thickness' (and take 'layers'); hexahedra take neither.
function fpm.read(args)
  local fn = "cleave.fpm.read"
  cl.check_args(fn, args, { path = true, material = true, thickness = true, layers = true, precision = true,
    assembly = true })
  local path = args.path
  if type(path) ~= "string" then error(fn .. ": argument 'path' must name a .msh (Gmsh) or .inp (Abaqus) file", 2) end
  local format = path:lower():match("%.inp$") and "inp" or path:lower():match("%.msh$") and "msh"
  if not format then error(fn .. ": argument 'path' (" .. path .. ") must end in .msh (Gmsh) or .inp (Abaqus)", 2) end
  local ok, mesh = pcall(fpm._read_mesh, path, format)
  if not ok then error(mesh, 2) end
  if mesh.kind == "hexes" and (args.thickness ~= nil or args.layers ~= nil) then
    error(fn .. ": " .. path .. " holds hexahedra: 'thickness' and 'layers' are for shells (triangles)", 2)
  end
  local body = fpm.body { points = mesh.points, [mesh.kind] = mesh.cells, material = args.material,
    thickness = args.thickness, layers = args.layers, precision = args.precision, assembly = args.assembly }
  local groups = {}
  for name, rows in pairs(mesh.groups) do
    if #rows > 0 then groups[name] = rows end
  end
  body.groups = groups
  return body
end

-- ---- regions, constraints, loads -----------------------------------------------------------------

--- body:select(where [, params]) -> u32 field of the 1-based rows of the particles in the region
--- (a function(x, y, z), an expression in x, y, z (dx there is 0) or { group = "name" }, a particle
--- group of a generator such as cleave.fpm.cylinder); an empty region is an error.
function body_mt:select(where, params, fn, level)
  fn, level = fn or "body:select", level or 2
  if type(where) == "table" then
    local name = where.group
    local rows = self.groups and self.groups[name]
    if not rows then
      local names = {}
      for k in pairs(self.groups or {}) do names[#names + 1] = k end
      table.sort(names)
      error(string.format("%s: 'where' = { group = %s } names no particle group of this body (groups: %s)", fn,
        tostring(name), #names > 0 and table.concat(names, ", ") or "none"), level)
    end
    return cl.field { data = rows, dtype = "u32" }
  end
  local inside = pd.region(fn, where, params, level + 1)
  local rows = {}
  if type(inside) == "function" then
    for i, p in ipairs(self.points) do
      if inside(p[1], p[2], p[3]) then rows[#rows + 1] = i end
    end
  else
    for i, flag in ipairs(inside:inside(self.x0, 0):to_table()) do
      if flag ~= 0 then rows[#rows + 1] = i end
    end
  end
  if #rows == 0 then
    error(string.format("%s: the region %s holds no particle of the body", fn,
      type(where) == "string" and ("'" .. where .. "'") or "(function)"), level)
  end
  return cl.field { data = rows, dtype = "u32" }
end

local DOFS = { "x", "y", "z", "rx", "ry", "rz" }

-- The components of args named prefix .. x/y/z (and rx/ry/rz on beams) as { [dof] = value }.
local function components(self, fn, args, names, level)
  local out = {}
  for dof, name in pairs(names) do
    if args[name] ~= nil then
      if dof > 3 and not self.rotates then
        error(string.format("%s: '%s' is a rotation; only beams' and shells' particles rotate", fn, name), level)
      end
      out[dof] = pd.time_function(fn, name, args[name], args.params, level + 1)
    end
  end
  if next(out) == nil then
    local list = {}
    for dof, name in ipairs(names) do
      if dof <= 3 or self.rotates then list[#list + 1] = name end
    end
    error(string.format("%s: give at least one of %s", fn, table.concat(list, ", ")), level)
  end
  return out
end

local function named(prefix, rprefix)
  local names = {}
  for dof, axis in ipairs(DOFS) do names[dof] = dof <= 3 and prefix .. axis or rprefix .. axis:sub(2) end
  return names
end

local function keys_of(names)
  local keys = { where = true, params = true }
  for _, name in pairs(names) do keys[name] = true end
  return keys
end

--- body:fix{ where =, params =, dofs = "all" | "xyz" | { "x", "rz", ... } }: the degrees of freedom
--- held at zero (all: translations and, on beams, rotations: a clamp)
function body_mt:fix(args)
  local fn = "body:fix"
  cl.check_args(fn, args, { where = true, params = true, dofs = true })
  local rows = self:select(args.where, args.params, fn, 3)
  local dofs = args.dofs or "all"
  local list = {}
  if dofs == "all" then
    for dof = 1, self.rotates and 6 or 3 do list[#list + 1] = dof end
  elseif dofs == "xyz" then
    list = { 1, 2, 3 }
  elseif type(dofs) == "table" then
    for _, name in ipairs(dofs) do
      local found
      for dof, d in ipairs(DOFS) do if d == name then found = dof end end
      if not found or (found > 3 and not self.rotates) then
        error(string.format("%s: 'dofs' entry '%s' is not one of x, y, z%s", fn, tostring(name),
          self.rotates and ", rx, ry, rz" or " (hexahedra's particles do not rotate)"), 2)
      end
      list[#list + 1] = found
    end
  else
    error(fn .. ": 'dofs' must be \"all\", \"xyz\" or a list such as { \"x\", \"rz\" }", 2)
  end
  for _, dof in ipairs(list) do self.constraints[#self.constraints + 1] = { rows = rows, dof = dof, value = 0 } end
end

local AXIS = { x = 1, y = 2, z = 3 }

--- body:symmetry{ where =, params =, normal = "x" | "y" | "z" }: the particles of the region lie on a
--- plane of symmetry whose normal is that global axis: their translation along it is held at zero and,
--- on beams and shells, their rotations about the two axes in the plane.
function body_mt:symmetry(args)
  local fn = "body:symmetry"
  cl.check_args(fn, args, { where = true, params = true, normal = true })
  local axis = AXIS[args.normal]
  if not axis then error(fn .. ": argument 'normal' must be \"x\", \"y\" or \"z\" (the plane's normal axis)", 2) end
  local rows = self:select(args.where, args.params, fn, 3)
  local dofs = { axis }
  if self.rotates then dofs[2], dofs[3] = 3 + axis % 3 + 1, 3 + (axis + 1) % 3 + 1 end
  for _, dof in ipairs(dofs) do self.constraints[#self.constraints + 1] = { rows = rows, dof = dof, value = 0 } end
end

local VELOCITY = named("v", "w")

--- body:velocity{ where =, params =, vx =, vy =, vz =, (beams) wx =, wy =, wz = }: prescribed
--- velocity or angular velocity (numbers, functions of t or expressions in t)
function body_mt:velocity(args)
  local fn = "body:velocity"
  cl.check_args(fn, args, keys_of(VELOCITY))
  local rows = self:select(args.where, args.params, fn, 3)
  for dof, value in pairs(components(self, fn, args, VELOCITY, 3)) do
    self.constraints[#self.constraints + 1] = { rows = rows, dof = dof, value = value }
  end
end

local FORCE = named("f", "m")

--- body:load{ where =, params =, fx =, fy =, fz =, (beams) mx =, my =, mz = }: a force (N) and moment
--- (N m) on each particle of the region (numbers, functions of t or expressions in t)
function body_mt:load(args)
  local fn = "body:load"
  cl.check_args(fn, args, keys_of(FORCE))
  local rows = self:select(args.where, args.params, fn, 3)
  for dof, value in pairs(components(self, fn, args, FORCE, 3)) do
    self.loads[#self.loads + 1] = { rows = rows, dof = dof, value = value, scale = 1 }
  end
end

--- body:body_force{ where = (all), params =, gx =, gy =, gz = }: an acceleration field (m/s^2, as
--- gravity) loading each particle with its mass times g (numbers, functions or expressions of t)
function body_mt:body_force(args)
  local fn = "body:body_force"
  cl.check_args(fn, args, { where = true, params = true, gx = true, gy = true, gz = true })
  local rows = self:select(args.where or function() return true end, args.params, fn, 3)
  local by_mass = {} -- rows grouped by their mass: one load per group, scaled by it
  for _, i in ipairs(rows:to_table()) do
    local m = self.mass_values[i]
    by_mass[m] = by_mass[m] or {}
    table.insert(by_mass[m], i)
  end
  for dof, value in pairs(components(self, fn, args, { "gx", "gy", "gz" }, 3)) do
    for m, list in pairs(by_mass) do
      self.loads[#self.loads + 1] = { rows = cl.field { data = list, dtype = "u32" }, dof = dof, value = value, scale = m }
    end
  end
end

--- body:pressure{ where = (all), params =, p =, follower = (shells) true }: a pressure p (Pa: a number,
--- a function of t or an expression in t) on the faces whose corners all lie in the region: shell
--- triangles, each loading its corners with -p A n / 3, n its unit normal by the right-hand rule of
--- its corners (p > 0 pushes against n), on the current triangle (follower) or the reference one; or
--- the hexahedra's boundary faces, n pointing out of the body (p > 0 pushes in), in a fixed direction
--- (the reference face): each quadrilateral loads as the mean of its two triangulations, p A / 4 per
--- corner of a parallelogram, as the bilinear face's consistent load.
function body_mt:pressure(args)
  local fn = "body:pressure"
  cl.check_args(fn, args, { where = true, params = true, p = true, follower = true })
  if self.kind == "beam" then
    error(fn .. ": pressure acts on shell and hexahedron faces; this body has beams (use body:load for forces)", 2)
  end
  if self.kind == "hex" and args.follower then
    error(fn .. ": a follower pressure acts on shells; on hexahedra the pressure keeps the reference faces' " ..
      "direction: leave out 'follower' or set it false", 2)
  end
  local p = pd.time_function(fn, "p", args.p, args.params, 3)
  if p == nil then error(fn .. ": argument 'p' (the pressure, Pa) is required", 2) end
  local inside = {}
  for _, i in ipairs(self:select(args.where or function() return true end, args.params, fn, 3):to_table()) do
    inside[i] = true
  end
  local pressure = { p = p, follower = self.kind == "shell" and args.follower ~= false }
  local rows = {}
  if self.kind == "shell" then
    for e, tri in ipairs(self.conn:to_table()) do
      if inside[tri[1] + 1] and inside[tri[2] + 1] and inside[tri[3] + 1] then rows[#rows + 1] = e - 1 end
    end
    if #rows == 0 then error(fn .. ": no shell triangle has all three corners in the region", 2) end
  else
    pressure.conn, pressure.scale = self:boundary_triangles(inside), 0.5
    for r = 1, pressure.conn.n do rows[r] = r - 1 end
    if #rows == 0 then error(fn .. ": no boundary face of the hexahedra has all four corners in the region", 2) end
  end
  pressure.rows = cl.field { data = rows, dtype = "u32" }
  self.pressures = self.pressures or {}
  table.insert(self.pressures, pressure)
end

-- The hexahedra's boundary faces (in one element only) whose corners are all inside (a set of 1-based
-- particles), each as the 4 triangles of its two triangulations, ordered so that their normals point
-- out of the element: a u32 field of 0-based particle triples.
function body_mt:boundary_triangles(inside)
  local count, faces = {}, {}
  local hexes = self.conn:to_table()
  for _, h in ipairs(hexes) do
    for _, f in ipairs(FACES) do
      local key = {}
      for k = 1, 4 do key[k] = h[f[k]] end
      table.sort(key)
      key = table.concat(key, " ")
      count[key] = (count[key] or 0) + 1
    end
  end
  for _, h in ipairs(hexes) do
    local centre = { 0, 0, 0 }
    for a = 1, 8 do
      for c = 1, 3 do centre[c] = centre[c] + self.points[h[a] + 1][c] / 8 end
    end
    for _, f in ipairs(FACES) do
      local q, key = {}, {}
      for k = 1, 4 do q[k], key[k] = h[f[k]], h[f[k]] end
      table.sort(key)
      local all = inside[q[1] + 1] and inside[q[2] + 1] and inside[q[3] + 1] and inside[q[4] + 1]
      if all and count[table.concat(key, " ")] == 1 then
        local P = {}
        for k = 1, 4 do P[k] = self.points[q[k] + 1] end
        local normal = cross(sub(P[3], P[1]), sub(P[4], P[2]))
        if dot(normal, sub(P[1], centre)) < 0 then q[2], q[4] = q[4], q[2] end
        for _, t in ipairs { { 1, 2, 3 }, { 1, 3, 4 }, { 1, 2, 4 }, { 2, 3, 4 } } do
          faces[#faces + 1] = { q[t[1]], q[t[2]], q[t[3]] }
        end
      end
    end
  end
  return cl.field { data = faces, k = 3, dtype = "u32" }
end

-- The field and component of a degree of freedom's load (fext0/fext, mext0/mext) or increment.
local function load_target(b, dof, constant)
  if dof <= 3 then return constant and b.fext0 or b.fext, dof end
  return constant and b.mext0 or b.mext, dof - 3
end

local function increment_target(b, dof)
  if dof <= 3 then return b.dd_prescribed, dof end
  return b.dth_prescribed, dof - 3
end

-- ---- the step ---------------------------------------------------------------------------------------

--- The stable time step: the smallest over the elements of eq. 5, L_e / c_e.
function body_mt:stable_dt()
  local dt = math.huge
  for _, v in ipairs(self.element_dt) do dt = math.min(dt, v) end
  return dt
end

-- ---- kernel variants -------------------------------------------------------------------------

-- The GPU builds of the element kernels (docs/methods/finite-particle.md, "kernel variants"); the
-- same arithmetic in each, so the same results. Shells: the kernel unbounded ("default") or under
-- __launch_bounds__(threads, blocks an SM) (lua/l_fpm.c lists them). Hexahedra: 8 lanes an element
-- in blocks of 96 threads, or of 128 and 256 under launch bounds (lanes128x5: 96 registers, 20 warps
-- an SM for the latency-bound kernel, spilling 56-128 B by law), or one thread an element.
local HEX_VARIANTS = {
  lanes96 = { name = "lanes", lanes = 8, block = 96 },
  lanes128 = { name = "lanes128", lanes = 8, block = 128, bounds = "128, 4" },
  lanes256 = { name = "lanes256", lanes = 8, block = 256, bounds = "256, 2" },
  lanes128x5 = { name = "lanes128x5", lanes = 8, block = 128, bounds = "128, 5" },
  element = { name = "element", lanes = 1, block = 128 },
  element_lb = { name = "element_lb", lanes = 1, block = 128, bounds = "128, 4" },
}
-- The variants new runs take: the defaults are the fastest the lead measured (docs/benchmarks.md);
-- hexahedra per law, since what a point keeps (hex.h) sets the kernel's registers: elastic (nothing
-- kept) one thread an element, J2 (the plastic strain) 8 lanes under (128, 4), a user's law (stress
-- and strain) 8 lanes under (256, 2).
local kernel_variants = { shell = "lb128x3", hex = { elastic = "element", j2 = "lanes128", user = "lanes256" } }
-- The hexahedron's law, by what its points keep (the material's hex_state).
local HEX_LAW = { total = "elastic", plastic = "j2", incremental = "user" }

--- cleave.fpm.kernel_variants: the names of each kind's variants, sorted ({ shell = {...}, hex = {...} }).
fpm.kernel_variants = { shell = {}, hex = {} }
for _, name in ipairs(fpm._shell_variants) do table.insert(fpm.kernel_variants.shell, name) end
for name in pairs(HEX_VARIANTS) do table.insert(fpm.kernel_variants.hex, name) end
table.sort(fpm.kernel_variants.shell)
table.sort(fpm.kernel_variants.hex)

local function check_variant(fn, key, name, names)
  for _, n in ipairs(names) do if n == name then return end end
  error(string.format("%s: argument '%s' must be one of %s (got %s)", fn, key, table.concat(names, ", "),
    tostring(name)), 3)
end

--- cleave.fpm.kernel_variant{ shell =, hex = } -> the variants in use before the call: which GPU
--- build of the shell and hexahedron kernels the element stages made from now on run (a run's
--- stages are made by cleave.fpm.explicit / static); the CPU has one of each. hex: a name (every
--- law) or { elastic =, j2 =, user = } (the laws it names); the result's hex is such a table.
function fpm.kernel_variant(args)
  local fn = "cleave.fpm.kernel_variant"
  args = args or {}
  cl.check_args(fn, args, { shell = true, hex = true })
  local hex = args.hex
  if type(hex) == "table" then
    cl.check_args(fn .. " (hex)", hex, { elastic = true, j2 = true, user = true })
    for law, name in pairs(hex) do check_variant(fn, "hex." .. law, name, fpm.kernel_variants.hex) end
  elseif hex ~= nil then
    check_variant(fn, "hex", hex, fpm.kernel_variants.hex)
    hex = { elastic = hex, j2 = hex, user = hex }
  end
  if args.shell ~= nil then check_variant(fn, "shell", args.shell, fpm.kernel_variants.shell) end
  local before = { shell = kernel_variants.shell, hex = {} }
  for law, name in pairs(kernel_variants.hex) do before.hex[law] = name end
  kernel_variants.shell = args.shell or kernel_variants.shell
  for law, name in pairs(hex or {}) do kernel_variants.hex[law] = name end
  return before
end

-- The element stages: beams precompiled, hexahedra the material's law compiled around hex.h,
-- then (gather assembly) the sums per particle. They subtract the internal forces from f and m
-- (the body's own unless given) and write each element's elastic energy into energy; hexahedra
-- that keep no stress write it into stress when given.
function body_mt:element_stages(f, m, energy, stress)
  f, m, energy = f or self.f, m or self.m, energy or self.energy_density
  local stages
  if self.kind == "shell" then
    local mat = self.material
    stages = { cl.stage.fpm_shell { conn = self.conn, thickness = self.thickness, E = mat.E, nu = mat.nu, x0 = self.x0,
      d = self.d, q = self.q, f = f, m = m, fe = self.fe, me = self.me, energy = energy, sy = mat.sy, H = mat.H,
      layers = self.layers, plastic = self.plastic, variant = kernel_variants.shell } }
  elseif self.kind == "beam" then
    local s, mat = self.section, self.material
    stages = { cl.stage.fpm_beam { conn = self.conn, orient = self.orient, EA = mat.E * s.A, EIy = mat.E * s.Iy,
      EIz = mat.E * s.Iz, GJ = self.G * s.J, x0 = self.x0, d = self.d, q = self.q, f = f, m = m, fe = self.fe,
      me = self.me, energy = energy } }
  else
    local mat = self.material
    local variant = HEX_VARIANTS[kernel_variants.hex[HEX_LAW[self.hex_state]]]
    stages = { cl.stage.fpm_hex { conn = self.conn, x0 = self.x0, d = self.d, f = f, fe = self.fe,
      state = self.hex_state, sig = self.sig or stress, eps = self.eps, plastic = self.plastic,
      E = self.plastic and mat.E, nu = self.plastic and mat.nu, energy = energy,
      law = mat.law:fpm_hex_module(self.x0, variant, self.hex_state), law_state = self.law_state,
      lanes = variant.lanes, block = variant.block } }
  end
  if self.assembly == "gather" then
    stages[2] = cl.stage.fpm_gather { offsets = self.offsets, slots = self.slots, fe = self.fe, f = f }
    if self.me then stages[3] = cl.stage.fpm_gather { offsets = self.offsets, slots = self.slots, fe = self.me, f = m } end
  end
  return stages
end

local function run_all(stages)
  for _, stage in ipairs(stages) do stage:run() end
end

--- body:internal_force() -> f, m: the internal forces (and moments, beams) of the present
--- displacements and rotations, as n x 3 fields (what the particles exert on the elements: the
--- negative of the element stage's share). Hexahedra's stress is updated as a step would. The
--- two fields are the body's own, overwritten by the next call.
function body_mt:internal_force()
  if not self.internal then -- the stages and fields of this evaluation, made once
    self.internal = { stages = self:element_stages(), f = field(self, 3), m = self.m and field(self, 3) }
    local out = self.internal
    out.negate = { cl.stage.axpy { y = out.f, x = self.f, a = -1 } }
    if out.m then out.negate[2] = cl.stage.axpy { y = out.m, x = self.m, a = -1 } end
  end
  local out = self.internal
  self.f:fill(0)
  out.f:fill(0)
  if self.m then
    self.m:fill(0)
    out.m:fill(0)
  end
  run_all(out.stages)
  run_all(out.negate)
  return out.f, out.m
end

-- The constraint mask (bit dof - 1 per constrained degree of freedom) as a u32 field.
local function mask_field(b)
  local mask = {}
  for i = 1, b.n do mask[i] = 0 end
  for _, k in ipairs(b.constraints) do
    for _, i in ipairs(k.rows:to_table()) do mask[i] = mask[i] | (1 << (k.dof - 1)) end
  end
  return cl.field { data = mask, dtype = "u32" }
end

-- The constant loads into fext0 / mext0 (once), the varying ones kept for their stages; with a time
-- t (quasi-static levels, where the loads stay at their values of t while the body settles) every
-- load is evaluated at t on the host and none varies.
local function constant_loads(b, t)
  b.fext0:fill(0)
  if b.mext0 then b.mext0:fill(0) end
  local varying = {}
  for _, l in ipairs(b.loads) do
    local target, c = load_target(b, l.dof, true)
    if type(l.value) == "number" or t then
      local value = type(l.value) == "number" and l.value or l.value(t)
      cl.stage.set_rows { field = target, rows = l.rows, component = c, value = value * l.scale, add = true }:run()
    else
      varying[#varying + 1] = l
    end
  end
  return varying
end

-- The step (docs/methods/finite-particle.md): external loads at t_n, composite forces F = Fext -
-- Fint at the displacements of t_n, the increments of prescribed velocities, then one particle pass:
-- the increments of eqs. 3-4 (constrained DOFs: the prescribed ones, zero when fixed), applied.
-- A stage's time is that of the step's end, t_n + dt: loads take it back by dt, velocities by dt/2.
-- static: the loads are those of fext0 and mext0, which static:settle(t) fills (constant_loads).
local function step_pipeline(b, dt, xi, static)
  local stages = {}
  local function add(stage) stages[#stages + 1] = stage end
  local varying = constant_loads(b, static and 0)
  local pressures = b.pressures or {}
  -- constant loads: fext0 is all there is (one copy per step less); pressures and loads varying in
  -- time are added each step to a copy of it
  local dynamic = #varying > 0 or #pressures > 0
  b.fext = dynamic and b.fext_varying or b.fext0
  b.mext = dynamic and b.mext_varying or b.mext0
  if dynamic then
    add(cl.stage.copy { dst = b.fext, src = b.fext0 })
    if b.m then add(cl.stage.copy { dst = b.mext, src = b.mext0 }) end
  end
  for _, l in ipairs(varying) do
    local target, c = load_target(b, l.dof, false)
    add(cl.stage.set_rows { field = target, rows = l.rows, component = c, add = true, time_offset = -dt,
      value = pd.stage_value(l.value, target, l.scale) })
  end
  for _, pr in ipairs(pressures) do
    -- at t_n: the stage's time less dt (quasi-static levels: t itself)
    local value, scale, offset = pr.p, pr.scale or 1, static and 0 or dt
    if type(value) ~= "number" then
      local f = value
      value = function(t) return f(t - offset) * scale end
    else
      value = value * scale
    end
    add(cl.stage.fpm_pressure { rows = pr.rows, conn = pr.conn or b.conn, x0 = b.x0, d = pr.follower and b.d or nil,
      p = value, fext = b.fext })
  end
  add(cl.stage.copy { dst = b.f, src = b.fext })
  if b.m then add(cl.stage.copy { dst = b.m, src = b.mext }) end
  for _, stage in ipairs(b:element_stages()) do add(stage) end
  -- the increments of prescribed velocities (v dt at t_n + dt/2) into dd_prescribed / dth_prescribed,
  -- which hold zero for the fixed DOFs: those constant in time once, here, and from the first varying
  -- one on (in their order, so that a later constraint on a DOF still overrides an earlier one) by a
  -- stage each step; a step of constant ones launches nothing for them
  local per_step = false
  for _, k in ipairs(b.constraints) do
    if k.value ~= 0 then
      local target, c = increment_target(b, k.dof)
      local stage = cl.stage.set_rows { field = target, rows = k.rows, component = c, time_offset = -dt / 2,
        value = pd.stage_value(k.value, target, dt) }
      per_step = per_step or type(k.value) ~= "number"
      if per_step then add(stage) else stage:run() end
    end
  end
  add(cl.stage.fpm_particles { dt = dt, xi = xi, mass = b.mass, d = b.d, dd = b.dd, dd_prescribed = b.dd_prescribed,
    f = b.f, fext = b.fext, inertia = b.inertia, q = b.q, dth = b.dth, dth_prescribed = b.dth_prescribed, m = b.m,
    mext = b.mext, mask = mask_field(b), work = b.work })
  return cl.pipeline(stages), stages
end

--- body:energies() -> { kinetic (at the last half step), internal, external, damping, constraint
--- (the work of each kind of force since the run began), strain (the elements' elastic energy at the
--- same half step: the mean of those at the last two displacements; the stored energy of elastic
--- bodies), balance = |external + constraint - kinetic - internal - damping| / max(external +
--- constraint, kinetic + internal + damping) }
--- The energy at the present displacements takes one more element evaluation, into fields of its
--- own; a hexahedron's stress is evaluated at the displacements the next step starts from, which
--- that step then finds unchanged.
function body_mt:energies()
  local w = self.work
  local before = self.energy_density:sum()
  if not self.energy_stages then
    self.energy_now = cl.field { n = self.ne, dtype = self.precision }
    self.energy_f, self.energy_m = field(self, 3), self.m and field(self, 3)
    self.energy_stages = self:element_stages(self.energy_f, self.energy_m, self.energy_now)
  end
  run_all(self.energy_stages)
  local e = { external = w:sum(1), internal = w:sum(2), damping = w:sum(3), constraint = w:sum(4),
    kinetic = w:sum(5), strain = (before + self.energy_now:sum()) / 2 }
  local input, held = e.external + e.constraint, e.kinetic + e.internal + e.damping
  local scale = math.max(math.abs(input), math.abs(held))
  e.balance = scale > 0 and math.abs(input - held) / scale or 0
  return e
end

--- body:stress() -> the hexahedra's Gauss-point stresses (8 ne x 6, Voigt xx yy zz yz xz xy, in the
--- elements' deformation coordinate systems; row 8 e + g point g of element e) at the present
--- displacements: one element evaluation, as body:energies() makes (the state it updates is the one
--- the next step finds unchanged). The field is the body's own, overwritten by the next call.
function body_mt:stress()
  if self.kind ~= "hex" then
    error("body:stress: the Gauss-point stresses are the hexahedra's (shells and beams have section resultants)", 2)
  end
  if not self.stress_stages then
    self.stress_field = self.sig or cl.field { n = 8 * self.ne, k = 6, dtype = self.precision }
    self.stress_stages = self:element_stages(field(self, 3), nil, cl.field { n = self.ne, dtype = self.precision },
      self.stress_field)
  end
  run_all(self.stress_stages)
  return self.stress_field
end

--- A mesh table for output: the deformed particles, beams as lines (VTK 3), hexahedra (VTK 12).
function body_mt:mesh()
  local x = self.x0:convert("f64")
  cl.stage.axpy { y = x, x = self.d:convert("f64"), a = 1 }:run()
  local k = CORNERS_OF[self.kind]
  local vtk = { beam = 3, shell = 5, hex = 12 } -- line, triangle, hexahedron
  local types, offsets, conn = {}, { 0 }, {}
  for e, row in ipairs(self.conn:to_table()) do
    types[e] = vtk[self.kind]
    offsets[e + 1] = e * k
    for a = 1, k do conn[#conn + 1] = row[a] + 1 end
  end
  return { x = x, cells = { types = cl.field { data = types, dtype = "u8" }, offsets = cl.field { data = offsets,
    dtype = "i32" }, connectivity = cl.field { data = conn, dtype = "i32" } } }
end

local PNG_FIELDS = { displacement = 0, dx = 1, dy = 2, dz = 3 }

--- body:png{ path =, field = "displacement" | "dx" | "dy" | "dz", view = {0, 0, 1}, up =, scale = 1,
---   title = } : a picture of the deformed body (displacements times scale) seen along -view (from the
--- side view points to), coloured by the field (|d| or one component, per particle): shells as their
--- triangles, hexahedra as their boundary faces, drawn far to near (painter's order); beams as points.
--- up: the picture's vertical (default: the axis least along view, made normal to it).
function body_mt:png(args)
  local fn = "body:png"
  cl.check_args(fn, args, { path = true, field = true, view = true, up = true, scale = true, title = true })
  local which = args.field or "displacement"
  local component = PNG_FIELDS[which]
  if not component then error(fn .. ": 'field' must be \"displacement\", \"dx\", \"dy\" or \"dz\"", 2) end
  local function vector(key, default)
    local v = args[key] or default
    if type(v) ~= "table" or type(v[1]) ~= "number" or type(v[2]) ~= "number" or type(v[3]) ~= "number" or norm(v) == 0 then
      error(string.format("%s: '%s' must be a non-zero vector {x, y, z}", fn, key), 3)
    end
    local len = norm(v)
    return { v[1] / len, v[2] / len, v[3] / len }
  end
  local view = vector("view", { 0, 0, 1 })
  local least, up = math.huge, nil
  for _, axis in ipairs { { 0, 1, 0 }, { 0, 0, 1 }, { 1, 0, 0 } } do
    if math.abs(dot(axis, view)) < least then least, up = math.abs(dot(axis, view)), axis end
  end
  up = vector("up", up)
  local along = dot(up, view)
  up = { up[1] - along * view[1], up[2] - along * view[2], up[3] - along * view[3] }
  if norm(up) < 1e-9 then error(fn .. ": 'up' must not lie along 'view'", 2) end
  local len = norm(up)
  up = { up[1] / len, up[2] / len, up[3] / len }
  local right = cross(up, view)
  local scale = args.scale == nil and 1 or cl.finite_number(fn, "scale", args.scale)
  local d = self.d:to_table()
  local pos, value, depth = {}, {}, {}
  for i, p in ipairs(self.points) do
    local x = { p[1] + scale * d[i][1], p[2] + scale * d[i][2], p[3] + scale * d[i][3] }
    pos[i] = { dot(x, right), dot(x, up) }
    depth[i] = dot(x, view)
    value[i] = component == 0 and norm(d[i]) or d[i][component]
  end
  local mesh = { x = cl.field { data = pos, k = 2, dtype = "f64" } }
  if self.kind ~= "beam" then
    local triangles = {}
    if self.kind == "shell" then
      for _, t in ipairs(self.conn:to_table()) do triangles[#triangles + 1] = { t[1] + 1, t[2] + 1, t[3] + 1 } end
    else
      local all = {}
      for i = 1, self.n do all[i] = true end
      local faces = self:boundary_triangles(all):to_table()
      for k = 1, #faces, 4 do -- one triangulation of each face (its first two triangles)
        for j = k, k + 1 do triangles[#triangles + 1] = { faces[j][1] + 1, faces[j][2] + 1, faces[j][3] + 1 } end
      end
    end
    local function far(t) return depth[t[1]] + depth[t[2]] + depth[t[3]] end
    table.sort(triangles, function(a, b) return far(a) < far(b) end)
    mesh.triangles = cl.field { data = triangles, k = 3, dtype = "u32" }
  end
  cl.io.png { path = args.path, mesh = mesh, field = cl.field { data = value, dtype = "f64" },
    title = args.title or which }
end

fpm.body_mt = body_mt

-- ---- runs -------------------------------------------------------------------------------------------

local run_mt = {}
run_mt.__index = run_mt
run_mt.__tostring = function(r)
  return string.format("fpm.explicit<%s, dt = %g, xi = %g, step %d of %d, t = %g>", tostring(r.body), r.dt, r.xi,
    r.step, r.steps, r.t)
end

local run_keys = { xi = true }
for k in pairs(cl.explicit_run.keys) do run_keys[k] = true end

--- cleave.fpm.explicit{ body, dt = "auto" | number, xi = 0 (mass damping, 1/s), steps =, output = {
---   every =, vtu =, csv =, checkpoint = }, progress = true } -> run; run:go()
--- "auto" is 0.9 of the stable step (eq. 5); a larger dt is refused naming the limit.
function fpm.explicit(args)
  local fn = "cleave.fpm.explicit"
  cl.check_args(fn, args, run_keys)
  local body = args[1] or args.body
  if getmetatable(body) ~= body_mt then error(fn .. ": the first entry must be a body (cleave.fpm.body{...})", 2) end
  local xi = cl.optional_number(fn, args, "xi", 0)
  if not (xi >= 0) then error(fn .. ": argument 'xi' (the mass-damping coefficient, 1/s) must be >= 0", 2) end
  if body.has_run then error(fn .. ": this body has a run already; make a new body for another run", 2) end
  local run = cl.explicit_run.new(fn, args, body, run_mt, body:stable_dt(), 0.9,
    "this body (eq. 5: the smallest element length over its wave speed)")
  run.xi = xi
  run.pipeline, run.stages = step_pipeline(body, run.dt, xi)
  body.has_run = true
  return run
end

run_mt.go = cl.explicit_run.go

-- What output.png may show (body:png's fields) and the keys it takes.
function run_mt.png_fields()
  return { "displacement", "dx", "dy", "dz" }, { path = true, field = true, view = true, up = true, scale = true,
    title = true }
end

function run_mt:png(spec) self.body:png(type(spec) == "table" and spec or { path = spec }) end

-- ---- quasi-static analysis by damped dynamics --------------------------------------------------------

local static_mt = {}
static_mt.__index = static_mt
static_mt.__tostring = function(s)
  return string.format("fpm.static<%s, dt = %g, xi = %g, %s <= %g>", tostring(s.body), s.dt, s.xi, s.criterion, s.tol)
end

--- cleave.fpm.static{ body, xi =, dt = "auto", criterion = "residual" | "kinetic", tol = 1e-4, every = 100,
---   max_steps = 1e6 } -> s; s:settle(t) -> { t, steps, seconds, residual, kinetic_ratio }
--- Equilibrium under the loads at the value t of their parameter (loads given as functions or
--- expressions of t are evaluated at t, which does not advance while settling; pressures are
--- numbers), found by damped
--- dynamics (central differences with mass damping xi, 1/s) from the present state. Every `every`
--- steps the criterion is checked: "residual", |F_ext - F_int| over the free degrees of freedom <= tol
--- times the larger of |F_ext| and |F_int| over them (moments, on beams and shells, divided by the
--- diagonal of the body's box count as forces); "kinetic", the kinetic energy <=
--- tol times its largest value since this settle began. Successive settles follow a load path; more
--- than max_steps steps in one settle is an error naming them.
function fpm.static(args)
  local fn = "cleave.fpm.static"
  cl.check_args(fn, args, { [1] = true, body = true, xi = true, dt = true, criterion = true, tol = true, every = true,
    max_steps = true })
  local body = args[1] or args.body
  if getmetatable(body) ~= body_mt then error(fn .. ": the first entry must be a body (cleave.fpm.body{...})", 2) end
  if body.has_run then error(fn .. ": this body has a run already; make a new body for another analysis", 2) end
  local xi = cl.positive_number(fn, args, "xi")
  local criterion = args.criterion or "residual"
  if criterion ~= "residual" and criterion ~= "kinetic" then
    error(fn .. ": argument 'criterion' must be \"residual\" (out-of-balance force) or \"kinetic\" (kinetic-energy ratio)", 2)
  end
  local tol = args.tol == nil and 1e-4 or cl.positive_number(fn, args, "tol")
  for _, k in ipairs(body.constraints) do
    if k.value ~= 0 then
      error(fn .. ": the body has a prescribed velocity (body:velocity), which a static analysis cannot hold; " ..
        "use body:fix and loads", 2)
    end
  end
  local limit = body:stable_dt()
  local dt = args.dt or "auto"
  if dt == "auto" then
    dt = 0.9 * limit
  elseif type(dt) ~= "number" or not (dt > 0) or dt > limit then
    error(string.format("%s: argument 'dt' must be \"auto\" or a positive number up to the stable step %g s", fn, limit), 2)
  end
  local s = setmetatable({ body = body, xi = xi, dt = dt, criterion = criterion, tol = tol,
    every = args.every == nil and 100 or cl.positive_integer(fn, args, "every", 1),
    max_steps = args.max_steps == nil and 1000000 or cl.positive_integer(fn, args, "max_steps", 1),
    pipeline = step_pipeline(body, dt, xi, true), steps = 0 }, static_mt)
  body.has_run = true
  -- the free parts of F (= F_ext - F_int) and of F_ext, and of the moments M and M_ext on beams and
  -- shells: copies with the constrained rows zeroed
  s.parts = { { residual = field(body, 3), external = field(body, 3), f = body.f, fext = body.fext, first = 1 } }
  if body.rotates then
    s.parts[2] = { residual = field(body, 3), external = field(body, 3), f = body.m, fext = body.mext, first = 4 }
    -- moments count as forces at the body's size (the diagonal of its box): one norm of both
    local low, high = { math.huge, math.huge, math.huge }, { -math.huge, -math.huge, -math.huge }
    for _, p in ipairs(body.points) do
      for c = 1, 3 do low[c], high[c] = math.min(low[c], p[c]), math.max(high[c], p[c]) end
    end
    s.parts[2].scale = 1 / norm(sub(high, low))
  end
  local stages = {}
  for _, part in ipairs(s.parts) do
    stages[#stages + 1] = cl.stage.copy { dst = part.residual, src = part.f }
    stages[#stages + 1] = cl.stage.copy { dst = part.external, src = part.fext }
    for _, k in ipairs(body.constraints) do
      local c = k.dof - part.first + 1
      if c >= 1 and c <= 3 then
        for _, target in ipairs { part.residual, part.external } do
          stages[#stages + 1] = cl.stage.set_rows { field = target, rows = k.rows, component = c, value = 0 }
        end
      end
    end
  end
  s.free = stages
  return s
end

-- |F_ext - F_int| over the free degrees of freedom, relative to the larger of |F_ext| and |F_int| over
-- them (moments over the body's size counted with the forces).
function static_mt:residual()
  run_all(self.free)
  local r2, ext2, int2 = 0, 0, 0
  for _, part in ipairs(self.parts) do
    local scale = part.scale or 1
    r2 = r2 + (scale * part.residual:norm()) ^ 2
    ext2 = ext2 + (scale * part.external:norm()) ^ 2
    cl.stage.axpy { y = part.external, x = part.residual, a = -1 }:run() -- the free internal forces
    int2 = int2 + (scale * part.external:norm()) ^ 2
  end
  local largest = math.sqrt(math.max(ext2, int2))
  return largest > 0 and math.sqrt(r2) / largest or 0
end

function static_mt:settle(t)
  if type(t) ~= "number" or t ~= t then error("static:settle: argument 't' (the loads' parameter) must be a number", 2) end
  local b, steps, peak, seconds = self.body, 0, 0, 0
  constant_loads(b, t)
  while true do
    local ran = cl.run { pipeline = self.pipeline, steps = self.every, dt = 0, t0 = t, step0 = self.steps, progress = false }
    steps, self.steps, seconds = steps + self.every, self.steps + self.every, seconds + ran.seconds
    local kinetic = b.work:sum(5)
    peak = math.max(peak, kinetic)
    local out = { t = t, steps = steps, seconds = seconds, residual = self:residual(),
      kinetic_ratio = peak > 0 and kinetic / peak or 0 }
    if not (out.residual == out.residual) then
      error(string.format("static:settle: the forces became NaN at t = %g after %d steps (is dt too large?)", t, steps), 2)
    end
    local value = self.criterion == "residual" and out.residual or out.kinetic_ratio
    if value <= self.tol then return out end
    if steps >= self.max_steps then
      error(string.format("static:settle: no equilibrium at t = %g within max_steps = %d steps (%s %g > tol %g); " ..
        "raise max_steps, or set xi near 2 omega_1 of the structure (now %g 1/s)", t, self.max_steps,
        self.criterion, value, self.tol, self.xi), 2)
    end
  end
end

--- body:point_state() -> names, fields: what the integration points keep from step to step (a
--- hexahedron's stress and strain, or plastic strain, or nothing, by its law; a J2 shell's plastic
--- strains; the law's state variables as law_1, law_2, ...), in checkpoint order.
function body_mt:point_state()
  local names, fields = {}, {}
  local function add(name, f)
    if f then
      names[#names + 1] = name
      fields[name] = f
    end
  end
  add("sig", self.sig)
  add("eps", self.eps)
  add("plastic", self.plastic)
  for k, f in ipairs(self.law_state or {}) do add("law_" .. k, f) end
  return names, fields
end

-- The names and fields a checkpoint holds: the particles' state, then the points' (body:point_state).
local function state_fields(b)
  local names = { "d", "dd", "work" }
  if b.rotates then
    for _, k in ipairs { "q", "dth" } do names[#names + 1] = k end
  end
  local fields = {}
  for _, k in ipairs(names) do fields[k] = b[k] end
  local point_names, point_fields = b:point_state()
  for _, k in ipairs(point_names) do
    names[#names + 1] = k
    fields[k] = point_fields[k]
  end
  return names, fields
end

--- run:save(path [, step]) and run:restore(path): checkpoints of the body's state and the run's step.
function run_mt:save(path, step)
  local b = self.body
  local _, fields = state_fields(b)
  cl.io.save_checkpoint { path = path, fields = fields, values = { step = step or self.step, dt = self.dt, n = b.n,
    ne = b.ne } }
end

function run_mt:restore(path)
  local fields, values = cl.io.load_checkpoint(path)
  local b = self.body
  if values.n ~= b.n or values.ne ~= b.ne or values.dt ~= self.dt then
    error(string.format("run:restore: checkpoint '%s' was written for %s particles, %s elements, dt = %s; this run " ..
      "has %d, %d, %g", path, tostring(values.n), tostring(values.ne), tostring(values.dt), b.n, b.ne, self.dt), 2)
  end
  local names, mine = state_fields(b)
  cl.explicit_run.restore_fields(self, path, fields, values, mine, names)
end

local HISTORY = { "step", "t", "kinetic", "strain", "internal_work", "external_work", "damping", "constraint_work",
  "balance" }

function run_mt:write(step, t)
  local b, out = self.body, self.output
  if out.checkpoint and step > 0 then self:save(out.checkpoint, step) end
  if out.vtu then
    self.series = self.series or cl.io.pvd(out.vtu .. ".pvd")
    local data = { d = b.d, force = b.f }
    if b.rotates then data.rotation = b.q end
    self.series:write { time = t, mesh = b:mesh(), point_data = data }
  end
  if out.csv then
    self.history = self.history or cl.io.csv { path = out.csv, columns = HISTORY }
    local e = b:energies()
    self.history:row { step, t, e.kinetic, e.strain, e.internal, e.external, e.damping, e.constraint, e.balance }
  end
end

function run_mt:checked_fields()
  local b = self.body
  local fields = { { "d", b.d }, { "dd", b.dd }, { "f", b.f } }
  if b.q then fields[#fields + 1] = { "q", b.q } end
  return { what = "particle", x = b.x0, fields = fields }
end

function run_mt:statistics(steps, seconds)
  return { steps = steps, seconds = seconds,
    element_steps_per_second = seconds and seconds > 0 and steps * self.body.ne / seconds or nil }
end


-- ---- the issue's verification cases, one definition for the tests and the bench scripts ---------

--- cleave.fpm.pinched_semicylinder{ around =, along =, precision =, assembly = } -> shell, tip
--- The pinched semi-cylinder of Sze, Liu & Lo (2004, "pinched semi-cylindrical isotropic shell";
--- docs/methods/finite-particle.md): R = 1.016, L = 3.048, t = 0.03, E = 2.0685e7, nu = 0.3; the end
--- z = 0 clamped; the straight edges (on the plane y = 0) carry the symmetry conditions of the full
--- cylinder's mid-plane (no vertical translation, no rotation about the axis or about x; free to
--- slide sideways and along the axis); a point force P down (-y) at the middle of the free end's arc.
--- Modelled on half of it (a = 0..90 degrees, around x along cells) with the symmetry plane x = 0,
--- which carries P/2: the load is fy = -t / 2, t the reference's P in newtons. rho = 1000 only sets
--- the time scale of damped dynamics. tip is the load point's row.
function fpm.pinched_semicylinder(args)
  local fn = "cleave.fpm.pinched_semicylinder"
  cl.check_args(fn, args, { around = true, along = true, precision = true, assembly = true })
  local R, L = 1.016, 3.048
  local shell = fpm.cylinder { radius = R, length = L, thickness = 0.03, part = "quarter", around = args.around,
    along = args.along, precision = args.precision, assembly = args.assembly,
    material = fpm.elastic { E = 2.0685e7, nu = 0.3, rho = 1000 } }
  shell:fix { where = { group = "z0" } }
  shell:symmetry { where = { group = "y0" }, normal = "y" }
  shell:symmetry { where = { group = "x0" }, normal = "x" }
  local function at_load(x, _, z) return x == 0 and z > L * (1 - 1e-9) end
  shell:load { where = at_load, fy = "-t / 2" }
  return shell, shell:select(at_load):to_table()[1]
end

--- cleave.fpm.compressed_annulus{ around =, device = } -> u, balance, ne, seconds
--- The compressed annulus of hexahedra (issue 15, verification 6; the paper's geometry is in its
--- Fig. 17, so this one is ours): a quarter ring, radii 0.1 and 0.15 m, 0.02 m thick (z held on the
--- face z = 0), E = 2 GPa, nu = 0.3, rho = 1000 kg/m^3, symmetry planes x = 0 and y = 0; the pressure
--- ramped to 5.25 MPa over 5 ms, then constant, on the outer face within 15 degrees of the x axis;
--- undamped, 0.02 s, around x around / 3 x 1 cells. u: the horizontal displacement (m) of the centre
--- particle of the loaded face (outer, y = 0, z = 0) at 1, 2, ..., 20 ms; balance: |W_ext - K - U| /
--- W_ext at 0.02 s; ne: the hexahedra; seconds: the run's time.
function fpm.compressed_annulus(args)
  local fn = "cleave.fpm.compressed_annulus"
  cl.check_args(fn, args, { around = true })
  local around, b = cells(fn, args, "around"), 0.15
  local ring = fpm.annulus { inner = 0.1, outer = b, thickness = 0.02, part = "quarter", around = around,
    radial = math.max(1, around // 3), material = fpm.elastic { E = 2e9, nu = 0.3, rho = 1000 } }
  ring:symmetry { where = { group = "x0" }, normal = "x" }
  ring:symmetry { where = { group = "y0" }, normal = "y" }
  ring:fix { where = { group = "z0" }, dofs = { "z" } }
  local tan15 = math.tan(math.rad(15))
  ring:pressure { where = function(x, y) return math.abs(math.sqrt(x * x + y * y) - b) < 1e-9 and y <= tan15 * x + 1e-9 end,
    p = "5.25e6 * min(t / 0.005, 1)" }
  local centre = ring:select(function(x, y, z) return y == 0 and math.abs(x - b) < 1e-9 and z == 0 end):to_table()[1]
  local per_ms = math.ceil(1e-3 / (0.9 * ring:stable_dt())) -- a whole number of steps per ms
  local run = fpm.explicit { ring, dt = 1e-3 / per_ms, steps = per_ms, progress = false }
  local u, seconds = {}, 0
  for k = 1, 20 do
    seconds = seconds + run:go { steps = per_ms }.seconds
    u[k] = ring.d[centre][1]
  end
  local e = ring:energies()
  return u, math.abs(e.external - e.kinetic - e.strain) / e.external, ring.ne, seconds
end
