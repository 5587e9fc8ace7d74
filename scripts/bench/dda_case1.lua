-- The paper's case 1 (paper 004, Table II: 4 361 blocks, 40 000 steps to a static state, 2 080 s on
-- a K40): a jointed slope 200 m wide and 60 m high cut by two joint sets (block cutter, slivers
-- merged) on a fixed base, static analysis, time step 1 ms, allowed displacement 1% of the spacing scale.
--   cleave run scripts/bench/dda_case1.lua [steps] [spacing] [preconditioner] [spmv] [penalty] [every] [dt]
-- CLEAVE_DDA_DETECTION=host|device picks where contact detection runs (default: the device on cuda);
-- CLEAVE_DDA_ASSEMBLY=full|incremental the model's assembly (default incremental);
-- CLEAVE_DDA_BROAD_SKIN=metres the model's broad_skin (0: the candidate pairs found anew every step;
-- default the model's, d0); the summary line says how often the broad phase built its grid;
-- CLEAVE_DDA_PCG_VARIANT=standard|pipelined the model's pcg_variant (default standard);
-- CLEAVE_DDA_DT_GROWTH=factor the model's dt_growth (default 0: each step tries dt first);
-- CLEAVE_DDA_OPEN_CLOSE_MAX=n the model's open_close_max (default 100);
-- CLEAVE_DDA_OC_LOOSE=factor the model's open_close_tolerance (read when the model is made; default 10: the solves
-- that change states 10 times looser than the confirming one; 1: every open-close solve to the full tolerances);
-- CLEAVE_DDA_PATTERN_REUSE=0 builds the matrix's pattern every step (default 1: kept while the
-- contacts' pairs of blocks stay; the summary line says on how many steps it was kept);
-- CLEAVE_DDA_TRANSFER_SHORTCUT=0 sorts the contacts found every step (default 1: the device
-- transfer skips the sort where they are the last transfer's, in the same order; the summary line
-- says on how many steps);
-- with the device and BSR the transfer, the pattern and the assembly's indices run there too (no
-- contact comes to the host in a step), with the host the ninth slice's host path.
-- `steps` (default 20): the steps to run and time -- the paper's 40 000 do not fit in a 10-minute call;
-- the script extrapolates its mean step time to them. `spacing` scales the joint spacings (0.72, the
-- default: about 4 400 blocks; 3: about 280). `penalty`: the contact springs' stiffness as a multiple of
-- E (default the model's, 50). `dt` the time step (default 1e-4 s: the paper's "usually less than
-- 0.0001 s"). Prints the blocks, the matrix's condition indicators, a line every `every` steps
-- (default 1) with the time, open-close and PCG iterations (each solve's, the state changes after each,
-- the warm start's residual) and time-step reductions, then the iterations beside the paper's Table I,
-- the modules beside its Table II and the energies, and writes the last state as
-- out/dda_case1/state_NNNNNN.png. PCG's kernels (the model's `pcg`): CLEAVE_DDA_PCG=persistent or
-- launches runs with that one; unset, the run is with "persistent" (the default) and the same steps
-- are then run again from the start with "launches", the two compared (report.pcg_kernels).
-- CLEAVE_DDA_PCG_BLOCKS=132,264 (block counts; e.g. the SM count, one block an SM): the same steps run
-- again with the persistent solve's grid capped at each (the model's pcg_blocks), a line each, to
-- time a cheaper grid barrier against as many blocks as fit, side by side in one run.
local cl = require "cleave"
local report = dofile((arg[0]:match("^(.*)/") or ".") .. "/dda_report.lua")
local steps, spacing = tonumber(arg[1]) or 20, tonumber(arg[2]) or 0.72
local preconditioner, spmv, penalty = arg[3] or "block_jacobi", arg[4] ~= "default" and arg[4] or nil, tonumber(arg[5])
local every, dt = tonumber(arg[6]) or 1, tonumber(arg[7]) or 1e-4
local E = 2e10

local t0 = cl.clock()
local rock = cl.dda.cut {
  domain = { 0, 0, 200, 0, 200, 20, 80, 60, 0, 60 },
  joints = { { dip = 30, spacing = 2.2 * spacing, perturbation = 0.2, seed = 1, origin = { 0.3, 0.1 } },
             { dip = 115, spacing = 2.0 * spacing, perturbation = 0.2, seed = 2, origin = { 0.2, 0.3 } } },
}
local base = cl.dda.blocks { { -5, -10, 205, -10, 205, 0, -5, 0 } }
local pcg_env = os.getenv("CLEAVE_DDA_PCG")
local function build(pcg, pcg_blocks)
  return cl.dda.model {
    blocks = { base, rock }, materials = { { rho = 2600, E = E, nu = 0.25 } }, joints = { { friction = 35 } },
    fixed = { { -5, -10 }, { 205, -10 }, { -5, 0 } }, gravity = { 0, -9.81 }, analysis = "static",
    preconditioner = preconditioner, spmv = spmv, normal_stiffness = penalty and penalty * E, pcg = pcg,
    pcg_blocks = pcg_blocks, detection = os.getenv("CLEAVE_DDA_DETECTION"), assembly = os.getenv("CLEAVE_DDA_ASSEMBLY"),
    broad_skin = tonumber(os.getenv("CLEAVE_DDA_BROAD_SKIN")) or os.getenv("CLEAVE_DDA_BROAD_SKIN"), pcg_variant = os.getenv("CLEAVE_DDA_PCG_VARIANT"),
    dt_growth = tonumber(os.getenv("CLEAVE_DDA_DT_GROWTH") or ""),
    open_close_max = math.tointeger(tonumber(os.getenv("CLEAVE_DDA_OPEN_CLOSE_MAX") or "")),
    -- Shi's default (1% of half the domain, 1.05 m) is two thirds of a block here: contacts would be
    -- sought 2.6 m around every block. A step moves the blocks by microns.
    max_displacement = 0.01 * spacing,
  }
end
local model = build(pcg_env or "persistent")
print(string.format("%d blocks (%d slivers merged, %d dropped; cut and built in %.2f s), device %s, %s, %s, penalty %g E, " ..
  "dt %g s, PCG %s %s", model:count(), rock.slivers.merged, rock.slivers.dropped, cl.clock() - t0, cl.device(),
  preconditioner, spmv or "default product", penalty or 50, dt, pcg_env or "persistent",
  os.getenv("CLEAVE_DDA_PCG_VARIANT") or "standard"))
local cpu0, wall0, iterations, oc, reductions, launches, syncs = os.clock(), cl.clock(), 0, 0, 0, 0, 0
local incremental = 0
local material = { rho = 2600, E = E, nu = 0.25, kn = (penalty or 50) * E }
local t1 = cl.clock()
for step = 1, steps do
  local s = model:run { steps = 1, dt = dt, png = step == steps and "out/dda_case1/state" or nil }
  iterations, oc, reductions = iterations + s.pcg, oc + s.open_close, reductions + s.reductions
  launches, syncs, incremental = launches + s.launches, syncs + s.syncs, incremental + s.incremental_assemblies
  if step % every == 0 or step == steps then
    print(string.format("step %d: %.2f s, t %.4f s, dt %.3g, contacts %d (closed %d), open-close %d, PCG %d, reductions %s: %s",
      step, cl.clock() - t1, s.t, s.dt, s.contacts, s.closed, s.open_close, s.pcg,
      s.reductions > 0 and string.format("%d (the last: %s)", s.reductions, s.reduced_by) or "0", report.iterations(s)))
    t1 = cl.clock()
  end
end
local s, wall = model:stats(), cl.clock() - wall0
report.conditioning(model, dt, material, 1)
print(string.format("%d steps: %.2f s wall, %.2f s CPU; a step: %.1f open-close iterations, %.0f PCG iterations " ..
  "(%.0f a solve; those of the accepted attempt), %.2f time-step reductions, %.1f incremental assemblies (assembly %s); " ..
  "the broad phase's grid built %d times (skin %g m); pattern kept on %d of %d steps (CLEAVE_DDA_PATTERN_REUSE=%s); " ..
  "the transfer's sort skipped on %d (CLEAVE_DDA_TRANSFER_SHORTCUT=%s)",
  steps, wall, os.clock() - cpu0, oc / steps, iterations / steps, iterations / oc, reductions / steps, incremental / steps,
  os.getenv("CLEAVE_DDA_ASSEMBLY") or "incremental", s.broad_rebuilds, s.broad_skin, s.pattern_reuses, steps,
  os.getenv("CLEAVE_DDA_PATTERN_REUSE") or "1", s.transfer_shortcuts, os.getenv("CLEAVE_DDA_TRANSFER_SHORTCUT") or "1"))
report.table_one(preconditioner, iterations / steps)
report.device_work(launches, syncs, iterations, steps)
report.modules(s, steps, { steps = 40000, target = 42, k40 = { detection = 42.28, diagonal = 1.68, assembly = 242.76,
  solve = 1723.7, open_close = 60.04, update = 5.63 } })
report.contact_work(s, steps)
report.energies(s)
if not pcg_env then report.pcg_kernels(build, steps, dt, { stats = s, launches = launches, syncs = syncs, pcg = iterations }) end
for blocks in (os.getenv("CLEAVE_DDA_PCG_BLOCKS") or ""):gmatch("%d+") do
  local other, pcg = build("persistent", tonumber(blocks)), 0
  for _ = 1, steps do pcg = pcg + other:run({ steps = 1, dt = dt }).pcg end
  local st = other:stats()
  print(string.format("PCG persistent, at most %5s blocks: equation solving %8.3f ms a step (%.1f us a PCG iteration); " ..
    "%.1f PCG iterations a step", blocks, 1e3 * st.seconds.solve / steps, 1e6 * st.seconds.solve / math.max(pcg, 1), pcg / steps))
end
