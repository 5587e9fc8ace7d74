-- cleave.demo.wave: the foundation's demonstration model, the scalar wave
-- equation u_tt = c^2 lap(u) on a square grid with u = 0 on the boundary,
-- advanced by velocity Verlet. It shows fields, kernels built from one
-- physics source for cpu and cuda, a pipeline run in C, and output.
local cl = ...

local wave_mt = {}
wave_mt.__index = wave_mt
wave_mt.__tostring = function(m)
  return string.format("wave<%d x %d, dx = %g, c = %g, dt = %g, %s on %s, step %d, t = %g>",
    m.nx, m.ny, m.dx, m.c, m.dt, m.precision, m.u.device, m.step, m.t)
end

--- Stable time step of the explicit scheme: dt <= dx / (c sqrt(2)).
local function stable_dt(dx, c) return dx / (c * math.sqrt(2)) end

--- Initial displacement: a Gaussian pulse { x = , y = , width = , amplitude = 1 } (default:
--- centred, 4 dx wide), or args.u0 = function(x, y) ... end. Zero on the boundary either way.
local function initial_shape(fn, args, m)
  if args.u0 ~= nil then
    if type(args.u0) ~= "function" then error(fn .. ": argument 'u0' must be a function(x, y)", 3) end
    if args.pulse ~= nil then error(fn .. ": give either 'pulse' or 'u0', not both", 3) end
    return args.u0
  end
  local p = args.pulse or {}
  cl.check_args(fn .. " pulse", p, { x = true, y = true, width = true, amplitude = true }, 4)
  local px, py = p.x or 0.5 * (m.nx - 1) * m.dx, p.y or 0.5 * (m.ny - 1) * m.dx
  local w, amp = p.width or 4 * m.dx, p.amplitude or 1
  return function(x, y) return amp * math.exp(-((x - px) ^ 2 + (y - py) ^ 2) / (w * w)) end
end

--- cleave.demo.wave{ nx = , ny = , dx = , c = 1, dt = "auto" | number, cfl = 0.5,
---                   precision = "f64", pulse = {...} or u0 = function(x, y) }
local function wave(args)
  local fn = "cleave.demo.wave"
  cl.check_args(fn, args, { nx = true, ny = true, dx = true, c = true, dt = true, cfl = true,
    precision = true, pulse = true, u0 = true })
  cl.positive_integer(fn, args, "nx", 3)
  cl.positive_integer(fn, args, "ny", 3)
  cl.positive_number(fn, args, "dx")
  local m = cl.mesh.grid2d { nx = args.nx, ny = args.ny, dx = args.dx }
  local c = args.c or 1
  if type(c) ~= "number" or not (c > 0) then
    error(fn .. ": argument 'c' (wave speed) must be positive (got " .. tostring(c) .. ")", 2)
  end
  local limit = stable_dt(m.dx, c)
  local dt = args.dt or "auto"
  if dt == "auto" then
    local cfl = args.cfl or 0.5
    if type(cfl) ~= "number" or not (cfl > 0 and cfl <= 1) then
      error(fn .. ": argument 'cfl' must be in (0, 1] (got " .. tostring(cfl) .. ")", 2)
    end
    dt = cfl * limit
  elseif type(dt) ~= "number" or not (dt > 0) then
    error(fn .. ": argument 'dt' must be \"auto\" or a positive number (got " .. tostring(dt) .. ")", 2)
  elseif dt > limit then
    error(string.format("%s: argument 'dt' = %g exceeds the stable limit dx/(c*sqrt(2)) = %g; " ..
      "use dt = \"auto\" or a smaller value", fn, dt, limit), 2)
  end
  local precision = args.precision or "f64"
  if precision ~= "f32" and precision ~= "f64" then
    error(fn .. ": argument 'precision' must be \"f32\" or \"f64\" (got " .. tostring(precision) .. ")", 2)
  end
  local nx, ny, n = m.nx, m.ny, m.nx * m.ny
  local shape = initial_shape(fn, args, m)
  local dx = m.dx
  local u = cl.field { n = n, dtype = precision }:assign(function(p)
    local i, j = (p - 1) % nx, (p - 1) // nx
    local interior = i > 0 and j > 0 and i < nx - 1 and j < ny - 1
    return interior and shape(i * dx, j * dx) or 0
  end)
  local model = setmetatable({
    mesh = m, nx = nx, ny = ny, dx = m.dx, c = c, dt = dt, precision = precision,
    u = u,
    v = cl.field { n = n, dtype = precision },
    a = cl.field { n = n, dtype = precision },
    step = 0, t = 0,
  }, wave_mt)
  local accel = cl.stage.wave2d_accel { u = model.u, a = model.a, nx = nx, ny = ny, c = c, dx = m.dx }
  accel:run()
  model.pipeline = cl.pipeline {
    cl.stage.verlet_kick_drift { u = model.u, v = model.v, a = model.a, dt = dt },
    accel,
    cl.stage.verlet_kick { v = model.v, a = model.a, dt = dt },
  }
  return model
end

--- Kinetic and potential energy per unit thickness (density 1):
--- K = dx^2/2 sum v^2, P = dx^2 c^2/2 sum |grad u|^2 = -dx^2/2 sum u a (by parts, u = 0 on the edge).
function wave_mt:energy()
  local area = self.dx * self.dx
  local kinetic = 0.5 * area * self.v:norm() ^ 2
  local potential = -0.5 * area * cl.dot(self.u, self.a)
  return kinetic, potential
end

--- model:save(path): a checkpoint of the state (u, v, a), the step and time, and the
--- parameters that must match on restore. (step, t: those of the state, when a run in
--- progress saves it.)
function wave_mt:save(path, step, t)
  cl.io.save_checkpoint {
    path = path,
    fields = { u = self.u, v = self.v, a = self.a },
    values = { step = step or self.step, t = t or self.t, nx = self.nx, ny = self.ny, dx = self.dx, c = self.c,
      dt = self.dt, f32 = self.precision == "f32" and 1 or 0 },
  }
end

--- model:restore(path): continue from a checkpoint written by model:save for the same grid,
--- wave speed, time step and precision.
function wave_mt:restore(path)
  local fields, values = cl.io.load_checkpoint(path)
  local mine = { nx = self.nx, ny = self.ny, dx = self.dx, c = self.c, dt = self.dt,
    f32 = self.precision == "f32" and 1 or 0 }
  for key, value in pairs(mine) do
    if values[key] ~= value then
      error(string.format("model:restore: checkpoint '%s' has %s = %s, this model %s; build the model " ..
        "with the checkpoint's parameters", path, key, tostring(values[key]), tostring(value)), 2)
    end
  end
  for _, name in ipairs { "u", "v", "a" } do
    local f = fields[name]
    if not f then error("model:restore: checkpoint '" .. path .. "' has no field '" .. name .. "'", 2) end
    cl.stage.copy { dst = self[name], src = f:copy(self[name].device) }:run()
  end
  self.step, self.t = math.tointeger(values.step), values.t
end

local function output_paths(out)
  if out == nil then return {} end
  if type(out) ~= "table" then error("model:run: 'output' must be a table", 3) end
  cl.check_args("model:run output", out, { every = true, vtu = true, png = true, csv = true,
    checkpoint = true }, 4)
  return out
end

--- model:run{ steps = , output = { every = , vtu = "out/wave" (.pvd series), csv = "out/energy.csv",
---            png = "out/wave.png" (picture at the end), checkpoint = "out/wave.ckpt" },
---            progress = true }
--- With output.checkpoint the state is saved every `every` steps and when Ctrl-C stops the
--- run, so model:restore can continue it.
function wave_mt:run(args)
  cl.check_args("model:run", args, { steps = true, output = true, progress = true })
  local steps = cl.positive_integer("model:run", args, "steps", 0)
  local out = output_paths(args.output)
  local every = out.every and cl.positive_integer("model:run output", out, "every", 1) or 0
  -- one series and one history per path for the model's life, so later runs extend them
  self.series = self.series or {}
  local series = out.vtu and self.series[out.vtu]
  if out.vtu and not series then
    series = cl.io.pvd(out.vtu .. ".pvd")
    self.series[out.vtu] = series
  end
  self.histories = self.histories or {}
  local csv = out.csv and self.histories[out.csv]
  if out.csv and not csv then
    csv = cl.io.csv { path = out.csv, columns = { "step", "t", "kinetic", "potential", "total" } }
    self.histories[out.csv] = csv
  end
  local function write(step, t)
    if series then
      series:write { time = t, mesh = self.mesh, point_data = { u = self.u, v = self.v } }
    end
    if csv then
      local k, p = self:energy()
      csv:row { step, t, k, p, k + p }
    end
    if out.checkpoint and step > 0 then self:save(out.checkpoint, step, t) end
  end
  if every > 0 and self.step == 0 then write(0, 0) end
  local ok, result = pcall(cl.run, {
    pipeline = self.pipeline, steps = steps, dt = self.dt, t0 = self.t, step0 = self.step,
    every = every > 0 and every or nil, on_output = every > 0 and write or nil,
    progress = args.progress,
  })
  -- steps completed, also when the run stopped early (Ctrl-C stops at a step boundary)
  self.step = self.pipeline.step
  self.t = self.step * self.dt
  -- after Ctrl-C the state is consistent and worth keeping; after an error inside a step it is not
  if not ok and out.checkpoint and self.pipeline.interrupted then self:save(out.checkpoint) end
  if not ok then error(result, 0) end
  if out.png then
    cl.io.png { path = out.png, mesh = self.mesh, field = self.u, title = "u" }
  end
  return result
end

cl.demo = { wave = wave, stable_dt = stable_dt }
