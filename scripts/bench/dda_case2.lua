-- The paper's case 2 (paper 004, Table III: 1 683 blocks of about 2 x 2 m at the top of a slope 700 m
-- high, 80 000 steps until they reach its foot, 3 267 s on a K40): rocks falling down a slope,
-- dynamic analysis. Here the slope is a fixed block inclined at 40 degrees from 700 m down to a
-- run-out floor; 1 680 blocks of 2 x 2 m (56 along the slope, 30 deep) rest on it near the top and
-- slide (joint friction 30 degrees), time step 0.1 ms (the paper's "usually less than 0.0001 s"),
-- allowed displacement 0.1 m.
--   cleave run scripts/bench/dda_case2.lua [steps] [every] [preconditioner] [spmv] [dt]
-- `steps` (default 200): the steps to run and time -- the paper's 80 000 do not fit in a 10-minute
-- call; the script extrapolates its mean step time to them (the blocks start at rest in contact: the
-- first steps are the hardest for the solver, later ones spread the blocks down the slope). Prints a
-- line every `every` steps (default 20), then the modules beside the paper's Table III and the
-- energies, and writes the last state as out/dda_case2/state_NNNNNN.png. Each line has the
-- open-close iterations' PCG iterations, the state changes after each and the warm start's residual.
-- CLEAVE_DDA_DETECTION=host|device picks where contact detection runs (default: the device on cuda);
-- CLEAVE_DDA_BROAD_SKIN=metres the model's broad_skin (0: the candidate pairs found anew every step;
-- default the model's, d0); the summary line says how often the broad phase built its grid.
-- CLEAVE_DDA_PCG_VARIANT=standard|pipelined the model's pcg_variant (default standard).
-- CLEAVE_DDA_OC_LOOSE=factor the model's open_close_tolerance (read when the model is made; default 10: the solves
-- that change states 10 times looser than the confirming one; 1: every open-close solve to the full tolerances).
-- CLEAVE_DDA_PATTERN_REUSE=0 builds the matrix's pattern every step (default 1: kept while the
-- contacts' pairs of blocks stay; the summary line says on how many steps it was kept).
local cl = require "cleave"
local report = dofile((arg[0]:match("^(.*)/") or ".") .. "/dda_report.lua")
local steps, every = tonumber(arg[1]) or 200, tonumber(arg[2]) or 20
local preconditioner, spmv, dt = arg[3] or "block_jacobi", arg[4] ~= "default" and arg[4] or nil, tonumber(arg[5]) or 1e-4

local theta, height, size, along, deep = math.rad(40), 700, 2, 56, 30
local foot = height / math.tan(theta)
-- the slope, 1e9 kg of rock, hangs on the penalty springs of its fixed points: it sags a few mm and
-- swings at about 9 Hz, and its kinetic energy and gravity's work on it are in the energies printed.
-- (Made light, its diagonal block lost the inertia that conditions it: 6 400 PCG iterations a step
-- against 1 000-3 000.)
local slope = cl.dda.blocks { { -100, -50, foot + 600, -50, foot + 600, 0, foot, 0, 0, height, -100, height } }
-- the rocks: squares tilted with the slope, rows parallel to it, starting 20 m below its top
local ux, uy, nx, ny = math.cos(theta), -math.sin(theta), math.sin(theta), math.cos(theta)
local rocks = {}
for i = 0, along - 1 do
  for j = 0, deep - 1 do
    local s, h = 20 + size * i, size * j
    local x0, y0 = s * ux + h * nx, height + s * uy + h * ny
    rocks[#rocks + 1] = { x0, y0, x0 + size * ux, y0 + size * uy, x0 + size * (ux + nx), y0 + size * (uy + ny),
      x0 + size * nx, y0 + size * ny }
  end
end
local t0 = cl.clock()
local rock_set, pcg_env = cl.dda.blocks(rocks), os.getenv("CLEAVE_DDA_PCG")
local function build(pcg)
  return cl.dda.model {
    blocks = { slope, rock_set }, materials = { { rho = 2600, E = 2e10, nu = 0.25 } },
    joints = { { friction = 30 } }, fixed = { { -100, -50 }, { foot + 600, -50 }, { -100, height } },
    gravity = { 0, -9.81 }, analysis = "dynamic", preconditioner = preconditioner, spmv = spmv, pcg = pcg,
    detection = os.getenv("CLEAVE_DDA_DETECTION"), broad_skin = tonumber(os.getenv("CLEAVE_DDA_BROAD_SKIN")) or os.getenv("CLEAVE_DDA_BROAD_SKIN"), pcg_variant = os.getenv("CLEAVE_DDA_PCG_VARIANT"),
    -- Shi's default (1% of half the domain, 7.6 m) is four blocks wide: contacts would be sought 19 m
    -- around every block. At the foot a rock moves about 65 m/s x 1 ms a step.
    max_displacement = 0.1,
  }
end
local model = build(pcg_env or "persistent")
print(string.format("%d blocks (built in %.2f s), device %s, %s, %s, dt %g s, PCG %s %s", model:count(),
  cl.clock() - t0, cl.device(), preconditioner, spmv or "default product", dt, pcg_env or "persistent",
  os.getenv("CLEAVE_DDA_PCG_VARIANT") or "standard"))
local cpu0, wall0, iterations, oc, reductions, launches, syncs = os.clock(), cl.clock(), 0, 0, 0, 0, 0
local t1 = cl.clock()
for step = 1, steps do
  local s = model:run { steps = 1, dt = dt, png = step == steps and "out/dda_case2/state" or nil }
  iterations, oc, reductions = iterations + s.pcg, oc + s.open_close, reductions + s.reductions
  launches, syncs = launches + s.launches, syncs + s.syncs
  if step % every == 0 or step == steps then
    local front = model:block(model:count()) -- the lowest rock of the top layer
    print(string.format("step %d: %.2f s, t %.4f s, dt %.3g, contacts %d (closed %d), open-close %d, PCG %d, " ..
      "reductions %d, a rock moved %.3f m at %.3f m/s: %s", step, cl.clock() - t1, s.t, s.dt, s.contacts, s.closed,
      s.open_close, s.pcg, s.reductions, math.sqrt(front.ux ^ 2 + front.uy ^ 2),
      math.sqrt(front.velocity[1] ^ 2 + front.velocity[2] ^ 2), report.iterations(s)))
    t1 = cl.clock()
  end
end
local s, wall = model:stats(), cl.clock() - wall0
report.conditioning(model, dt, { rho = 2600, E = 2e10, nu = 0.25, kn = 50 * 2e10 }, 1)
print(string.format("%d steps: %.2f s wall, %.2f s CPU; a step: %.1f open-close iterations, %.0f PCG iterations " ..
  "(%.0f a solve), %.2f time-step reductions; the broad phase's grid built %d times (skin %g m); "
  .. "pattern kept on %d of %d steps (CLEAVE_DDA_PATTERN_REUSE=%s); the transfer's sort skipped on %d "
  .. "(CLEAVE_DDA_TRANSFER_SHORTCUT=%s)", steps, wall,
  os.clock() - cpu0, oc / steps, iterations / steps, iterations / oc, reductions / steps, s.broad_rebuilds, s.broad_skin,
  s.pattern_reuses, steps, os.getenv("CLEAVE_DDA_PATTERN_REUSE") or "1", s.transfer_shortcuts,
  os.getenv("CLEAVE_DDA_TRANSFER_SHORTCUT") or "1"))
report.table_one(preconditioner, iterations / steps)
report.device_work(launches, syncs, iterations, steps)
report.modules(s, steps, { steps = 80000, target = 65, k40 = { detection = 59.43, diagonal = 3.74, assembly = 343.84,
  solve = 2755.1, open_close = 88.73, update = 13.98 } })
report.contact_work(s, steps)
report.energies(s)
if not pcg_env then report.pcg_kernels(build, steps, dt, { stats = s, launches = launches, syncs = syncs, pcg = iterations }) end
-- sliding rigidly, a block on the slope would have moved g (sin - cos tan phi) t^2 / 2
local a = 9.81 * (math.sin(theta) - math.cos(theta) * math.tan(math.rad(30)))
print(string.format("a rigid block sliding alone: %.3f m (a = %.3f m/s2)", a * s.t ^ 2 / 2, a))
