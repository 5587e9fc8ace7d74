-- Finite particle method throughput (paper 001, Tables 1-3's unit: seconds per 10^4 elements per
-- 10^4 steps; the issue's unit: element-steps/s), per element type, material and assembly. Usage:
--   cleave run scripts/bench/bench_fpm.lua [elements] [steps] [precision] [bandwidth] [cases] [variants]
-- (defaults 100000 elements (each body has at least that many), 200 steps, f64, 3.35e12 B/s: the
-- H100 SXM's HBM3; cases: a comma list of beam, shell, shell_j2, hex, hex_j2, default all). Every
-- case runs with the atomic scatter and with the gather (paper Algorithm 1).
-- variants: "all" (default) also times, with the scatter, every GPU build of the shell and
-- hexahedron kernels (cleave.fpm.kernel_variant; the default build first, the gather with it only),
-- each on a body of its own from the same start, and names the fastest; a comma list of builds
-- (e.g. lanes256,element: the bodies of 10^5 hexahedra take seconds each to build) times those
-- beside the default only; hexahedra also run the
-- default build with the law's source as a user law (each point's stress and strain kept and updated
-- incrementally: the state the built-in laws kept before their total form); a variant's
-- displacements after the timed steps are
-- compared with the default's (a sample of at most 5 000 particles): the scatter's atomics add in
-- no fixed order, so they differ at round-off (~1e-15 a step, relative), and a difference above 1e-6
-- of the largest displacement, a wrong kernel, refuses the run. "default": the default builds only.
--   elastic runs: a cantilever (a frame of beams, a shell strip, a block of hexahedra) under a
--     ramped end load;
--   J2 runs: a bar (shell strip or block) stretched along x at a constant rate from a homogeneous
--     initial velocity, both ends' velocities prescribed: past the yield strain within the warm-up,
--     so the timed steps are plastic flow. The fraction of integration points whose equivalent
--     plastic strain grew over the timed steps is printed; below 50% the run is refused.
-- A run's time is reported only when its energy balance (kinetic + internal work + damping against
-- the external and constraint work; plastic dissipation is in the internal work) holds within 1%
-- (balance.lua). Each line gives the ratio to the paper's time (GTX 980 Ti) and the fraction of the
-- memory floor (docs/benchmarks.md, "memory floor"): the bytes a step must move per element, over
-- the bandwidth.
local cl = require "cleave"
local balance = dofile((arg[0]:match("^(.*)/") or ".") .. "/balance.lua")
local elements, steps = tonumber(arg[1] or "100000"), tonumber(arg[2] or "200")
local precision = arg[3] or "f64"
local bandwidth = tonumber(arg[4] or "3.35e12")
local wanted = {}
for name in (arg[5] or "beam,shell,shell_j2,hex,hex_j2"):gmatch("[^,]+") do wanted[name] = true end
local all_variants = (arg[6] or "all") ~= "default"
local chosen -- argument 6 as a list of builds: those timed beside the default (nil: every build)
if arg[6] and arg[6] ~= "all" and arg[6] ~= "default" then
  chosen = {}
  local known = {}
  for _, names in pairs(cl.fpm.kernel_variants) do
    for _, name in ipairs(names) do known[name] = true end
  end
  for name in arg[6]:gmatch("[^,]+") do
    if not known[name] then
      error("bench_fpm.lua: argument 6 (variants) must be all, default or a comma list of builds of " ..
        "cleave.fpm.kernel_variants (got " .. name .. ")", 0)
    end
    chosen[name] = true
  end
end
local DEFAULT_VARIANTS = cl.fpm.kernel_variant {}
local WARMUP = 30 -- steps before the timed ones (the first compiles; the J2 bars yield in them)

-- The paper's seconds per 10^4 elements per 10^4 steps (its Tables 1-3, f64, GTX 980 Ti).
local PAPER = { shell = 11.6, shell_j2 = 29.9, hex = 13.2, hex_j2 = 13.2 }

-- The memory floor: the bytes one step must move per element, each array read or written once per
-- kernel that needs it (shared particles cached perfectly), w the size of a real.
--   particles, per particle and step: the element pass reads x0, d (3 + 3 w), writes the forces
--     (3 w); the update reads f, fext, d, dd, mass (13 w) and writes d, dd (6 w): 28 w; beams and
--     shells add the rotations: q read by both passes and written (12 w), moments written and read
--     (6 w), mext, dth, inertia read (7 w), dth written (3 w): 56 w in all;
--   elements: connectivity (4 B per corner); what the integration points keep (body:point_state())
--     read and written: hexahedra of the elastic law nothing, of J2 the plastic strain and ep of 8
--     points (112 w), of a user's law the stress and strain (192 w) and its state variables (16 w
--     each); J2 shells 3 x layers points of 4 state values (24 layers w);
--   gather: each corner's force row written and read (6 w; rotating: 12 w) and its slot (4 B).
local function floor_bytes(body)
  local w = precision == "f32" and 4 or 8
  local k = ({ beam = 2, shell = 3, hex = 8 })[body.kind]
  local per_particle = body.rotates and 56 or 28
  local bytes = 4 * k + w * per_particle * body.n / body.ne
  local _, kept = body:point_state()
  for _, f in pairs(kept) do bytes = bytes + 2 * w * f.k * f.n / body.ne end
  if body.assembly == "gather" then bytes = bytes + k * (4 + w * (body.rotates and 12 or 6)) end
  return bytes
end

-- Cells of a 4:1:1 (hexahedra) or 4:1 (shells) grid with at least `count` elements of `per_cell`.
local function block(count)
  local n = math.ceil((count / 4) ^ (1 / 3))
  return 4 * n, n, n
end

local function strip(count)
  local n = math.ceil(math.sqrt(count / 8)) -- 2 triangles a cell
  return 4 * n, n
end

local steel = cl.fpm.elastic { E = 2e11, nu = 0.3, rho = 7850 }
local steel_j2 = cl.fpm.j2 { E = 2e11, nu = 0.3, rho = 7850, sy = 2.5e8, Et = 2e10 }
-- The same laws' sources as user laws: hexahedra then keep each point's stress and strain and update
-- them incrementally (the path before the built-in laws' total form, docs/methods/finite-particle.md)
local function as_user_law(m)
  local params = { E = m.E, nu = m.nu, sy = m.sy, H = m.H }
  return cl.fpm.material { E = m.E, nu = m.nu, rho = m.rho, law = cl.jit.stress_update { name = "user_" .. m.law.name,
    source = m.law.source, params = params, state = m.sy and { ep = 0 } or nil } }
end
local USER_LAW = { hex = as_user_law(steel), hex_j2 = as_user_law(steel_j2) }

local function hex_body(material, assembly)
  local nx, ny, nz = block(elements)
  return cl.fpm.box { x = { 0, 4 }, y = { 0, 1 }, z = { 0, 1 }, nx = nx, ny = ny, nz = nz, material = material,
    precision = precision, assembly = assembly }
end

local function shell_body(material, assembly)
  local nx, ny = strip(elements)
  return cl.fpm.cantilever { kind = "shell", length = 4, width = 1, elements = nx, ny = ny, thickness = 0.02,
    material = material, precision = precision, assembly = assembly }
end

-- Beams along the edges of a grid (3 per node, as a space frame).
local function beam_body(assembly)
  local nx, ny, nz = block(elements / 3)
  local points, beams, orient = {}, {}, {}
  local function id(i, j, k) return 1 + i + (nx + 1) * (j + (ny + 1) * k) end
  for k = 0, nz do
    for j = 0, ny do
      for i = 0, nx do points[id(i, j, k)] = { 4 * i / nx, j / ny, k / nz } end
    end
  end
  local function add(a, b, o)
    beams[#beams + 1] = { a, b }
    orient[#orient + 1] = o
  end
  for k = 0, nz do
    for j = 0, ny do
      for i = 0, nx do
        if i < nx then add(id(i, j, k), id(i + 1, j, k), { 0, 0, 1 }) end
        if j < ny then add(id(i, j, k), id(i, j + 1, k), { 0, 0, 1 }) end
        if k < nz then add(id(i, j, k), id(i, j, k + 1), { 1, 0, 0 }) end
      end
    end
  end
  return cl.fpm.body { points = points, beams = beams, orient = orient, section = { b = 0.02, h = 0.02 },
    material = steel, precision = precision, assembly = assembly }
end

local function energies(body)
  local e = body:energies()
  return { kinetic = e.kinetic, internal = e.internal, damping = e.damping, external_work = e.external,
    constraint_work = e.constraint }
end

-- The equivalent plastic strain of the body's integration points (a sample of at most 2e5, evenly
-- spaced), as a list.
local function plastic_strains(body)
  local field, column = body.plastic, 4 -- shells: column 4 of their plastic state
  if body.kind == "hex" then field, column = body.law_state[1], nil end
  local stride, values = math.max(1, field.n // 200000), {}
  for i = 1, field.n, stride do
    local row = field[i]
    values[#values + 1] = column and row[column] or row
  end
  return values
end

-- A J2 bar along x (length 4) stretched at the rate that takes it to twice the yield strain in
-- the warm-up: the initial velocity homogeneous, both ends' prescribed.
local function stretch(body, dt)
  local rate = 2 * steel_j2.sy / steel_j2.E / (WARMUP * dt) -- 1/s
  body.dd:assign(function(i) return rate * (body.points[i][1] - 2) * dt, 0, 0 end)
  body:velocity { where = "x < 1e-9", vx = -2 * rate }
  body:velocity { where = "x > 4 - 1e-9", vx = 2 * rate }
end

local function cantilever(body)
  body:fix { where = "x < 1e-9" }
  body:load { where = "x > 4 - 1e-9", fz = "-1e3 * min(t / 1e-4, 1)" }
end

-- The displacements of at most 5 000 particles, evenly spaced, as a list of rows.
local function displacement_sample(body)
  local stride, rows = math.max(1, body.n // 5000), {}
  for i = 1, body.n, stride do rows[#rows + 1] = body.d[i] end
  return rows
end

-- max |d - d_reference| / max |d_reference| over the sampled rows.
local function state_difference(rows, reference)
  local largest, diff = 0, 0
  for i, row in ipairs(reference) do
    for c = 1, 3 do
      largest = math.max(largest, math.abs(row[c]))
      diff = math.max(diff, math.abs(rows[i][c] - row[c]))
    end
  end
  return largest > 0 and diff / largest or diff
end

-- Times one case's run and returns its sampled displacements; reference: the default variant's,
-- which a variant's must match (header).
local function timed(case, label, body, reference)
  local yielding = case:find("_j2") ~= nil
  local dt = 0.9 * body:stable_dt() -- explicit's "auto"
  if yielding then stretch(body, dt) else cantilever(body) end
  local run = cl.fpm.explicit { body, dt = dt, steps = WARMUP + steps, xi = yielding and 0 or 10, progress = false }
  run:go { steps = WARMUP }
  local before, ep0 = energies(body), yielding and plastic_strains(body)
  local stats = run:go { steps = steps }
  local seconds = balance.checked(label, before, energies(body), stats.seconds)
  if yielding then
    local ep1, flowing = plastic_strains(body), 0
    for i = 1, #ep1 do if ep1[i] > ep0[i] then flowing = flowing + 1 end end
    local fraction = flowing / #ep1
    print(string.format("  %s: %.1f%% of the integration points in plastic flow over the timed steps", label,
      100 * fraction))
    if fraction < 0.5 then
      balance.refuse(label, "fewer than half the points yielding")
      seconds = nil
    end
  end
  local sample = displacement_sample(body)
  if reference then
    local difference = state_difference(sample, reference)
    print(string.format("  %s: displacements against the default build's: %.3g of the largest (limit 1e-6)", label,
      difference))
    if not (difference <= 1e-6) then
      balance.refuse(label, "displacements differ from the default build's")
      seconds = nil
    end
  end
  local rate = seconds and body.ne * steps / seconds
  local unified = seconds and seconds / (body.ne / 1e4) / (steps / 1e4)
  local floor = floor_bytes(body)
  print(string.format("%-52s %7d el. %s  %s el.-steps/s  %s s/1e4 el./1e4 steps  paper %s  ratio %s  " ..
    "floor %d B/el.-step  %s of it", label, body.ne, balance.time(seconds, "%.3f s"),
    rate and string.format("%.3g", rate) or "-", unified and string.format("%.3g", unified) or "-",
    PAPER[case] or "-", unified and PAPER[case] and string.format("%.3gx", PAPER[case] / unified) or "-",
    math.floor(floor + 0.5), rate and string.format("%.3g%%", 100 * rate * floor / bandwidth) or "-"))
  io.stdout:flush()
  return sample, rate
end

local CASES = {
  { "beam", "beams, elastic", function(assembly) return beam_body(assembly) end },
  { "shell", "shells, elastic", function(assembly) return shell_body(steel, assembly) end },
  { "shell_j2", "shells, J2 yielding", function(assembly) return shell_body(steel_j2, assembly) end },
  { "hex", "hexahedra, elastic", function(assembly, user) return hex_body(user or steel, assembly) end },
  { "hex_j2", "hexahedra, J2 yielding", function(assembly, user) return hex_body(user or steel_j2, assembly) end },
}

print(string.format("cleave.fpm on %s, %s, %d steps after %d, bandwidth %.3g B/s", cl.info().device, precision,
  steps, WARMUP, bandwidth))
-- A case's default build: hexahedra's per law (cleave.fpm.kernel_variant).
local HEX_LAW = { hex = "elastic", hex_j2 = "j2" }
local function default_variant(case, kind)
  return kind == "hex" and DEFAULT_VARIANTS.hex[HEX_LAW[case]] or DEFAULT_VARIANTS[kind]
end

-- The builds of a case's kernel timed with the scatter: the default first, then the others.
local function variants_of(case)
  local kind = case:match("^(%a+)")
  local list = { false }
  if not (all_variants and cl.fpm.kernel_variants[kind]) then return kind, list end
  list[1] = default_variant(case, kind)
  for _, name in ipairs(cl.fpm.kernel_variants[kind]) do
    if name ~= list[1] and (not chosen or chosen[name]) then list[#list + 1] = name end
  end
  return kind, list
end

for _, case in ipairs(CASES) do
  if wanted[case[1]] then
    local kind, variants = variants_of(case[1])
    local reference, fastest, best = nil, nil, 0
    for _, variant in ipairs(variants) do
      if variant then cl.fpm.kernel_variant { [kind] = variant } end
      local label = case[2] .. ", scatter" .. (variant and ", " .. variant or "")
      local sample, rate = timed(case[1], label, case[3]("scatter"), reference)
      reference = reference or sample
      if variant and rate and rate > best then fastest, best = variant, rate end
    end
    cl.fpm.kernel_variant(DEFAULT_VARIANTS)
    if fastest then
      print(string.format("  %s: the fastest build is %s (%.3g el.-steps/s); the default is %s (one line: " ..
        "kernel_variants in lua/cleave/fpm.lua)", case[2], fastest, best, default_variant(case[1], kind)))
    end
    if USER_LAW[case[1]] then -- a user law's default build with the incremental state (stress and strain kept)
      timed(case[1], case[2] .. ", scatter, " .. DEFAULT_VARIANTS.hex.user .. ", as a user law", case[3]("scatter",
        USER_LAW[case[1]]), reference)
    end
    timed(case[1], case[2] .. ", gather", case[3]("gather"))
  end
end
balance.exit()
