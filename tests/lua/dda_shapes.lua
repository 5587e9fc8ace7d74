-- Polygons for the DDA tests (test_dda.lua, test_dda_checkpoint.lua): vertex lists {x1, y1, x2, y2, ...}.
local M = {}

-- The list turned by theta (radians) about the origin.
function M.rotated(list, theta)
  local c, s, out = math.cos(theta), math.sin(theta), {}
  for k = 1, #list, 2 do out[k], out[k + 1] = c * list[k] - s * list[k + 1], s * list[k] + c * list[k + 1] end
  return out
end

-- The rectangle [x0, x0 + w] x [y0, y0 + h] counter-clockwise (a square where h is left out).
function M.rect(x0, y0, w, h)
  h = h or w
  return { x0, y0, x0 + w, y0, x0 + w, y0 + h, x0, y0 + h }
end

return M
