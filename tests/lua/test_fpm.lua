-- The finite particle method (cleave.fpm, paper 001): rigid motion without force, the cantilever
-- against beam theory, the first beam frequency, the energy balance, elastoplastic hexahedra, bad
-- input. Tolerances and their reasons: docs/testing.md ("Finite particle method").
local cl = require "cleave"
local T = require "testing"

cl.device "cpu"

local steel = { E = 2e11, nu = 0.3, rho = 7850 }

local function elastic(nu) return cl.fpm.elastic { E = steel.E, nu = nu or steel.nu, rho = steel.rho } end

-- The rotation matrix of angle a about the unit axis k, and its quaternion (w, x, y, z).
local function rotation(k, a)
  local c, s = math.cos(a), math.sin(a)
  local R = {}
  for i = 1, 3 do
    R[i] = {}
    for j = 1, 3 do
      local cross = 0
      if i ~= j then
        local m = 6 - i - j -- the third axis
        local sign = ((i % 3) + 1 == j) and -1 or 1
        cross = sign * k[m]
      end
      R[i][j] = (i == j and c or 0) + s * cross + (1 - c) * k[i] * k[j]
    end
  end
  return R, { math.cos(a / 2), math.sin(a / 2) * k[1], math.sin(a / 2) * k[2], math.sin(a / 2) * k[3] }
end

local function largest(f)
  local most = 0
  for c = 1, f.k do most = math.max(most, math.abs(f:max(c)), math.abs(f:min(c))) end
  return most
end

-- Sets the body's displacements to x -> R x + shift - x (and orientations to q) and returns the
-- largest internal force and moment component.
local function moved(body, R, q, shift, strain)
  local rows = {}
  for i, p in ipairs(body.points) do
    local x = { p[1] * (1 + (strain or 0)), p[2], p[3] }
    local row = {}
    for r = 1, 3 do row[r] = R[r][1] * x[1] + R[r][2] * x[2] + R[r][3] * x[3] + shift[r] - p[r] end
    rows[i] = row
  end
  body.d:assign(function(i) return table.unpack(rows[i]) end)
  if body.q then body.q:assign(function() return table.unpack(q) end) end
  local f, m = body:internal_force()
  return largest(f), m and largest(m) or 0
end

local axis = (function()
  local k = { 1, -2, 3 }
  local len = math.sqrt(14)
  return { k[1] / len, k[2] / len, k[3] / len }
end)()

local function rigid_case(make)
  local R, q = rotation(axis, math.pi / 2)
  local I = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }
  -- the reference: a small stretch (1e-4) of a fresh body, no rotation
  local ref_f = moved(make(), I, { 1, 0, 0, 0 }, { 0, 0, 0 }, 1e-4)
  T.ok(ref_f > 0, "a stretch gives force")
  local f, m = moved(make(), R, q, { 0.3, -1.2, 2.5 })
  print(string.format("    rigid: force %.3g, moment %.3g, stretch force %.3g", f, m, ref_f))
  T.ok(f <= 1e-10 * ref_f, string.format("rigid motion: force %g, %g of the stretch's %g", f, f / ref_f, ref_f))
  T.ok(m <= 1e-10 * ref_f, string.format("rigid motion: moment %g (stretch force %g)", m, ref_f))
end

T.case("rigid translation and 90 degree rotation: no force (beam)", function()
  rigid_case(function()
    return cl.fpm.body { points = { { 0, 0, 0 }, { 0.3, 0.1, -0.2 }, { 0.5, 0.4, 0.1 } }, beams = { { 1, 2 }, { 2, 3 } },
      orient = { 0, 0, 1 }, section = { b = 0.02, h = 0.03 }, material = elastic() }
  end)
end)

T.case("rigid translation and 90 degree rotation: no force (hexahedron)", function()
  rigid_case(function()
    -- a distorted hexahedron: no symmetry hides a wrong frame
    return cl.fpm.body { points = { { 0, 0, 0 }, { 1.1, 0.1, 0 }, { 1, 0.9, 0.1 }, { -0.1, 1, 0 }, { 0.1, 0, 1 },
      { 1, -0.1, 1.2 }, { 1.2, 1, 0.9 }, { 0, 1.1, 1 } }, hexes = { { 1, 2, 3, 4, 5, 6, 7, 8 } }, material = elastic() }
  end)
end)

T.run()
