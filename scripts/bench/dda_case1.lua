-- Towards the paper's case 1 (paper 004, Table II: 4 361 blocks): a jointed slope cut by the block
-- cutter from a slope 200 m wide and 60 m high by two joint sets, on a fixed base, static analysis.
-- `spacing` scales the joint spacings (3, the default: 301 blocks; 1: 2 348). The paper's size is
-- out of reach of the host-side solver today (docs/methods/dda.md).
-- Prints the blocks, then per step the time, open-close and PCG iterations and time-step reductions.
--   cleave run scripts/bench/dda_case1.lua [steps] [spacing] [preconditioner]
local cl = require "cleave"
local steps, spacing, preconditioner = tonumber(arg[1]) or 5, tonumber(arg[2]) or 3, arg[3] or "block_jacobi"

local t0 = cl.clock()
local rock = cl.dda.cut {
  domain = { 0, 0, 200, 0, 200, 20, 80, 60, 0, 60 },
  joints = { { dip = 30, spacing = 2.2 * spacing, perturbation = 0.2, seed = 1, origin = { 0.3, 0.1 } },
             { dip = 115, spacing = 2.0 * spacing, perturbation = 0.2, seed = 2, origin = { 0.2, 0.3 } } },
}
local base = cl.dda.blocks { { -5, -10, 205, -10, 205, 0, -5, 0 } }
local model = cl.dda.model {
  blocks = { base, rock }, materials = { { rho = 2600, E = 2e10, nu = 0.25 } }, joints = { { friction = 35 } },
  fixed = { { -5, -10 }, { 205, -10 }, { -5, 0 } }, gravity = { 0, -9.81 }, analysis = "static",
  preconditioner = preconditioner,
}
print(string.format("%d blocks (cut and built in %.2f s), device %s", model:count(), cl.clock() - t0, cl.device()))
for step = 1, steps do
  local t1 = cl.clock()
  local s = model:run { steps = 1, dt = 1e-3 }
  print(string.format("step %d: %.2f s, dt %.3g, contacts %d (closed %d), open-close %d, PCG %d, reductions %d", step,
    cl.clock() - t1, s.dt, s.contacts, s.closed, s.open_close, s.pcg, s.reductions))
end
