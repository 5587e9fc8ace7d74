-- cleave.dda: 2D discontinuous deformation analysis of rock blocks (Shi 1988; the GPU pipeline of
-- paper 004). Block sets, materials, joints, points and the run are checked here; the model and
-- its step are C (lua/l_dda.c, kernels/dda/). See docs/methods/dda.md.
local cl = ...
local dda = cl.dda

local function fail(fn, msg, level) error(fn .. ": " .. msg, level + 1) end

local function finite(v) return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge end

-- A polygon given as a flat list {x1, y1, x2, y2, ...}.
local function check_polygon(fn, what, p, level)
  if type(p) ~= "table" then fail(fn, string.format("%s must be a list {x1, y1, x2, y2, ...}, got %s", what, type(p)), level + 1) end
  if #p % 2 ~= 0 then fail(fn, string.format("%s has %d coordinates: give x, y pairs", what, #p), level + 1) end
  if #p < 6 then fail(fn, string.format("%s has %d vertices: a block needs at least 3", what, #p // 2), level + 1) end
  for k = 1, #p do
    if not finite(p[k]) then
      fail(fn, string.format("%s: coordinate %d is %s, not a finite number", what, k, tostring(p[k])), level + 1)
    end
  end
end

-- The block text format: one block per line, its vertices as x y pairs separated by blanks or
-- commas; '#' starts a comment; blank lines are skipped.
local function read_blocks(fn, path, level)
  local f, msg = io.open(path, "r")
  if not f then fail(fn, string.format("argument 'file': cannot open %s (%s)", path, msg), level + 1) end
  local polygons, line_no = {}, 0
  for line in f:lines() do
    line_no = line_no + 1
    line = line:gsub("#.*", "")
    if line:find("%S") then
      local p = {}
      for word in line:gmatch("[^%s,]+") do
        local v = tonumber(word)
        if not v then
          f:close()
          fail(fn, string.format("%s:%d: '%s' is not a number (a line holds one block's x y pairs)", path, line_no, word), level + 1)
        end
        p[#p + 1] = v
      end
      check_polygon(fn, string.format("%s:%d", path, line_no), p, level + 1)
      polygons[#polygons + 1] = p
    end
  end
  f:close()
  if #polygons == 0 then fail(fn, string.format("%s holds no blocks", path), level + 1) end
  return polygons
end

-- A Gmsh file (runtime/io/msh.h through cl.dda._read_msh), with the argument named in its errors.
local function read_msh(fn, path, key, level)
  if type(path) ~= "string" then fail(fn, string.format("argument '%s' must be the path of a Gmsh .msh file", key), level + 1) end
  local ok, m = pcall(dda._read_msh, path)
  if not ok then fail(fn, string.format("argument '%s': %s", key, tostring(m)), level + 1) end
  return m
end

-- The physical groups of dimension dim that elements use (tags list), in $PhysicalNames order then by tag for
-- those without a name; name_of[tag] is the name where the file gives one.
local function groups_used(m, dim, used_tags)
  local order, seen, name_of = {}, {}, {}
  for _, grp in ipairs(m.groups) do
    if grp.dim == dim then
      name_of[grp.tag] = grp.name
      if used_tags[grp.tag] and not seen[grp.tag] then order[#order + 1], seen[grp.tag] = grp.tag, true end
    end
  end
  local unnamed = {}
  for tag in pairs(used_tags) do if not seen[tag] then unnamed[#unnamed + 1] = tag end end
  table.sort(unnamed)
  for _, tag in ipairs(unnamed) do order[#order + 1] = tag end
  return order, name_of
end

local function group_label(tag, name_of)
  return name_of[tag] and string.format("'%s' (tag %d)", name_of[tag], tag) or string.format("tag %d", tag)
end

-- The groups of order as the errors list them ("'name' (tag 3), tag 4"; "none").
local function group_list(order, name_of)
  local names = {}
  for _, t in ipairs(order) do names[#names + 1] = group_label(t, name_of) end
  return #names > 0 and table.concat(names, ", ") or "none"
end

-- An edge's key, the same for either direction.
local function edge_key(a, b) return a < b and a .. " " .. b or b .. " " .. a end

-- The boundary of one edge-connected piece of counter-clockwise triangles {a, b, c, ...} (node
-- numbers): the edges that one triangle of it uses, chained into one closed loop, as node numbers.
-- nil and why where it is more than one loop or not a simple polygon.
local function piece_boundary(tris)
  local count, next_of = {}, {}
  for t = 1, #tris, 3 do
    for k = 0, 2 do
      local e = edge_key(tris[t + k], tris[t + (k + 1) % 3])
      count[e] = (count[e] or 0) + 1
    end
  end
  local nedges, start = 0, nil
  for t = 1, #tris, 3 do
    for k = 0, 2 do
      local a, b = tris[t + k], tris[t + (k + 1) % 3]
      local c = count[edge_key(a, b)]
      if c > 2 then return nil, "an edge is shared by more than two triangles" end
      if c == 1 then
        if next_of[a] then return nil, "its boundary touches itself at a node (not a simple polygon)" end
        next_of[a], nedges, start = b, nedges + 1, start or a
      end
    end
  end
  local loop, v = {}, start
  repeat
    loop[#loop + 1] = v
    v = next_of[v]
  until v == start or v == nil or #loop > nedges
  if v ~= start then return nil, "its boundary is not closed" end
  if #loop < nedges then return nil, "its boundary is more than one loop (a hole)" end
  return loop
end

-- The loop's vertices as {x1, y1, ...}, from its smallest (x, then y) vertex, counter-clockwise, without
-- those where the boundary runs straight on: within 1e-9 of the block's size (the larger side of its
-- bounding box) of the line through the last vertex kept and the next one, and between them.
local function straight_polygon(x, loop)
  local n, first = #loop, 1
  local xmin, xmax, ymin, ymax = math.huge, -math.huge, math.huge, -math.huge
  for k, v in ipairs(loop) do
    local px, py = x[2 * v - 1], x[2 * v]
    xmin, xmax, ymin, ymax = math.min(xmin, px), math.max(xmax, px), math.min(ymin, py), math.max(ymax, py)
    local fx, fy = x[2 * loop[first] - 1], x[2 * loop[first]]
    if px < fx or (px == fx and py < fy) then first = k end
  end
  local tol = 1e-9 * math.max(xmax - xmin, ymax - ymin)
  -- the smallest vertex is a corner of the convex hull: never straight, so the walk can start there
  local p = {}
  local lx, ly = x[2 * loop[first] - 1], x[2 * loop[first]]
  p[1], p[2] = lx, ly
  for k = 1, n - 1 do
    local v, w = loop[(first + k - 1) % n + 1], loop[(first + k) % n + 1]
    local vx, vy, wx, wy = x[2 * v - 1], x[2 * v], x[2 * w - 1], x[2 * w]
    local dx, dy = wx - lx, wy - ly
    local len = math.sqrt(dx * dx + dy * dy)
    local off = math.abs(dx * (vy - ly) - dy * (vx - lx)) / len
    local along = (vx - lx) * dx + (vy - ly) * dy
    if not (off <= tol and along > 0 and along < len * len) then
      p[#p + 1], p[#p + 2] = vx, vy
      lx, ly = vx, vy
    end
  end
  return p
end

-- The blocks of a Gmsh file: each edge-connected piece of each physical surface group's triangles.
local function gmsh_blocks(fn, path, material, materials, level)
  local m = read_msh(fn, path, "gmsh", level + 1)
  local x, tri, tri_group = m.x, m.tri, m.tri_group
  local used, skipped = {}, 0
  for _, tag in ipairs(tri_group) do
    if tag >= 0 then used[tag] = true else skipped = skipped + 1 end
  end
  local order, name_of = groups_used(m, 2, used)
  if #order == 0 then
    fail(fn, string.format("argument 'gmsh': %s has no physical surface (%d triangles without a group): give the "
      .. "blocks' surfaces Physical Surface(\"name\") = {...} in Gmsh", path, skipped), level + 1)
  end
  local tag_of_name = {}
  for _, tag in ipairs(order) do if name_of[tag] then tag_of_name[name_of[tag]] = tag end end
  local material_of = {}
  for k, v in pairs(materials or {}) do
    local tag = type(k) == "string" and tag_of_name[k] or (math.type(k) == "integer" and used[k] and k) or nil
    if not tag then
      fail(fn, string.format("materials[%s]: %s has no physical surface %s (it has %s)", tostring(k), path,
        tostring(k), group_list(order, name_of)), level + 1)
    end
    if math.type(v) ~= "integer" or v < 1 then
      fail(fn, string.format("materials[%s] = %s must be a material number >= 1", tostring(k), tostring(v)), level + 1)
    end
    material_of[tag] = v
  end
  local polygons, block_materials = {}, {}
  for _, tag in ipairs(order) do
    -- the group's triangles, counter-clockwise, and their pieces by union-find over shared edges
    local tris, parent, owner = {}, {}, {}
    local function root(i) while parent[i] ~= i do parent[i] = parent[parent[i]]; i = parent[i] end return i end
    for e = 1, #tri_group do
      if tri_group[e] == tag then
        local a, b, c = tri[3 * e - 2], tri[3 * e - 1], tri[3 * e]
        local area2 = (x[2 * b - 1] - x[2 * a - 1]) * (x[2 * c] - x[2 * a]) - (x[2 * c - 1] - x[2 * a - 1]) * (x[2 * b] - x[2 * a])
        if area2 < 0 then b, c = c, b end
        local i = #tris // 3 + 1
        tris[#tris + 1], tris[#tris + 2], tris[#tris + 3] = a, b, c
        parent[i] = i
        for _, edge in ipairs { { a, b }, { b, c }, { c, a } } do
          local k = edge_key(edge[1], edge[2])
          if owner[k] then
            local r, s = root(owner[k]), root(i)
            if r ~= s then parent[math.max(r, s)] = math.min(r, s) end -- the root: the piece's first triangle
          else
            owner[k] = i
          end
        end
      end
    end
    local pieces, piece_order = {}, {}
    for i = 1, #tris // 3 do
      local r = root(i)
      if not pieces[r] then pieces[r] = {}; piece_order[#piece_order + 1] = r end
      local t = pieces[r]
      t[#t + 1], t[#t + 2], t[#t + 3] = tris[3 * i - 2], tris[3 * i - 1], tris[3 * i]
    end
    for k, r in ipairs(piece_order) do
      local loop, why = piece_boundary(pieces[r])
      if not loop then
        fail(fn, string.format("argument 'gmsh': %s: physical surface %s, piece %d of %d (%d triangles): %s; "
          .. "give each block as a surface without holes", path, group_label(tag, name_of), k, #piece_order,
          #pieces[r] // 3, why), level + 1)
      end
      polygons[#polygons + 1] = straight_polygon(x, loop)
      block_materials[#polygons] = material_of[tag] or material
    end
  end
  return polygons, block_materials
end

local set_mt = { __name = "cleave.dda.blocks" }
set_mt.__tostring = function(s) return string.format("dda.blocks<%d blocks, material %d>", #s.polygons, s.material) end

--- cl.dda.blocks{ {x1, y1, x2, y2, ...}, ..., file = "blocks.txt", gmsh = "blocks.msh", material = 1,
--- materials = { ["group"] = k, [tag] = k } }: a set of blocks, given as vertex lists (either orientation, convex
--- or concave), read from a text file and/or from a Gmsh file's physical surfaces (one block per
--- edge-connected piece of a group; its material from materials[group name or tag], else material).
function dda.blocks(args)
  local fn = "cleave.dda.blocks"
  local valid = { file = true, gmsh = true, material = true, materials = true }
  if type(args) == "table" then for k = 1, #args do valid[k] = true end end
  cl.check_args(fn, args, valid)
  local material = args.material or 1
  if math.type(material) ~= "integer" or material < 1 then
    fail(fn, "argument 'material' must be a material number >= 1 (an index into the model's materials)", 2)
  end
  if args.materials ~= nil and (type(args.materials) ~= "table" or args.gmsh == nil) then
    fail(fn, "argument 'materials' must be a table { [\"group name\"] = k, [tag] = k } of the 'gmsh' file's surfaces", 2)
  end
  local polygons, block_materials = {}, nil
  for k = 1, #args do
    check_polygon(fn, string.format("block %d", k), args[k], 2)
    polygons[k] = args[k]
  end
  if args.file ~= nil then
    if type(args.file) ~= "string" then fail(fn, "argument 'file' must be a path", 2) end
    for _, p in ipairs(read_blocks(fn, args.file, 2)) do polygons[#polygons + 1] = p end
  end
  if args.gmsh ~= nil then
    local meshed, meshed_materials = gmsh_blocks(fn, args.gmsh, material, args.materials, 2)
    block_materials = {}
    for k = 1, #polygons do block_materials[k] = material end
    for k, p in ipairs(meshed) do
      polygons[#polygons + 1] = p
      block_materials[#polygons] = meshed_materials[k]
    end
  end
  if #polygons == 0 then fail(fn, "no blocks: give vertex lists {x1, y1, x2, y2, ...}, file = path or gmsh = path", 2) end
  return setmetatable({ polygons = polygons, material = material, block_materials = block_materials }, set_mt)
end

--- cl.dda.gmsh_lines{ path, group = "name" or tag }: the 2-node lines of a Gmsh file's physical line group as
--- segments { {x1, y1, x2, y2}, ... } in file order (a 3-node line gives its two halves), for cl.dda.cut's lines.
function dda.gmsh_lines(args)
  local fn = "cleave.dda.gmsh_lines"
  cl.check_args(fn, args, { true, group = true })
  local path, group = args[1], args.group
  if type(group) ~= "string" and math.type(group) ~= "integer" then
    fail(fn, "argument 'group' must be the name or tag of a physical line group", 2)
  end
  local m = read_msh(fn, path, "1 (the path)", 2)
  local used = {}
  for _, tag in ipairs(m.line_group) do used[tag] = true end
  local order, name_of = groups_used(m, 1, used)
  local tag
  for _, t in ipairs(order) do if name_of[t] == group or t == group then tag = t end end
  if not tag then
    fail(fn, string.format("argument 'group': %s has no physical line group %s (it has %s)", path, tostring(group),
      group_list(order, name_of)), 2)
  end
  local segments, x, line = {}, m.x, m.line
  for k, t in ipairs(m.line_group) do
    if t == tag then
      local a, b = line[2 * k - 1], line[2 * k]
      segments[#segments + 1] = { x[2 * a - 1], x[2 * a], x[2 * b - 1], x[2 * b] }
    end
  end
  return segments
end

local function number_arg(fn, t, key, default, min_excl, level)
  local v = t[key]
  if v == nil then return default end
  if not finite(v) then fail(fn, string.format("argument '%s' must be a finite number, got %s", key, tostring(v)), level + 1) end
  if min_excl and not (v > min_excl) then
    fail(fn, string.format("argument '%s' = %g must be > %g", key, v, min_excl), level + 1)
  end
  return v
end

-- Deterministic pseudo-random numbers in [0, 1) (64-bit LCG): the same joints on every machine.
local function rng(seed)
  local state = seed
  return function()
    state = (state * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
    return (state >> 11) / (1 << 52)
  end
end

-- The traces of a joint set over the domain's extent, as segments {x1, y1, x2, y2, ...}.
local function joint_traces(set, domain)
  local dip = math.rad(set.dip)
  local ux, uy = math.cos(dip), math.sin(dip)
  local nx, ny = -uy, ux
  local pmin, pmax, qmin, qmax = math.huge, -math.huge, math.huge, -math.huge
  for k = 1, #domain, 2 do
    local p, q = domain[k] * nx + domain[k + 1] * ny, domain[k] * ux + domain[k + 1] * uy
    pmin, pmax, qmin, qmax = math.min(pmin, p), math.max(pmax, p), math.min(qmin, q), math.max(qmax, q)
  end
  local random, spacing, jitter = rng(set.seed), set.spacing, set.perturbation
  local period = set.trace > 0 and set.trace + set.bridge or nil
  local segments = {}
  local function add(p, q0, q1)
    for _, v in ipairs { p * nx + q0 * ux, p * ny + q0 * uy, p * nx + q1 * ux, p * ny + q1 * uy } do
      segments[#segments + 1] = v
    end
  end
  -- offsets at origin + k spacing (origin: the set's point, else half a spacing inside the domain)
  local origin = set.origin and set.origin[1] * nx + set.origin[2] * ny or pmin + spacing / 2
  for k = math.floor((pmin - origin) / spacing), math.ceil((pmax - origin) / spacing) do
    local p = origin + k * spacing + (random() - 0.5) * jitter * spacing
    if not period then
      add(p, qmin - 1, qmax + 1)
    else
      local q = qmin - random() * period
      while q < qmax do
        local shift = (random() - 0.5) * jitter * period
        add(p, q + shift, q + shift + set.trace)
        q = q + period
      end
    end
  end
  return segments
end

--- cl.dda.cut{ domain = {x1, y1, ...}, joints = { {dip =, spacing =, trace = 0, bridge = 0,
--- perturbation = 0, seed = 1, origin = {x, y}, joint = k}, ... }, lines = { {x1, y1, x2, y2, joint = k}, ... },
--- material = 1, sliver = 0.1 }:
--- the domain polygon cut into blocks by joint sets and lines (a block set). Pieces whose 2 area /
--- perimeter (a triangle's inscribed radius) is below `sliver` times the smallest joint spacing are
--- merged into the neighbour they share most of an edge with, or dropped where none gives a simple
--- polygon: set.slivers = { merged = m, dropped = d } (sliver = 0: every piece kept).
function dda.cut(args)
  local fn = "cleave.dda.cut"
  cl.check_args(fn, args, { domain = true, joints = true, lines = true, material = true, sliver = true })
  local sliver = number_arg(fn, args, "sliver", 0.1, nil, 2)
  if sliver < 0 then fail(fn, string.format("argument 'sliver' = %g must be >= 0 (a fraction of the smallest joint spacing; 0 keeps every piece)", sliver), 2) end
  check_polygon(fn, "argument 'domain'", args.domain, 2)
  local domain = args.domain
  local size = 0
  for k = 3, #domain, 2 do size = math.max(size, math.abs(domain[k] - domain[1]), math.abs(domain[k + 1] - domain[2])) end
  local tol = 1e-9 * size
  local pieces, joints, min_spacing = { domain }, { {} }, nil
  for v = 1, #domain // 2 do joints[1][v] = -1 end
  -- joint: the joint material (1-based) of the edges the segments make, or nil
  local function cut_by(segments, joint, what)
    local before, tags = #pieces, {}
    for k = 1, #segments // 4 do tags[k] = joint and joint - 1 or -1 end
    local ok, out, out_joints = pcall(dda._cut, pieces, joints, segments, tags, tol)
    if not ok then fail(fn, tostring(out), 3) end
    if #out == before then fail(fn, what .. " cuts no block: check where it lies against the domain", 3) end
    pieces, joints = out, out_joints
  end
  for k, set in ipairs(args.joints or {}) do
    local name = string.format("%s joints[%d]", fn, k)
    cl.check_args(name, set, { dip = true, spacing = true, trace = true, bridge = true, perturbation = true,
      seed = true, origin = true, joint = true }, 3)
    local j = { dip = number_arg(name, set, "dip", nil, nil, 2), spacing = number_arg(name, set, "spacing", nil, 0, 2),
      trace = number_arg(name, set, "trace", 0, nil, 2), bridge = number_arg(name, set, "bridge", 0, nil, 2),
      perturbation = number_arg(name, set, "perturbation", 0, nil, 2), seed = set.seed or 1, origin = set.origin,
      joint = set.joint }
    if j.joint ~= nil and (math.type(j.joint) ~= "integer" or j.joint < 1) then
      fail(name, "'joint' must be a joint number >= 1 (an index into the model's joints)", 2)
    end
    if not j.dip or not j.spacing then fail(name, "'dip' (degrees from the x axis) and 'spacing' (> 0) are required", 2) end
    if j.trace < 0 or j.bridge < 0 then fail(name, "'trace' and 'bridge' must be >= 0 (trace 0: persistent joints)", 2) end
    if j.trace > 0 and j.bridge == 0 then fail(name, "'bridge' must be > 0 with a finite 'trace' (else give trace = 0)", 2) end
    if not (j.perturbation >= 0 and j.perturbation < 1) then fail(name, "'perturbation' must be in [0, 1)", 2) end
    if math.type(j.seed) ~= "integer" then fail(name, "'seed' must be an integer", 2) end
    if j.origin ~= nil and (type(j.origin) ~= "table" or not finite(j.origin[1]) or not finite(j.origin[2])) then
      fail(name, "'origin' must be a point {x, y} on one joint of the set", 2)
    end
    cut_by(joint_traces(j, domain), j.joint, string.format("joint set %d", k))
    min_spacing = math.min(min_spacing or math.huge, j.spacing)
  end
  for k, l in ipairs(args.lines or {}) do
    if type(l) ~= "table" or #l ~= 4 or not (finite(l[1]) and finite(l[2]) and finite(l[3]) and finite(l[4])) then
      fail(fn, string.format("lines[%d] must be a segment {x1, y1, x2, y2, joint = k}", k), 2)
    end
    cl.check_args(string.format("%s lines[%d]", fn, k), l, { true, true, true, true, joint = true }, 3)
    if l.joint ~= nil and (math.type(l.joint) ~= "integer" or l.joint < 1) then
      fail(fn, string.format("lines[%d]: 'joint' must be a joint number >= 1", k), 2)
    end
    cut_by({ l[1], l[2], l[3], l[4] }, l.joint, string.format("line %d", k))
  end
  local merged, dropped = 0, 0
  if min_spacing and sliver > 0 then
    local ok, out, out_joints, m, d = pcall(dda._cut, pieces, joints, {}, {}, tol, sliver * min_spacing)
    if not ok then fail(fn, tostring(out), 2) end
    pieces, joints, merged, dropped = out, out_joints, m, d
  end
  local set = dda.blocks(pieces) -- the model makes them counter-clockwise, their edge joints with them
  set.slivers = { merged = merged, dropped = dropped }
  set.edge_joints = joints
  set.material = args.material or 1
  if math.type(set.material) ~= "integer" or set.material < 1 then
    fail(fn, "argument 'material' must be a material number >= 1", 2)
  end
  return set
end


local function materials_of(fn, list, level)
  if type(list) ~= "table" or #list == 0 then
    fail(fn, "argument 'materials' must be a list of {rho = ..., E = ..., nu = ...} (at least one)", level + 1)
  end
  local flat = {}
  for k, m in ipairs(list) do
    local name = string.format("%s materials[%d]", fn, k)
    cl.check_args(name, m, { rho = true, E = true, nu = true, stress = true }, level + 2)
    local rho = number_arg(name, m, "rho", nil, 0, level + 1)
    local E = number_arg(name, m, "E", nil, 0, level + 1)
    if not rho or not E then fail(name, "rho (density > 0) and E (Young's modulus > 0) are required", level + 1) end
    local nu = number_arg(name, m, "nu", 0.25, nil, level + 1)
    if not (nu >= 0 and nu < 0.5) then fail(name, string.format("argument 'nu' = %g must be in [0, 0.5)", nu), level + 1) end
    local s = m.stress or { 0, 0, 0 }
    if type(s) ~= "table" or #s ~= 3 or not (finite(s[1]) and finite(s[2]) and finite(s[3])) then
      fail(name, "argument 'stress' must be the initial stress {sxx, syy, sxy}", level + 1)
    end
    for _, v in ipairs { rho, E, nu, s[1], s[2], s[3] } do flat[#flat + 1] = v end
  end
  return flat, #list
end

local function joints_of(fn, list, level)
  list = list or { {} }
  if type(list) ~= "table" or #list == 0 then
    fail(fn, "argument 'joints' must be a list of {friction = degrees, cohesion = ..., tension = ...}", level + 1)
  end
  local flat = {}
  for k, j in ipairs(list) do
    local name = string.format("%s joints[%d]", fn, k)
    cl.check_args(name, j, { friction = true, cohesion = true, tension = true }, level + 2)
    local phi = number_arg(name, j, "friction", 0, nil, level + 1)
    if not (phi >= 0 and phi < 90) then
      fail(name, string.format("argument 'friction' = %g degrees must be in [0, 90)", phi), level + 1)
    end
    local c, t = number_arg(name, j, "cohesion", 0, nil, level + 1), number_arg(name, j, "tension", 0, nil, level + 1)
    if c < 0 or t < 0 then fail(name, "arguments 'cohesion' and 'tension' must be >= 0", level + 1) end
    for _, v in ipairs { phi, c, t } do flat[#flat + 1] = v end
  end
  return flat, #list
end

local function points_of(fn, key, list, level)
  local xy = {}
  if list == nil then return xy end
  if type(list) ~= "table" then fail(fn, string.format("argument '%s' must be a list of points {x, y}", key), level + 1) end
  for k, p in ipairs(list) do
    if type(p) ~= "table" or not finite(p[1]) or not finite(p[2]) then
      fail(fn, string.format("%s[%d] must be a point {x, y}", key, k), level + 1)
    end
    xy[#xy + 1], xy[#xy + 2] = p[1], p[2]
  end
  return xy
end

-- A load component: a number or an expression of t (cleave.expr).
local function load_value(fn, what, v, level)
  if v == nil then return function() return 0 end, false end
  if finite(v) then return function() return v end, false end
  if type(v) ~= "string" then fail(fn, string.format("%s must be a number or an expression of t", what), level + 1) end
  local ok, eval = pcall(cl.expr.evaluator, v, { variables = { "t" }, what = what })
  if not ok then fail(fn, string.format("%s: %s", what, tostring(eval)), level + 1) end
  return function(t) return eval { t = t } end, true
end

local model_mt = {}
model_mt.__index = model_mt
model_mt.__tostring = function(m)
  local s = m.core:stats()
  return string.format("dda.model<%d blocks, %s, t = %g, %d contacts>", #m.core, m.dynamic and "dynamic" or "static",
    s.t, s.contacts)
end

local model_keys = {
  blocks = true, materials = true, joints = true, joint_pairs = true, fixed = true, loads = true, gravity = true,
  velocity = true, analysis = true, plane = true, normal_stiffness = true, shear_stiffness = true,
  fixed_stiffness = true, max_displacement = true, dt_growth = true, pcg_tolerance = true, pcg_displacement = true, pcg_max_iterations = true,
  open_close_max = true, preconditioner = true, spmv = true, pcg = true, pcg_blocks = true, detection = true,
  assembly = true, broad_skin = true, pcg_variant = true, open_close_tolerance = true,
}

--- cl.dda.model{ blocks = {set, ...}, materials = {...}, joints = {...}, fixed = {...}, loads = {...},
--- gravity = {gx, gy}, velocity = {[block] = {vx, vy, omega}}, analysis = "dynamic" | "static", ... }
function dda.model(args)
  local fn = "cleave.dda.model"
  cl.check_args(fn, args, model_keys)
  local sets = args.blocks
  if getmetatable(sets) == set_mt then sets = { sets } end
  if type(sets) ~= "table" or #sets == 0 then
    fail(fn, "argument 'blocks' must be a block set (cl.dda.blocks{...}) or a list of them", 2)
  end
  local t = { vstart = { 0 }, vx = {}, vy = {}, material = {}, edge_joint = {} }
  local tagged = false
  local materials, nmaterials = materials_of(fn, args.materials, 2)
  t.materials = materials
  for s, set in ipairs(sets) do
    if getmetatable(set) ~= set_mt then fail(fn, string.format("blocks[%d] is not a block set (cl.dda.blocks{...})", s), 2) end
    for b, p in ipairs(set.polygons) do
      local material = set.block_materials and set.block_materials[b] or set.material
      if material > nmaterials then
        fail(fn, string.format("blocks[%d] uses material %d but only %d materials are given", s, material, nmaterials), 2)
      end
      local joints = set.edge_joints and set.edge_joints[b]
      for k = 1, #p, 2 do
        t.vx[#t.vx + 1], t.vy[#t.vy + 1] = p[k], p[k + 1]
        t.edge_joint[#t.edge_joint + 1] = joints and joints[(k + 1) // 2] or -1
        tagged = tagged or t.edge_joint[#t.edge_joint] >= 0
      end
      t.vstart[#t.vstart + 1] = #t.vx
      t.material[#t.material + 1] = material - 1
    end
  end
  local nblocks = #t.material
  local njoints
  t.joints, njoints = joints_of(fn, args.joints, 2)
  for _, j in ipairs(t.edge_joint) do
    if j >= njoints then
      fail(fn, string.format("the cutter gave edges joint %d, but only %d joints are given", j + 1, njoints), 2)
    end
  end
  if not tagged then t.edge_joint = {} end
  t.joint_pairs = {}
  for k, p in ipairs(args.joint_pairs or {}) do
    if type(p) ~= "table" or math.type(p[1]) ~= "integer" or math.type(p[2]) ~= "integer" or math.type(p[3]) ~= "integer"
        or p[1] < 1 or p[2] < 1 or p[1] > nblocks or p[2] > nblocks or p[1] == p[2] or p[3] < 1 or p[3] > njoints then
      fail(fn, string.format("joint_pairs[%d] must be {block, block, joint}: two different blocks (1..%d) and a joint (1..%d)",
        k, nblocks, njoints), 2)
    end
    for _, v in ipairs { p[1] - 1, p[2] - 1, p[3] - 1 } do t.joint_pairs[#t.joint_pairs + 1] = v end
  end
  t.fixed = points_of(fn, "fixed", args.fixed, 2)
  local loads, timed = {}, false
  t.loads = {}
  for k, l in ipairs(args.loads or {}) do
    local name = string.format("%s loads[%d]", fn, k)
    cl.check_args(name, l, { true, true, fx = true, fy = true }, 3)
    if not finite(l[1]) or not finite(l[2]) then fail(name, "give the loading point as {x, y, fx = ..., fy = ...}", 2) end
    local fx, tx = load_value(name, "fx", l.fx, 2)
    local fy, ty = load_value(name, "fy", l.fy, 2)
    timed = timed or tx or ty
    loads[k] = { fx = fx, fy = fy }
    t.loads[#t.loads + 1], t.loads[#t.loads + 2] = l[1], l[2]
  end
  local g = args.gravity or { 0, 0 }
  if type(g) ~= "table" or not finite(g[1]) or not finite(g[2]) then fail(fn, "argument 'gravity' must be {gx, gy}", 2) end
  t.gx, t.gy = g[1], g[2]
  t.velocity = {}
  if args.velocity ~= nil then
    if type(args.velocity) ~= "table" then fail(fn, "argument 'velocity' must be a table {[block] = {vx, vy, omega}}", 2) end
    for k = 1, 3 * nblocks do t.velocity[k] = 0 end
    for b, v in pairs(args.velocity) do
      if math.type(b) ~= "integer" or b < 1 or b > nblocks then
        fail(fn, string.format("velocity: block %s does not exist (1..%d)", tostring(b), nblocks), 2)
      end
      if type(v) ~= "table" or not finite(v[1]) or not finite(v[2]) or not finite(v[3] or 0) then
        fail(fn, string.format("velocity[%d] must be {vx, vy, omega}", b), 2)
      end
      t.velocity[3 * b - 2], t.velocity[3 * b - 1], t.velocity[3 * b] = v[1], v[2], v[3] or 0
    end
  end
  local analysis = args.analysis or "dynamic"
  if analysis ~= "dynamic" and analysis ~= "static" then
    fail(fn, "argument 'analysis' must be \"dynamic\" or \"static\" (velocities zeroed after each step)", 2)
  end
  t.dynamic = analysis == "dynamic" and 1 or 0
  local plane = args.plane or "stress"
  if plane ~= "stress" and plane ~= "strain" then fail(fn, "argument 'plane' must be \"stress\" or \"strain\"", 2) end
  t.plane_strain = plane == "strain" and 1 or 0
  local E_max = 0
  for k = 2, #materials, 6 do E_max = math.max(E_max, materials[k]) end
  t.normal_stiffness = number_arg(fn, args, "normal_stiffness", 50 * E_max, 0, 2)
  t.shear_stiffness = number_arg(fn, args, "shear_stiffness", t.normal_stiffness, 0, 2)
  t.fixed_stiffness = number_arg(fn, args, "fixed_stiffness", t.normal_stiffness, 0, 2)
  t.max_displacement = number_arg(fn, args, "max_displacement", 0, 0, 2) -- absent: 0, the model's default
  t.pcg_tolerance = number_arg(fn, args, "pcg_tolerance", 1e-12, 0, 2)
  t.pcg_displacement = number_arg(fn, args, "pcg_displacement", 1e-9, nil, 2)
  local pc = args.preconditioner or "block_jacobi"
  if pc ~= "block_jacobi" and pc ~= "ssor" then
    fail(fn, "argument 'preconditioner' must be \"block_jacobi\" or \"ssor\" (SSOR's approximate inverse)", 2)
  end
  t.ssor = pc == "ssor" and 1 or 0
  -- the faster product by measurement (scripts/bench/dda_spmv.c, docs/benchmarks.md): the full BSR's
  -- row-major blocks on the CPU and on the H100 too (10^5 block rows: 0.109 ms against HSBCSR's 0.141)
  local spmv = args.spmv or "bsr"
  if spmv ~= "hsbcsr" and spmv ~= "bsr" then
    fail(fn, "argument 'spmv' must be \"hsbcsr\" (upper blocks only) or \"bsr\" (both triangles)", 2)
  end
  t.bsr = spmv == "bsr" and 1 or 0
  -- a GPU solve as one persistent cooperative kernel (falls back to "launches" where the device has
  -- no cooperative launch; the cpu's solve is one loop either way)
  local pcg = args.pcg or "persistent"
  if pcg ~= "persistent" and pcg ~= "launches" then
    fail(fn, "argument 'pcg' must be \"persistent\" (a solve in one kernel) or \"launches\" (one kernel per operation)", 2)
  end
  t.pcg_launches = pcg == "launches" and 1 or 0
  -- the pipelined PCG (Ghysels & Vanroose 2014): one reduction an iteration where the standard has two
  -- (one grid barrier in the persistent solve); block Jacobi only, its M^-1 being local to a block row
  local variant = args.pcg_variant or "standard"
  if variant ~= "standard" and variant ~= "pipelined" then
    fail(fn, string.format("argument 'pcg_variant' = %s must be \"standard\" or \"pipelined\" (one reduction an iteration)",
      tostring(variant)), 2)
  end
  if variant == "pipelined" and pc ~= "block_jacobi" then
    fail(fn, "argument 'pcg_variant' = \"pipelined\" needs preconditioner = \"block_jacobi\" (SSOR's approximate " ..
      "inverse is two triangle products, not local to a block row: use pcg_variant = \"standard\" with it)", 2)
  end
  t.pcg_pipelined = variant == "pipelined" and 1 or 0
  -- the persistent grid's size, for timing fewer blocks (a cheaper grid barrier) against as many as fit
  t.pcg_blocks = number_arg(fn, args, "pcg_blocks", 0, 0, 2)
  if t.pcg_blocks % 1 ~= 0 or t.pcg_blocks > 65536 then
    fail(fn, string.format("argument 'pcg_blocks' = %g must be a whole number of GPU blocks up to 65536 (e.g. the SM count)", t.pcg_blocks), 2)
  end
  -- contact detection on the device on cuda (broad and narrow phase as kernels), on the host on the cpu
  local detection = args.detection or "auto"
  local detections = { auto = 0, host = 1, device = 2 }
  if not detections[detection] then
    fail(fn, "argument 'detection' must be \"auto\" (the device on cuda, the host on the cpu), \"host\" or \"device\"", 2)
  end
  t.detection = detections[detection]
  -- after an attempt's first open-close iteration, re-assemble only what the rule changed (the same
  -- matrix and b bit for bit); "full" assembles everything every iteration, for comparison
  local assembly = args.assembly or "incremental"
  if assembly ~= "incremental" and assembly ~= "full" then
    fail(fn, "argument 'assembly' must be \"incremental\" (only what the open-close rule changed) or \"full\"", 2)
  end
  t.full_assembly = assembly == "full" and 1 or 0
  -- the broad phase's pairs kept while no block leaves its box grown by broad_skin / 2 (metres; absent: -1,
  -- the model's default d0 = 2.5 max_displacement; 0: found anew every step)
  t.broad_skin = number_arg(fn, args, "broad_skin", -1, nil, 2)
  if args.broad_skin ~= nil and t.broad_skin < 0 then
    fail(fn, string.format("argument 'broad_skin' = %g must be a length >= 0 (0: the candidate pairs found anew every step; leave it out for the default)", t.broad_skin), 2)
  end
  -- a step starts at no more than dt_growth times the last accepted time step (0: the requested one)
  t.dt_growth = number_arg(fn, args, "dt_growth", 0, nil, 2)
  if t.dt_growth ~= 0 and t.dt_growth < 1 then -- number_arg has refused non-finite values
    fail(fn, string.format("argument 'dt_growth' = %g must be 0 (each step tries the requested dt) or a finite factor >= 1", t.dt_growth), 2)
  end
  t.pcg_max_iterations = number_arg(fn, args, "pcg_max_iterations", 200, 0, 2)
  -- 100: near rest, state changes run through case 1's mass for up to 51 iterations; at 20 or 40 such
  -- steps were cut 2-4 times, every failed attempt all its solves (docs/methods/dda.md, step control)
  t.open_close_max = number_arg(fn, args, "open_close_max", 100, 0, 2)
  -- the open-close solves that change states stop at this many times pcg_tolerance and pcg_displacement
  -- (absent: 0, the environment's CLEAVE_DDA_OC_LOOSE, else the model's default; docs/methods/dda.md)
  t.open_close_loose = number_arg(fn, args, "open_close_tolerance", 0, nil, 2)
  if args.open_close_tolerance ~= nil and not (t.open_close_loose >= 1) then
    fail(fn, string.format("argument 'open_close_tolerance' = %g must be a factor >= 1 (1: every open-close solve to " ..
      "pcg_tolerance)", t.open_close_loose), 2)
  end
  local ok, core = pcall(dda._model, t)
  if not ok then fail(fn, tostring(core), 2) end
  local m = setmetatable({ core = core, loads = loads, timed = timed, dynamic = analysis == "dynamic" }, model_mt)
  m:_apply_loads(0)
  return m
end

function model_mt:_apply_loads(t)
  for k, l in ipairs(self.loads) do self.core:_set_load(k, l.fx(t), l.fy(t)) end
end

function model_mt:stats() return self.core:stats() end
function model_mt:block(i) return self.core:block(i) end
function model_mt:contacts() return self.core:contacts() end
function model_mt:count() return #self.core end

--- model:save(path): a checkpoint of the model (cl.io's checkpoint file: the blocks' vertices,
--- stresses, velocities, rotations, last solution, the points, the loads, the contacts with their
--- states, anchors and forces, t, the step, the last dt and the energies' sums); model:restore(path)
--- loads one into a model built by the same script, which then steps on as the saved one would.
function model_mt:save(path)
  if type(path) ~= "string" then fail("dda model:save", "argument 'path' must be a file path", 2) end
  cl.io.prepare_path(path, "dda model:save: argument 'path'")
  local ok, err = pcall(self.core._save, self.core, path)
  if not ok then fail("dda model:save", tostring(err), 2) end
end

function model_mt:restore(path)
  if type(path) ~= "string" then fail("dda model:restore", "argument 'path' must be a file path", 2) end
  local ok, err = pcall(self.core._restore, self.core, path)
  if not ok then fail("dda model:restore", tostring(err), 2) end
  self.restored = self.core:stats().steps -- the next run's CSV continues the history up to this step
end

local csv_columns = { "step", "t", "dt", "kinetic", "gravity_work", "load_work", "friction_work", "contacts", "closed",
  "open_close", "pcg", "reductions" }

-- The CSV history of a run: a new file with its header; after model:restore, the file written
-- before (same header) keeps its rows up to the restored step and the run appends to it.
local function open_history(fn, path, header, restored)
  local kept = nil
  local old = restored and io.open(path, "r")
  if old then
    if old:read("l") == header then
      kept = {}
      for line in old:lines() do
        local step = math.tointeger(tonumber(line:match("^[^,]*")))
        if step and step <= restored then kept[#kept + 1] = line end
      end
    end
    old:close()
  end
  local f, msg = io.open(path, "w")
  if not f then fail(fn, string.format("argument 'csv': cannot write %s (%s)", path, msg), 3) end
  f:write(header, "\n")
  for _, line in ipairs(kept or {}) do f:write(line, "\n") end
  return f
end

--- model:run{ steps = n, dt = ..., csv = path, blocks = {i, ...}, vtu = prefix, png = prefix, every = k,
--- checkpoint = path }:
--- n steps of time step dt (each shrunk inside when it must be); a CSV row per step (with the
--- displacement, rotation and velocity of the listed blocks); blocks as prefix_NNNNNN.vtu and
--- contacts as prefix_contacts_NNNNNN.vtu (series prefix.pvd, prefix_contacts.pvd), a picture
--- coloured by displacement as prefix_NNNNNN.png, a checkpoint (model:save), every k steps
--- (NNNNNN: the step number). The steps run as a cl.run of one host stage: Ctrl-C stops the run
--- after a whole step (its row and outputs written), saves the checkpoint and raises the error.
function model_mt:run(args)
  local fn = "dda model:run"
  cl.check_args(fn, args, { steps = true, dt = true, csv = true, vtu = true, every = true, blocks = true, png = true,
    checkpoint = true })
  local steps = args.steps
  if math.type(steps) ~= "integer" or steps < 1 then fail(fn, "argument 'steps' must be an integer >= 1", 2) end
  local dt = number_arg(fn, args, "dt", nil, 0, 2)
  if not dt then fail(fn, "argument 'dt' (the time step, > 0) is required", 2) end
  local every = args.every or 1
  if math.type(every) ~= "integer" or every < 1 then fail(fn, "argument 'every' must be an integer >= 1", 2) end
  if args.checkpoint ~= nil then
    if type(args.checkpoint) ~= "string" then fail(fn, "argument 'checkpoint' must be a file path", 2) end
    cl.io.prepare_path(args.checkpoint, fn .. ": argument 'checkpoint'")
  end
  if args.vtu ~= nil then
    if type(args.vtu) ~= "string" then fail(fn, "argument 'vtu' must be a path prefix", 2) end
    cl.io.prepare_path(args.vtu .. "_000000.vtu", fn .. ": argument 'vtu'")
    local ok, err = pcall(self.core._series, self.core, args.vtu .. ".pvd", args.vtu .. "_contacts.pvd")
    if not ok then fail(fn, tostring(err), 2) end
  end
  local tracked = args.blocks or {}
  if type(tracked) ~= "table" then fail(fn, "argument 'blocks' must be a list of block numbers", 2) end
  for k, b in ipairs(tracked) do
    if math.type(b) ~= "integer" or b < 1 or b > #self.core then
      fail(fn, string.format("blocks[%d] = %s is not a block (1..%d)", k, tostring(b), #self.core), 2)
    end
  end
  if #tracked > 0 and args.csv == nil then fail(fn, "argument 'blocks' needs 'csv' (the file its columns go to)", 2) end
  if args.png ~= nil then
    if type(args.png) ~= "string" then fail(fn, "argument 'png' must be a path prefix", 2) end
    cl.io.prepare_path(args.png .. "_000000.png", fn .. ": argument 'png'")
  end
  local csv
  if args.csv ~= nil then
    if type(args.csv) ~= "string" then fail(fn, "argument 'csv' must be a path", 2) end
    cl.io.prepare_path(args.csv, fn .. ": argument 'csv'")
    local header = { table.concat(csv_columns, ",") }
    for _, b in ipairs(tracked) do
      header[#header + 1] = string.format("b%d_ux,b%d_uy,b%d_rotation,b%d_vx,b%d_vy", b, b, b, b, b)
    end
    csv = open_history(fn, args.csv, table.concat(header, ","), self.restored)
  end
  self.restored = nil
  -- a step's error, raised again as it was after cl.run (which names the stage before it)
  local failure
  local function check(ok, err)
    if ok then return end
    failure = fn .. ": " .. tostring(err)
    error(failure, 0)
  end
  local first = self.core:stats().steps
  local function step_once(step)
    if self.timed then self:_apply_loads(self.core:stats().t) end
    check(pcall(self.core._step, self.core, dt))
    local s = self.core:stats()
    if csv then
      local row = {}
      for k, c in ipairs(csv_columns) do row[k] = string.format("%.17g", c == "step" and s.steps or s[c]) end
      for _, i in ipairs(tracked) do
        local b = self.core:block(i)
        for _, v in ipairs { b.ux, b.uy, b.rotation, b.velocity[1], b.velocity[2] } do row[#row + 1] = string.format("%.17g", v) end
      end
      csv:write(table.concat(row, ","), "\n")
    end
    local k = step - first
    if k % every ~= 0 and k ~= steps then return end
    if args.png then check(pcall(self.core._png, self.core, string.format("%s_%06d.png", args.png, s.steps))) end
    if args.vtu then
      check(pcall(self.core._vtu, self.core, string.format("%s_%06d.vtu", args.vtu, s.steps),
        string.format("%s_contacts_%06d.vtu", args.vtu, s.steps), s.t))
    end
    if args.checkpoint then check(pcall(self.core._save, self.core, args.checkpoint)) end
  end
  local pipeline = cl.pipeline { cl.stage.call(step_once) }
  local ok, err = pcall(cl.run, { pipeline = pipeline, steps = steps, step0 = first, progress = false })
  if csv then csv:close() end
  if not ok then
    if pipeline.interrupted and args.checkpoint then self:save(args.checkpoint) end
    error(failure or tostring(err), 2)
  end
  return self:stats()
end
