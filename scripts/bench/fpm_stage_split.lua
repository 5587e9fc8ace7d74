-- The time of each stage of a cleave.fpm explicit run's step (run.stages), for the benchmarks:
--   local split = dofile(".../fpm_stage_split.lua"); split(run, 300)
-- runs each stage alone `steps` times (its own pipeline through cleave.run, which waits for the
-- device at the end; the device is idle before each), then the whole step as many times, and prints
-- each stage's time per step, its share of the stages' sum, and that sum against the whole step (the
-- difference: the launch gaps the stages share). The stages run out of order and on a finished
-- state: the body is left unusable for further steps, so call it last.
local cl = require "cleave"

local function timed(pipeline, run, steps)
  cl.sync()
  return cl.run { pipeline = pipeline, steps = steps, dt = run.dt, t0 = run.t, progress = false }.seconds / steps
end

return function(run, steps)
  local rows, sum = {}, 0
  for i, stage in ipairs(run.stages) do
    rows[i] = { tostring(stage), timed(cl.pipeline { stage }, run, steps) }
    sum = sum + rows[i][2]
  end
  local whole = timed(run.pipeline, run, steps)
  print(string.format("  per-stage split, each stage alone %d times (device-synchronised):", steps))
  for i, row in ipairs(rows) do
    print(string.format("  %2d %-24s %8.2f us/step  %5.1f%%", i, row[1], 1e6 * row[2], 100 * row[2] / sum))
  end
  print(string.format("  sum of the stages %.2f us/step; the whole step %.2f us/step", 1e6 * sum, 1e6 * whole))
  io.stdout:flush()
end
