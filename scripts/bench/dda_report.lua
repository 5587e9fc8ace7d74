-- What the DDA case scripts beside it print (dda_case1.lua, dda_case2.lua), loaded as
--   local report = dofile((arg[0]:match("^(.*)/") or ".") .. "/dda_report.lua")
-- report.modules(stats, steps, paper): the time in each module as the paper's Tables II-III
-- (model:stats().seconds, wall clock), beside the paper's K40 times, per step, and extrapolated to
-- the paper's step count; report.energies(stats): the work and energy bookkeeping.
local report = {}

-- the model's modules and the paper's names for them (Tables II-III)
local modules = {
  { "detection", "contact detection" }, { "diagonal", "diagonal matrix building" },
  { "assembly", "non-diagonal matrix building" }, { "solve", "equation solving" },
  { "open_close", "interpenetration checking" }, { "update", "data updating" },
}

-- paper = { steps = 40000, k40 = { detection = 42.28, ... } }: the paper's run (K40 seconds by module).
function report.modules(stats, steps, paper)
  local total, ptotal = 0, 0
  for _, m in ipairs(modules) do total, ptotal = total + stats.seconds[m[1]], ptotal + paper.k40[m[1]] end
  print(string.format("%-30s %10s %7s %12s | %12s %12s", "module (paper's name)", "time (s)", "share", "ms a step",
    "K40 (s)", "K40 ms/step"))
  for _, m in ipairs(modules) do
    local s, p = stats.seconds[m[1]], paper.k40[m[1]]
    print(string.format("%-30s %10.3f %6.1f%% %12.3f | %12.2f %12.3f", m[2], s, 100 * s / total, 1e3 * s / steps, p,
      1e3 * p / paper.steps))
  end
  print(string.format("%-30s %10.3f %7s %12.3f | %12.1f %12.3f", "total", total, "", 1e3 * total / steps, ptotal,
    1e3 * ptotal / paper.steps))
  print(string.format("extrapolated to the paper's %d steps at this run's mean step time: %.1f s (paper, K40: %.0f s; " ..
    "target %.0f s); an estimate only: the step time changes as the blocks move and the contacts with them",
    paper.steps, total / steps * paper.steps, ptotal, paper.target))
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

return report
