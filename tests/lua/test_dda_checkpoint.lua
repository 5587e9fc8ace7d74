-- cleave.dda checkpoints: model:save / model:restore and run{ checkpoint = }. A run of 2N steps
-- straight and one of N steps, saved, restored into a new model of the same script and run N more
-- must agree bit for bit (f64, the CPU is deterministic): positions, velocities, stresses, contact
-- states and forces, energies, the CSV history. A state the checkpoint missed (the last dt, the
-- contacts' anchors or friction history, D...) makes the resumed run differ. Bad input: a missing,
-- foreign or damaged file, a checkpoint of another model.
local cl = require "cleave"
local T = require "testing"

local slope_runs = require "dda_slope"
local slope, snapshot, same = slope_runs.slope, slope_runs.snapshot, slope_runs.same
local rock = { rho = 2500, E = 1e10, nu = 0.25 }
local shapes = require "dda_shapes"
local rotated, box = shapes.rotated, shapes.rect

local N, dt = 60, 2e-3

-- The child of the Ctrl-C case: test_dda_checkpoint.lua interrupt DIR steps the slope until SIGINT,
-- with a checkpoint every 10^6 steps (so only Ctrl-C's) and a CSV history.
if arg and arg[1] == "interrupt" then
  local m = slope { detection = "host" }
  m:run { steps = 1, dt = dt }
  io.stdout:write("running\n")
  io.stdout:flush()
  m:run { steps = 100000000, dt = dt, every = 1000000, checkpoint = arg[2] .. "/ctrl_c.ckpt", csv = arg[2] .. "/ctrl_c.csv" }
  error("the run was not interrupted")
end

-- 2N steps straight against N, save, restore into a new model, N more.
local function resume_case(name, extra)
  local dir = T.outdir("dda_checkpoint_" .. name)
  local straight, seen = slope(extra), {}
  for _ = 1, 2 * N do -- a step a run: the same steps as one run of 2N, the contacts' states seen after each
    straight:run { steps = 1, dt = dt }
    for _, c in ipairs(straight:contacts()) do seen[c.state] = true end
  end
  local first = slope(extra)
  first:run { steps = N, dt = dt, csv = dir .. "/history.csv", blocks = { 2, 4 }, every = N // 2,
    checkpoint = dir .. "/model.ckpt" }
  local resumed = slope(extra)
  resumed:restore(dir .. "/model.ckpt")
  same(snapshot(first), snapshot(resumed), name .. ": restored state")
  resumed:run { steps = N, dt = dt, csv = dir .. "/history.csv", blocks = { 2, 4 } }
  same(snapshot(straight), snapshot(resumed), name .. ": 2N steps straight and N + N resumed")
  return seen, dir
end

T.case("dynamic sliding, landing and a thrown block: resumed = straight bit for bit (host detection)", function()
  local seen, dir = resume_case("host", { detection = "host" })
  T.ok(seen.slide and seen.lock and seen.open, "the run sees open, sliding and locked contacts")
  -- the CSV history continues: one row per step 1..2N, in order
  local rows, step = 0, 0
  for line in io.lines(dir .. "/history.csv") do
    local k = math.tointeger(tonumber(line:match("^[^,]*")))
    if k then
      step, rows = step + 1, rows + 1
      T.eq(k, step, "CSV row's step")
    end
  end
  T.eq(rows, 2 * N, "CSV rows")
end)

T.case("dynamic, contacts and transfer on the device (its list restored): resumed = straight bit for bit", function()
  T.ok(slope { detection = "device", spmv = "bsr" }:stats().device_pattern, "the transfer and pattern on the device")
  resume_case("device", { detection = "device", spmv = "bsr" })
end)

T.case("a checkpoint of the host's transfer restores into the device's and back: bit for bit", function()
  local dir = T.outdir("dda_checkpoint_across")
  for _, pair in ipairs { { "host", "device" }, { "device", "host" } } do
    local saved = slope { detection = pair[1] }
    saved:run { steps = N, dt = dt }
    saved:save(dir .. "/model.ckpt")
    local resumed = slope { detection = pair[2] }
    resumed:restore(dir .. "/model.ckpt")
    resumed:run { steps = N, dt = dt }
    saved:run { steps = N, dt = dt }
    same(snapshot(saved), snapshot(resumed), pair[1] .. " saved, " .. pair[2] .. " resumed")
  end
end)

T.case("static analysis: resumed = straight bit for bit", function()
  resume_case("static", { analysis = "static", detection = "host" })
end)

T.case("Ctrl-C: the run stops after a whole step, saves the checkpoint there; it resumes as the straight run", function()
  local dir = T.outdir("dda_checkpoint_ctrl_c")
  os.remove(dir .. "/ctrl_c.ckpt")
  local exe = io.popen("readlink /proc/$PPID/exe"):read("l") -- this cleave
  local source = debug.getinfo(1, "S").source:sub(2)
  local shell = string.format("%q run %q interrupt %q > %q 2> %q & pid=$!; " ..
    "for i in $(seq 1 200); do grep -q running %q && break; sleep 0.05; done; sleep 0.3; kill -INT $pid; wait $pid",
    exe, source, dir, dir .. "/out", dir .. "/err", dir .. "/out")
  local ok, how, status = os.execute(shell)
  T.ok(not ok and how == "exit" and status == 1, "the interrupted script exits with status 1")
  T.ok(T.read(dir .. "/err"):find("interrupted at step", 1, true), "the stop is reported with its step")
  local m = slope { detection = "host" }
  m:restore(dir .. "/ctrl_c.ckpt")
  local stopped = m:stats().steps
  T.ok(stopped > 1, "the checkpoint holds a step of the interrupted run: " .. stopped)
  local last = 0
  for line in io.lines(dir .. "/ctrl_c.csv") do last = math.tointeger(tonumber(line:match("^[^,]*"))) or last end
  T.eq(last, stopped, "the CSV's last row: the checkpoint's step (its row written)")
  m:run { steps = 5, dt = dt }
  local straight = slope { detection = "host" }
  straight:run { steps = stopped + 5, dt = dt }
  same(snapshot(straight), snapshot(m), "resumed after Ctrl-C and straight")
end)

T.case("bad input: missing, foreign and damaged files, another model's checkpoint", function()
  local dir = T.outdir("dda_checkpoint_bad")
  local m = slope { detection = "host" }
  m:run { steps = 3, dt = dt }
  m:save(dir .. "/m.ckpt")
  local before = snapshot(m)
  T.raises(function() m:restore(dir .. "/none.ckpt") end, { "dda model:restore", "cannot read checkpoint", "none.ckpt" })
  local f = assert(io.open(dir .. "/foreign.ckpt", "wb"))
  f:write("not a checkpoint at all")
  f:close()
  T.raises(function() m:restore(dir .. "/foreign.ckpt") end, "is not a cleave checkpoint")
  local data = T.read(dir .. "/m.ckpt")
  f = assert(io.open(dir .. "/damaged.ckpt", "wb"))
  f:write(data:sub(1, 200), string.char((data:byte(201) + 1) % 256), data:sub(202))
  f:close()
  T.raises(function() m:restore(dir .. "/damaged.ckpt") end, { "damaged", "checksum mismatch" })
  cl.io.save_checkpoint { path = dir .. "/other.ckpt", values = { step = 3 } }
  T.raises(function() m:restore(dir .. "/other.ckpt") end, "not a DDA model's checkpoint")
  -- a checkpoint rewritten with a step count that is no count, or without the contacts
  local fields, values = cl.io.load_checkpoint(dir .. "/m.ckpt")
  values.steps = 2.5
  cl.io.save_checkpoint { path = dir .. "/edited.ckpt", fields = fields, values = values }
  T.raises(function() m:restore(dir .. "/edited.ckpt") end, "has steps = 2.5, not a count")
  values.steps, fields.contact_ints = 3, nil
  cl.io.save_checkpoint { path = dir .. "/edited.ckpt", fields = fields, values = values }
  T.raises(function() m:restore(dir .. "/edited.ckpt") end, "holds no array 'contact_ints'")
  -- another model: a block fewer; a static analysis; a triangle for a block of 4 vertices
  local fewer = cl.dda.model { blocks = cl.dda.blocks { box(0, 0, 1, 1) }, materials = { rock } }
  T.raises(function() fewer:restore(dir .. "/m.ckpt") end, { "has 4 blocks, this model 1", "the script that wrote the checkpoint" })
  T.raises(function() slope { analysis = "static" }:restore(dir .. "/m.ckpt") end,
    { "of a dynamic analysis, this model's is static" })
  local theta = math.rad(30)
  local other = slope { blocks = { cl.dda.blocks { rotated({ -1, -1, 8, -1, 8, 0, -1, 0 }, theta) },
    cl.dda.blocks { rotated(box(3, 0, 1, 0.5), theta), rotated(box(3.2, 0.5, 0.5, 0.4), theta),
      rotated({ 5.5, 0.005, 6.1, 0.005, 5.8, 0.3 }, theta) } } }
  T.raises(function() other:restore(dir .. "/m.ckpt") end, { "has 16 vertices, this model 15" })
  T.raises(function() m:restore(42) end, "argument 'path' must be a file path")
  T.raises(function() m:run { steps = 1, dt = dt, checkpoint = true } end, "argument 'checkpoint' must be a file path")
  -- none of these changed the model
  same(before, snapshot(m), "the model after the refused restores")
end)

T.run()
