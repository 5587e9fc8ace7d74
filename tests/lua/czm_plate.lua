-- Paper 000's notched plate (section 7.2.1) as cleave.czm runs it, shared by tests/lua/test_czm.lua
-- and scripts/bench/bench_czm.lua: a 16 x 4 mm PMMA plate of T6 elements (nx x ny cells), a 2 mm
-- pre-crack on the mid-plane from the left edge, PPR cohesive law, 1.5% strain in y at t = 0 with
-- the top and bottom edges held there. opts: sigma_max (129.6 MPa), stiffness, scatter.
local cl = require "cleave"

local M = { G = 352.3, thickness = 1e-3, E = 3.24e9, nu = 0.35, rho = 1190, strain = 0.015, notch = 2e-3, H = 4e-3 }

function M.body(nx, ny, opts)
  opts = opts or {}
  local mesh = cl.czm.rect { x0 = 0, x1 = 16e-3, y0 = -M.H / 2, y1 = M.H / 2, nx = nx, ny = ny, order = 2 }
  local nodes = mesh:info().nodes
  mesh:precrack { from = { 0, 0 }, to = { M.notch, 0 } }
  local s = opts.sigma_max or 129.6e6
  local b = cl.czm.body { mesh = mesh, E = M.E, nu = M.nu, rho = M.rho, thickness = M.thickness, plane = "stress",
    law = cl.jit.ppr { G_I = M.G, G_II = M.G, sigma_max = s, tau_max = s }, stiffness = opts.stiffness,
    scatter = opts.scatter }
  local eps, edge = M.strain, M.H / 2
  b:initial_displacement(function(_, y) return 0, eps * y end)
  b:displacement { where = function(_, y) return y > edge - 1e-9 end, y = eps * edge }
  b:displacement { where = function(_, y) return y < -edge + 1e-9 end, y = -eps * edge }
  return b, mesh, nodes
end

--- The crack of body b: the tip (the furthest cohesive element in x, the notch tip when none), the
--- band (the furthest cohesive element from the mid-plane) and, for the broken facets on the
--- mid-plane (mode I by the load's symmetry) and the others, { area, dissipated energy }.
function M.crack(b)
  local c = { tip = M.notch, band = 0, mid = { area = 0, work = 0 }, off = { area = 0, work = 0 } }
  for _, e in ipairs(b:cracks()) do
    if not e.free then
      c.tip, c.band = math.max(c.tip, e.x), math.max(c.band, math.abs(e.y))
      if e.broken then
        local sum = (e.y == 0 and e.ty == 0) and c.mid or c.off
        sum.area, sum.work = sum.area + e.length * M.thickness, sum.work + e.dissipated
      end
    end
  end
  return c
end

--- Dissipated energy per unit area of a { area, work } sum (0 when nothing broke).
function M.per_area(sum) return sum.area > 0 and sum.work / sum.area or 0 end

return M
