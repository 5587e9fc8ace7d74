-- cleave.mesh: simple structured meshes as tables of fields
-- { x = field (n x 2, f64), triangles = field (m x 3, i32, 1-based) }.
local cl = ...

local mesh_mt = {}
mesh_mt.__index = mesh_mt
mesh_mt.__tostring = function(m)
  return string.format("mesh<%d points, %d triangles%s>", m.x.n, m.triangles and m.triangles.n or 0,
    m.nx and string.format(", %d x %d grid", m.nx, m.ny) or "")
end

local function check_args(fname, args, valid)
  if type(args) ~= "table" then
    error(string.format("%s expects a table of named arguments, got %s", fname, type(args)), 3)
  end
  for k in pairs(args) do
    if not valid[k] then
      local names = {}
      for n in pairs(valid) do names[#names + 1] = n end
      table.sort(names)
      error(string.format("%s: unknown argument '%s' (valid: %s)", fname, tostring(k),
        table.concat(names, ", ")), 3)
    end
  end
end
cl.check_args = check_args

local function positive_integer(fname, args, key, min)
  local v = args[key]
  if math.type(v) ~= "integer" or v < min then
    error(string.format("%s: argument '%s' must be an integer >= %d (got %s)", fname, key, min,
      tostring(v)), 3)
  end
  return v
end

local function positive_number(fname, args, key)
  local v = args[key]
  if type(v) ~= "number" or not (v > 0) then
    error(string.format("%s: argument '%s' must be a positive number (got %s)", fname, key,
      tostring(v)), 3)
  end
  return v
end
cl.positive_number = positive_number

--- cleave.mesh.grid2d{ nx = , ny = , dx = , x0 = 0, y0 = 0 }
-- nx x ny points spaced dx (point p = j*nx + i + 1), each cell split into two triangles.
local function grid2d(args)
  local fn = "cleave.mesh.grid2d"
  check_args(fn, args, { nx = true, ny = true, dx = true, x0 = true, y0 = true })
  local nx, ny = positive_integer(fn, args, "nx", 2), positive_integer(fn, args, "ny", 2)
  local dx = positive_number(fn, args, "dx")
  local x0, y0 = args.x0 or 0, args.y0 or 0
  local xy = {}
  for j = 0, ny - 1 do
    for i = 0, nx - 1 do xy[#xy + 1] = { x0 + i * dx, y0 + j * dx } end
  end
  local tri = {}
  for j = 0, ny - 2 do
    for i = 0, nx - 2 do
      local p = j * nx + i + 1
      tri[#tri + 1] = { p, p + 1, p + nx + 1 }
      tri[#tri + 1] = { p, p + nx + 1, p + nx }
    end
  end
  return setmetatable({
    x = cl.field { data = xy, k = 2, dtype = "f64" },
    triangles = cl.field { data = tri, k = 3, dtype = "i32" },
    nx = nx, ny = ny, dx = dx,
  }, mesh_mt)
end

cl.mesh = { grid2d = grid2d }
