-- The compressed annulus of hexahedra (issue 15, verification 6; the paper's section 4.2.3): a pressure
-- ramped to 5.25 MPa over 5 ms, then constant, on two opposite sides of a ring, undamped, 0.02 s. The
-- paper's geometry and material are in its Fig. 17, not in its text; ours is cleave.fpm.compressed_annulus
-- (lua/cleave/fpm.lua, the same case as tests/lua/test_fpm.lua runs). Usage:
--   cleave run scripts/bench/fpm_annulus.lua [largest around] [device]
-- Runs around = 6, 12, 24, ... up to the largest (radial cells around / 3), prints the horizontal
-- displacement of the centre particle of the loaded face (outer, y = 0, z = 0) every ms, the RMS
-- difference of each history from the previous mesh's, and the energy balance.
local cl = require "cleave"
local largest = tonumber(arg[1] or "48")
cl.device(arg[2] or "auto")

local histories, around = {}, 6
while around <= largest do
  local u, balance, ne, seconds = cl.fpm.compressed_annulus { around = around }
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
