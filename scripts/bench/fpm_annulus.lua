-- The compressed annulus of hexahedra (issue 15, verification 6; the paper's section 4.2.3): a pressure
-- ramped to 5.25 MPa over 5 ms, then constant, on two opposite sides of a ring, undamped, 0.02 s. The
-- paper's geometry and material are in its Fig. 17, not in its text; ours: radii 0.1 and 0.15 m,
-- thickness 0.02 m (z held on the face z = 0), E = 2 GPa, nu = 0.3, rho = 1000 kg/m^3, the pressure on
-- the outer face within 15 degrees of the x axis (both sides), a quarter of the ring with the
-- symmetry planes x = 0 and y = 0. Usage:
--   cleave run scripts/bench/fpm_annulus.lua [largest around] [device]
-- Runs around = 6, 12, 24, ... up to the largest (radial cells around / 3), prints the horizontal
-- displacement of the centre particle of the loaded face (outer, y = 0, z = 0) every ms, the RMS
-- difference of each history from the previous mesh's, and the energy balance.
local cl = require "cleave"
local largest = tonumber(arg[1] or "48")
cl.device(arg[2] or "auto")

local function history(around)
  local b = 0.15
  local ring = cl.fpm.annulus { inner = 0.1, outer = b, thickness = 0.02, part = "quarter", around = around,
    radial = around // 3, material = cl.fpm.elastic { E = 2e9, nu = 0.3, rho = 1000 } }
  ring:symmetry { where = { group = "x0" }, normal = "x" }
  ring:symmetry { where = { group = "y0" }, normal = "y" }
  ring:fix { where = { group = "z0" }, dofs = { "z" } }
  local tan15 = math.tan(math.rad(15))
  ring:pressure { where = function(x, y) return math.abs(math.sqrt(x * x + y * y) - b) < 1e-9 and y <= tan15 * x + 1e-9 end,
    p = "5.25e6 * min(t / 0.005, 1)" }
  local centre = ring:select(function(x, y, z) return y == 0 and math.abs(x - b) < 1e-9 and z == 0 end):to_table()[1]
  local per_ms = math.ceil(1e-3 / (0.9 * ring:stable_dt())) -- a whole number of steps per ms
  local run = cl.fpm.explicit { ring, dt = 1e-3 / per_ms, steps = per_ms, progress = false }
  local u, seconds = {}, 0
  for k = 1, 20 do
    seconds = seconds + run:go { steps = per_ms }.seconds
    u[k] = ring.d[centre][1]
  end
  local e = ring:energies()
  return u, math.abs(e.external - e.kinetic - e.strain) / e.external, ring.ne, seconds
end

local histories, around = {}, 6
while around <= largest do
  local u, balance, ne, seconds = history(around)
  histories[#histories + 1] = { around = around, u = u }
  print(string.format("around %d (%d hexahedra): energy balance %.2g of the external work, %.2f s", around, ne,
    balance, seconds))
  around = 2 * around
end
local header = { "t (ms)" }
for _, h in ipairs(histories) do header[#header + 1] = string.format("%12s", "u_x " .. h.around) end
print(table.concat(header, " "))
for k = 1, 20 do
  local row = { string.format("%6d", k) }
  for _, h in ipairs(histories) do row[#row + 1] = string.format("%12.4e", h.u[k]) end
  print(table.concat(row, " "))
end
for m = 2, #histories do
  local s = 0
  for k = 1, 20 do s = s + (histories[m].u[k] - histories[m - 1].u[k]) ^ 2 end
  print(string.format("RMS difference of the histories, around %d against %d: %.3g m", histories[m].around,
    histories[m - 1].around, math.sqrt(s / 20)))
end
