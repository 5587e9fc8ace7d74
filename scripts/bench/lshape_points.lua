-- A non-convex point cloud for the partition comparison (pd_scaling.lua partition) and its test
-- (tests/lua/test_mpi_graph.lua): an L-shaped plate of side L (the square without its upper right
-- quarter) with two round holes of radius L/10, points on a grid of spacing dx at cell centres,
-- written as a point file (x y volume per line, volume dx^2 thickness). Returns the writer:
--   local write = dofile "scripts/bench/lshape_points.lua"
--   local points = write(path, L, dx, thickness)
return function(path, L, dx, thickness)
  local f = assert(io.open(path, "w"))
  local n, side, r = 0, math.floor(L / dx + 0.5), L / 10
  for j = 0, side - 1 do
    for i = 0, side - 1 do
      local x, y = (i + 0.5) * dx, (j + 0.5) * dx
      local cut = x > L / 2 and y > L / 2
      local hole = (x - L / 4) ^ 2 + (y - 0.75 * L) ^ 2 < r * r or (x - 0.75 * L) ^ 2 + (y - L / 4) ^ 2 < r * r
      if not (cut or hole) then
        f:write(string.format("%.17g %.17g %.17g\n", x, y, dx * dx * thickness))
        n = n + 1
      end
    end
  end
  assert(f:close())
  return n
end
