-- Run under mpirun -np 1, 2, 3 (tests/CMakeLists.txt, when MPI is found): a partitioned PD body
-- (mpi_plate.lua) gives the displacements, damage and broken bonds of the same body on one rank.
-- Each rank also builds the whole body (partition = false) and runs it as the reference (the
-- opening kick-drift apart, the partitioned run fused), then
-- compares its owned points with the reference's points of the same global index. A failure is a Lua error, which
-- ends every rank with its message (lua/main.c); every rank reaches every collective.
local cl = require "cleave"
cl.device "cpu"

local model = require "mpi_plate"
local rank, size = cl.comm.rank(), cl.comm.size()
local layout = arg[1] or "lattice" -- the bonds' layout (a list's rows sum in the local order)
local function plate(partition) return model.plate(partition, layout) end

local steps = 400
local ref, part = plate(false), plate(true)
-- the reference steps with the opening kick-drift as a stage of its own, the partitioned body with
-- the default step (fused into the force pass, u double-buffered: the halo must exchange the
-- swapped-in u, docs/methods/peridynamics.md); both give the same bits on one rank (test_pd_kick)
ref.fused_drift = false
-- the reaction of the pulled top edge: each point's recorded by its owner, summed over the ranks
local top = function(_, y) return y > model.H - 3 * model.dx end
local reaction_ref, reaction = ref:reaction { where = top, name = "top" }, part:reaction { where = top, name = "top" }
local ref_run = cl.explicit { ref, steps = steps, progress = false }
local out = (os.getenv("CLEAVE_TEST_OUT") or "out/test_mpi_pd") .. "/plate"
local run = cl.explicit { part, steps = steps, progress = false, dt = ref_run.dt,
  output = { every = steps / 2, vtu = out, csv = out .. ".csv", png = out .. ".png" } }
local precracked = ref:broken_bonds()
ref_run:go()
run:go()

local diff = model.compare(part, ref)
local du, dd = diff.u, diff.damage
local owned = cl.comm.sum(part.owned)
local broken_ref, broken = ref:broken_bonds(), part:broken_bonds()
-- reductions of any field over the whole body (max, min, sum: the same values; norm: round-off)
local reduced = { part:max(part.u, 2), part:min(part.u, 2), part:sum(part.damage), part:norm(part.v) }
local expected = { ref.u:max(2), ref.u:min(2), ref.damage:sum(), ref.v:norm() }
for k, what in ipairs { "max u_y", "min u_y", "sum of damage", "norm of v" } do
  if not (math.abs(reduced[k] - expected[k]) <= 1e-12 * math.abs(expected[k])) then
    error(string.format("body reduction %s: %.17g, one rank %.17g", what, reduced[k], expected[k]))
  end
end
-- the crack measured from the notch tip: rank 0 measures the gathered body, every rank gets it
local tips = { { model.L / 2, model.H / 2, 1 }, { model.L / 2, model.H / 2, -1 } }
local angles_ref, angles = cl.pd.crack_angles(ref, tips, { threshold = 0.3 }), cl.pd.crack_angles(part, tips, { threshold = 0.3 })
for k = 1, #tips do
  if angles[k].points ~= angles_ref[k].points or angles[k].points < 3 or angles[k].angle ~= angles_ref[k].angle then
    error(string.format("crack angle %d: %s degrees from %s points, one rank %s from %s", k, angles[k].angle, angles[k].points,
      angles_ref[k].angle, angles_ref[k].points))
  end
end
local fy, fy_ref, work, work_ref = reaction:force()[2], reaction_ref:force()[2], reaction:work(), reaction_ref:work()
local uy, uy_ref = reaction:displacement()[2], reaction_ref:displacement()[2]
for _, e in ipairs { { fy, fy_ref, "reaction force" }, { work, work_ref, "reaction work" }, { uy, uy_ref, "mean displacement" } } do
  if not (e[2] ~= 0 and math.abs(e[1] - e[2]) <= 1e-12 * math.abs(e[2])) then
    error(string.format("%s of the top edge: %.17g, one rank %.17g", e[3], e[1], e[2]))
  end
end
local strain_ref, kinetic_ref = ref:energy()
local strain, kinetic = part:energy()

print(string.format("test_mpi_pd (" .. layout .. "): %d ranks, %d points (%d owned in all), %d steps: broken bonds %d (1 rank: %d), " ..
  "max |du| / max |u| = %.3g, max |d damage| = %.3g, strain energy %.17g (1 rank %.17g)", size, ref.n, owned, steps,
  broken, broken_ref, du, dd, strain, strain_ref))
-- every point owned once
if owned ~= ref.n then error(string.format("the ranks own %d points in all, the body has %d", owned, ref.n)) end
-- the run breaks bonds beyond the pre-crack, or the comparison of breaking would be empty
if broken_ref <= precracked then error("no bond broke during the run: the test checks nothing of breaking") end
if broken ~= broken_ref then error(string.format("broken bonds: %d on %d ranks, %d on one", broken, size, broken_ref)) end
-- owner computes: a lattice sums each point's bonds in the stencil's order, as one rank does, so
-- the bits are the same (measured: 0); a list's rows follow the local row order (owned points
-- first), another summation order: 1.2e-13 of max |u| measured on 3 ranks. 1e-12 allows that
-- round-off and nothing more
if not (du <= 1e-12) then error(string.format("u differs from one rank's by %.3g of max |u|", du)) end
if not (dd <= 1e-12) then error(string.format("damage differs from one rank's by %.3g", dd)) end
-- energies are sums over the ranks, added in another order: equal to round-off (1e-12 relative)
for _, e in ipairs { { strain, strain_ref, "strain" }, { kinetic, kinetic_ref, "kinetic" } } do
  if not (math.abs(e[1] - e[2]) <= 1e-12 * math.abs(e[2])) then
    error(string.format("%s energy %.17g, one rank %.17g", e[3], e[1], e[2]))
  end
end

-- output: the .pvd lists steps 0, 200, 400; on several ranks each is a .pvtu naming a piece per
-- rank whose points add up to the body's; the CSV's last row holds the reduced broken bonds
if rank == 0 then
  local function read(path)
    local f = assert(io.open(path, "rb"))
    local text = f:read("a")
    f:close()
    return text
  end
  local pvd = read(out .. ".pvd")
  local files = {}
  for file in pvd:gmatch('file="([^"]+)"') do files[#files + 1] = file end
  if #files ~= 3 then error(string.format("%s.pvd lists %d data sets, expected 3", out, #files)) end
  if size > 1 then
    local dir = out:match("^(.*)/") or "."
    local pvtu = read(dir .. "/" .. files[3])
    local points, pieces = 0, 0
    for piece in pvtu:gmatch('<Piece Source="([^"]+)"') do
      pieces = pieces + 1
      points = points + tonumber(read(dir .. "/" .. piece):match('NumberOfPoints="(%d+)"'))
    end
    if pieces ~= size or points ~= ref.n then
      error(string.format("%s: %d pieces of %d points in all; expected %d pieces of %d", files[3], pieces, points, size, ref.n))
    end
  end
  -- the picture of the whole body, drawn by rank 0 (PNG signature)
  if read(out .. ".png"):sub(1, 8) ~= "\137PNG\r\n\26\n" then error(out .. ".png is not a PNG file") end
  local last = read(out .. ".csv"):match("([^\n]+)\n?$")
  local columns = {}
  for v in last:gmatch("[^,]+") do columns[#columns + 1] = tonumber(v) end
  if columns[1] ~= steps or columns[6] ~= broken_ref then
    error(string.format("the CSV's last row is step %s with %s broken bonds; expected %d, %d", columns[1], columns[6], steps, broken_ref))
  end
end
print("test_mpi_pd: passed")
