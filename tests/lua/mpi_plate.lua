-- The model of the MPI tests (test_mpi_pd.lua, test_mpi_restart.lua): a notched plate pulled
-- apart at 5 m/s on its top and bottom edges, 80 x 40 points, whose notch tip breaks within the
-- steps run (breaking starts near step 150). partition = false builds the whole body on every rank
-- (the one-rank reference); layout: the bonds' ("lattice", the default, or "list").
local cl = require "cleave"

local M = { dx = 0.5e-3, L = 0.04, H = 0.02 }

function M.plate(partition, layout)
  local dx, L, H = M.dx, M.L, M.H
  local b = cl.pd.body { shape = cl.geom.rect { 0, L, 0, H }, dx = dx, precision = "f64", thickness = 1e-3,
    material = cl.pd.pmb { E = 192e9, rho = 8000, G0 = 500 }, partition = partition, layout = layout }
  b:precrack { { 0, H / 2 }, { L / 2, H / 2 } }
  b:velocity { where = function(_, y) return y > H - 3 * dx end, vy = 5 }
  b:velocity { where = function(_, y) return y < 3 * dx end, vy = -5 }
  return b
end

--- The largest differences over the whole body between a (partitioned or not) body and the one-rank
--- reference of the same points: { u = max |du| / max |u|, damage = max |d damage| }, on every rank.
function M.compare(part, ref)
  local global = part.plan and part.plan.global:to_table() or nil
  local ru, pu, rd, pd = ref.u:to_table(), part.u:to_table(), ref.damage:to_table(), part.damage:to_table()
  local du, dd, umax = 0, 0, 0
  for i = 1, part.owned do
    local g = global and global[i] + 1 or i
    for c = 1, 2 do
      du = math.max(du, math.abs(pu[i][c] - ru[g][c]))
      umax = math.max(umax, math.abs(ru[g][c]))
    end
    dd = math.max(dd, math.abs(pd[i] - rd[g]))
  end
  du, dd, umax = table.unpack(cl.comm.max { du, dd, umax })
  return { u = du / umax, damage = dd }
end

return M
