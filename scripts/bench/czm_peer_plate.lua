-- Peer benchmark, cleave's side: paper 000's notched plate (section 7.2.1) on the Gmsh mesh that
-- scripts/bench/notched_plate_mesh.py writes, the case of scripts/bench/akantu_notched_plate.py
-- (Akantu's side) input for input: PMMA (E 3.24 GPa, nu 0.35, rho 1190, plane stress, 1 mm
-- thick), u_y = 0.015 y at t = 0 with the top and bottom edges held there, the built-in linear
-- softening law with sigma_max (default 129.6 MPa), G_c = 352.3 J/m^2 (delta_c = 2 G_c / sigma_max),
-- beta = 1, the closing penalty E / shortest edge (cleave's default), the check every 10 steps.
--
--   python3 scripts/bench/notched_plate_mesh.py 48 plate48.msh
--   cleave --device cpu run scripts/bench/czm_peer_plate.lua plate48.msh OUTDIR [steps 40000] [dt 5e-10]
--     [sigma_max 129.6e6] [every 500]
--
-- OUTDIR/history.csv has the columns of Akantu's history.csv (energies in J, seconds of the run so
-- far) and, at the notch tip (x = 2 mm, y = 0), the largest sigma_yy at the Gauss points of the
-- elements around it, the facet check's normal stress on the facet ahead of it (the mean of its
-- three nodes' averaged stresses, as kernels/czm/czm.h cl_czm_facet_check) and the averaged nodal
-- sigma_yy at the tip node. OUTDIR/cracks.csv: the cohesive elements (deformed end points), rewritten
-- at every record, drawn by akantu_notched_plate.py --plot.
local cl = require "cleave"
local path, outdir = arg[1], arg[2]
if not path or not outdir then
  error("usage: czm_peer_plate.lua MESH.msh OUTDIR [steps] [dt] [sigma_max] [every]", 0)
end
local steps, dt = tonumber(arg[3] or "40000"), tonumber(arg[4] or "5e-10")
local sigma, every = tonumber(arg[5] or "129.6e6"), tonumber(arg[6] or "500")
os.execute("mkdir -p '" .. outdir .. "'")

local E, nu, G_c, strain, H, notch = 3.24e9, 0.35, 352.3, 0.015, 4e-3, 2e-3
local mesh = cl.czm.read(path)
local law = cl.jit.traction { source = cl.jit.law_source("linear_softening"),
  name = "linear_softening", params = { sigma_max = sigma, delta_c = 2 * G_c / sigma, beta = 1 }, state = { dmax = 0 } }
local body = cl.czm.body { mesh = mesh, E = E, nu = nu, rho = 1190, thickness = 1e-3, plane = "stress", law = law }
body:initial_strain { yy = strain }
body:displacement { where = { group = "top" }, y = strain * H / 2 }
body:displacement { where = { group = "bottom" }, y = -strain * H / 2 }
if dt > body:stable_dt() then -- the closing penalty is in cleave's stable step (Akantu's is not)
  print(string.format("dt %g is above cleave's stable step %g (the contact penalty counts): using 0.9 of it", dt,
    body:stable_dt()))
  dt = 0.9 * body:stable_dt()
end
local run = cl.czm.explicit { body, dt = dt, steps = steps, progress = false }

local m, x, u = body.model, body.x, body.u
local elem, coh = m:field("elem"), m:field("coh")
local ne = m:info().elements

-- the notch tip, the nodes of the mid-plane facet ahead of it and the elements around it
local function node_at(px, py)
  local best, d = nil, math.huge
  for i = 1, m:info().initial_nodes do
    local r = x[i]
    local di = math.abs(r[1] - px) + math.abs(r[2] - py)
    if di < d then best, d = i, di end
  end
  return best
end
local tip = node_at(notch, 0)
local tip_elems, ahead = {}, nil
for e = 1, ne do
  local r = elem[e]
  for k = 1, 3 do
    if r[k] + 1 == tip then
      tip_elems[#tip_elems + 1] = e
      local b, mid = r[k % 3 + 1] + 1, r[k + 3] + 1 -- the edge from the tip to the next corner
      if math.abs(x[b][2]) < 1e-12 and x[b][1] > notch then ahead = { tip, mid, b } end
    end
  end
end
assert(ahead, "no mid-plane facet ahead of the notch tip: not a notched_plate_mesh.py mesh")

-- sigma_yy at the 3 Gauss points of T6 element e (area coordinates 2/3, 1/6, 1/6: point k nearest
-- corner k, as kernels/fe/tri.h), plane stress, from the reference geometry and u
local D22, D21 = E / (1 - nu * nu), E * nu / (1 - nu * nu)
local function gauss_syy(e)
  local r, out = elem[e], {}
  for k = 1, 3 do
    local L = { 1 / 6, 1 / 6, 1 / 6 }
    L[k] = 2 / 3
    -- dN/dL for corners a (4 L_a - 1) and mid-side nodes of edge a, a+1 (4 L_b, 4 L_a)
    local dN = {}
    for a = 1, 3 do
      local b = a % 3 + 1
      dN[a] = { a = 4 * L[a] - 1 }
      dN[a + 3] = { [a] = 4 * L[b], [b] = 4 * L[a] }
    end
    local function dL(n, j) -- d N_n / d L_j
      local t = dN[n]
      if n <= 3 then return j == n and t.a or 0 end
      return t[j] or 0
    end
    -- derivatives in xi = L2, eta = L3 (L1 = 1 - xi - eta)
    local J = { { 0, 0 }, { 0, 0 } }
    local g = {}
    for n = 1, 6 do
      local p = x[r[n] + 1]
      local dxi, deta = dL(n, 2) - dL(n, 1), dL(n, 3) - dL(n, 1)
      g[n] = { dxi, deta }
      J[1][1], J[1][2] = J[1][1] + dxi * p[1], J[1][2] + dxi * p[2]
      J[2][1], J[2][2] = J[2][1] + deta * p[1], J[2][2] + deta * p[2]
    end
    local det = J[1][1] * J[2][2] - J[1][2] * J[2][1]
    local exx, eyy = 0, 0
    for n = 1, 6 do
      local dx = (J[2][2] * g[n][1] - J[1][2] * g[n][2]) / det
      local dy = (-J[2][1] * g[n][1] + J[1][1] * g[n][2]) / det
      local un = u[r[n] + 1]
      exx, eyy = exx + dx * un[1], eyy + dy * un[2]
    end
    out[k] = D21 * exx + D22 * eyy
  end
  return out
end

local function tip_stresses()
  local gp = -math.huge
  for _, e in ipairs(tip_elems) do
    for _, s in ipairs(gauss_syy(e)) do gp = math.max(gp, s) end
  end
  m:stresses()
  local s = body.stress
  local function syy(i) local r = s[i]; return r[2] / r[4] end
  return gp, (syy(ahead[1]) + syy(ahead[2]) + syy(ahead[3])) / 3, syy(tip)
end

-- a cohesive element's side: element and edge, its corner nodes (1-based)
local function corners(c)
  local r = coh[c]
  local e = elem[r[1] + 1]
  local k = r[2] & 3
  return e[k + 1] + 1, e[(k + 1) % 3 + 1] + 1, e[k + 4] + 1
end

-- cracks.csv: the cohesive elements now (rewritten at every record: a run stopped early keeps its last)
local function write_cracks(step)
  local f = assert(io.open(outdir .. "/cracks.csv", "w"))
  f:write(string.format("x1,y1,x2,y2 at step %d\n", step))
  for c = 1, m:info().cohesive do
    local a, b = corners(c)
    f:write(string.format("%.9g,%.9g,%.9g,%.9g\n", x[a][1] + u[a][1], x[a][2] + u[a][2], x[b][1] + u[b][1],
      x[b][2] + u[b][2]))
  end
  f:close()
end

local hist = assert(io.open(outdir .. "/history.csv", "w"))
hist:write("step,t,cohesive,tip_x,kinetic,strain,cohesive_stored,dissipated,contact,external,total,seconds,",
  "tip_gauss_syy,tip_facet_syy,tip_node_syy\n")
local seconds, e0, peak = 0, nil, { 0, 0, 0 }
local first -- the seconds of the first interval, which include compiling the kernels
local step = 0
while true do
  local n = m:info().cohesive
  local tip_x = notch
  for c = 1, n do
    local _, _, mid = corners(c)
    tip_x = math.max(tip_x, x[mid][1])
  end
  local en = body:energies()
  local total = en.kinetic + en.strain + en.cohesive_stored + en.cohesive_dissipated
  e0 = e0 or total
  local gp, facet, node = tip_stresses()
  peak = { math.max(peak[1], gp), math.max(peak[2], facet), math.max(peak[3], node) }
  hist:write(string.format("%d,%.6g,%d,%.6g,%.8g,%.8g,%.8g,%.8g,0,%.8g,%.8g,%.4f,%.6g,%.6g,%.6g\n", step, step * dt, n,
    tip_x, en.kinetic, en.strain, en.cohesive_stored, en.cohesive_dissipated, en.external_work, total, seconds, gp, facet,
    node))
  hist:flush()
  write_cracks(step)
  print(string.format("step %d: %d cohesive, tip %.3f mm, total energy %.6g J (%+.2e), %.2f ms/step", step, n,
    tip_x * 1e3, total, (total - e0) / e0, seconds / math.max(step, 1) * 1e3))
  if step >= steps then break end
  local go = math.min(every, steps - step)
  seconds = seconds + run:go { steps = go }.seconds
  first = first or seconds
  step = step + go
end
hist:close()

print(string.format("cleave (%s): %d T6 elements, %d steps of %g s in %.1f s (%.2f ms/step, %.2f after "
  .. "the first %d), %d cohesive elements, peak sigma_yy at the notch tip: Gauss points %.1f MPa, facet check %.1f MPa, "
  .. "node %.1f MPa", cl.device(), ne, steps, dt, seconds, seconds / steps * 1e3,
  steps > every and (seconds - first) / (steps - every) * 1e3 or 0 / 0, every, m:info().cohesive, peak[1] / 1e6, peak[2] / 1e6, peak[3] / 1e6))
