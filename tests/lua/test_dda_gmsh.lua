-- cleave.dda's Gmsh input: blocks from physical surfaces (cl.dda.blocks{ gmsh = }) and cut lines from
-- physical lines (cl.dda.gmsh_lines), in .msh 2.2 and 4.1 files written here. Rules: docs/lua-api.md.
local cl = require "cleave"
local T = require "testing"

local rock = { rho = 2500, E = 1e10, nu = 0.25 }
local soft = { rho = 2000, E = 1e9, nu = 0.3 }

-- A .msh file of nodes { {x, y}, ... }, elements { {dim, group tag (0: none), node, node, ...}, ... } (dim 1:
-- 2-node lines, dim 2: 3-node triangles) and named groups { {dim, tag, name}, ... }, in format 2.2 or 4.1 (one
-- entity per group of each dimension, and one surface without a group).
local function write_msh(path, version, nodes, elements, names)
  local out = { "$MeshFormat", version .. " 0 8", "$EndMeshFormat", "$PhysicalNames", tostring(#names) }
  for _, n in ipairs(names) do out[#out + 1] = string.format('%d %d "%s"', n[1], n[2], n[3]) end
  out[#out + 1] = "$EndPhysicalNames"
  if version == "2.2" then
    out[#out + 1] = "$Nodes"
    out[#out + 1] = tostring(#nodes)
    for i, p in ipairs(nodes) do out[#out + 1] = string.format("%d %.17g %.17g 0", i, p[1], p[2]) end
    out[#out + 1] = "$EndNodes"
    out[#out + 1] = "$Elements"
    out[#out + 1] = tostring(#elements)
    for e, el in ipairs(elements) do
      out[#out + 1] = string.format("%d %d 2 %d %d %s", e, el[1] == 1 and 1 or 2, el[2], el[2],
        table.concat(el, " ", 3))
    end
    out[#out + 1] = "$EndElements"
  else
    -- entities: (dim, group) -> entity tag; entity 1 of each dimension carries no group
    local blocks, order = {}, {}
    for e, el in ipairs(elements) do
      local key = el[1] .. ":" .. el[2]
      if not blocks[key] then blocks[key] = { dim = el[1], group = el[2], elems = {} }; order[#order + 1] = key end
      table.insert(blocks[key].elems, e)
    end
    local curves, surfaces = {}, {}
    for _, key in ipairs(order) do
      local b = blocks[key]
      local list = b.dim == 1 and curves or surfaces
      list[#list + 1] = b
      b.entity = #list
    end
    out[#out + 1] = "$Entities"
    out[#out + 1] = string.format("0 %d %d 0", #curves, #surfaces)
    for _, list in ipairs { curves, surfaces } do
      for _, b in ipairs(list) do
        out[#out + 1] = string.format("%d 0 0 0 0 0 0 %s 0", b.entity, b.group > 0 and "1 " .. b.group or "0")
      end
    end
    out[#out + 1] = "$EndEntities"
    out[#out + 1] = "$Nodes"
    out[#out + 1] = string.format("1 %d 1 %d", #nodes, #nodes)
    out[#out + 1] = string.format("2 1 0 %d", #nodes)
    for i = 1, #nodes do out[#out + 1] = tostring(i) end
    for _, p in ipairs(nodes) do out[#out + 1] = string.format("%.17g %.17g 0", p[1], p[2]) end
    out[#out + 1] = "$EndNodes"
    out[#out + 1] = "$Elements"
    out[#out + 1] = string.format("%d %d 1 %d", #order, #elements, #elements)
    for _, key in ipairs(order) do
      local b = blocks[key]
      out[#out + 1] = string.format("%d %d %d %d", b.dim, b.entity, b.dim == 1 and 1 or 2, #b.elems)
      for _, e in ipairs(b.elems) do out[#out + 1] = e .. " " .. table.concat(elements[e], " ", 3) end
    end
    out[#out + 1] = "$EndElements"
  end
  local dir = T.outdir("dda_gmsh")
  local file = dir .. "/" .. path
  local f = assert(io.open(file, "w"))
  f:write(table.concat(out, "\n"), "\n")
  f:close()
  return file
end

-- A fixed base [-1, 6] x [-1, 0] in 4 triangles (nodes 1-6: its boundary runs straight on through nodes 2
-- and 5, at x = 2.5) and a unit block [3, 4] x [0, 1] on it in 2 triangles (nodes 7-10, one triangle given
-- clockwise); cut lines x = 0.5 and y = 0.5 across the unit square (nodes 11-14).
local NODES = { { -1, -1 }, { 2.5, -1 }, { 6, -1 }, { 6, 0 }, { 2.5, 0 }, { -1, 0 },
  { 3, 0 }, { 4, 0 }, { 4, 1 }, { 3, 1 },
  { 0.5, -0.1 }, { 0.5, 1.1 }, { -0.1, 0.5 }, { 1.1, 0.5 } }
local NAMES = { { 2, 1, "base" }, { 2, 2, "block" }, { 1, 3, "cuts" } }
local ELEMENTS = {
  { 2, 2, 7, 8, 9 }, { 2, 2, 7, 10, 9 }, -- the block, listed first: the order of blocks is the groups'
  { 2, 1, 1, 2, 5 }, { 2, 1, 1, 5, 6 }, { 2, 1, 2, 3, 4 }, { 2, 1, 2, 4, 5 },
  { 1, 3, 11, 12 }, { 1, 3, 13, 14 },
}
local BASE, BLOCK = { -1, -1, 6, -1, 6, 0, -1, 0 }, { 3, 0, 4, 0, 4, 1, 3, 1 }

-- The base fixed and the block on it under gravity, a few steps.
local function settle(set_list)
  local m = cl.dda.model { blocks = set_list, materials = { rock, soft }, joints = { { friction = 30 } },
    gravity = { 0, -9.81 }, fixed = { { -1, -1 }, { 6, -1 }, { -1, 0 } }, max_displacement = 0.01 }
  m:run { steps = 5, dt = 1e-3 }
  return m
end

for _, version in ipairs { "2.2", "4.1" } do
  T.case("msh " .. version .. ": two physical surfaces give the same blocks, polygons and run as their vertex lists", function()
    local path = write_msh("base_block_" .. version .. ".msh", version, NODES, ELEMENTS, NAMES)
    local set = cl.dda.blocks { gmsh = path, materials = { block = 2 } }
    -- each polygon from its smallest (x, then y) vertex, counter-clockwise, the straight-on vertices dropped:
    -- the vertex lists BASE and BLOCK exactly (the coordinates are the file's, copied)
    T.eq(#set.polygons, 2, "blocks")
    for b, want in ipairs { BASE, BLOCK } do
      T.eq(#set.polygons[b], #want, string.format("block %d's coordinates", b))
      for k = 1, #want do T.eq(set.polygons[b][k], want[k], string.format("block %d coordinate %d", b, k)) end
    end
    T.eq(set.block_materials[1], 1, "base's material (the default)")
    T.eq(set.block_materials[2], 2, "block's material (materials.block)")
    local from_file = settle(set)
    local from_lists = settle { cl.dda.blocks { BASE }, cl.dda.blocks { BLOCK, material = 2 } }
    T.eq(from_file:count(), 2, "model blocks")
    for b = 1, 2 do
      local p, q = from_file:block(b), from_lists:block(b)
      for _, key in ipairs { "area", "x", "y", "ux", "uy", "rotation" } do
        T.eq(p[key], q[key], string.format("block %d's %s, bit for bit", b, key))
      end
      for _, key in ipairs { "velocity", "stress", "vertices" } do
        for k = 1, #q[key] do T.eq(p[key][k], q[key][k], string.format("block %d's %s[%d], bit for bit", b, key, k)) end
      end
    end
    T.ok(from_file:block(2).uy < 0, "the block moved under gravity")
  end)

  T.case("msh " .. version .. ": physical lines as cut segments", function()
    local path = write_msh("cuts_" .. version .. ".msh", version, NODES, ELEMENTS, NAMES)
    local lines = cl.dda.gmsh_lines { path, group = "cuts" }
    T.eq(#lines, 2, "segments")
    for k, want in ipairs { { 0.5, -0.1, 0.5, 1.1 }, { -0.1, 0.5, 1.1, 0.5 } } do
      for c = 1, 4 do T.eq(lines[k][c], want[c], string.format("segment %d coordinate %d", k, c)) end
    end
    local set = cl.dda.cut { domain = { 0, 0, 1, 0, 1, 1, 0, 1 }, lines = lines }
    T.eq(#set.polygons, 4, "the unit square cut into quarters")
    T.eq(#cl.dda.gmsh_lines { path, group = 3 }, 2, "the group by its tag")
    T.raises(function() cl.dda.gmsh_lines { path, group = "cut" } end, { "group", "cut", "'cuts'" }, "an unknown group")
  end)
end

T.case("two disjoint pieces of one group are two blocks, in the order of their first triangle", function()
  local nodes = { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 1 }, { 3, 0 }, { 4, 0 }, { 4, 2 }, { 3, 2 } }
  local path = write_msh("pair.msh", "2.2", nodes,
    { { 2, 5, 5, 6, 7 }, { 2, 5, 1, 2, 3 }, { 2, 5, 5, 7, 8 }, { 2, 5, 1, 3, 4 }, { 2, 0, 1, 2, 4 } },
    { { 2, 5, "pair" } })
  local set = cl.dda.blocks { gmsh = path, material = 3 }
  T.eq(#set.polygons, 2, "blocks")
  T.eq(#set.polygons[1], 8, "the first piece's 4 vertices")
  T.eq(set.polygons[1][1], 3, "the first piece: the one of the first triangle")
  T.eq(set.block_materials[2], 3, "material")
  -- a meshed square's midside node dropped; one given a surface offset of 1e-6 of its size kept
  local function square_with(my)
    return write_msh("mid.msh", "4.1", { { 0, 0 }, { 0.5, my }, { 1, 0 }, { 1, 1 }, { 0, 1 } },
      { { 2, 1, 1, 2, 5 }, { 2, 1, 2, 4, 5 }, { 2, 1, 2, 3, 4 } }, { { 2, 1, "square" } })
  end
  T.eq(#cl.dda.blocks { gmsh = square_with(0) }.polygons[1], 8, "a straight-on vertex dropped")
  T.eq(#cl.dda.blocks { gmsh = square_with(1e-6) }.polygons[1], 10, "a vertex 1e-6 off the line kept")
end)

T.case("second order: 6-node triangles give their corners, a 3-node line its two halves", function()
  local path = T.outdir("dda_gmsh") .. "/order2.msh"
  local f = assert(io.open(path, "w"))
  f:write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n1 2 \"mid\"\n2 1 \"square\"\n$EndPhysicalNames\n",
    "$Nodes\n9\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n5 0.5 0 0\n6 1 0.5 0\n7 0.5 0.5 0\n8 0.5 1 0\n9 0 0.5 0\n$EndNodes\n",
    "$Elements\n3\n1 9 2 1 1 1 2 3 5 6 7\n2 9 2 1 1 1 3 4 7 8 9\n3 8 2 2 2 5 8 7\n$EndElements\n")
  f:close()
  local set = cl.dda.blocks { gmsh = path }
  T.eq(#set.polygons, 1, "blocks")
  for k, v in ipairs { 0, 0, 1, 0, 1, 1, 0, 1 } do T.eq(set.polygons[1][k], v, "corner coordinate " .. k) end
  local lines = cl.dda.gmsh_lines { path, group = "mid" }
  T.eq(#lines, 2, "segments")
  for k, want in ipairs { { 0.5, 0, 0.5, 0.5 }, { 0.5, 0.5, 0.5, 1 } } do
    for c = 1, 4 do T.eq(lines[k][c], want[c], string.format("half %d coordinate %d", k, c)) end
  end
end)

T.case("bad Gmsh input: a hole, no physical surface, materials, keys, unreadable and malformed files", function()
  -- a ring [0, 3]^2 minus [1, 2]^2 in 8 triangles
  local nodes = { { 0, 0 }, { 3, 0 }, { 3, 3 }, { 0, 3 }, { 1, 1 }, { 2, 1 }, { 2, 2 }, { 1, 2 } }
  local ring = { { 1, 2, 6 }, { 1, 6, 5 }, { 2, 3, 7 }, { 2, 7, 6 }, { 3, 4, 8 }, { 3, 8, 7 }, { 4, 1, 5 }, { 4, 5, 8 } }
  local elems = {}
  for k, t in ipairs(ring) do elems[k] = { 2, 4, t[1], t[2], t[3] } end
  local holed = write_msh("ring.msh", "2.2", nodes, elems, { { 2, 4, "ring" } })
  T.raises(function() cl.dda.blocks { gmsh = holed } end, { "gmsh", "'ring'", "piece 1 of 1", "hole" }, "a hole")
  for _, e in ipairs(elems) do e[2] = 0 end
  local bare = write_msh("bare.msh", "2.2", nodes, elems, {})
  T.raises(function() cl.dda.blocks { gmsh = bare } end, { "gmsh", "no physical surface", "8 triangles", "Physical Surface" },
    "no physical surface")
  local path = write_msh("bb.msh", "2.2", NODES, ELEMENTS, NAMES)
  T.raises(function() cl.dda.blocks { gmsh = path, materials = { block = 0 } } end, { "materials[block]", ">= 1" },
    "a material 0")
  T.raises(function() cl.dda.blocks { gmsh = path, materials = { block = 1.5 } } end, { "materials[block]" },
    "a material 1.5")
  T.raises(function() cl.dda.blocks { gmsh = path, materials = { blocks = 2 } } end, { "materials[blocks]", "'block'" },
    "a misspelt group")
  T.raises(function() cl.dda.blocks { materials = { block = 2 }, BLOCK } end, { "materials", "gmsh" }, "materials without gmsh")
  T.raises(function() cl.dda.blocks { gmesh = path } end, { "gmesh", "gmsh" }, "a misspelt key")
  T.raises(function() cl.dda.blocks { gmsh = path .. ".none" } end, { "gmsh", ".none" }, "an unreadable file")
  local f = assert(io.open(path, "w"))
  f:write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 zero 0\n$EndNodes\n")
  f:close()
  T.raises(function() cl.dda.blocks { gmsh = path } end, { "gmsh", path .. ":6:" }, "a malformed file")
  T.raises(function() cl.dda.gmsh_lines { path, group = "cuts" } end, { "cleave.dda.gmsh_lines", path .. ":6:" }, "a malformed file's lines")
  T.raises(function() cl.dda.gmsh_lines { path, grup = "x" } end, { "grup", "group" }, "a misspelt key of gmsh_lines")
end)

T.run()
