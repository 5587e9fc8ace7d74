-- Run under mpirun -np 2, 3, 4 (tests/CMakeLists.txt): a non-convex point cloud read from a point
-- file (an L-shaped plate with two holes, scripts/bench/lshape_points.lua) partitioned by recursive
-- coordinate bisection (partition = "rcb") and by METIS on its bond graph (partition = "graph"),
-- pulled apart until bonds break: with the lattice layout each gives the one-rank displacements,
-- damage and broken bonds bit for bit (owner computes, the stencil's order on every rank), so the
-- tolerance is 0; the default of a point file is "graph" (built with METIS) or "rcb". Builds without
-- METIS check that "graph" is refused naming the fix.
local cl = require "cleave"
cl.device "cpu"
local rank, size = cl.comm.rank(), cl.comm.size()

local L, dx = 0.02, 0.5e-3
local path = (os.getenv("CLEAVE_TEST_OUT") or ".") .. "/lshape.txt"
if rank == 0 then
  os.execute("mkdir -p '" .. path:match("^(.*)/") .. "'")
  local source = debug.getinfo(1, "S").source:match("^@(.*)/tests/lua/[^/]*$") or "."
  dofile(source .. "/scripts/bench/lshape_points.lua")(path, L, dx, 1e-3)
end
cl.comm.barrier()

local function plate(partition)
  local b = cl.pd.body { points = path, dx = dx, thickness = 1e-3, precision = "f64", layout = "lattice",
    material = cl.pd.pmb { E = 192e9, rho = 8000, G0 = 500 }, partition = partition }
  b:precrack { { 0, 0.3 * L }, { 0.2 * L, 0.3 * L } }
  b:velocity { where = function(x) return x < 1.5e-3 end, vx = -6 }
  b:velocity { where = function(_, y) return y > L - 1.5e-3 end, vy = 6 }
  return b
end

local ref = plate(false)
local precracked, steps = ref:broken_bonds(), 250
local ref_run = cl.explicit { ref, steps = steps, progress = false }
ref_run:go()
local broken_ref, ru, rd = ref:broken_bonds(), ref.u:to_table(), ref.damage:to_table()
if broken_ref <= precracked then error("no bond broke during the run: the test checks nothing of breaking") end

local local_rows = {} -- this rank's local points under each method
for _, method in ipairs { "rcb", "graph" } do
  local ok, part = pcall(plate, method)
  if not ok then
    if method == "graph" and part:find("built without METIS", 1, true) and part:find("libmetis-dev", 1, true) then
      if rank == 0 then print("test_mpi_graph: graph skipped (built without METIS): " .. part) end
      goto next
    end
    error(part, 0)
  end
  local_rows[method] = part.plan.global:to_table()
  cl.explicit { part, steps = steps, progress = false, dt = ref_run.dt }:go()
  do
    local global, pu, pd = part.plan.global:to_table(), part.u:to_table(), part.damage:to_table()
    local du, dd = 0, 0
    for i = 1, part.owned do
      local g = global[i] + 1
      for a = 1, 2 do du = math.max(du, math.abs(pu[i][a] - ru[g][a])) end
      dd = math.max(dd, math.abs(pd[i] - rd[g]))
    end
    du, dd = cl.comm.max(du), cl.comm.max(dd)
    local broken = part:broken_bonds()
    local ghosts, sent = cl.comm.sum(part.n - part.owned), cl.comm.max(part.plan.sent)
    if rank == 0 then
      print(string.format("test_mpi_graph: %s, %d ranks, %d points, %d steps: max |du| = %g, max |d damage| = %g, " ..
        "broken bonds %d (1 rank %d, pre-crack %d), ghosts %d, most rows sent %d", method, size, ref.n, steps, du, dd,
        broken, broken_ref, precracked, ghosts, sent))
    end
    if du ~= 0 or dd ~= 0 then error(string.format("%s: u or damage differ from one rank's by %g, %g", method, du, dd)) end
    if broken ~= broken_ref then error(string.format("%s: %d broken bonds, one rank %d", method, broken, broken_ref)) end
  end
  ::next::
end
-- the default partition of a point file: "graph" when built with METIS, else "rcb"
local default, want = plate(nil).plan.global:to_table(), local_rows[cl.comm.graph_available() and "graph" or "rcb"]
if #default ~= #want then error(string.format("the default partition: %d local points, want %d", #default, #want)) end
for i = 1, #want do if default[i] ~= want[i] then error("the default partition differs at local row " .. i) end end
local ok, message = pcall(cl.pd.body, { points = path, dx = dx, thickness = 1e-3, material = cl.pd.pmb { E = 1, rho = 1 },
  partition = "metis" })
if ok or not message:find("'partition' must be \"rcb\"", 1, true) then error("partition = \"metis\": " .. tostring(message)) end
if rank == 0 then print("test_mpi_graph: passed") end
