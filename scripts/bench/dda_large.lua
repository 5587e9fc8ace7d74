-- The step time of a large block system (issue 16: the step times of 1e5 and 1e6 blocks): a brick
-- wall in running bond, bricks 1 x 0.5 m (half bricks closing every other course), standing on a
-- fixed base, static analysis under gravity, time step 0.1 ms (the paper's), allowed displacement
-- 1% of a brick's height.
--   cleave run scripts/bench/dda_large.lua [blocks] [steps] [preconditioner] [spmv]
-- `blocks` (default 100000): about that many bricks in a square wall (sqrt(2 blocks) courses of
-- sqrt(blocks / 2) bricks); `steps` (default 5). Prints the setup's times (the wall generated; the
-- model built and checked: every block's polygon and the overlap test), the first step's (every
-- contact new), then each step's time, open-close and PCG iterations, and the mean of the steps
-- after the first, and the modules' times. CLEAVE_DDA_DT_GROWTH sets the model's dt_growth (a step
-- starts at no more than that times the last accepted time step; absent: each tries 0.1 ms).
local cl = require "cleave"
local report = dofile((arg[0]:match("^(.*)/") or ".") .. "/dda_report.lua")
local target, steps = tonumber(arg[1]) or 100000, tonumber(arg[2]) or 5
local preconditioner, spmv = arg[3] or "block_jacobi", arg[4] ~= "default" and arg[4] or nil
local w, h, dt = 1.0, 0.5, 1e-4

local t0 = cl.clock()
local per_course = math.max(2, math.floor(math.sqrt(target / 2) + 0.5))
local courses = math.max(1, math.floor(target / per_course + 0.5))
local width = per_course * w
local bricks = {}
for j = 0, courses - 1 do
  local y0, x = j * h, 0
  if j % 2 == 1 then -- the odd courses start and end with half bricks
    bricks[#bricks + 1] = { 0, y0, w / 2, y0, w / 2, y0 + h, 0, y0 + h }
    x = w / 2
  end
  while x + w <= width + 1e-9 do
    bricks[#bricks + 1] = { x, y0, x + w, y0, x + w, y0 + h, x, y0 + h }
    x = x + w
  end
  if x < width - 1e-9 then bricks[#bricks + 1] = { x, y0, width, y0, width, y0 + h, x, y0 + h } end
end
local generated = cl.clock() - t0
local base = { -1, -1, width + 1, -1, width + 1, 0, -1, 0 }
t0 = cl.clock()
local model = cl.dda.model {
  blocks = { cl.dda.blocks { base }, cl.dda.blocks(bricks) }, materials = { { rho = 2600, E = 2e10, nu = 0.25 } },
  joints = { { friction = 35 } }, fixed = { { -1, -1 }, { width + 1, -1 }, { -1, 0 } }, gravity = { 0, -9.81 },
  analysis = "static", preconditioner = preconditioner, spmv = spmv, detection = os.getenv("CLEAVE_DDA_DETECTION"), max_displacement = 0.01 * h,
  dt_growth = tonumber(os.getenv("CLEAVE_DDA_DT_GROWTH") or ""),
}
local built = cl.clock() - t0
print(string.format("%d blocks (%d courses of %d bricks, %.0f x %.1f m) on a base, device %s, %s, %s, dt %g s; " ..
  "setup: wall generated in %.2f s, model built and checked in %.2f s", model:count(), courses, per_course, width,
  courses * h, cl.device(), preconditioner, spmv or "default product", dt, generated, built))
local later, iterations, oc, launches, syncs = 0, 0, 0, 0, 0
for step = 1, steps do
  local t1 = cl.clock()
  local s = model:run { steps = 1, dt = dt }
  local took = cl.clock() - t1
  if step > 1 then
    later, iterations, oc = later + took, iterations + s.pcg, oc + s.open_close
    launches, syncs = launches + s.launches, syncs + s.syncs
  end
  print(string.format("step %d%s: %.3f s, dt %.3g, contacts %d (closed %d), open-close %d, PCG %d, reductions %d: %s",
    step, step == 1 and " (every contact new)" or "", took, s.dt, s.contacts, s.closed, s.open_close, s.pcg,
    s.reductions, report.iterations(s)))
end
if steps > 1 then
  print(string.format("%d blocks: %.3f s a step (mean of steps 2-%d), %.1f open-close and %.0f PCG iterations a step",
    model:count(), later / (steps - 1), steps, oc / (steps - 1), iterations / (steps - 1)))
  report.device_work(launches, syncs, iterations, steps - 1)
end
if steps > 0 then report.modules(model:stats(), steps) report.contact_work(model:stats(), steps) end
