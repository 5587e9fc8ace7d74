-- The explicit run every method shares (cleave.explicit, cleave.czm.explicit): the time step
-- against the method's stable limit, the output options, and run:go, the loop that advances the
-- pipeline, writes outputs at their interval, and saves a checkpoint when Ctrl-C stops it. A
-- method's run metatable adds write(step, t), save(path, step), statistics(steps, seconds),
-- png(spec) and png_fields(body); its step pipeline goes in run.pipeline.
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

-- A path an output writes: its missing folders created, refused now if it cannot be written.
local function prepare(fn, key, path, level)
  if type(path) ~= "string" or path == "" then
    error(string.format("%s output: '%s' must be a path (a string)", fn, key), level + 1)
  end
  local ok, err = pcall(cl.io.prepare_path, key == "vtu" and path .. ".pvd" or path,
    string.format("%s output: '%s'", fn, key))
  if not ok then error(err, level + 1) end
end

-- Every output option, before the first step: the paths (see prepare), an interval for the
-- series, and the picture's field among those the method draws (mt.png_fields(body) -> the
-- names, and the keys a png table takes).
local function check_output(fn, out, body, mt, level)
  for _, key in ipairs { "vtu", "csv", "checkpoint" } do
    if out[key] ~= nil then
      prepare(fn, key, out[key], level)
      if key ~= "checkpoint" and not out.every then
        error(string.format("%s output: '%s' needs 'every' (the step interval of the outputs)", fn, key), level)
      end
    end
  end
  local spec = out.png
  if spec == nil then return end
  local names, keys = mt.png_fields(body)
  local path, field = spec, nil
  if type(spec) == "table" then
    cl.check_args(fn .. " output png", spec, keys, level + 1)
    path, field = spec.path, spec.field
  end
  prepare(fn, "png", path, level)
  if field == nil then return end
  for _, name in ipairs(names) do
    if name == field then return end
  end
  table.sort(names)
  error(string.format("%s output: png field '%s' is not one this body can draw (fields: %s)", fn, tostring(field),
    table.concat(names, ", ")), level)
end

--- explicit.new(fn, args, body, mt, limit, fraction, whose) -> run: args = { body, dt = "auto" |
--- number, steps =, output = { every, vtu, csv, png, checkpoint }, progress }; "auto" takes
--- fraction of the stable step limit; a larger dt is refused naming whose limit it is. Every
--- output option is checked here, before the first step.
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
  local every = out.every and cl.positive_integer(fn .. " output", out, "every", 1, 4) or 0
  check_output(fn, out, body, mt, 4)
  return setmetatable({
    body = body, dt = dt, steps = cl.positive_integer(fn, args, "steps", 0, 4), step = 0, t = 0,
    output = out, every = every,
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
  explicit.continue_history(run)
  explicit.continue_series(run)
end

--- explicit.continue_series(run): after run:restore, each VTU series the run writes (output.vtu:
--- run.series in <vtu>.pvd, and the run type's others named in its series_files, e.g. the cohesive
--- cracks) keeps its frames up to the restored step, drops those written past it, and the next
--- frame is numbered after the kept ones, so the .pvd reads as one run. The limit is half a step
--- past the restored time, so that a frame written at it stays whatever the rounding of its time.
function explicit.continue_series(run)
  local vtu = run.output.vtu
  if not vtu then return end
  for key, suffix in pairs(run.series_files or { series = "" }) do
    local path = vtu .. suffix .. ".pvd"
    local exists = io.open(path, "r")
    if exists then exists:close() end
    if run[key] then run[key]:close() end
    -- a series not written yet is started by the run's first frame, as in a run not restored
    run[key] = (exists or run[key]) and cl.io.pvd(path, { keep_until = run.t + 0.5 * run.dt }) or nil
  end
end

--- explicit.continue_history(run): after run:restore, the CSV history (output.csv) keeps its
--- rows up to the restored step, drops those after it (written past the checkpoint), and the
--- run appends to it (its writer is opened here on the file's columns).
function explicit.continue_history(run)
  local path = run.output.csv
  if not path then return end
  if run.history then run.history:close() end
  run.history, run.written = nil, nil
  local f = io.open(path, "r")
  if not f then return end
  local header = f:read("l")
  local kept = { header }
  for line in f:lines() do
    local step = math.tointeger(tonumber(line:match("^[^,]*")))
    if step and step <= run.step then
      kept[#kept + 1] = line
      if step == run.step then run.written = step end
    end
  end
  f:close()
  -- in a job of several ranks each needs run.written (they decide together what to write), and
  -- rank 0 alone rewrites the file and writes to it, once all have read it
  cl.comm.barrier()
  if cl.comm.rank() ~= 0 then return end
  f = assert(io.open(path, "w"))
  f:write(table.concat(kept, "\n"), "\n")
  f:close()
  local columns = {}
  for name in (header or ""):gmatch("[^,]+") do columns[#columns + 1] = name end
  if #columns > 0 then run.history = cl.io.csv { path = path, columns = columns, append = true } end
end

-- The outputs of a step, once: the last step of a run is written also when it is not a
-- multiple of `every`, and a go that ends on a written step does not write it again.
local function write(run, step, t)
  run:write(step, t)
  run.written = step
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
  if run.every > 0 and run.step == 0 and run.written ~= 0 then write(run, 0, 0) end
  local ok, result = pcall(cl.run, {
    pipeline = run.pipeline, steps = steps, dt = run.dt, t0 = run.t, step0 = run.step,
    every = run.every > 0 and run.every or explicit.finite_every,
    on_output = function(step, t)
      stopped = explicit.nonfinite(run, step)
      if stopped then error(stopped, 0) end
      if run.every > 0 then write(run, step, t) end
    end,
    progress = run.progress, collective = run.collective,
  })
  if ok then stopped = explicit.nonfinite(run, run.pipeline.step) end -- the last step
  if stopped then ok, result = false, stopped end
  local before = run.step
  run.step = run.pipeline.step
  run.t = run.step * run.dt
  if not ok and run.output.checkpoint and run.pipeline.interrupted then run:save(run.output.checkpoint) end
  run.stats = run:statistics(run.step - before, ok and result.seconds or nil)
  if not ok then error(result, 0) end
  if run.every > 0 and run.step >= run.steps and run.written ~= run.step then write(run, run.step, run.t) end
  if run.output.png then run:png(run.output.png) end
  return run.stats
end
