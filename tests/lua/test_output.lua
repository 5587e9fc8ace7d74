-- Output from Lua: VTU (both encodings), PVD series, CSV histories and PNG
-- pictures, read back here; bad paths fail cleanly and leave no file.
local cl = require "cleave"
local T = require "testing"

local dir = T.outdir("output")

local function small_mesh()
  local m = cl.mesh.grid2d { nx = 4, ny = 3, dx = 0.5 }
  local u = cl.field { n = m.x.n }
  for i = 1, m.x.n do u[i] = i * 0.25 end
  return m, u
end

T.case("vtu: unstructured grid with points, triangles and arrays", function()
  local m, u = small_mesh()
  for _, enc in ipairs { "base64", "raw" } do
    local path = dir .. "/grid_" .. enc .. ".vtu"
    cl.io.vtu { path = path, mesh = m, point_data = { u = u, x = m.x }, encoding = enc }
    local s = T.read(path)
    T.ok(s:find('type="UnstructuredGrid"', 1, true), "UnstructuredGrid")
    T.ok(s:find('NumberOfPoints="12"', 1, true), "12 points")
    T.ok(s:find('NumberOfCells="12"', 1, true), "12 triangles")
    T.ok(s:find('Name="u"', 1, true) and s:find('Name="x"', 1, true), "both arrays")
    T.ok(s:find('encoding="' .. enc .. '"', 1, true), "encoding " .. enc)
  end
end)

T.case("pvd: a time series referencing each frame", function()
  local m, u = small_mesh()
  local series = cl.io.pvd(dir .. "/series.pvd")
  for k = 0, 2 do
    local frame = series:write { time = k * 0.1, mesh = m, point_data = { u = u } }
    T.ok(T.exists(frame), "frame written: " .. frame)
  end
  series:close()
  local s = T.read(dir .. "/series.pvd")
  T.ok(s:find('type="Collection"', 1, true), "collection")
  local n = 0
  for _ in s:gmatch("<DataSet") do n = n + 1 end
  T.eq(n, 3, "three entries")
  T.ok(s:find('file="series_000002.vtu"', 1, true), "relative file names")
  T.raises(function() series:write { time = 1, mesh = m } end, "closed")
end)

T.case("csv: header and rows at full precision", function()
  local path = dir .. "/history.csv"
  local w = cl.io.csv { path = path, columns = { "step", "energy" } }
  w:row { 1, 0.1 }
  w:row { step = 2, energy = 1 / 3 }
  w:close()
  local lines = {}
  for line in io.lines(path) do lines[#lines + 1] = line end
  T.eq(lines[1], "step,energy", "header")
  T.eq(#lines, 3, "rows")
  local step, energy = lines[3]:match("^(.-),(.*)$")
  T.eq(tonumber(step), 2, "step column")
  T.eq(tonumber(energy), 1 / 3, "energy round-trips exactly")
  T.raises(function() cl.io.csv { path = dir .. "/x.csv", columns = { "a" } }:row { "x" } end, "column 'a'")
end)

T.case("png: a picture of the field with its size", function()
  local m, u = small_mesh()
  local path = dir .. "/u.png"
  cl.io.png { path = path, mesh = m, field = u, title = "u", width = 400 }
  local s = T.read(path)
  T.eq(s:sub(1, 8), "\137PNG\r\n\26\n", "PNG signature")
  local w = string.unpack(">I4", s, 17)
  T.eq(w, 400, "width from IHDR")
  local points = cl.mesh.grid2d { nx = 4, ny = 3, dx = 0.5 }
  points.triangles = nil
  cl.io.png { path = dir .. "/points.png", mesh = points, field = m.x, component = "magnitude" }
  T.ok(T.exists(dir .. "/points.png"), "point-cloud picture")
end)

T.case("unwritable paths fail with the path in the message and leave nothing", function()
  local m, u = small_mesh()
  local bad = dir .. "/no/such/folder/f"
  T.raises(function() cl.io.vtu { path = bad .. ".vtu", mesh = m } end, bad .. ".vtu")
  T.raises(function() cl.io.csv { path = bad .. ".csv", columns = { "a" } } end, bad .. ".csv")
  T.raises(function() cl.io.png { path = bad .. ".png", mesh = m, field = u } end, bad .. ".png")
  T.raises(function() cl.io.pvd(bad .. ".pvd") end, bad .. ".pvd")
  local listing = io.popen("ls -A '" .. dir .. "'"):read("a")
  T.ok(not listing:find("tmp", 1, true), "no temporary files left: " .. listing)
end)

T.case("mismatched arrays and bad arguments are named", function()
  local m = small_mesh()
  T.raises(function() cl.io.vtu { path = dir .. "/a.vtu", mesh = m, point_data = { u = cl.field { n = 3 } } } end,
    { "point_data.u", "3 rows", "12" })
  T.raises(function() cl.io.vtu { path = dir .. "/a.vtu", mesh = m, encoding = "zip" } end, "'encoding'")
  T.raises(function() cl.io.vtu { path = dir .. "/a.vtu" } end, "'mesh'")
  T.raises(function() cl.io.vtu { mesh = m } end, "'path'")
  T.raises(function() cl.io.vtu { path = dir .. "/a.vtu", mesh = m, pointdata = {} } end, "unknown argument 'pointdata'")
  T.raises(function() cl.io.pvd(dir .. "/a.txt") end, ".pvd")
  T.raises(function() cl.io.png { path = dir .. "/a.png", mesh = m, field = m.x, component = 3 } end, "'component'")
  T.raises(function() cl.io.png { path = dir .. "/a.png", mesh = m, field = m.x, range = { 1, 0 } } end, "lo < hi")
end)

-- steps = 7 and every = 3: outputs at 0, 3, 6 and at the last step, 7 (for both methods).
T.case("the last step is written when steps is not a multiple of every", function()
  local b = cl.pd.body { shape = cl.geom.rect { 0, 0.01, 0, 0.004 }, dx = 1e-3,
    material = cl.pd.pmb { E = 70e9, rho = 2700 } }
  local run = cl.explicit { b, steps = 7, progress = false, output = { every = 3, csv = dir .. "/last_pd.csv" } }
  run:go { steps = 5 }
  run:go()
  run:go { steps = 0 } -- ends on the written last step: no second row
  local steps = {}
  for line in io.lines(dir .. "/last_pd.csv") do steps[#steps + 1] = line:match("^[^,]*") end
  T.eq(table.concat(steps, " "), "step 0 3 6 7", "pd: the steps written")
  local mesh = cl.czm.rect { x0 = 0, x1 = 0.02, y0 = 0, y1 = 0.004, nx = 4, ny = 1, order = 1 }
  local law = cl.jit.ppr { G_I = 1e9, G_II = 1e9, sigma_max = 1e15, tau_max = 1e15 }
  local cb = cl.czm.body { mesh = mesh, E = 200e9, nu = 0, rho = 8000, plane = "stress", law = law }
  cl.czm.explicit { cb, steps = 7, progress = false, output = { every = 3, csv = dir .. "/last_czm.csv" } }:go()
  steps = {}
  for line in io.lines(dir .. "/last_czm.csv") do steps[#steps + 1] = line:match("^[^,]*") end
  T.eq(table.concat(steps, " "), "step 0 3 6 7", "czm: the steps written")
end)

-- Output options of runs are checked at cl.explicit{} / cl.czm.explicit{}, before any step:
-- nothing written, nothing advanced; missing folders are created.
T.case("run output options are checked before the first step; missing folders are created", function()
  local function pd_body()
    return cl.pd.body { shape = cl.geom.rect { 0, 0.01, 0, 0.004 }, dx = 1e-3,
      material = cl.pd.pmb { E = 70e9, rho = 2700 } }
  end
  local mesh = cl.czm.rect { x0 = 0, x1 = 0.02, y0 = 0, y1 = 0.004, nx = 4, ny = 1, order = 1 }
  local law = cl.jit.ppr { G_I = 1e9, G_II = 1e9, sigma_max = 1e15, tau_max = 1e15 }
  local czm_body = cl.czm.body { mesh = mesh, E = 200e9, nu = 0, rho = 8000, plane = "stress", law = law }
  local file = dir .. "/a_file"
  assert(io.open(file, "w")):close()
  for _, m in ipairs {
    { "cleave.explicit", function(out) return cl.explicit { pd_body(), steps = 3, progress = false, output = out } end,
      "damge", "damage" },
    { "cleave.czm.explicit", function(out) return cl.czm.explicit { czm_body, steps = 3, progress = false, output = out } end,
      "sped", "speed" },
  } do
    local fn, make, bad_field, good_field = m[1], m[2], m[3], m[4]
    local csv = dir .. "/early_" .. fn .. ".csv"
    T.raises(function() make { every = 1, csv = csv, png = { path = dir .. "/p.png", field = bad_field } } end,
      { fn .. " output: png field '" .. bad_field .. "'", good_field }, fn .. ": unknown png field")
    T.raises(function() make { every = 1, csv = csv, png = { path = dir .. "/p.png", feild = good_field } } end,
      { "unknown argument 'feild'", "did you mean 'field'?" }, fn .. ": misspelt png key")
    T.raises(function() make { every = 1, csv = csv, vtu = file .. "/sub/series" } end,
      { fn .. " output: 'vtu'", file .. "/sub" }, fn .. ": a folder that is a file")
    T.raises(function() make { every = 1, csv = csv, png = dir } end, { "'png'", "is a folder" }, fn .. ": png a folder")
    T.raises(function() make { csv = csv } end, { "'csv' needs 'every'" }, fn .. ": csv without every")
    T.raises(function() make { every = 1, checkpoint = 3 } end, { "'checkpoint' must be a path" }, fn .. ": checkpoint")
    T.ok(not T.exists(csv), fn .. ": no output written by the refused runs")
    local deep = dir .. "/new_" .. fn .. "/deeper/"
    make { every = 2, csv = deep .. "h.csv", vtu = deep .. "s", png = { path = deep .. "p.png", field = good_field },
      checkpoint = deep .. "c.ckpt" }:go()
    for _, name in ipairs { "h.csv", "s.pvd", "p.png", "c.ckpt" } do
      T.ok(T.exists(deep .. name), fn .. ": " .. name .. " written into the folders created for it")
    end
  end
end)

T.run()
