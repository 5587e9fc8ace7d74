-- Towards the paper's case 1 (paper 004, Table II: 4 361 blocks): a jointed slope cut by the block
-- cutter from a slope 200 m wide and 60 m high by two joint sets, on a fixed base, static analysis.
-- `spacing` scales the joint spacings (3, the default: 301 blocks; 1.5: about 1 200; 1: 2 348).
-- Prints the blocks, then per step the time, open-close and PCG iterations and time-step
-- reductions, and at the end the time in each module as the paper's Table II (wall clock; on a
-- machine shared with other jobs compare the shares, and the CPU time printed with them).
--   cleave run scripts/bench/dda_case1.lua [steps] [spacing] [preconditioner] [spmv] [penalty]
-- `penalty`: the contact springs' stiffness as a multiple of E (default the model's, 50).
local cl = require "cleave"
local steps, spacing = tonumber(arg[1]) or 5, tonumber(arg[2]) or 3
local preconditioner, spmv, penalty = arg[3] or "block_jacobi", arg[4], tonumber(arg[5])
local E = 2e10

local t0 = cl.clock()
local rock = cl.dda.cut {
  domain = { 0, 0, 200, 0, 200, 20, 80, 60, 0, 60 },
  joints = { { dip = 30, spacing = 2.2 * spacing, perturbation = 0.2, seed = 1, origin = { 0.3, 0.1 } },
             { dip = 115, spacing = 2.0 * spacing, perturbation = 0.2, seed = 2, origin = { 0.2, 0.3 } } },
}
local base = cl.dda.blocks { { -5, -10, 205, -10, 205, 0, -5, 0 } }
local model = cl.dda.model {
  blocks = { base, rock }, materials = { { rho = 2600, E = E, nu = 0.25 } }, joints = { { friction = 35 } },
  fixed = { { -5, -10 }, { 205, -10 }, { -5, 0 } }, gravity = { 0, -9.81 }, analysis = "static",
  preconditioner = preconditioner, spmv = spmv, normal_stiffness = penalty and penalty * E,
}
print(string.format("%d blocks (cut and built in %.2f s), device %s, %s, %s, penalty %g E", model:count(),
  cl.clock() - t0, cl.device(), preconditioner, spmv or "default product", penalty or 50))
local cpu0, wall0, iterations = os.clock(), cl.clock(), 0
for step = 1, steps do
  local t1 = cl.clock()
  local s = model:run { steps = 1, dt = 1e-3 }
  iterations = iterations + s.pcg
  print(string.format("step %d: %.2f s, dt %.3g, contacts %d (closed %d), open-close %d, PCG %d, reductions %d", step,
    cl.clock() - t1, s.dt, s.contacts, s.closed, s.open_close, s.pcg, s.reductions))
end
local s, wall = model:stats(), cl.clock() - wall0
print(string.format("%d steps: %.2f s wall, %.2f s CPU, %d PCG iterations (%.0f a step)", steps, wall,
  os.clock() - cpu0, iterations, iterations / steps))
print(string.format("%-22s %10s %7s", "module", "time (s)", "share"))
local total = 0
for _, k in ipairs { "detection", "diagonal", "assembly", "solve", "open_close", "update" } do total = total + s.seconds[k] end
for _, k in ipairs { "detection", "diagonal", "assembly", "solve", "open_close", "update" } do
  print(string.format("%-22s %10.3f %6.1f%%", k, s.seconds[k], 100 * s.seconds[k] / total))
end
