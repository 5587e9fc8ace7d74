-- cleave.dda's broad phase kept from step to step (broad_skin, docs/methods/dda.md): the pairs it
-- keeps are a superset, filtered each step to the list a new grid would give, so a run with any
-- skin must be the run without reuse (broad_skin = 0) bit for bit -- positions, velocities,
-- stresses, contact states and forces, energies -- on the host's detection and the device's (its
-- cpu loops; on cuda where a GPU is), while the grid is built far less often.
local cl = require "cleave"
local T = require "testing"
local runs = require "dda_slope"

local info = cl.info()
local gpu = info.backends.cuda and info.gpu_count > 0
-- 60 steps of 2 ms: the block thrown up the slope at 1.5 m/s moves ~3 mm a step, past the default
-- skin's 12.5 mm (d0 / 2, max_displacement 0.01) every few steps; the others slide and land
local N, dt = 60, 2e-3

local shapes = require "dda_shapes"
local rotated, box = shapes.rotated, shapes.rect
local theta = math.rad(30)

-- The slope of dda_slope.lua and a fifth block, a 0.1 m square dropped from 41 mm above the upper
-- corner of the riding block (3), on which it lands after ~70 ms: with a 1 mm skin a candidate pair
-- that the first lists lack (their boxes are 16 mm apart), so a reuse that kept a list too long
-- would miss the landing.
local function run(extra)
  extra.blocks = { cl.dda.blocks { rotated({ -1, -1, 8, -1, 8, 0, -1, 0 }, theta) },
    cl.dda.blocks { rotated(box(3, 0, 1, 0.5), theta), rotated(box(3.2, 0.5, 0.5, 0.4), theta),
      rotated(box(5.5, 0.005, 0.6, 0.3), theta), box(2.70, 2.67, 0.1) } }
  local m = runs.slope(extra)
  m:run { steps = N, dt = dt }
  return runs.snapshot(m), m:stats(), m:contacts()
end

local function reuse_matches(detection)
  local plain, s0, contacts = run { detection = detection, broad_skin = 0 }
  local hit = false
  for _, c in ipairs(contacts) do
    hit = hit or (math.min(c.vertex_block, c.edge_block) == 3 and math.max(c.vertex_block, c.edge_block) == 5)
  end
  T.ok(hit, detection .. ": the dropped block landed on the riding one")
  -- the states first: a list kept too long shows here (a missed landing)
  local default, sd = run { detection = detection }
  runs.same(plain, default, detection .. ": the default skin against none")
  local thin, st = run { detection = detection, broad_skin = 1e-3 } -- a rebuild every step or two, reuse between
  runs.same(plain, thin, detection .. ": a 1 mm skin against none")
  local wide, sw = run { detection = detection, broad_skin = 20 } -- every pair a candidate, one build
  runs.same(plain, wide, detection .. ": a 20 m skin against none")
  T.eq(s0.broad_rebuilds, N, detection .. ": skin 0 builds the grid every step")
  T.eq(sd.broad_skin, 2.5 * 0.01, detection .. ": the default skin is d0 = 2.5 max_displacement")
  T.ok(sd.broad_rebuilds >= 2 and sd.broad_rebuilds < N / 2, string.format(
    "%s: the default skin rebuilt %d times in %d steps (the thrown block leaves its box every few steps)", detection,
    sd.broad_rebuilds, N))
  T.ok(st.broad_rebuilds > sd.broad_rebuilds, detection .. ": a thinner skin rebuilds more often")
  T.eq(sw.broad_rebuilds, 1, detection .. ": a skin wider than the motion builds once")
end

T.case("the kept broad phase gives the run without reuse, bit for bit: host detection", function()
  reuse_matches("host")
end)

T.case("the kept broad phase gives the run without reuse, bit for bit: device detection (cpu loops)", function()
  reuse_matches("device")
end)

T.case("CUDA: the kept broad phase gives the run without reuse, bit for bit", function()
  if not gpu then T.skip("no GPU") end
  T.on_device("cuda", function() reuse_matches("device") end)
end)

T.case("broad_skin: bad values are refused, naming the argument", function()
  T.raises(function() runs.slope { broad_skin = -1 } end, { "broad_skin", ">= 0" }, "a negative skin")
  T.raises(function() runs.slope { broad_skin = 0 / 0 } end, { "broad_skin", "finite" }, "NaN")
  T.raises(function() runs.slope { broad_skin = "wide" } end, { "broad_skin" }, "a string")
end)

T.run()
