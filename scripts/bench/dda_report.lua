-- What the DDA case scripts beside it print (dda_case1.lua, dda_case2.lua), loaded as
--   local report = dofile((arg[0]:match("^(.*)/") or ".") .. "/dda_report.lua")
-- report.modules(stats, steps, paper): the time in each module as the paper's Tables II-III
-- (model:stats().seconds, wall clock), beside the paper's K40 times, per step, and extrapolated to
-- the paper's step count; report.energies(stats): the work and energy bookkeeping;
-- report.device_work(launches, syncs, iterations, steps): the solver's launches and host waits;
-- report.contact_work(stats, steps): the work over the contacts outside the solve, part by part.
local report = {}

-- the model's modules and the paper's names for them (Tables II-III)
local modules = {
  { "detection", "contact detection" }, { "diagonal", "diagonal matrix building" },
  { "assembly", "non-diagonal matrix building" }, { "solve", "equation solving" },
  { "open_close", "interpenetration checking" }, { "update", "data updating" },
}

-- paper = { steps = 40000, k40 = { detection = 42.28, ... } }: the paper's run (K40 seconds by module);
-- nil: this run's times alone.
function report.modules(stats, steps, paper)
  local total, ptotal = 0, 0
  for _, m in ipairs(modules) do total, ptotal = total + stats.seconds[m[1]], ptotal + (paper and paper.k40[m[1]] or 0) end
  local k40 = paper and string.format(" | %12s %12s", "K40 (s)", "K40 ms/step") or ""
  print(string.format("%-30s %10s %7s %12s%s", "module (paper's name)", "time (s)", "share", "ms a step", k40))
  print(string.format("(contact detection's broad and narrow phases on the %s; the matrix's pattern and indices on the %s)",
    stats.device_detection and "device" or "host", stats.device_pattern and "device" or "host"))
  for _, m in ipairs(modules) do
    local s = stats.seconds[m[1]]
    local p = paper and string.format(" | %12.2f %12.3f", paper.k40[m[1]], 1e3 * paper.k40[m[1]] / paper.steps) or ""
    print(string.format("%-30s %10.3f %6.1f%% %12.3f%s", m[2], s, 100 * s / total, 1e3 * s / steps, p))
  end
  local p = paper and string.format(" | %12.1f %12.3f", ptotal, 1e3 * ptotal / paper.steps) or ""
  print(string.format("%-30s %10.3f %7s %12.3f%s", "total", total, "", 1e3 * total / steps, p))
  if not paper then return end
  print(string.format("extrapolated to the paper's %d steps at this run's mean step time: %.1f s (paper, K40: %.0f s; " ..
    "target %.0f s); an estimate only: the step time changes as the blocks move and the contacts with them",
    paper.steps, total / steps * paper.steps, ptotal, paper.target))
end

-- The work over the contacts outside the solve, timed apart inside the modules
-- (model:stats().contact_seconds, cl_dda_contact_part): the host's, or with the pattern on the device
-- (stats.device_pattern) the device's passes; ms a step in each part, the sum and its share of the step.
-- The step does not wait for the device's passes, whose time is charged where the host next waits,
-- unless CLEAVE_CUDA_SYNC=1 makes every launch wait (then each part is charged its own).
local host_parts = {
  { "found", "found to host" }, { "transfer", "transfer" }, { "geometry", "geometry" }, { "packing", "packing" },
  { "pattern", "pattern+setup" }, { "states", "states" }, { "account", "account+closed" },
}
function report.contact_work(stats, steps)
  local line, sum, total = {}, 0, 0
  for _, m in pairs(stats.seconds) do total = total + m end
  for _, p in ipairs(host_parts) do
    local s = stats.contact_seconds[p[1]]
    sum = sum + s
    line[#line + 1] = string.format("%s %.3f", p[2], 1e3 * s / steps)
  end
  local unsynced = stats.device_pattern and os.getenv("CLEAVE_CUDA_SYNC") ~= "1"
  print(string.format("work over the contacts outside the solve (%s), ms a step: %s; together %.3f (%.1f%% of the step)%s",
    stats.device_pattern and "on the device" or "on the host", table.concat(line, ", "), 1e3 * sum / steps,
    100 * sum / math.max(total, 1e-300),
    unsynced and "; the device's passes not waited for (CLEAVE_CUDA_SYNC=1 charges each part its own)" or ""))
end

-- The solver's kernel launches (and device copies) and host waits (transfers, scalar reads),
-- summed over the steps (model:stats().launches, .syncs), per step and per PCG iteration (over the
-- accepted attempts' iterations, model:stats().pcg; a redone attempt's work counts in the sums):
-- where launches and waits, not bandwidth, dominate a step -- a launch costs some 3-5 us on a GPU, a
-- wait 10-20 us -- these are what its time goes to (docs/benchmarks.md).
function report.device_work(launches, syncs, iterations, steps)
  print(string.format("solver: %.0f launches and %.1f host waits a step; %.1f launches and %.3f waits a PCG iteration " ..
    "(all included)", launches / steps, syncs / steps, launches / math.max(iterations, 1),
    syncs / math.max(iterations, 1)))
end

-- PCG's two sets of kernels on the same steps (the model's `pcg`; CLEAVE_DDA_PCG in the case scripts):
-- the run just made with "persistent" (run = { stats, launches, syncs, pcg }: its model:stats() and the
-- sums over its steps) beside the same steps from the start with "launches" (build(pcg) makes the
-- model): equation solving (the assembly's launches, the solve and the open-close rule chained after
-- it) in ms a step, the solver's launches and host waits a step, PCG iterations a step (the same up to
-- the round-off of the dots' order, which may move a stop by one).
function report.pcg_kernels(build, steps, dt, run)
  local other, launches, syncs, pcg = build("launches"), 0, 0, 0
  for _ = 1, steps do
    local s = other:run { steps = 1, dt = dt }
    launches, syncs, pcg = launches + s.launches, syncs + s.syncs, pcg + s.pcg
  end
  local s = other:stats()
  for _, k in ipairs { { "persistent", run.stats, run.launches, run.syncs, run.pcg }, { "launches", s, launches, syncs, pcg } } do
    print(string.format("PCG kernels %-10s: equation solving %8.3f ms a step (%.1f us a PCG iteration), non-diagonal " ..
      "matrix building %.3f ms; %.0f launches and %.1f host waits a step; %.1f PCG iterations a step", k[1],
      1e3 * k[2].seconds.solve / steps, 1e6 * k[2].seconds.solve / math.max(k[5], 1), 1e3 * k[2].seconds.assembly / steps,
      k[3] / steps, k[4] / steps, k[5] / steps))
  end
end

-- Gravity's work goes into kinetic energy, friction and what neither counts: the blocks' strain,
-- the contact springs and the time integration's own damping (static analysis zeroes the velocities
-- each step: there the kinetic energy is damped away).
function report.energies(stats)
  local rest = stats.gravity_work + stats.load_work - stats.kinetic - stats.friction_work
  print(string.format("t = %.4f s: work of gravity %.6g J, of loads %.6g J; kinetic %.6g J, friction work %.6g J; " ..
    "strain, springs and damping %.6g J", stats.t, stats.gravity_work, stats.load_work, stats.kinetic,
    stats.friction_work, rest))
end

-- The open-close iterations of the step just run (model:stats() after it): PCG iterations of each
-- solve, and the contacts whose state changed after it (+ the sliding ones whose friction force had
-- not settled), e.g. "PCG 120 40 12 | changed 310+4 12 0"; the warm start's relative residual.
function report.iterations(stats)
  local it, changed = stats.iterations, {}
  for k = 1, #it.pcg do
    changed[k] = it.unsettled[k] > 0 and string.format("%d+%d", it.changed[k], it.unsettled[k]) or tostring(it.changed[k])
  end
  return string.format("PCG %s | changed %s | warm residual %.2g", table.concat(it.pcg, " "), table.concat(changed, " "),
    stats.warm_residual)
end

-- This run's PCG iterations a step beside the paper's Table I (averages over 1 000 steps of its
-- case; ILU, cuSPARSE's, is not implemented here).
function report.table_one(preconditioner, per_step)
  local paper = { block_jacobi = 275, ssor = 141 }
  print(string.format("PCG iterations a step: %.0f with %s; the paper's Table I: block Jacobi 275, SSOR-AI 141, ILU 93 " ..
    "(this preconditioner: %d)", per_step, preconditioner, paper[preconditioner] or 0))
end

-- Area and central second moments (Ixx = integral of (x - x0)^2, Iyy, Ixy) of a polygon.
local function moments(v)
  local n, S, sx, sy, sxx, syy = #v // 2, 0, 0, 0, 0, 0
  for k = 1, n do
    local x1, y1, x2, y2 = v[2 * k - 1], v[2 * k], v[(2 * k) % (2 * n) + 1], v[(2 * k + 1) % (2 * n) + 1]
    local c = x1 * y2 - x2 * y1
    S, sx, sy = S + c / 2, sx + (x1 + x2) * c / 6, sy + (y1 + y2) * c / 6
    sxx, syy = sxx + (x1 * x1 + x1 * x2 + x2 * x2) * c / 12, syy + (y1 * y1 + y1 * y2 + y2 * y2) * c / 12
  end
  local x0, y0 = sx / S, sy / S
  return S, sxx - S * x0 * x0, syy - S * y0 * y0
end

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

-- Condition indicators of the step's matrix, per block (the first `skip` blocks, fixed ones, left
-- out): the diagonal scales of its three kinds of unknowns -- translation 2 rho S / dt^2, rotation
-- 2 rho (Ixx + Iyy) / dt^2, normal strain 2 rho Ixx / dt^2 + E S / (1 - nu^2) -- and the closed
-- contacts' springs on it (kn per contact) over its translational inertia. m = {rho, E, nu, kn}.
function report.conditioning(model, dt, m, skip)
  local closed = {}
  for _, c in ipairs(model:contacts()) do
    if c.state ~= "open" then
      closed[c.vertex_block] = (closed[c.vertex_block] or 0) + 1
      closed[c.edge_block] = (closed[c.edge_block] or 0) + 1
    end
  end
  local one, all, rot, strain = {}, {}, {}, {}
  for i = skip + 1, model:count() do
    local S, Ixx, Iyy = moments(model:block(i).vertices)
    local inertia = 2 * m.rho / dt ^ 2
    local trans = inertia * S
    one[#one + 1], all[#all + 1] = m.kn / trans, m.kn * (closed[i] or 0) / trans
    rot[#rot + 1] = inertia * (Ixx + Iyy) / trans
    strain[#strain + 1] = (inertia * Ixx + m.E * S / (1 - m.nu ^ 2)) / trans
  end
  local max = function(t) local x = -math.huge for _, v in ipairs(t) do x = math.max(x, v) end return x end
  print(string.format("conditioning at dt %g s: one contact's kn / (2 rho S / dt^2): median %.3g, largest %.3g; " ..
    "the closed contacts' kn on a block / its inertia: median %.3g, largest %.3g; diagonal scales over the " ..
    "translation's: rotation median %.3g m^2, normal strain median %.3g m^2", dt, median(one), max(one), max(all) >= 0
    and median(all) or 0, max(all), median(rot), median(strain)))
end

return report
