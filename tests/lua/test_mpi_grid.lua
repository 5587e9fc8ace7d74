-- Run under mpirun -np 1, 2, 3 (tests/CMakeLists.txt): a body of a box shape is built per rank from
-- its grid (cl.comm.partition_grid), never from the global points.
-- 1. On one of the ranks, for 1 to 5 parts: each part's plan, made from the grid alone, gives every local
--    row the coordinates of the one-rank body's row of its global index (bit for bit: Morton or
--    grid order, f32 or f64, 2D and 3D), the parts own every point once, every owned point's
--    stencil neighbours are local rows, and those of the interior rows (first) owned ones.
-- 2. Under mpirun: a partitioned body of a rect and of a 3D box does not call shape:points (the
--    global points), and its run with breaking gives the one-rank displacements and broken bonds
--    bit for bit (the lattice sums each point's bonds in the stencil's order on any rank), with the
--    halo overlapped with the interior rows (the default) and, in 2D, without (overlap = false).
local cl = require "cleave"
cl.device "cpu"
local rank, size = cl.comm.rank(), cl.comm.size()

local material = cl.pd.pmb { E = 192e9, rho = 8000, G0 = 500 }

-- the one-rank body (its rows are the global indices)
local function one_rank(shape, dx, dim, precision, reorder)
  return cl.pd.body { shape = shape, dx = dx, dim = dim, precision = precision, material = material,
    reorder = reorder, partition = false, surface_correction = false }
end

local cases = {
  { shape = cl.geom.rect { 0, 0.02, 0, 0.013 }, dx = 0.5e-3, dim = 2, precision = "f64", reorder = true },
  { shape = cl.geom.rect { -0.011, 0.0093, 0.002, 0.0121 }, dx = 0.37e-3, dim = 2, precision = "f32", reorder = true },
  { shape = cl.geom.rect { 0, 0.02, 0, 0.01 }, dx = 0.5e-3, dim = 2, precision = "f64", reorder = false },
  { shape = cl.geom.box { 0, 0.006, 0, 0.004, 0, 0.0035 }, dx = 0.5e-3, dim = 3, precision = "f64", reorder = true },
}

for index, c in ipairs(cases) do
  if (index - 1) % size ~= rank then goto next_case end -- the ranks share the cases
  local ref = one_rank(c.shape, c.dx, c.dim, c.precision, c.reorder)
  local xs, n, m = ref.x:to_table(), ref.n, math.floor(ref.delta / ref.dx)
  local grid = c.shape:grid_box { dx = c.dx, dim = c.dim }
  assert(grid, "a box shape has a grid box")
  -- the one-rank row of each grid point, to look up neighbours by grid steps
  local row_at, key = {}, function(p)
    local k = {}
    for a = 1, c.dim do k[a] = math.floor((p[a] - grid.origin[a]) / c.dx) end
    return table.concat(k, ",")
  end
  for i = 1, n do row_at[key(xs[i])] = i end
  for parts = 1, 5 do
    local owners = {}
    for r = 0, parts - 1 do
      local plan, x = cl.comm.partition_grid { grid = grid, dx = c.dx, dim = c.dim, precision = c.precision,
        cell = c.reorder and ref.delta or 0, reach = m, parts = parts, rank = r }
      if plan.points ~= n then error(string.format("%d parts: plan of %d points, the body has %d", parts, plan.points, n)) end
      local global, local_x, here = plan.global:to_table(), x:to_table(), {}
      for row = 1, plan.n do
        local g = global[row] + 1
        for a = 1, c.dim do
          if local_x[row][a] ~= xs[g][a] then
            error(string.format("%dD %s, %d parts, rank %d: local row %d (global %d) at %.17g along axis %d, the one-rank row %.17g",
              c.dim, c.precision, parts, r, row, g, local_x[row][a], a, xs[g][a]))
          end
        end
        if row > 1 and row <= plan.owned and row ~= plan.interior + 1 and global[row] <= global[row - 1] then
          error(string.format("%d parts, rank %d: owned rows not in global order at row %d", parts, r, row))
        end
        here[g] = true
        if row <= plan.owned then
          if owners[g] then error(string.format("%d parts: point %d owned by ranks %d and %d", parts, g, owners[g], r)) end
          owners[g] = r
        end
      end
      -- every stencil neighbour of an owned point is local, of an interior one owned
      local mine = {}
      for row = 1, plan.owned do mine[global[row] + 1] = true end
      for row = 1, plan.owned do
        local p = xs[global[row] + 1]
        local cell = {}
        for a = 1, c.dim do cell[a] = math.floor((p[a] - grid.origin[a]) / c.dx) end
        for dk = c.dim == 3 and -m or 0, c.dim == 3 and m or 0 do
          for dj = -m, m do
            for di = -m, m do
              local q = row_at[table.concat(c.dim == 3 and { cell[1] + di, cell[2] + dj, cell[3] + dk } or { cell[1] + di, cell[2] + dj }, ",")]
              if q and math.sqrt(di * di + dj * dj + dk * dk) < ref.delta / ref.dx and not here[q] then
                error(string.format("%d parts, rank %d: point %d misses its neighbour %d", parts, r, global[row] + 1, q))
              end
              if q and row <= plan.interior and math.sqrt(di * di + dj * dj + dk * dk) < ref.delta / ref.dx and not mine[q] then
                error(string.format("%d parts, rank %d: interior point %d has the ghost %d", parts, r, global[row] + 1, q))
              end
            end
          end
        end
      end
    end
    for g = 1, n do
      if not owners[g] then error(string.format("%d parts: point %d is owned by no rank", parts, g)) end
    end
  end
  ::next_case::
end
-- more ranks than points: the one-rank message
local ok, message = pcall(cl.comm.partition_grid, { grid = cl.geom.rect { 0, 1e-3, 0, 1e-3 }:grid_box { dx = 0.5e-3 },
  dx = 0.5e-3, dim = 2, reach = 3, parts = 5, rank = 0 })
if ok or not message:find("5 ranks for 4 points", 1, true) then error("5 parts of 4 points: " .. tostring(message)) end

if size > 1 then
  -- a partitioned box body never makes the global points
  local shape_methods = getmetatable(cl.geom.rect { 0, 1, 0, 1 }).__index
  local points, forbid = shape_methods.points, false
  shape_methods.points = function(...)
    if forbid then error("a partitioned body of a box shape made the global points (shape:points)", 2) end
    return points(...)
  end
  local function plate(partition, dim, overlap)
    local shape = dim == 3 and cl.geom.box { 0, 0.012, 0, 0.006, 0, 0.003 } or cl.geom.rect { 0, 0.03, 0, 0.015 }
    local H = dim == 3 and 0.006 or 0.015
    forbid = partition
    local b = cl.pd.body { shape = shape, dx = 0.5e-3, dim = dim, precision = "f64", thickness = 1e-3,
      material = material, partition = partition, overlap = overlap }
    forbid = false
    if dim == 3 then b:precrack { { 0, H / 2, 0 }, { 0.004, 0, 0 }, { 0, 0, 0.003 } }
    else b:precrack { { 0, H / 2 }, { 0.006, H / 2 } } end
    b:velocity { where = function(_, y) return y > H - 1.5e-3 end, vy = 8 }
    b:velocity { where = function(_, y) return y < 1.5e-3 end, vy = -8 }
    return b
  end
  for _, dim in ipairs { 2, 3 } do
    local part, ref = plate(true, dim), plate(false, dim)
    local precracked = ref:broken_bonds()
    local steps = dim == 3 and 60 or 200
    local ref_run = cl.explicit { ref, steps = steps, progress = false }
    -- the halo overlapped with the interior rows (the default) and not
    local stages = part:step_force_stages()
    if #stages ~= 4 or part.plan.interior == 0 or part.plan.interior >= part.owned then
      error(string.format("%dD: %d force stages, %d interior rows of %d owned: no overlap", dim, #stages, part.plan.interior, part.owned))
    end
    cl.explicit { part, steps = steps, progress = false, dt = ref_run.dt }:go()
    ref_run:go()
    if dim == 2 then
      local plain = plate(true, dim, false)
      if #plain:step_force_stages() ~= 2 then error("overlap = false: not the halo stage, then the force stage") end
      cl.explicit { plain, steps = steps, progress = false, dt = ref_run.dt }:go()
      local a, b = plain.u:to_table(), part.u:to_table()
      for i = 1, part.owned do
        if a[i][1] ~= b[i][1] or a[i][2] ~= b[i][2] then error("overlap = false and true give other u at row " .. i) end
      end
    end
    local global, pu, ru = part.plan.global:to_table(), part.u:to_table(), ref.u:to_table()
    local du = 0
    for i = 1, part.owned do
      for a = 1, dim do du = math.max(du, math.abs(pu[i][a] - ru[global[i] + 1][a])) end
    end
    du = cl.comm.max(du)
    local broken, broken_ref = part:broken_bonds(), ref:broken_bonds()
    if rank == 0 then
      print(string.format("test_mpi_grid: %dD, %d ranks, %d points, %d steps: max |du| = %g, broken bonds %d (1 rank %d, pre-crack %d)",
        dim, size, ref.n, steps, du, broken, broken_ref, precracked))
    end
    if broken_ref <= precracked then error(dim .. "D: no bond broke during the run: the test checks nothing of breaking") end
    -- owner computes with the lattice: the one-rank bits, so the tolerance is 0
    if du ~= 0 then error(string.format("%dD: u differs from one rank's by %g", dim, du)) end
    if broken ~= broken_ref then error(string.format("%dD: %d broken bonds, one rank %d", dim, broken, broken_ref)) end
  end
  shape_methods.points = points
end
-- A 2D f32 plate of 10^10 points (10^5 x 10^5, the multi-GPU issue's largest problem), never made:
-- global indices past 2^32 are Lua integers, and cl.pd.body refuses it before allocating, naming what
-- one rank would hold: on 1 and 2 ranks more than 2^32 - 1 local points (its local indices are 32-bit),
-- on 3 the bytes of its owned + ghost points, more than this machine has.
do
  local huge = cl.geom.rect { 0, 100, 0, 100 }
  local grid = huge:grid_box { dx = 1e-3, dim = 2 }
  if grid.count[1] ~= 100000 or grid.count[2] ~= 100000 then error("the 10^10 box: " .. grid.count[1] .. " x " .. grid.count[2]) end
  local global, owner = cl.comm.grid_locate { grid = grid, dx = 1e-3, dim = 2, precision = "f32", reach = 3, parts = 8,
    index = { 99998, 99999 } }
  if math.type(global) ~= "integer" or global ~= 9999999998 or owner ~= 7 then
    error(string.format("grid_locate on the 10^10 box: global %s (%s), owner %s", tostring(global), math.type(global), tostring(owner)))
  end
  local ok, message = pcall(cl.pd.body, { shape = huge, dx = 1e-3, precision = "f32", material = material,
    surface_correction = false })
  if ok then error("a body of 10^10 points was made on " .. size .. " ranks") end
  local per_rank = size > 1 and string.format("per rank (%d ranks)", size) or ""
  if size < 3 then
    if not (message:find("at most 2^32 - 1", 1, true) and message:find(per_rank, 1, true) and message:find("mpirun -np 3 or more", 1, true)) then
      error(size .. " ranks of 10^10 points: " .. message)
    end
  else
    local owned, ghosts = cl.comm.grid_counts { grid = grid, dx = 1e-3, dim = 2, reach = 3 }
    -- bytes per point of the check: 2D f32 lattice, 3.015 dx: (4 dim + 2) 4 + 8 + 4 ceil(pi 3.015^2 / 32) + 8 dim
    local bytes = string.format("(%.0f bytes)", (owned + ghosts) * 68)
    if not (message:find(per_rank, 1, true) and message:find(bytes, 1, true)) then
      error(string.format("%d ranks of 10^10 points: want %s %s in: %s", size, per_rank, bytes, message))
    end
  end
  if rank == 0 then print("test_mpi_grid: 10^10 points on " .. size .. " ranks refused: " .. message) end
end

if rank == 0 then print("test_mpi_grid: passed") end
