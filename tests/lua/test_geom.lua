-- cleave.geom from Lua: primitives, combinators (methods and operators),
-- membership, bounds, grid points as fields, point files, and the errors
-- for bad arguments.
local cl = require "cleave"
local T = require "testing"
local g = cl.geom

local function count(shape, dx, dim) return #shape:points { dx = dx, dim = dim } end

T.case("rect points: exact grid, row-major, an n x 2 f64 field", function()
  local x = g.rect { 0, 1, 0, 0.5 }:points { dx = 0.1 }
  T.eq(#x, 50, "points")
  T.eq(x.k, 2, "components")
  T.eq(x.dtype, "f64", "dtype")
  T.near(x[1][1], 0.05, 1e-12, "first x")
  T.near(x[1][2], 0.05, 1e-12, "first y")
  T.near(x[2][1], 0.15, 1e-12, "x runs fastest")
  T.near(x[11][2], 0.15, 1e-12, "second row")
  T.eq(count(g.rect { 0, 0.1, 0, 0.05 }, 0.1 / 40), 800, "the plate of the design card at 40 x 20")
end)

T.case("disk, sphere and cylinder counts match area and volume", function()
  local n = count(g.disk { 0, 0, 1 }, 0.02)
  T.near(n, math.pi / 0.02 ^ 2, 0.01, "disk points (r/dx = 50)")
  n = count(g.sphere { 0, 0, 0, 1 }, 0.05, 3)
  T.near(n, 4 / 3 * math.pi / 0.05 ^ 3, 0.01, "sphere points (r/dx = 20)")
  n = count(g.cylinder { 0, 0, 1, 0, 1 }, 0.05, 3)
  T.near(n, math.pi / 0.05 ^ 3, 0.01, "cylinder points")
  T.eq(count(g.box { 0, 1, 0, 0.5, 0, 0.3 }, 0.1, 3), 150, "box points")
  local x = g.box { 0, 1, 0, 0.5, 0, 0.3 }:points { dx = 0.1, dim = 3 }
  T.eq(x.k, 3, "3D points have 3 components")
  T.near(x[51][3], 0.15, 1e-12, "z runs slowest")
end)

T.case("polygon: L shape, extrusion, membership", function()
  local l = g.polygon { { 0, 0 }, { 2, 0 }, { 2, 1 }, { 1, 1 }, { 1, 2 }, { 0, 2 } }
  T.eq(count(l, 0.1), 300, "L-shape points (area 3)")
  T.ok(l:contains(0.5, 1.5), "inside the upright")
  T.ok(not l:contains(1.5, 1.5), "in the cut-out corner")
  local slab = g.polygon { { 0, 0 }, { 2, 0 }, { 2, 1 }, { 1, 1 }, { 1, 2 }, { 0, 2 }, z0 = 0, z1 = 0.5 }
  T.eq(count(slab, 0.1, 3), 1500, "extruded L-shape points")
  T.ok(not slab:contains(0.5, 0.5, 0.7), "above the slab")
end)

T.case("combinators: methods and operators agree", function()
  local plate, hole = g.rect { 0, 1, 0, 1 }, g.disk { 0.5, 0.5, 0.25 }
  local a, b = plate - hole, plate:difference(hole)
  T.eq(count(a, 0.01), count(b, 0.01), "difference")
  T.near(count(a, 0.01), (1 - math.pi / 16) / 0.01 ^ 2, 0.01, "plate with a hole")
  T.ok(not a:contains(0.5, 0.5), "the hole")
  T.ok(a:contains(0.1, 0.1), "the plate")
  local r2 = g.rect { 0.5, 1.5, 0, 1 }
  T.eq(count(plate + r2, 0.1), 150, "a + b")
  T.eq(count(plate:union(r2), 0.1), 150, "a:union(b)")
  T.eq(count(plate * r2, 0.1), 50, "a * b")
  T.eq(count(plate:intersection(r2), 0.1), 50, "a:intersection(b)")
  local two = g.polygon { { 0, 0 }, { 1, 0 }, { 0, 1 } } + g.polygon { { 5, 5 }, { 6, 5 }, { 5, 6 } }
  T.ok(two:contains(5.2, 5.2), "the second polygon keeps its own vertices")
  T.ok(not two:contains(0.8, 0.8), "outside the first triangle")
end)

T.case("tostring and bounds", function()
  local s = g.rect { 0, 1, 0, 0.5 } - g.disk { 0.5, 0.25, 0.1 }
  T.eq(tostring(s), "shape<difference(rect, disk), 2 primitives>", "tostring")
  T.eq(tostring(g.sphere { 0, 0, 0, 1 }), "shape<sphere, 1 primitive>", "one primitive")
  local b = s:bounds()
  T.eq(b.xmin, 0, "xmin"); T.eq(b.xmax, 1, "xmax"); T.eq(b.ymin, 0, "ymin"); T.eq(b.ymax, 0.5, "ymax")
  T.eq(b.zmin, -math.huge, "2D shapes are unbounded in z"); T.eq(b.zmax, math.huge, "zmax")
  b = (g.box { 0, 1, 0, 1, 0, 1 } * g.sphere { 1, 1, 1, 0.5 }):bounds()
  T.eq(b.xmin, 0.5, "intersection xmin"); T.eq(b.zmax, 1, "intersection zmax")
end)

T.case("constructor errors name the constructor and the argument", function()
  T.raises(function() g.rect { 0.1, 0.0, 0, 1 } end, "cleave.geom.rect: x1 (0.0) must be greater than x0 (0.1)")
  T.raises(function() g.rect { 0, 1, 0.5, 0.5 } end, "cleave.geom.rect: y1 (0.5) must be greater than y0 (0.5)")
  T.raises(function() g.rect { 0, 1, 0 } end, "cleave.geom.rect expects 4 numbers {x0, x1, y0, y1}, got 3")
  T.raises(function() g.rect { 0, "1", 0, 1 } end, "cleave.geom.rect: x1 must be a number, got string")
  T.raises(function() g.rect { 0, 1, 0, math.huge } end, "cleave.geom.rect: y1 must be finite")
  T.raises(function() g.rect { x0 = 0 } end, "cleave.geom.rect: unknown argument 'x0'")
  T.raises(function() g.rect(0, 1, 0, 1) end, "cleave.geom.rect expects a table {x0, x1, y0, y1}, got number")
  T.raises(function() g.box { 0, 1, 0, 1, 1, 0 } end, "cleave.geom.box: z1 (0.0) must be greater than z0 (1.0)")
  T.raises(function() g.disk { 0, 0, 0 } end, "cleave.geom.disk: r (0.0) must be positive")
  T.raises(function() g.sphere { 0, 0, 0, -1 } end, "cleave.geom.sphere: r (-1.0) must be positive")
  T.raises(function() g.cylinder { 0, 0, 1, 2, 1 } end, "cleave.geom.cylinder: z1 (1.0) must be greater than z0 (2.0)")
end)

T.case("polygon errors", function()
  T.raises(function() g.polygon { { 0, 0 }, { 1, 0 } } end, "cleave.geom.polygon needs at least 3 vertices {x, y}, got 2")
  T.raises(function() g.polygon { { 0, 0 }, { 1, 0 }, 5 } end, "cleave.geom.polygon: vertex 3 must be a table {x, y}, got number")
  T.raises(function() g.polygon { { 0, 0 }, { 1, 0, 2 }, { 0, 1 } } end, "vertex 2 must have 2 numbers {x, y}, got 3")
  T.raises(function() g.polygon { { 0, 0 }, { 1, 0 }, { 0, "a" } } end, "cleave.geom.polygon: y of vertex 3 must be a number, got string")
  T.raises(function() g.polygon { { 0, 0 }, { 1, 1 }, { 2, 2 } } end, "cleave.geom.polygon: the vertices enclose no area")
  T.raises(function() g.polygon { { 0, 0 }, { 1, 0 }, { 0, 1 }, z0 = 0 } end, "give both z0 and z1")
  T.raises(function() g.polygon { { 0, 0 }, { 1, 0 }, { 0, 1 }, z0 = 1, z1 = 0 } end, "z1 (0.0) must be greater than z0 (1.0)")
  T.raises(function() g.polygon { { 0, 0 }, { 1, 0 }, { 0, 1 }, z = 1 } end, "cleave.geom.polygon: unknown argument 'z'")
end)

T.case("combinator errors name the combinator and the operand", function()
  local r = g.rect { 0, 1, 0, 1 }
  T.raises(function() return r + 1 end, "cleave.shape + (union): the second operand must be a shape, got number")
  T.raises(function() return 2 * r end, "cleave.shape * (intersection): the first operand must be a shape, got number")
  T.raises(function() return r - {} end, "cleave.shape - (difference): the second operand must be a shape, got table")
  T.raises(function() r:union("disk") end, "cleave.shape:union: the second operand must be a shape, got string")
  T.raises(function() r:difference(cl.field { n = 1 }) end, "the second operand must be a shape, got cleave.field")
  T.raises(function() r:intersection() end, "cleave.shape:intersection: the second operand must be a shape, got no value")
  T.raises(function() r.contains(1, 2) end, "cleave.shape:contains: called on number, not a shape")
  local s = r
  T.raises(function()
    for i = 1, 70 do s = g.rect { i, i + 1, 0, 1 } + s end
  end, "nests more than 64 levels deep on the right")
end)

T.case("points errors", function()
  local r = g.rect { 0, 1, 0, 1 }
  T.raises(function() r:points {} end, "cleave.shape:points: missing argument 'dx'")
  T.raises(function() r:points { dx = 0 } end, "cleave.shape:points: dx must be positive and finite (got 0)")
  T.raises(function() r:points { dx = 5 } end, "cleave.shape:points: shape contains no points at dx = 5 (is dx larger than the shape?)")
  T.raises(function() r:points { dx = 0.1, dim = 4 } end, "cleave.shape:points: dim must be 2 or 3 (got 4)")
  T.raises(function() r:points { dx = 0.1, dims = 3 } end, "cleave.shape:points: unknown argument 'dims'")
  T.raises(function() r:points { dx = 0.1, dim = 3 } end, "cleave.shape:points: shape is unbounded in z")
  T.raises(function() r:points { dx = 0.001, max_points = 1000 } end, "more than the limit of 1000 points")
end)

T.case("read_points: 2D and 3D files", function()
  local dir = T.outdir("geom")
  local f = assert(io.open(dir .. "/plate.txt", "w"))
  f:write("# x y volume\n0 0 0.5\n1.5, 2, 0.25\n\n3\t4\t1\n")
  f:close()
  local x, volume, dim = g.read_points(dir .. "/plate.txt")
  T.eq(dim, 2, "dim")
  T.eq(#x, 3, "points"); T.eq(x.k, 2, "x components"); T.eq(volume.k, 1, "volume components")
  T.eq(x[2][1], 1.5, "x of point 2"); T.eq(x[3][2], 4, "y of point 3")
  T.eq(volume[2], 0.25, "volume of point 2")
  f = assert(io.open(dir .. "/block.txt", "w"))
  f:write("1 2 3 0.125\n4 5 6 0.125\n")
  f:close()
  x, volume, dim = g.read_points(dir .. "/block.txt")
  T.eq(dim, 3, "dim")
  T.eq(x[2][3], 6, "z of point 2")
  T.eq(volume:sum(), 0.25, "total volume")
end)

T.case("read_points errors", function()
  local dir = T.outdir("geom_errors")
  local path = dir .. "/points.txt"
  local f = assert(io.open(path, "w"))
  f:write("0 0 1\n1 1 1\n2 2\n")
  f:close()
  T.raises(function() g.read_points(path) end,
    { "cleave.geom.read_points: ", "points.txt:3: expected 3 numbers like the first line, found 2" })
  T.raises(function() g.read_points(dir .. "/missing.txt") end, "missing.txt: No such file or directory")
  T.raises(function() g.read_points() end, "cleave.geom.read_points expects a file path, got no value")
end)

T.run()
