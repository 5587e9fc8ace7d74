-- The benchmarks' energy-balance gate (scripts/bench/balance.lua): a run off by more than 1% or
-- with a non-finite energy gets no time; work terms (names ending in "_work") count as input.
local T = require "testing"

local balance = dofile(os.getenv("CLEAVE_SOURCE") .. "/scripts/bench/balance.lua")

T.case("a run within 1% keeps its time, work terms count as input", function()
  local before = { kinetic = 0, strain = 0, external_work = 0 }
  -- 10 J of work in, 9.95 J held: 0.5% of 10 J
  local after = { kinetic = 4, strain = 5.95, external_work = 10 }
  local rel = balance.error(before, after)
  T.near(rel, 0.005, 1e-12, "relative drift")
  T.eq(balance.checked("ok", before, after, 1.5), 1.5, "time kept")
  T.eq(balance.refused, 0, "nothing refused")
end)

T.case("a run off by more than 1% or non-finite is refused", function()
  local before = { kinetic = 1, cohesive_dissipated = 0 }
  T.eq(balance.checked("gains 2%", before, { kinetic = 1.02, cohesive_dissipated = 0 }, 1.5), nil, "2% gain refused")
  T.eq(balance.checked("nan", before, { kinetic = 0 / 0, cohesive_dissipated = 0 }, 1.5), nil, "NaN refused")
  T.eq(balance.checked("inf", before, { kinetic = 1, cohesive_dissipated = -math.huge }, 1.5), nil, "inf refused")
  T.eq(balance.refused, 3, "three refused")
  T.eq(balance.time(nil, "%.3f s"), "REFUSED", "a refused run prints no time")
  T.eq(balance.time(1.5, "%.3f s"), "1.500 s", "a kept run prints its time")
end)

T.run()
