-- Checkpoints: fields and values round-trip exactly; a restored model
-- continues bit for bit as if it had never stopped; damaged files are refused.
local cl = require "cleave"
local T = require "testing"

local dir = T.outdir("checkpoint")

T.case("fields of every dtype and values round-trip exactly", function()
  local fields, rand = {}, T.rng(3)
  for _, dt in ipairs { "f32", "f64", "i32", "u32", "u8" } do
    fields[dt] = cl.field { n = 50, k = 2, dtype = dt }:assign(function() return math.floor(rand() * 200), rand() * 100 // 1 end)
  end
  fields.real = cl.field { n = 7 }:assign(function(i) return 1 / i end)
  cl.io.save_checkpoint { path = dir .. "/all.ckpt", fields = fields, values = { step = 42, t = 0.125 } }
  local back, values = cl.io.load_checkpoint(dir .. "/all.ckpt")
  T.eq(values.step, 42, "value step")
  T.eq(values.t, 0.125, "value t")
  for name, f in pairs(fields) do
    local g = back[name]
    T.ok(g, "field " .. name .. " restored")
    T.eq(g.dtype, f.dtype, name .. " dtype")
    T.eq(#g, #f, name .. " rows")
    T.eq(g.k, f.k, name .. " components")
    local a, b = f:to_table(), g:to_table()
    for i = 1, #a do
      if f.k == 1 then T.eq(b[i], a[i], name .. " row " .. i)
      else for c = 1, f.k do T.eq(b[i][c], a[i][c], name .. " row " .. i) end end
    end
  end
end)

T.case("a restored model continues exactly where the saved one was", function()
  local function model() return cl.demo.wave { nx = 40, ny = 30, dx = 0.05, pulse = { width = 0.2 } } end
  local straight = model()
  straight:run { steps = 120, progress = false }
  local first = model()
  first:run { steps = 70, progress = false, output = { every = 35, checkpoint = dir .. "/wave.ckpt" } }
  local second = model()
  second:restore(dir .. "/wave.ckpt")
  T.eq(second.step, 70, "restored step")
  second:run { steps = 50, progress = false }
  T.eq(second.step, 120, "final step")
  local a, b = straight.u:to_table(), second.u:to_table()
  for i = 1, #a do T.eq(b[i], a[i], "u[" .. i .. "] after restart") end
end)

T.case("restoring into a different model is refused with the mismatch named", function()
  local m = cl.demo.wave { nx = 40, ny = 30, dx = 0.05 }
  m:save(dir .. "/m.ckpt")
  local other = cl.demo.wave { nx = 40, ny = 31, dx = 0.05 }
  T.raises(function() other:restore(dir .. "/m.ckpt") end, { "ny = 30", "31" })
end)

T.case("damaged, truncated and foreign files are refused", function()
  local f = cl.field { n = 100, value = 1 }
  local path = dir .. "/good.ckpt"
  cl.io.save_checkpoint { path = path, fields = { f = f } }
  local bytes = T.read(path)
  local function write(name, content)
    local out = assert(io.open(dir .. "/" .. name, "wb"))
    out:write(content)
    out:close()
    return dir .. "/" .. name
  end
  local flipped = bytes:sub(1, 200) .. string.char((bytes:byte(201) + 1) % 256) .. bytes:sub(202)
  T.raises(function() cl.io.load_checkpoint(write("flipped.ckpt", flipped)) end, { "damaged", "checksum" })
  T.raises(function() cl.io.load_checkpoint(write("short.ckpt", bytes:sub(1, #bytes - 9))) end, "damaged")
  T.raises(function() cl.io.load_checkpoint(write("foreign.ckpt", "hello world, not a checkpoint")) end,
    "not a cleave checkpoint")
  T.raises(function() cl.io.load_checkpoint(dir .. "/missing.ckpt") end, { "cannot read", "missing.ckpt" })
  T.raises(function() cl.io.save_checkpoint { path = dir .. "/no/dir/x.ckpt", fields = { f = f } } end, "no/dir/x.ckpt")
  T.raises(function() cl.io.save_checkpoint { path = dir .. "/x.ckpt", fields = { f = 3 } } end, "name = field")
  T.raises(function() cl.io.save_checkpoint { path = dir .. "/x.ckpt", feilds = {} } end, "unknown argument 'feilds'")
end)

-- A small PD plate pulled at one edge: something changes from step to step in every column.
local function pd_run(output, steps)
  local b = cl.pd.body { shape = cl.geom.rect { 0, 0.01, 0, 0.004 }, dx = 1e-3,
    material = cl.pd.pmb { E = 70e9, rho = 2700 } }
  b:velocity { where = "x < dx", vx = -5 }
  return cl.explicit { b, steps = steps, progress = false, output = output }
end

local function csv_rows(path)
  local rows = {}
  for line in io.lines(path) do rows[#rows + 1] = line end
  return rows
end

T.case("run:restore continues the CSV history from the restored step", function()
  local csv, ckpt = dir .. "/history.csv", dir .. "/history.ckpt"
  local straight = pd_run({ every = 2, csv = dir .. "/straight.csv" }, 10)
  straight:go()
  local first = pd_run({ every = 2, csv = csv }, 10)
  first:go { steps = 4 }
  first:save(ckpt)
  first:go() -- rows past the checkpoint, which the restored run must drop
  local second = pd_run({ every = 2, csv = csv }, 10)
  second:restore(ckpt)
  T.eq(#csv_rows(csv), 1 + 3, "header and the rows of steps 0, 2, 4 kept after restore")
  second:go()
  local want, got = csv_rows(dir .. "/straight.csv"), csv_rows(csv)
  T.eq(#got, #want, "rows: header and steps 0, 2, ..., 10")
  -- CPU runs are deterministic: the continued history is the uninterrupted one, bit for bit
  for i = 1, #want do T.eq(got[i], want[i], "row " .. i) end
end)

T.case("run:restore continues the VTU series: the .pvd reads as one run", function()
  local ckpt = dir .. "/series.ckpt"
  local function entries(path) -- the .pvd's (time, file) pairs
    local list = {}
    for line in io.lines(path) do
      local t, file = line:match('timestep="([^"]+)".-file="([^"]+)"')
      if t then list[#list + 1] = { tonumber(t), file } end
    end
    return list
  end
  local straight = pd_run({ every = 2, vtu = dir .. "/straight" }, 10)
  straight:go()
  local first = pd_run({ every = 2, vtu = dir .. "/series" }, 10)
  first:go { steps = 4 }
  first:save(ckpt)
  first:go() -- frames past the checkpoint, which the restored run must drop
  local second = pd_run({ every = 2, vtu = dir .. "/series" }, 10)
  second:restore(ckpt)
  T.eq(#entries(dir .. "/series.pvd"), 3, "the frames of steps 0, 2, 4 kept after restore")
  second:go()
  local want, got = entries(dir .. "/straight.pvd"), entries(dir .. "/series.pvd")
  T.eq(#got, #want, "frames of steps 0, 2, ..., 10")
  for i = 1, #want do
    T.near(got[i][1], want[i][1], 1e-15, "time of frame " .. i)
    T.eq((got[i][2]:gsub("^series", "")), (want[i][2]:gsub("^straight", "")), "file of frame " .. i)
    local f = io.open(dir .. "/" .. got[i][2], "r")
    T.ok(f, "frame " .. i .. " exists")
    if f then f:close() end
  end
  T.raises(function() cl.io.pvd(dir .. "/series.pvd", { keep_untill = 1 }) end, { "keep_untill" })
  local bad = assert(io.open(dir .. "/bad.pvd", "w"))
  bad:write('<VTKFile>\n<Collection>\n<DataSet timestep="x" file="a.vtu"/>\n</Collection>\n</VTKFile>\n')
  bad:close()
  T.raises(function() cl.io.pvd(dir .. "/bad.pvd", { keep_until = 1 }) end, { "line 3", "bad.pvd" })
end)

T.run()
