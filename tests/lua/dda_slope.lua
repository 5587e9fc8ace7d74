-- The DDA tests' dynamic slope (test_dda_checkpoint.lua, test_dda_broad_reuse.lua): sliding, riding, landing
-- and thrown blocks, and what a reader sees of a model as a list of numbers, compared bit for bit.
local cl = require "cleave"
local T = require "testing"

local M = {}
local g = 9.81
local rock = { rho = 2500, E = 1e10, nu = 0.25 }

local shapes = require "dda_shapes"
local rotated, box = shapes.rotated, shapes.rect

-- A fixed base turned by 30 deg, friction 20 deg: a block sliding down, a second block riding on
-- it, a third dropped from 5 mm above the slope (open, then closed when it lands) and thrown
-- up the slope (it slides up, stops and turns back: its contacts go lock -> slide -> lock -> slide).
function M.slope(extra)
  local theta = math.rad(30)
  local base = rotated({ -1, -1, 8, -1, 8, 0, -1, 0 }, theta)
  local args = {
    blocks = { cl.dda.blocks { base },
      cl.dda.blocks { rotated(box(3, 0, 1, 0.5), theta), rotated(box(3.2, 0.5, 0.5, 0.4), theta),
        rotated(box(5.5, 0.005, 0.6, 0.3), theta) } },
    materials = { rock }, joints = { { friction = 20 } }, gravity = { 0, -g }, max_displacement = 0.01,
    fixed = { { base[1], base[2] }, { base[3], base[4] }, { base[7], base[8] } },
    velocity = { [4] = { 1.5 * math.cos(theta), 1.5 * math.sin(theta), 0 } },
    loads = { { 3.5 * math.cos(theta) - 0.25 * math.sin(theta), 3.5 * math.sin(theta) + 0.25 * math.cos(theta),
      fx = "200 * sin(40 * t)" } },
  }
  for k, v in pairs(extra or {}) do args[k] = v end
  return cl.dda.model(args)
end

-- Everything a reader sees of the model, as a list of numbers and strings.
function M.snapshot(m)
  local out = {}
  local function add(v) out[#out + 1] = v end
  local s = m:stats()
  for _, k in ipairs { "steps", "t", "dt", "kinetic", "gravity_work", "load_work", "friction_work", "contacts", "closed" } do
    add(s[k])
  end
  for i = 1, m:count() do
    local b = m:block(i)
    for _, v in ipairs(b.vertices) do add(v) end
    for _, v in ipairs(b.velocity) do add(v) end
    for _, v in ipairs(b.stress) do add(v) end
    add(b.ux); add(b.uy); add(b.rotation)
  end
  for _, c in ipairs(m:contacts()) do
    for _, k in ipairs { "vertex_block", "edge_block", "kind", "state", "x", "y", "normal_force", "shear_force" } do
      add(c[k])
    end
  end
  return out
end

function M.same(a, b, what)
  T.eq(#b, #a, what .. ": values")
  for k = 1, #a do
    if a[k] ~= b[k] then
      error(string.format("%s: value %d differs: %s straight, %s resumed", what, k, tostring(a[k]), tostring(b[k])), 2)
    end
  end
end

return M
