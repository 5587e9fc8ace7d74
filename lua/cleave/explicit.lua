-- The explicit run every method shares (cleave.explicit, cleave.czm.explicit): the time step
-- against the method's stable limit, the output options, and run:go, the loop that advances the
-- pipeline, writes outputs at their interval, and saves a checkpoint when Ctrl-C stops it. A
-- method's run metatable adds write(step, t), save(path, step), statistics(steps, seconds) and
-- png(spec); its step pipeline goes in run.pipeline.
local cl = ...
local explicit = {}
cl.explicit_run = explicit

--- Reactions of prescribed motion, the same object for every method: body:reaction{ where =,
--- name = } -> r with r:force() (the force the constraints exert on the body, summed over the
--- region's prescribed nodes or points: a table of dim components), r:work() (the work it has
--- done on the body since the run began, by the time integrator's trapezoid rule), r:displacement()
--- (the region's mean displacement), tostring(r). A method makes it from a function
--- sums() -> force, work, displacement that reads its own fields.
local reaction_mt = {}
reaction_mt.__index = reaction_mt
local AXES = { "x", "y", "z" }

function reaction_mt:force() return (self.sums()) end
function reaction_mt:work() return select(2, self.sums()) end
function reaction_mt:displacement() return select(3, self.sums()) end
reaction_mt.__tostring = function(r)
  local force, work, u = r.sums()
  local f, d = {}, {}
  for c = 1, r.dim do f[c], d[c] = string.format("%.6g", force[c]), string.format("%.6g", u[c]) end
  return string.format("reaction<%s: %d %s, force (%s) N, mean displacement (%s) m, work %.6g J>", r.name, r.count,
    r.what, table.concat(f, ", "), table.concat(d, ", "), work)
end
explicit.reaction_mt = reaction_mt

--- explicit.reaction(fn, body, args, count, what, dim, sums) -> a reaction named args.name (a string
--- no other reaction of the body has), added to body.reactions for the run's CSV history.
function explicit.reaction(fn, body, args, count, what, dim, sums)
  local name = args.name
  if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
    error(fn .. ": argument 'name' must be a name of letters, digits and _ (it heads the CSV columns)", 3)
  end
  body.reactions = body.reactions or {}
  for _, r in ipairs(body.reactions) do
    if r.name == name then error(string.format("%s: the body has a reaction '%s' already; give another 'name'", fn, name), 3) end
  end
  local r = setmetatable({ name = name, count = count, what = what, dim = dim, sums = sums }, reaction_mt)
  body.reactions[#body.reactions + 1] = r
  return r
end

--- explicit.reaction_columns(body) -> the CSV column names of its reactions: <name>_fx, _fy[, _fz],
--- _ux, _uy[, _uz], _work; explicit.reaction_values(body, row) appends their values to row.
function explicit.reaction_columns(body)
  local columns = {}
  for _, r in ipairs(body.reactions or {}) do
    for c = 1, r.dim do columns[#columns + 1] = r.name .. "_f" .. AXES[c] end
    for c = 1, r.dim do columns[#columns + 1] = r.name .. "_u" .. AXES[c] end
    columns[#columns + 1] = r.name .. "_work"
  end
  return columns
end

function explicit.reaction_values(body, row)
  for _, r in ipairs(body.reactions or {}) do
    local force, work, u = r.sums()
    for c = 1, r.dim do row[#row + 1] = force[c] end
    for c = 1, r.dim do row[#row + 1] = u[c] end
    row[#row + 1] = work
  end
  return row
end

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

--- run:go{ steps = remaining } -> stats: advances the run (again after Ctrl-C, it continues);
--- run.stats is set also when the loop stops early (seconds nil then).
function explicit.go(run, args)
  args = args or {}
  cl.check_args("run:go", args, { steps = true })
  local steps = args.steps and cl.positive_integer("run:go", args, "steps", 0) or run.steps - run.step
  if run.every > 0 and run.step == 0 then run:write(0, 0) end
  local ok, result = pcall(cl.run, {
    pipeline = run.pipeline, steps = steps, dt = run.dt, t0 = run.t, step0 = run.step,
    every = run.every > 0 and run.every or nil,
    on_output = run.every > 0 and function(step, t) run:write(step, t) end or nil,
    progress = run.progress,
  })
  local before = run.step
  run.step = run.pipeline.step
  run.t = run.step * run.dt
  if not ok and run.output.checkpoint and run.pipeline.interrupted then run:save(run.output.checkpoint) end
  run.stats = run:statistics(run.step - before, ok and result.seconds or nil)
  if not ok then error(result, 0) end
  if run.output.png then run:png(run.output.png) end
  return run.stats
end
