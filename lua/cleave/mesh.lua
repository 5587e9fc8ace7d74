-- cleave.mesh: simple structured meshes as tables of fields
-- { x = field (n x 2, f64), triangles = field (m x 3, i32, 1-based) }.
local cl = ...

local mesh_mt = {}
mesh_mt.__index = mesh_mt
mesh_mt.__tostring = function(m)
  return string.format("mesh<%d points, %d triangles%s>", m.x.n, m.triangles and m.triangles.n or 0,
    m.nx and string.format(", %d x %d grid", m.nx, m.ny) or "")
end

-- The number of edits (insertions, deletions, substitutions, swaps of neighbours) from a to b.
local function edit_distance(a, b)
  local d = {}
  for i = 0, #a do d[i] = { [0] = i } end
  for j = 0, #b do d[0][j] = j end
  for i = 1, #a do
    for j = 1, #b do
      local cost = a:byte(i) == b:byte(j) and 0 or 1
      d[i][j] = math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if i > 1 and j > 1 and a:byte(i) == b:byte(j - 1) and a:byte(i - 1) == b:byte(j) then
        d[i][j] = math.min(d[i][j], d[i - 2][j - 2] + 1)
      end
    end
  end
  return d[#a][#b]
end

-- The valid name closest to key (ignoring case), when it is close enough to be a likely typo.
local function nearest_name(key, names)
  local best, best_d = nil, math.max(1, #key // 3)
  for _, n in ipairs(names) do
    local d = edit_distance(key:lower(), n:lower())
    if d <= best_d and (not best or d < best_d) then best, best_d = n, d end
  end
  return best
end

--- Argument checks for public functions, for library authors. An error names the
--- function and the argument (and the valid name nearest a misspelt one) and points at
--- `level` (default 3: the caller of the public function that called the check; nested
--- helpers pass one more per level). Positional entries are allowed where valid has them
--- (valid[1] = true: a first positional entry).
local function check_args(fname, args, valid, level)
  level = level or 3
  if type(args) ~= "table" then
    error(string.format("%s expects a table of named arguments, got %s", fname, type(args)), level)
  end
  for k in pairs(args) do
    if not valid[k] then
      local names = {}
      for n in pairs(valid) do
        if type(n) == "string" then names[#names + 1] = n end
      end
      table.sort(names)
      if type(k) ~= "string" then
        error(string.format("%s: unexpected positional entry [%s]; give named arguments (valid: %s)", fname,
          tostring(k), table.concat(names, ", ")), level)
      end
      local near = nearest_name(k, names)
      error(string.format("%s: unknown argument '%s'%s (valid: %s)", fname, k,
        near and string.format(" (did you mean '%s'?)", near) or "", table.concat(names, ", ")), level)
    end
  end
end
cl.check_args = check_args

--- cl.warn(message): something is probably not what the user meant, but the work goes on. It
--- calls cl.on_warning(message), by default Lua's warn("cleave: " .. message): the cleave
--- command and its REPL print it on stderr (as "Lua warning: cleave: ..."), lua5.4 with -W, a C
--- host through its lua_WarnFunction. A test or a host replaces cl.on_warning to collect them.
function cl.warn(message) cl.on_warning(message) end
function cl.on_warning(message) warn("cleave: ", message) end

--- args[key] as an integer >= min (integer-valued floats such as 2.0 are accepted).
local function positive_integer(fname, args, key, min, level)
  local v = math.tointeger(args[key])
  if not v or v < min then
    error(string.format("%s: argument '%s' must be an integer >= %d (got %s)", fname, key, min,
      tostring(args[key])), level or 3)
  end
  return v
end

--- args[key] as a finite number > 0.
local function positive_number(fname, args, key, level)
  local v = args[key]
  if type(v) ~= "number" or not (v > 0 and v < math.huge) then
    error(string.format("%s: argument '%s' must be a positive finite number (got %s)", fname, key,
      tostring(v)), level or 3)
  end
  return v
end

--- v when it is a finite number, else an error naming key (where a number enters: every number a
--- user gives is checked here or by the helpers below).
local function finite_number(fname, key, v, level)
  if type(v) ~= "number" or not (v > -math.huge and v < math.huge) then
    error(string.format("%s: argument '%s' must be a finite number (got %s)", fname, key, tostring(v)), level or 3)
  end
  return v
end

--- args[key] as a finite number, def when absent.
local function optional_number(fname, args, key, def, level)
  if args[key] == nil then return def end
  return finite_number(fname, key, args[key], level) -- a tail call: the level is the caller's
end
cl.positive_number = positive_number
cl.positive_integer = positive_integer
cl.optional_number = optional_number
cl.finite_number = finite_number

--- cleave.mesh.grid2d{ nx = , ny = , dx = , x0 = 0, y0 = 0 }
-- nx x ny points spaced dx (point p = j*nx + i + 1), each cell split into two triangles.
local function grid2d(args)
  local fn = "cleave.mesh.grid2d"
  check_args(fn, args, { nx = true, ny = true, dx = true, x0 = true, y0 = true })
  local nx, ny = positive_integer(fn, args, "nx", 2), positive_integer(fn, args, "ny", 2)
  local dx = positive_number(fn, args, "dx")
  local x0, y0 = optional_number(fn, args, "x0", 0), optional_number(fn, args, "y0", 0)
  local x = cl.field { n = nx * ny, k = 2, dtype = "f64" }:assign(function(p)
    local i, j = (p - 1) % nx, (p - 1) // nx
    return x0 + i * dx, y0 + j * dx
  end)
  -- cell (i, j), numbered c = 2 (j (nx-1) + i) + 1, is split along its diagonal
  local cells_x = nx - 1
  local triangles = cl.field { n = 2 * cells_x * (ny - 1), k = 3, dtype = "i32" }:assign(function(t)
    local cell = (t - 1) // 2
    local p = (cell // cells_x) * nx + cell % cells_x + 1
    if t % 2 == 1 then return p, p + 1, p + nx + 1 end
    return p, p + nx + 1, p + nx
  end)
  return setmetatable({
    x = x,
    triangles = triangles,
    nx = nx, ny = ny, dx = dx,
  }, mesh_mt)
end

cl.mesh = { grid2d = grid2d }
