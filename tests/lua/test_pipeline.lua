-- Stages and pipelines: each kernel stage against its formula, pipelines
-- against the same stages run one by one, the run loop's bookkeeping and
-- its errors.
local cl = require "cleave"
local T = require "testing"

local function random_field(n, seed, dtype)
  local rand, data = T.rng(seed), {}
  for i = 1, n do data[i] = rand() - 0.5 end
  return cl.field { data = data, dtype = dtype or "f64" }
end

T.case("axpy stage: y <- a x + y", function()
  for _, dt in ipairs { "f64", "f32" } do
    local x, y = random_field(1000, 1, dt), random_field(1000, 2, dt)
    local x0, y0 = x:to_table(), y:to_table()
    cl.stage.axpy { y = y, x = x, a = 2.5 }:run()
    local tol = dt == "f32" and 1e-6 or 1e-15
    for i = 1, 1000, 37 do T.near(y[i], 2.5 * x0[i] + y0[i], tol, dt .. " y[" .. i .. "]", 1) end
  end
end)

T.case("verlet stages: kick-drift then kick", function()
  local u, v, a = random_field(500, 3), random_field(500, 4), random_field(500, 5)
  local u0, v0, a0 = u:to_table(), v:to_table(), a:to_table()
  local dt = 0.01
  cl.stage.verlet_kick_drift { u = u, v = v, a = a, dt = dt }:run()
  for i = 1, 500, 23 do
    local vh = v0[i] + 0.5 * dt * a0[i]
    T.near(v[i], vh, 1e-15, "half-step velocity", 1)
    T.near(u[i], u0[i] + dt * vh, 1e-15, "new position", 1)
  end
  local v1 = v:to_table()
  cl.stage.verlet_kick { v = v, a = a, dt = dt }:run()
  for i = 1, 500, 23 do T.near(v[i], v1[i] + 0.5 * dt * a0[i], 1e-15, "second kick", 1) end
end)

T.case("dot product on the device", function()
  local x, y = random_field(10001, 6), random_field(10001, 7)
  local tx, ty, s = x:to_table(), y:to_table(), 0
  for i = 1, 10001 do s = s + tx[i] * ty[i] end
  T.near(cl.dot(x, y), s, 1e-12, "dot", 1)
end)

T.case("a pipeline run equals its stages run one by one", function()
  local a1, b1 = random_field(300, 8), random_field(300, 9)
  local a2, b2 = a1:copy(), b1:copy()
  local p = cl.pipeline { cl.stage.axpy { y = a1, x = b1, a = 0.5 }, cl.stage.axpy { y = b1, x = a1, a = -0.25 } }
  T.eq(#p, 2, "#pipeline")
  T.eq(tostring(p), "pipeline<axpy -> axpy>", "tostring")
  local r = cl.run { pipeline = p, steps = 7, progress = false }
  T.eq(r.steps, 7, "steps done")
  local s1, s2 = cl.stage.axpy { y = a2, x = b2, a = 0.5 }, cl.stage.axpy { y = b2, x = a2, a = -0.25 }
  for _ = 1, 7 do s1:run(); s2:run() end
  for i = 1, 300, 13 do
    T.eq(a1[i], a2[i], "a after 7 steps")
    T.eq(b1[i], b2[i], "b after 7 steps")
  end
end)

T.case("run: step numbers, times and output intervals", function()
  local seen, outputs = {}, {}
  local p = cl.pipeline { cl.stage.call(function(step, t) seen[#seen + 1] = { step, t } end) }
  local r = cl.run { pipeline = p, steps = 10, step0 = 20, t0 = 1.0, dt = 0.5, every = 4, progress = false,
    on_output = function(step, t) outputs[#outputs + 1] = step .. "@" .. t end }
  T.eq(#seen, 10, "stage calls")
  T.eq(seen[1][1], 21, "first step number")
  T.eq(seen[10][2], 6.0, "time of the last step")
  T.eq(table.concat(outputs, ","), "24@3.0,28@5.0", "outputs at multiples of every")
  T.eq(r.t, 6.0, "final time")
  T.ok(r.seconds >= 0 and r.steps_per_second >= 0, "timings")
end)

T.case("an error in a stage names the step and the stage and stops the run", function()
  local count = 0
  local p = cl.pipeline {
    cl.stage.call(function(step) count = count + 1; if step == 3 then error("boom") end end),
  }
  T.raises(function() cl.run { pipeline = p, steps = 10, progress = false } end,
    { "step 3", "stage 1 'call'", "boom" })
  T.eq(count, 3, "no step after the failing one")
end)

T.case("a stage keeps its fields alive whatever happens to the argument table", function()
  local args = { y = cl.field { n = 100, value = 1 }, x = cl.field { n = 100, value = 2 }, a = 3 }
  local stage = cl.stage.axpy(args)
  local y = args.y
  args.y, args.x = nil, nil
  collectgarbage()
  collectgarbage()
  stage:run()
  T.eq(y:sum(), 700, "y = 1 + 3 * 2 on every row")
end)

T.case("bad stage and run arguments are clear errors", function()
  local f64, f32 = cl.field { n = 4 }, cl.field { n = 4, dtype = "f32" }
  local i32, other = cl.field { n = 4, dtype = "i32" }, cl.field { n = 5 }
  T.raises(function() cl.stage.axpy { y = f64, x = f32, a = 1 } end, "differ in dtype")
  T.raises(function() cl.stage.axpy { y = f64, x = other, a = 1 } end, "differ in shape")
  T.raises(function() cl.stage.axpy { y = i32, x = i32, a = 1 } end, "must be f32 or f64")
  T.raises(function() cl.stage.axpy { y = f64, a = 1 } end, "missing argument 'x'")
  T.raises(function() cl.stage.axpy { y = f64, x = f64 } end, "missing argument 'a'")
  T.raises(function() cl.stage.axpy { y = f64, x = 3, a = 1 } end, "'x' must be a field")
  T.raises(function() cl.stage.axpy { y = f64, x = f64, a = 1, b = 2 } end, "unknown argument 'b'")
  T.raises(function() cl.stage.verlet_kick { v = f64, a = f64, dt = -1 } end, "'dt'")
  T.raises(function() cl.stage.wave2d_accel { u = f64, a = f64, nx = 3, ny = 3, c = 1, dx = 1 } end, "nx*ny")
  T.raises(function() cl.pipeline { 42 } end, "not a stage")
  T.raises(function() cl.run { pipeline = 1, steps = 1 } end, "'pipeline'")
  local p = cl.pipeline {}
  T.raises(function() cl.run { pipeline = p } end, "missing argument 'steps'")
  T.raises(function() cl.stage.call(5) end, "cleave.stage.call expects a function")
  T.raises(function() cl.run { pipeline = p, steps = 1, on_output = print } end, "'every'")
  T.raises(function() cl.run { pipeline = p, steps = 1, stpes = 2 } end, "unknown argument 'stpes'")
end)

T.run()
