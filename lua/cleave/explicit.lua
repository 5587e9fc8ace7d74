-- The explicit run every method shares (cleave.explicit, cleave.czm.explicit): the time step
-- against the method's stable limit, the output options, and run:go, the loop that advances the
-- pipeline, writes outputs at their interval, and saves a checkpoint when Ctrl-C stops it. A
-- method's run metatable adds write(step, t), save(path, step), statistics(steps, seconds) and
-- png(spec); its step pipeline goes in run.pipeline.
local cl = ...
local explicit = {}
cl.explicit_run = explicit

--- The arguments of a method's explicit{...}.
explicit.keys = { [1] = true, body = true, dt = true, steps = true, output = true, progress = true }

--- explicit.new(fn, args, body, mt, limit, fraction, whose) -> run: args = { body, dt = "auto" |
--- number, steps =, output = { every, vtu, csv, png, checkpoint }, progress }; "auto" takes
--- fraction of the stable step limit; a larger dt is refused naming whose limit it is.
function explicit.new(fn, args, body, mt, limit, fraction, whose)
  local dt = args.dt or "auto"
  if dt == "auto" then
    dt = fraction * limit
  elseif type(dt) ~= "number" or not (dt > 0) then
    error(fn .. ": argument 'dt' must be \"auto\" or a positive number", 3)
  elseif dt > limit then
    error(string.format("%s: argument 'dt' = %g s exceeds the stable time step %g s of %s; use dt = \"auto\" " ..
      "(%g s) or a smaller value", fn, dt, limit, whose, fraction * limit), 3)
  end
  local out = args.output or {}
  cl.check_args(fn .. " output", out, { every = true, vtu = true, csv = true, png = true, checkpoint = true }, 4)
  if out.checkpoint ~= nil and type(out.checkpoint) ~= "string" then error(fn .. " output: 'checkpoint' must be a path", 3) end
  return setmetatable({
    body = body, dt = dt, steps = cl.positive_integer(fn, args, "steps", 0, 4), step = 0, t = 0,
    output = out, every = out.every and cl.positive_integer(fn .. " output", out, "every", 1, 4) or 0,
    progress = args.progress ~= false, stable_dt = limit,
  }, mt)
end

--- explicit.restore_fields(run, path, saved, values, mine, names): for run:restore, copies each
--- named field of a loaded checkpoint (saved) into the run's own (mine, on its device) and sets
--- the run's step and time from its values; when a field is missing it names it and changes
--- nothing.
function explicit.restore_fields(run, path, saved, values, mine, names)
  for _, name in ipairs(names) do
    if not saved[name] then error(string.format("run:restore: checkpoint '%s' holds no '%s'", path, name), 3) end
  end
  for _, name in ipairs(names) do cl.stage.copy { dst = mine[name], src = saved[name]:copy(mine[name].device) }:run() end
  run.step = math.tointeger(values.step)
  run.t = run.step * run.dt
end

--- Steps between checks of the state for NaN and infinities when a run writes no output (with
--- output, every output step is checked). A check is one device reduction per state field
--- (a few µs each on a GPU, the field is not copied): every 1000 steps it costs under 1% of
--- even the smallest models' steps (docs/methods/peridynamics.md, "Non-finite state").
explicit.finite_every = 1000

--- explicit.nonfinite(run, step) -> nil, or the message naming the first NaN or infinite value
--- of the state fields the method lists (run:checked_fields() -> { what = "point" | "node",
--- x = coordinates, fields = { { name, field }, ... } }): the step, the body, the field, the
--- component, the point or node and its position.
function explicit.nonfinite(run, step)
  local checked = run:checked_fields()
  for _, entry in ipairs(checked.fields) do
    local name, field = entry[1], entry[2]
    local row, c = field:first_nonfinite()
    if row then
      local value, p = field[row], checked.x[row]
      if type(value) == "table" then value = value[c] end
      return string.format("run:go: step %d: %s: field '%s', component %d (%s), is %s at %s %d (x = %g, y = %g%s); " ..
        "the run stops (no output written for this step): look for a load or an expression that divides by " ..
        "zero, a zero 'layer' or size, or a time step above the stable one", step, tostring(run.body), name, c,
        ({ "x", "y", "z" })[c] or c, tostring(value), checked.what, row, p[1], p[2], p[3] and (", z = " .. p[3]) or "")
    end
  end
end

--- run:go{ steps = remaining } -> stats: advances the run (again after Ctrl-C, it continues);
--- run.stats is set also when the loop stops early (seconds nil then).
function explicit.go(run, args)
  args = args or {}
  cl.check_args("run:go", args, { steps = true })
  local steps = args.steps and cl.positive_integer("run:go", args, "steps", 0) or run.steps - run.step
  local stopped = explicit.nonfinite(run, run.step) -- the message of a NaN or infinite state
  if stopped then error(stopped, 0) end
  if run.every > 0 and run.step == 0 then run:write(0, 0) end
  local ok, result = pcall(cl.run, {
    pipeline = run.pipeline, steps = steps, dt = run.dt, t0 = run.t, step0 = run.step,
    every = run.every > 0 and run.every or explicit.finite_every,
    on_output = function(step, t)
      stopped = explicit.nonfinite(run, step)
      if stopped then error(stopped, 0) end
      if run.every > 0 then run:write(step, t) end
    end,
    progress = run.progress,
  })
  if ok then stopped = explicit.nonfinite(run, run.pipeline.step) end -- the last step
  if stopped then ok, result = false, stopped end
  local before = run.step
  run.step = run.pipeline.step
  run.t = run.step * run.dt
  if not ok and run.output.checkpoint and run.pipeline.interrupted then run:save(run.output.checkpoint) end
  run.stats = run:statistics(run.step - before, ok and result.seconds or nil)
  if not ok then error(result, 0) end
  if run.output.png then run:png(run.output.png) end
  return run.stats
end
