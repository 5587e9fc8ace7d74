-- cleave.comm on one rank (no mpirun: also in builds without MPI) and the partition plans of
-- several ranks computed on one (cl.comm.partition{ parts =, rank = }): every point owned once,
-- bisection balanced by weight, ghosts covering every bond of the owned points, and what a rank
-- sends to another exactly what that one receives. The exchange itself runs under mpirun
-- (test_mpi_pd.lua).
local cl = require "cleave"
local T = require "testing"

T.case("one rank: rank 0 of 1, reductions return their input, gather a table of one", function()
  T.eq(cl.comm.rank(), 0, "rank")
  T.eq(cl.comm.size(), 1, "size")
  cl.comm.barrier()
  T.eq(cl.comm.sum(2.5), 2.5, "sum")
  T.eq(cl.comm.max { 1, 3 }[2], 3, "max of an array")
  T.eq(cl.comm.gather(7)[1], 7, "gather")
  T.eq(cl.comm.broadcast { 4, 5 }[2], 5, "broadcast")
  T.raises(function() cl.comm.sum("x") end, { "cleave.comm.sum", "number or an array" })
end)

-- A plate with a hole (so parts differ in shape) and its global points.
local dx, delta = 1e-3, 3.015e-3
local x = (cl.geom.rect { 0, 0.06, 0, 0.03 } - cl.geom.disk { 0.02, 0.015, 0.006 }):points { dx = dx }
local xs = x:to_table()

local function plans(parts, weights)
  local list = {}
  for r = 0, parts - 1 do list[r] = cl.comm.partition { x = x, reach = delta, parts = parts, rank = r, weights = weights } end
  return list
end

T.case("every point is owned by exactly one of 1-4 parts, owned rows first (interior, then sent) in global order", function()
  for parts = 1, 4 do
    local seen, total = {}, 0
    for r, p in pairs(plans(parts)) do
      local global = p.global:to_table()
      total = total + p.owned
      for i = 1, p.owned do
        local g = global[i]
        T.ok(not seen[g], string.format("point %d owned twice (%d parts)", g, parts))
        seen[g] = r
        if i > 1 and i ~= p.interior + 1 then T.ok(global[i] > global[i - 1], "owned rows ascend in global order") end
      end
    end
    T.eq(total, x.n, string.format("owned points over %d parts", parts))
  end
end)

T.case("bisection balances the weights: each part within one column's weight of the mean", function()
  -- weights 1 left of x = 0.03, 3 right of it: 3 parts by weight do not split the points in thirds
  local w = cl.field { n = x.n, dtype = "f64" }
  w:assign(function(i) return xs[i][1] < 0.03 and 1 or 3 end)
  local total = w:sum()
  for r, p in pairs(plans(3, w)) do
    local global, mine = p.global:to_table(), 0
    for i = 1, p.owned do mine = mine + (xs[global[i] + 1][1] < 0.03 and 1 or 3) end
    -- a cut falls between two points: at most one point's weight (3) from the share, per cut (2)
    T.ok(math.abs(mine - total / 3) <= 6, string.format("part %d weighs %g, the mean is %g", r, mine, total / 3))
  end
end)

T.case("ghosts hold every neighbour within the horizon of an owned point, none of an interior one; sends match receives", function()
  local parts = 4
  local list = plans(parts)
  for r, p in pairs(list) do
    local global, here = p.global:to_table(), {}
    for i = 1, p.n do here[global[i]] = true end
    T.eq(p.ghosts, p.n - p.owned, "ghosts")
    -- brute force over the owned points of this part: every point within delta is local
    for i = 1, p.owned do
      local a = xs[global[i] + 1]
      for j = 1, #xs do
        local b = xs[j]
        if (a[1] - b[1]) ^ 2 + (a[2] - b[2]) ^ 2 < delta * delta then
          T.ok(here[j - 1], string.format("part %d: neighbour %d of its point %d is missing", r, j - 1, global[i]))
          if i <= p.interior then
            local owned_here = false
            for k = 1, p.owned do owned_here = owned_here or global[k] == j - 1 end
            T.ok(owned_here, string.format("part %d: interior point %d has the ghost %d", r, global[i], j - 1))
          end
        end
      end
    end
    for _, peer in ipairs(p.peers) do
      local back
      for _, q in ipairs(list[peer.rank].peers) do if q.rank == r then back = q end end
      T.ok(back, string.format("part %d exchanges with %d, which does not list it", r, peer.rank))
      T.eq(peer.send, back.receive, string.format("rows %d sends to %d", r, peer.rank))
      T.eq(peer.receive, back.send, string.format("rows %d receives from %d", r, peer.rank))
    end
  end
end)

-- The graph partition (METIS on the bond list's graph): the same checks, with the ghosts exactly the
-- bond neighbours of the owned points (no more: the box rule of "rcb" keeps whole regions of a
-- non-convex part's box). Builds without METIS refuse it naming the fix.
local bonds = cl.pd.bonds { x = x, delta = delta, layout = "list" }
local graph_ok, graph_error = pcall(cl.comm.partition, { x = x, reach = delta, parts = 2, rank = 0, method = "graph", bonds = bonds })
T.case("graph partition: each point owned once, ghosts exactly the bond neighbours, interior rows without ghosts, sends match receives", function()
  if not graph_ok then
    T.ok(graph_error:find("built without METIS", 1, true) and graph_error:find("libmetis-dev", 1, true), graph_error)
    return T.skip("this cleave was built without METIS")
  end
  local offsets, neighbours = {}, {}
  do -- each point's bond neighbours (0-based), from a brute-force search
    for i = 1, #xs do
      local list = {}
      for j = 1, #xs do
        if j ~= i and (xs[i][1] - xs[j][1]) ^ 2 + (xs[i][2] - xs[j][2]) ^ 2 < delta * delta then list[#list + 1] = j - 1 end
      end
      neighbours[i - 1] = list
    end
  end
  for parts = 1, 4 do
    local list, owner = {}, {}
    for r = 0, parts - 1 do
      list[r] = cl.comm.partition { x = x, reach = delta, parts = parts, rank = r, method = "graph", bonds = bonds }
      local global = list[r].global:to_table()
      for i = 1, list[r].owned do
        T.ok(owner[global[i]] == nil, string.format("point %d owned twice (%d parts)", global[i], parts))
        owner[global[i]] = r
      end
    end
    for g = 0, x.n - 1 do T.ok(owner[g] ~= nil, string.format("point %d owned by no part (%d parts)", g, parts)) end
    for r, p in pairs(list) do
      local global, want, count = p.global:to_table(), {}, 0
      for i = 1, p.owned do
        for _, j in ipairs(neighbours[global[i]]) do
          if owner[j] ~= r and not want[j] then want[j], count = true, count + 1 end
          if i <= p.interior then T.eq(owner[j], r, string.format("part %d: interior point %d has a ghost", r, global[i])) end
        end
      end
      T.eq(p.ghosts, count, string.format("part %d of %d: ghosts", r, parts))
      for i = p.owned + 1, p.n do T.ok(want[global[i]], string.format("part %d: ghost %d is no bond neighbour", r, global[i])) end
      for _, peer in ipairs(p.peers) do
        local back
        for _, q in ipairs(list[peer.rank].peers) do if q.rank == r then back = q end end
        T.ok(back and peer.send == back.receive and peer.receive == back.send, string.format("parts %d and %d disagree", r, peer.rank))
      end
    end
  end
  T.raises(function() cl.comm.partition { x = x, reach = delta, parts = 2, rank = 0, method = "graph" } end,
    { "method = \"graph\" needs 'bonds'" })
  T.raises(function() cl.comm.partition { x = x, reach = delta, parts = 2, rank = 0, method = "metis", bonds = bonds } end,
    { "'method' must be \"rcb\" or \"graph\"" })
  T.raises(function() cl.comm.partition { x = x, reach = delta, parts = 2, rank = 0, method = "graph", bonds = bonds,
    weights = cl.field { n = x.n, dtype = "f64" } } end, { "'weights' go with method = \"rcb\"" })
  local lattice = cl.pd.bonds { x = x, delta = delta, layout = "lattice", dx = dx }
  T.raises(function() cl.comm.partition { x = x, reach = delta, parts = 2, rank = 0, method = "graph", bonds = lattice } end,
    { "bond list (layout = \"list\")" })
end)

T.case("more parts than points, and bad arguments, are refused naming the fix", function()
  local few = cl.field { n = 2, k = 2, dtype = "f64" }
  T.raises(function() cl.comm.partition { x = few, reach = 1, parts = 3, rank = 0 } end,
    { "3 ranks for 2 points", "use fewer ranks" })
  T.raises(function() cl.comm.partition { x = x, reach = delta, parts = 2, rank = 2 } end, { "'rank' 2 must be below 'parts' (2)" })
  T.raises(function() cl.comm.partition { x = x, reach = delta, size = 2 } end, { "size" })
  local plan = cl.comm.partition { x = x, reach = delta, parts = 2, rank = 0 }
  T.raises(function() cl.stage.halo { field = x, plan = plan } end, { "cleave.stage.halo", "local points" })
  -- the transport: NCCL moves GPU memory only; an unknown one is named (plan and field on the CPU,
  -- also where the default device is a GPU)
  local was = cl.device()
  cl.device "cpu"
  local cplan = cl.comm.partition { x = x:copy("cpu"), reach = delta, parts = 2, rank = 0 }
  local own = cl.field { n = cplan.n, k = 2, dtype = "f64" }
  cl.device(was)
  T.raises(function() cl.stage.halo { field = own, plan = cplan, transport = "nccl" } end,
    { "transport = \"nccl\" moves GPU memory", "lives on cpu", "transport = \"mpi\"" })
  T.raises(function() cl.stage.halo { field = own, plan = cplan, transport = "ib" } end,
    { "'transport' must be \"auto\", \"mpi\" or \"nccl\", got \"ib\"" })
  T.ok(cl.stage.halo { field = own, plan = cplan, transport = "mpi" }, "transport = \"mpi\" on the CPU")
end)

T.run()
