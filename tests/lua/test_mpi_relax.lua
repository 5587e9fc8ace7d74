-- Run under mpirun -np 1, 2, 3 (tests/CMakeLists.txt, when MPI is found): adaptive dynamic
-- relaxation of a partitioned body (its damping sums over every rank's own points, in an
-- order-independent fixed-point sum, kernels/common/exact_sum.h) gives the one-rank displacements
-- bit for bit: a plate 100 x 50 mm (dx = 2.5 mm, 800 points, lattice layout) pulled by tractions on
-- its top and bottom edges and held at its left end, 600 iterations. Each rank also relaxes the
-- whole body (partition = false) as the reference and compares its owned points with it.
local cl = require "cleave"
cl.device "cpu"
local model = require "mpi_plate"

local function plate(partition)
  local b = cl.pd.body { shape = cl.geom.rect { 0, 0.1, 0, 0.05 }, dx = 2.5e-3, precision = "f64",
    material = cl.pd.pmb { E = 100e9, rho = 5000 }, partition = partition }
  b:traction { where = "y > 0.05 - dx", ty = 100e6 }
  b:traction { where = "y < dx", ty = -100e6 }
  b:displacement { where = "x < dx", ux = 0 }
  return b
end

-- the ranks of this one host (a GPU is picked as local_rank mod GPUs): all of them, in rank order
if cl.comm.local_size() ~= cl.comm.size() or cl.comm.local_rank() ~= cl.comm.rank() then
  error(string.format("rank %d of %d is local rank %d of %d on one host", cl.comm.rank(), cl.comm.size(),
    cl.comm.local_rank(), cl.comm.local_size()))
end

local steps = 600 -- a tolerance below reach: both run every iteration
local ref, part = plate(false), plate(true)
local r_ref = cl.pd.relax { ref, steps = steps, tolerance = 1e-30 }
local r = cl.pd.relax { part, steps = steps, tolerance = 1e-30 }
local diff = model.compare(part, ref)
print(string.format("test_mpi_relax: %d ranks, %d iterations: max |du| / max |u| = %.3g, residual %.17g " ..
  "(one rank %.17g)", cl.comm.size(), r.steps, diff.u, r.residual, r_ref.residual))
if r.steps ~= r_ref.steps then error(string.format("%d iterations, one rank %d", r.steps, r_ref.steps)) end
if diff.u ~= 0 then error(string.format("displacements differ from one rank's by %.3g of max |u|", diff.u)) end
-- the residual's norm adds the ranks' squares in another order: round-off
if not (math.abs(r.residual - r_ref.residual) <= 1e-12 * r_ref.residual) then
  error(string.format("residual %.17g, one rank %.17g", r.residual, r_ref.residual))
end
print("test_mpi_relax: passed")
