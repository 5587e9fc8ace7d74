-- The finite particle method (cleave.fpm, paper 001): rigid motion without force, the cantilever
-- against beam theory, the first beam frequency, the energy balance, elastoplastic hexahedra, bad
-- input. Tolerances and their reasons: docs/testing.md ("Finite particle method").
local cl = require "cleave"
local T = require "testing"

cl.device "cpu"
local info = cl.info()
local gpu = info.backends.cuda and info.gpu_count > 0

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

T.case("rigid translation and 90 degree rotation: no force (shell)", function()
  rigid_case(function()
    return cl.fpm.body { points = { { 0, 0, 0 }, { 0.3, 0.1, -0.2 }, { 0.1, 0.4, 0.1 }, { 0.5, 0.5, 0.2 } },
      shells = { { 1, 2, 3 }, { 2, 4, 3 } }, thickness = 0.01, material = elastic() }
  end)
end)

T.case("rigid translation and 90 degree rotation: no force (hexahedron)", function()
  rigid_case(function()
    -- a distorted hexahedron: no symmetry hides a wrong frame
    return cl.fpm.body { points = { { 0, 0, 0 }, { 1.1, 0.1, 0 }, { 1, 0.9, 0.1 }, { -0.1, 1, 0 }, { 0.1, 0, 1 },
      { 1, -0.1, 1.2 }, { 1.2, 1, 0.9 }, { 0, 1.1, 1 } }, hexes = { { 1, 2, 3, 4, 5, 6, 7, 8 } }, material = elastic() }
  end)
end)

-- The highest frequency of a free body by power iteration on M^-1 K over every degree of freedom
-- (translations and, on beams and shells, rotations with the particles' inertia): the internal
-- force of small displacements and rotations is K times them. Returns the time step 2 / omega_max
-- that central differences allow.
local function critical_dt(body)
  local rng = T.rng(7)
  local dofs = body.q and 6 or 3
  local v, mass, inertia, scale = {}, body.mass:to_table(), body.inertia and body.inertia:to_table(), 1e-9
  for i = 1, body.n do
    v[i] = {}
    for c = 1, dofs do v[i][c] = rng() - 0.5 end
  end
  local value = 0
  for _ = 1, 150 do
    local len = 0
    for i = 1, body.n do
      for c = 1, dofs do len = len + v[i][c] ^ 2 end
    end
    len = math.sqrt(len)
    local function at(i, c) return v[i][c] / len * scale end
    body.d:assign(function(i) return at(i, 1), at(i, 2), at(i, 3) end)
    if body.q then
      body.q:assign(function(i)
        local h = { at(i, 4) / 2, at(i, 5) / 2, at(i, 6) / 2 }
        local w = math.sqrt(1 - h[1] ^ 2 - h[2] ^ 2 - h[3] ^ 2)
        return w, h[1], h[2], h[3]
      end)
    end
    local f, m = body:internal_force()
    f = f:to_table()
    m = m and m:to_table()
    local num = 0
    for i = 1, body.n do
      for c = 1, dofs do
        local w = c <= 3 and f[i][c] / mass[i] / scale or m[i][c - 3] / inertia[i] / scale
        num = num + w * v[i][c] / len
        v[i][c] = w
      end
    end
    value = num
  end
  return 2 / math.sqrt(value)
end

T.case("stable step of hexahedra: exact for one element, below the assembly's", function()
  for _, nu in ipairs { 0, 0.3, 0.49 } do
    local m = cl.fpm.elastic { E = steel.E, nu = nu, rho = steel.rho }
    local one = cl.fpm.box { x = { 0, 1 }, y = { 0, 0.5 }, z = { 0, 0.25 }, nx = 1, ny = 1, nz = 1, material = m }
    T.near(one:stable_dt(), critical_dt(one), 1e-6, "one element, nu = " .. nu)
    local mesh = cl.fpm.box { x = { 0, 2 }, y = { 0, 2 }, z = { 0, 2 }, nx = 2, ny = 2, nz = 2, material = m }
    T.ok(mesh:stable_dt() <= critical_dt(mesh) * (1 + 1e-9), "2 x 2 x 2 cubes, nu = " .. nu)
  end
end)

-- Runs a cantilever with its root clamped and a tip load P (split over the tip's particles) to rest
-- by damped dynamics (xi = 2 omega_1, critical for the first mode, over 4 of its periods); returns
-- the mean tip deflection in z and the run.
local function cantilever_static(body, L, P, omega)
  body:fix { where = "x < 1e-9" }
  local tip = body:select("x > " .. L .. " - 1e-9")
  body:load { where = "x > " .. L .. " - 1e-9", fz = -P / tip.n }
  local run = cl.fpm.explicit { body, xi = 2 * omega, steps = 1, progress = false }
  run.steps = math.ceil(4 * 2 * math.pi / omega / run.dt)
  run:go()
  local w = 0
  for _, i in ipairs(tip:to_table()) do w = w + body.d[i][3] / tip.n end
  return w, run
end

T.case("stable step of beams and shells: below the lone element's and a small mesh's", function()
  local m = elastic()
  local bodies = {
    cl.fpm.cantilever { kind = "beam", length = 0.1, elements = 1, material = m, section = { b = 0.02, h = 0.01 } },
    cl.fpm.cantilever { kind = "beam", length = 1, elements = 4, material = m, section = { b = 0.02, h = 0.01 } },
    cl.fpm.cantilever { kind = "beam", length = 0.05, elements = 4, material = m, section = { b = 0.02, h = 0.02 } },
    cl.fpm.body { points = { { 0, 0, 0 }, { 1, 0.1, 0 }, { 0.3, 0.8, 0 } }, shells = { { 1, 2, 3 } }, thickness = 0.01,
      material = m },
    cl.fpm.cantilever { kind = "shell", length = 0.4, elements = 4, width = 0.1, ny = 1, thickness = 0.02, material = m },
    cl.fpm.cantilever { kind = "shell", length = 0.1, elements = 4, width = 0.1, ny = 4, thickness = 0.01, material = m },
  }
  for k, body in ipairs(bodies) do
    local allowed, mine = critical_dt(body), body:stable_dt()
    print(string.format("    %s: stable step %.4g, power iteration %.4g (%.3f)", tostring(body), mine, allowed, mine / allowed))
    T.ok(mine <= allowed * (1 + 1e-6), "body " .. k)
  end
end)

T.case("beam cantilever: tip deflection PL^3/3EI within 1%", function()
  local L, P, b, h = 1, 50, 0.02, 0.03
  local body = cl.fpm.cantilever { kind = "beam", length = L, elements = 10, material = elastic(),
    section = { b = b, h = h } }
  local I = b * h ^ 3 / 12
  local omega = 3.516 * math.sqrt(steel.E * I / (steel.rho * b * h * L ^ 4))
  local w = cantilever_static(body, L, P, omega)
  local expected = P * L ^ 3 / (3 * steel.E * I)
  print(string.format("    beams: tip %.6g, PL^3/3EI = %.6g (%.3f%%)", -w, expected, 100 * (-w / expected - 1)))
  T.near(-w, expected, 0.01, "tip deflection")
end)

T.case("cl.fpm.static: both criteria settle a beam cantilever at PL^3/3EI, levels of a load in t", function()
  local L, P, b, h = 1, 50, 0.02, 0.03
  local I = b * h ^ 3 / 12
  local omega = 3.516 * math.sqrt(steel.E * I / (steel.rho * b * h * L ^ 4))
  for _, criterion in ipairs { "residual", "kinetic" } do
    local body = cl.fpm.cantilever { kind = "beam", length = L, elements = 10, material = elastic(),
      section = { b = b, h = h } }
    body:fix { where = "x < 1e-9" }
    body:load { where = "x > " .. L .. " - 1e-9", fz = function(t) return -t end }
    local static = cl.fpm.static { body, xi = 2 * omega, criterion = criterion, tol = 1e-6, every = 50 }
    for _, load in ipairs { P / 2, P } do
      local r = static:settle(load)
      local expected = load * L ^ 3 / (3 * steel.E * I)
      local w = -body.d[body.n][3]
      print(string.format("    static (%s): P = %g: tip %.6g, PL^3/3EI %.6g, %d steps, residual %.2g", criterion, load, w,
        expected, r.steps, r.residual))
      T.near(w, expected, 1e-3, criterion .. ": tip deflection")
    end
  end
end)

T.case("shell cantilever strip: tip deflection PL^3/3EI within 1% (nu = 0)", function()
  local L, P, b, t = 0.25, 20, 0.05, 0.01
  local body = cl.fpm.cantilever { kind = "shell", length = L, elements = 8, width = b, ny = 2, thickness = t,
    material = elastic(0) }
  local I = b * t ^ 3 / 12
  local omega = 3.516 * math.sqrt(steel.E * I / (steel.rho * b * t * L ^ 4))
  local w = cantilever_static(body, L, P, omega)
  local expected = P * L ^ 3 / (3 * steel.E * I)
  print(string.format("    shells: tip %.6g, PL^3/3EI = %.6g (%.3f%%)", -w, expected, 100 * (-w / expected - 1)))
  T.near(-w, expected, 0.01, "tip deflection")
end)

T.case("hexahedral cantilever: tip deflection PL^3/3EI + PL/(kGA) within 2% (32 x 1 x 1 elements)", function()
  -- L/h = 4: the shear term is 3.75% of the bending one (nu = 0, k = 5/6); one element through the
  -- section with 2 x 2 Gauss points integrates the linear bending strain exactly
  local L, P, b, h = 0.4, 1e4, 0.1, 0.1
  local body = cl.fpm.cantilever { kind = "hex", length = L, elements = 32, width = b, height = h,
    material = elastic(0) }
  local I, A, G = b * h ^ 3 / 12, b * h, steel.E / 2
  local omega = 3.516 * math.sqrt(steel.E * I / (steel.rho * A * L ^ 4))
  local w = cantilever_static(body, L, P, omega)
  local expected = P * L ^ 3 / (3 * steel.E * I) + P * L / (5 / 6 * G * A)
  print(string.format("    hexahedra: tip %.6g, PL^3/3EI + PL/kGA = %.6g (%.2f%%)", -w, expected, 100 * (-w / expected - 1)))
  T.near(-w, expected, 0.02, "tip deflection")
end)

T.case("beam cantilever: first frequency within 1% of 3.516 sqrt(EI / m L^4)", function()
  local L, b, h, ne = 1, 0.02, 0.02, 20
  local body = cl.fpm.cantilever { kind = "beam", length = L, elements = ne, material = elastic(),
    section = { b = b, h = h } }
  body:fix { where = "x < 1e-9" }
  local I = b * h ^ 3 / 12
  local omega = 3.516 * math.sqrt(steel.E * I / (steel.rho * b * h * L ^ 4))
  -- released from the first mode's shape (bending in x-z: rotation about y is -dw/dx), at rest
  local beta, sigma, A = 1.87510407 / L, 0.734095514, 1e-4
  local function w(x) return A * (math.cosh(beta * x) - math.cos(beta * x) - sigma * (math.sinh(beta * x) - math.sin(beta * x))) end
  local function slope(x) return A * beta * (math.sinh(beta * x) + math.sin(beta * x) - sigma * (math.cosh(beta * x) - math.cos(beta * x))) end
  body.d:assign(function(i) return 0, 0, w(body.points[i][1]) end)
  body.q:assign(function(i)
    local angle = -slope(body.points[i][1])
    return math.cos(angle / 2), 0, math.sin(angle / 2), 0
  end)
  local run = cl.fpm.explicit { body, steps = 1, progress = false }
  local period = 2 * math.pi / omega
  local crossings, last, t = {}, body.d[ne + 1][3], 0
  local every = math.max(1, math.floor(period / run.dt / 40)) -- 40 samples a period
  while #crossings < 7 and t < 5 * period do
    run:go { steps = every }
    t = run.t
    local now = body.d[ne + 1][3]
    if (last > 0) ~= (now > 0) then crossings[#crossings + 1] = t - run.dt * every * now / (now - last) end
    last = now
  end
  T.ok(#crossings == 7, "seven zero crossings")
  local measured = 2 * math.pi / ((crossings[7] - crossings[1]) / 3)
  print(string.format("    first frequency %.6g rad/s, 3.516 sqrt(EI/mL^4) = %.6g (%.3f%%)", measured, omega,
    100 * (measured / omega - 1)))
  T.near(measured, omega, 0.01, "first frequency")
end)

T.case("energy balance of an undamped run: external work = kinetic + strain energy within 0.1%", function()
  for _, kind in ipairs { "beam", "shell", "hex" } do
    local body = kind == "beam" and cl.fpm.cantilever { kind = "beam", length = 1, elements = 10, material = elastic(),
      section = { b = 0.02, h = 0.03 } } or kind == "shell" and cl.fpm.cantilever { kind = "shell", length = 0.4,
      elements = 8, width = 0.1, ny = 2, thickness = 0.01, material = elastic() } or cl.fpm.cantilever { kind = "hex",
      length = 0.4, elements = 8, width = 0.1, height = 0.1, ny = 2, nz = 2, material = elastic() }
    body:fix { where = "x < 1e-9" }
    local L = kind == "beam" and 1 or 0.4
    body:load { where = "x > " .. L .. " - 1e-9", fz = "-100 * min(t / 1e-3, 1)", fx = 20 }
    local run = cl.fpm.explicit { body, steps = 1500, progress = false }
    run:go()
    local e = body:energies()
    T.ok(e.external > 0, "the loads did work")
    T.ok(e.balance < 1e-9, string.format("%s: the step's own balance %g", kind, e.balance))
    -- 1e-3: the energies are compared at one half step, which leaves O(dt^2) (measured: 1e-4 and less)
    T.near(e.kinetic + e.strain, e.external, 1e-3, kind .. ": kinetic + strain against external work")
    print(string.format("    %s: external %.6g J, kinetic %.6g, strain %.6g (%.2g relative), internal work %.6g", kind,
      e.external, e.kinetic, e.strain, (e.kinetic + e.strain) / e.external - 1, e.internal))
  end
end)

T.case("J2 hexahedra in slow uniaxial tension follow the bilinear curve", function()
  local E, sy, Et = steel.E, 250e6, 2e10
  local m = cl.fpm.j2 { E = E, nu = 0.3, rho = steel.rho, sy = sy, Et = Et }
  local body = cl.fpm.box { x = { 0, 0.05 }, y = { 0, 0.02 }, z = { 0, 0.02 }, nx = 2, ny = 1, nz = 1, material = m }
  body:fix { where = "x < 1e-9", dofs = { "x" } }
  body:fix { where = "x < 1e-9 and y < 1e-9 and z < 1e-9", dofs = "xyz" }
  body:fix { where = "x < 1e-9 and y > 0.02 - 1e-9 and z < 1e-9", dofs = { "z" } }
  local v = 0.05 -- m/s at the free end: a strain rate of 1/s, quasi-static for this 0.05 m bar (c ~ 5 km/s)
  body:velocity { where = "x > 0.05 - 1e-9", vx = v }
  local run = cl.fpm.explicit { body, steps = 1, xi = 2000, progress = false }
  local strain = 0.005 -- 4 times the yield strain
  run.steps = math.ceil(strain * 0.05 / v / run.dt)
  run:go()
  local eps = body.d:max(1) / 0.05
  local expected = sy + Et * (eps - sy / E)
  local stress = body:stress()
  local sxx = stress:max(1)
  print(string.format("    strain %.5f: sigma_xx %.6g, bilinear %.6g (%.3f%%); ep %.5g", eps, sxx, expected,
    100 * (sxx / expected - 1), body.law_state[1]:max()))
  T.near(sxx, expected, 0.01, "stress on the hardening branch")
  T.near(stress:min(1), sxx, 0.01, "uniform along the bar")
end)

-- The largest difference of two fields over the largest |value| of the first; the difference and that
-- largest value.
local function field_difference(a, b)
  a, b = a:to_table(), b:to_table()
  local worst, most = 0, 0
  for i = 1, #a do
    local ra, rb = type(a[i]) == "table" and a[i] or { a[i] }, type(b[i]) == "table" and b[i] or { b[i] }
    for c = 1, #ra do worst, most = math.max(worst, math.abs(ra[c] - rb[c])), math.max(most, math.abs(ra[c])) end
  end
  return most > 0 and worst / most or worst, worst, most
end

T.case("hexahedra keep per Gauss point only what the law needs: J2 the plastic strain, elastic nothing", function()
  -- The built-in laws in the total form (kernels/fpm/hex.h) against the same law sources run as user
  -- laws, which keep the stress and the strain and update them incrementally (the path before).
  -- 1. A prescribed history on a distorted 3 x 2 x 2 block (no dynamics, which would amplify the
  -- round-off): a displacement gradient of tension and shear plus a bending part, turned by up to
  -- 1 rad, scaled by 0 -> 4 -> -4 -> 2 times the yield strain in 240 evaluations (J2 yields, unloads
  -- elastically, yields the other way); after each, the stresses (body:stress()) and ep agree to
  -- 1e-12 of their largest over the history (the stress passes zero on the way): the same stress by
  -- two roundings, sig_n + D deps summed against D (eps - eps_p) formed afresh.
  -- 2. A dynamic run, 600 steps of a cyclic tip load that yields the cantilever both ways:
  -- displacements within 1e-10 of |d| (round-off that the dynamics carries on, as CPU against CUDA).
  local E, nu, sy, Et = steel.E, 0.3, 1e6, 2e10
  local H = E * Et / (E - Et)
  local built_in = { elastic = elastic(nu), j2 = cl.fpm.j2 { E = E, nu = nu, rho = steel.rho, sy = sy, Et = Et } }
  local as_user = {
    elastic = cl.fpm.material { E = E, nu = nu, rho = steel.rho, law = cl.jit.stress_update { name = "user_elastic",
      source = cl.jit.law_source("elastic"), params = { E = E, nu = nu } } },
    j2 = cl.fpm.material { E = E, nu = nu, rho = steel.rho, law = cl.jit.stress_update { name = "user_j2",
      source = cl.jit.law_source("j2"), params = { E = E, nu = nu, sy = sy, H = H }, state = { ep = 0 } } } }
  local function block(material) -- 3 x 2 x 2 cells of 0.1 m, distorted: no two elements alike
    local points, hexes = {}, {}
    local function id(i, j, k) return 1 + i + 4 * (j + 3 * k) end
    for k = 0, 2 do
      for j = 0, 2 do
        for i = 0, 3 do
          points[id(i, j, k)] = { 0.1 * i + 0.01 * math.sin(3.7 * j + 1.1 * k), 0.1 * j + 0.01 * math.cos(2.3 * i),
            0.1 * k + 0.01 * math.sin(i + j) }
        end
      end
    end
    for k = 0, 1 do
      for j = 0, 1 do
        for i = 0, 2 do
          hexes[#hexes + 1] = { id(i, j, k), id(i + 1, j, k), id(i + 1, j + 1, k), id(i, j + 1, k), id(i, j, k + 1),
            id(i + 1, j, k + 1), id(i + 1, j + 1, k + 1), id(i, j + 1, k + 1) }
        end
      end
    end
    return cl.fpm.body { points = points, hexes = hexes, material = material }
  end
  local history = {}
  for k = 1, 240 do
    history[k] = k <= 60 and k / 60 * 4 or k <= 180 and 4 - (k - 60) / 120 * 8 or -4 + (k - 180) / 60 * 6
  end
  local function evaluate(body, lambda)
    local c, s = math.cos(lambda / 4), math.sin(lambda / 4) -- a turn about z, up to 1 rad
    local e = lambda * sy / E
    body.d:assign(function(i)
      local x, y, z = body.points[i][1], body.points[i][2], body.points[i][3]
      local u = { x * (1 + e) + 0.5 * e * y + 3 * e * x * x, y * (1 - 0.3 * e) + 0.7 * e * z, z * (1 - 0.3 * e) }
      return c * u[1] - s * u[2] - x, s * u[1] + c * u[2] - y, u[3] - z
    end)
    return body:stress()
  end
  for _, law in ipairs { "elastic", "j2" } do
    local a, b = block(built_in[law]), block(as_user[law])
    T.eq(table.concat((a:point_state()), " "), law == "j2" and "plastic law_1" or "", law .. ": what a point keeps")
    T.eq(table.concat((b:point_state()), " "), "sig eps" .. (law == "j2" and " law_1" or ""), law .. " as a user law")
    local worst, most, worst_ep, most_ep = 0, 0, 0, 0
    for _, lambda in ipairs(history) do
      local _, diff, largest = field_difference(evaluate(b, lambda), evaluate(a, lambda))
      worst, most = math.max(worst, diff), math.max(most, largest)
      if law == "j2" then
        _, diff, largest = field_difference(b.law_state[1], a.law_state[1])
        worst_ep, most_ep = math.max(worst_ep, diff), math.max(most_ep, largest)
      end
    end
    worst, worst_ep = worst / most, worst_ep / most_ep
    print(string.format("    %s, prescribed history: stresses %.2g of the largest apart%s", law, worst,
      law == "j2" and string.format(", ep %.2g (largest %.3g)", worst_ep, a.law_state[1]:max()) or ""))
    T.ok(worst <= 1e-12, law .. ": stresses equal the incremental path's over the history")
    if law == "j2" then
      T.ok(worst_ep <= 1e-12, "j2: equivalent plastic strain")
      T.ok(a.law_state[1]:max() > 3 * sy / E, "j2: the points yielded well past the yield strain")
    end
  end
  local half = T.outdir("fpm_state") .. "/half.ckpt"
  local function run(material, steps, checkpoint)
    local body = cl.fpm.cantilever { kind = "hex", length = 0.4, elements = 8, width = 0.1, height = 0.1, ny = 2,
      nz = 2, material = material }
    body:fix { where = "x < 1e-9" }
    body:load { where = "x > 0.39", fz = "-3e4 * sin(t / 3e-5)", fy = "1e4 * sin(t / 4e-5)" }
    local r = cl.fpm.explicit { body, dt = 5e-7, steps = 600, xi = 10, progress = false }
    if checkpoint == "restore" then r:restore(half) end
    r:go { steps = steps }
    if checkpoint == "save" then r:save(half) end
    return body
  end
  for _, law in ipairs { "elastic", "j2" } do
    local a, b = run(built_in[law], 600), run(as_user[law], 600)
    local dd, _, scale = field_difference(b.d, a.d)
    local ea, eb = a:energies(), b:energies()
    print(string.format("    %s, cantilever: |d| %.3g, displacements %.2g of the largest apart, strain energy %.2g%s", law,
      scale, dd, math.abs(ea.strain / eb.strain - 1),
      law == "j2" and string.format(", ep largest %.3g", a.law_state[1]:max()) or ""))
    T.ok(dd <= 1e-10, law .. ": displacements")
    T.near(ea.strain, eb.strain, 1e-10, law .. ": strain energy")
    if law == "j2" then T.ok(a.law_state[1]:max() > sy / E, "j2: the cantilever yielded") end
  end
  -- J2 from a checkpoint at step 300 (it holds the plastic strain and ep) ends where the straight run did
  run(built_in.j2, 300, "save")
  local straight, resumed = run(built_in.j2, 600), run(built_in.j2, 300, "restore")
  T.eq(table.concat((resumed:point_state()), " "), "plastic law_1", "j2: the checkpoint's point state")
  T.ok(field_difference(straight.d, resumed.d) <= 1e-12, "j2: displacements after a restore")
  T.ok(field_difference(straight.plastic, resumed.plastic) <= 1e-12, "j2: plastic strain after a restore")
end)

T.case("large rotation: an end moment 2 pi EI / L rolls a beam cantilever into a circle", function()
  -- a stocky section keeps the steps few (Euler-Bernoulli beams have no shear: the roll-up is the
  -- same); with no stretch each element turns by M L_e / EI, and the chords close the circle exactly
  local E, L, b, ne = steel.E, 1, 0.17, 20
  local body = cl.fpm.cantilever { kind = "beam", length = L, elements = ne, material = elastic(),
    section = { b = b, h = b } }
  body:fix { where = "x < 1e-9" }
  local I = b ^ 4 / 12
  local omega = 3.516 * math.sqrt(E * I / (steel.rho * b * b * L ^ 4))
  local period = 2 * math.pi / omega
  body:load { where = "x > 1 - 1e-9", my = "M * min(t / T, 1)", params = { M = 2 * math.pi * E * I / L, T = period } }
  local run = cl.fpm.explicit { body, steps = 1, xi = 2 * omega, progress = false }
  -- ramped over one first period, then damped to rest over three (ramped over four and damped over
  -- four: the same, in twice the steps)
  run.steps = math.ceil(4 * period / run.dt)
  run:go()
  local tip = body.d[ne + 1]
  local gap = math.sqrt((L + tip[1]) ^ 2 + tip[2] ^ 2 + tip[3] ^ 2)
  print(string.format("    roll-up: the tip ends %.3g m from the root", gap))
  T.ok(gap < 0.01 * L, "the tip returns to the root within 1% of L")
  -- halfway along, the particle is at the top of the circle: z = -L / pi (the moment turns x to -z)
  local mid = body.d[ne / 2 + 1]
  T.near(L / 2 + mid[1], 0, 1e-6, "mid-length particle above the root", L)
  T.near(mid[3], -L / math.pi, 0.01, "mid-length particle at the circle's diameter")
end)

T.case("gather assembly (Algorithm 1) gives the scatter's results", function()
  local function run(kind, assembly)
    local body = kind == "beam" and cl.fpm.cantilever { kind = "beam", length = 1, elements = 12, material = elastic(),
      section = { b = 0.02, h = 0.03 }, orient = { 0, 1, 1 }, assembly = assembly } or kind == "shell" and
      cl.fpm.cantilever { kind = "shell", length = 0.4, elements = 8, width = 0.1, ny = 2, thickness = 0.01,
      material = elastic(), assembly = assembly } or cl.fpm.cantilever { kind = "hex",
      length = 0.4, elements = 8, width = 0.1, height = 0.1, ny = 2, nz = 2, assembly = assembly,
      material = cl.fpm.j2 { E = steel.E, nu = 0.3, rho = steel.rho, sy = 1e6, Et = 2e10 } }
    body:fix { where = "x < 1e-9" }
    body:load { where = "x > 0.39", fz = "-1e4 * min(t / 1e-5, 1)", fy = 3e3, mx = kind ~= "hex" and 10 or nil }
    cl.fpm.explicit { body, steps = 200, xi = 10, progress = false }:go()
    return body.d:to_table(), body.d:norm(), body:energies()
  end
  for _, kind in ipairs { "beam", "shell", "hex" } do
    local a, scale, ea = run(kind, "scatter")
    local b, _, eb = run(kind, "gather")
    local worst = 0
    for i = 1, #a do
      for c = 1, 3 do worst = math.max(worst, math.abs(a[i][c] - b[i][c])) end
    end
    print(string.format("    %s: largest scatter-gather difference %.3g of |d| = %.3g", kind, worst, scale))
    T.ok(worst <= 1e-12 * scale, kind .. ": displacements")
    T.near(eb.internal, ea.internal, 1e-12, kind .. ": internal work")
  end
end)

T.case("a prescribed zero velocity (an expression, set each step) gives a fix's results bit for bit", function()
  -- the same clamp held by fix (a zero prescribed increment set once) and by prescribed zero
  -- velocities (expressions: a set_rows stage each step writes their increments); the particle pass
  -- reads both the same way
  local function run(kind, prescribed)
    local body = kind == "beam" and cl.fpm.cantilever { kind = "beam", length = 1, elements = 12, material = elastic(),
      section = { b = 0.02, h = 0.03 }, orient = { 0, 1, 1 } } or cl.fpm.cantilever { kind = "hex", length = 0.4,
      elements = 8, width = 0.1, height = 0.1, ny = 2, nz = 2, material = elastic() }
    if prescribed then
      local zero = { where = "x < 1e-9", vx = "0 * t", vy = "0 * t", vz = "0 * t" }
      if kind == "beam" then zero.wx, zero.wy, zero.wz = "0 * t", "0 * t", "0 * t" end
      body:velocity(zero)
    else
      body:fix { where = "x < 1e-9" }
    end
    body:load { where = "x > 0.39", fz = "-1e4 * min(t / 1e-5, 1)", fy = 3e3 }
    cl.fpm.explicit { body, steps = 100, xi = 10, progress = false }:go()
    return body.d:to_table(), body:energies()
  end
  for _, kind in ipairs { "beam", "hex" } do
    local a, ea = run(kind, false)
    local b, eb = run(kind, true)
    local same = true
    for i = 1, #a do
      for c = 1, 3 do same = same and a[i][c] == b[i][c] end
    end
    T.ok(same, kind .. ": displacements bit for bit")
    T.ok(ea.internal == eb.internal and ea.kinetic == eb.kinetic, kind .. ": internal work and kinetic energy bit for bit")
  end
end)

T.case("constant prescribed velocities are set once: the step is the force copy, the elements and one particle pass", function()
  -- the J2 bar of bench_fpm.lua in small: both ends' velocities constant numbers. Their increments are
  -- written when the run is made, so a step launches no stage for them (a set_rows each, and the
  -- particle update in two halves around them, were 4 of the step's 6 launches); the same velocities
  -- as functions of t (a stage each step) give the same displacements and energies bit for bit
  local function run(constant)
    local body = cl.fpm.box { x = { 0, 4 }, y = { 0, 1 }, z = { 0, 1 }, nx = 8, ny = 2, nz = 2,
      material = cl.fpm.j2 { E = steel.E, nu = steel.nu, rho = steel.rho, sy = 2.5e8, Et = 2e10 } }
    local function v(value) return constant and value or function() return value end end
    body:velocity { where = "x < 1e-9", vx = v(-20) }
    body:velocity { where = "x > 4 - 1e-9", vx = v(20), vy = v(5) }
    local run = cl.fpm.explicit { body, steps = 100, progress = false }
    run:go()
    local names = {}
    for i, stage in ipairs(run.stages) do names[i] = tostring(stage) end
    return table.concat(names, " "), body.d:to_table(), body:energies()
  end
  local stages, a, ea = run(true)
  T.eq(stages, "stage<copy> stage<fpm_hex> stage<fpm_step>", "the stages of a step")
  local varying, b, eb = run(false)
  T.eq(varying, "stage<copy> stage<fpm_hex> stage<set_rows> stage<set_rows> stage<set_rows> stage<fpm_step>",
    "the stages of a step (velocities as functions of t)")
  local same = true
  for i = 1, #a do
    for c = 1, 3 do same = same and a[i][c] == b[i][c] end
  end
  T.ok(same, "displacements bit for bit")
  T.ok(ea.internal == eb.internal and ea.constraint == eb.constraint and ea.kinetic == eb.kinetic,
    "internal and constraint work, kinetic energy bit for bit")
  T.ok(ea.constraint > 0 and ea.balance < 1e-6, "the velocities did work, which the balance holds")
end)

T.case("large rotation: an end moment 2 pi EI / L rolls a shell strip into a circle", function()
  -- a strip 5 times as wide as thick (a square section buckles sideways under a fixed-axis moment)
  local E, L, b, t, ne = steel.E, 0.1, 0.05, 0.01, 20
  local body = cl.fpm.cantilever { kind = "shell", length = L, elements = ne, width = b, ny = 1, thickness = t,
    material = elastic(0) }
  body:fix { where = "x < 1e-9" }
  local I = b * t ^ 3 / 12
  local omega = 3.516 * math.sqrt(E * I / (steel.rho * b * t * L ^ 4))
  local period = 2 * math.pi / omega
  body:load { where = "x > " .. L .. " - 1e-9", my = "M * min(t / T, 1)",
    params = { M = 2 * math.pi * E * I / L / 2, T = period } } -- two tip particles
  local run = cl.fpm.explicit { body, steps = 1, xi = 2 * omega, progress = false }
  -- ramped over one first period, damped to rest over one: the tip ends 2.1e-5 m from the root (ramped
  -- over four and damped over four: 4.2e-6 m, in four times the steps)
  run.steps = math.ceil(2 * period / run.dt)
  run:go()
  local worst = 0
  for _, i in ipairs(body:select("x > " .. L .. " - 1e-9"):to_table()) do
    local p, d = body.points[i], body.d[i]
    worst = math.max(worst, math.sqrt((p[1] + d[1]) ^ 2 + (d[3]) ^ 2))
  end
  print(string.format("    shell roll-up: the tip ends %.3g m from the root (%d steps)", worst, run.steps))
  T.ok(worst < 0.01 * L, "the tip returns to the root within 1% of L")
end)

T.case("spherical cap under a 600 psi step pressure (elastic): the apex's first peak against the literature", function()
  -- the issue's case (Bathe; Belytschko; Tabiei): R = 22.27 in, h = 0.41 in, half-angle 26.67 degrees,
  -- clamped rim, E = 10.5e6 psi, nu = 0.3, rho = 2.45e-4 lbf s^2 / in^4; 12 rings (864 triangles), a
  -- follower pressure; units in, lbf, s
  local R, angle = 22.27, 26.67
  local cap = cl.fpm.spherical_cap { radius = R, angle = angle, rings = 12, thickness = 0.41,
    material = cl.fpm.elastic { E = 10.5e6, nu = 0.3, rho = 2.45e-4 } }
  cap:fix { where = "z < " .. R * math.cos(math.rad(angle)) .. " + 1e-6" }
  cap:pressure { p = 600 }
  T.raises(function() cap:pressure { p = 600, where = "z > 100" } end, { "holds no particle" })
  local run = cl.fpm.explicit { cap, steps = 1, progress = false }
  local peak, at = 0, 0
  while run.t < 4.5e-4 do
    run:go { steps = 1 }
    local w = -cap.d[1][3] -- the apex is particle 1
    if w > peak then peak, at = w, run.t end
  end
  print(string.format("    cap: first peak %.4f in at %.3f ms (literature 0.090-0.093 in at 0.33-0.40 ms)", peak, at * 1e3))
  T.ok(peak >= 0.090 and peak <= 0.093, "peak apex deflection in 0.090-0.093 in")
  -- 0.41 ms, not 0.40: the rotational inertia m t^2 / 2 (the time step's choice) delays the peak;
  -- the physical m t^2 / 12 gives 0.389 ms but 0.094 in (docs/methods/finite-particle.md)
  T.ok(at >= 0.33e-3 and at <= 0.41e-3, "peak time in 0.33-0.41 ms")
end)

T.case("cylinder generator: the four parts, their groups on their planes, normals away from the axis", function()
  local R, L = 1.016, 3.048
  local cases = { full = { 12, 360, L, { "z0", "zL" } }, half = { 6, 180, L, { "y0", "z0", "zL" } },
    quarter = { 3, 90, L, { "x0", "y0", "z0", "zL" } }, octant = { 3, 90, L / 2, { "x0", "y0", "z0", "zmid" } } }
  for part, c in pairs(cases) do
    local around, along = c[1], 4
    local body = cl.fpm.cylinder { radius = R, length = L, thickness = 0.03, part = part, around = around,
      along = along, material = elastic() }
    local columns = part == "full" and around or around + 1
    T.eq(body.n, columns * (along + 1), part .. ": particles")
    T.eq(body.ne, 2 * around * along, part .. ": triangles")
    local names = {}
    for name in pairs(body.groups) do names[#names + 1] = name end
    table.sort(names)
    T.eq(table.concat(names, " "), table.concat(c[4], " "), part .. ": groups")
    local plane = { x0 = function(p) return p[1] == 0 end, y0 = function(p) return p[2] == 0 end,
      z0 = function(p) return p[3] == 0 end, zL = function(p) return p[3] == L end,
      zmid = function(p) return p[3] == L / 2 end }
    for _, name in ipairs(c[4]) do
      local rows = body:select { group = name }:to_table()
      local on = 0
      for _, i in ipairs(body.points) do if plane[name](i) then on = on + 1 end end
      T.eq(#rows, on, part .. ": group " .. name .. " holds every particle on its plane")
      for _, i in ipairs(rows) do T.ok(plane[name](body.points[i]), part .. ": group " .. name .. " on its plane") end
    end
    -- every triangle's normal points away from the axis; the mass is rho t times the facets' area
    local area = 0
    for _, tri in ipairs(body.conn:to_table()) do
      local a, b, q = body.points[tri[1] + 1], body.points[tri[2] + 1], body.points[tri[3] + 1]
      local u, v = { b[1] - a[1], b[2] - a[2], b[3] - a[3] }, { q[1] - a[1], q[2] - a[2], q[3] - a[3] }
      local n = { u[2] * v[3] - u[3] * v[2], u[3] * v[1] - u[1] * v[3], u[1] * v[2] - u[2] * v[1] }
      T.ok(n[1] * (a[1] + b[1] + q[1]) + n[2] * (a[2] + b[2] + q[2]) > 0, part .. ": normal away from the axis")
      area = area + math.sqrt(n[1] ^ 2 + n[2] ^ 2 + n[3] ^ 2) / 2
    end
    local chord = 2 * R * math.sin(math.rad(c[2]) / around / 2) * around -- the facets' polygon
    T.near(area, chord * c[3], 1e-12, part .. ": area of the facets")
    T.near(body.mass:sum(), steel.rho * 0.03 * area, 1e-12, part .. ": mass")
  end
  local body = cl.fpm.cylinder { radius = 1, length = 1, thickness = 0.01, around = 3, along = 1, material = elastic() }
  T.raises(function() body:fix { where = { group = "x0" } } end, { "group = x0", "groups: z0, zL" })
  T.raises(function() cl.fpm.cylinder { radius = 1, length = 1, thickness = 0.01, part = "third", around = 3, along = 1,
    material = elastic() } end, { "'part'" })
  T.raises(function() cl.fpm.cylinder { radius = 1, length = 1, thickness = 0.01, around = 0, along = 1,
    material = elastic() } end, { "'around'" })
  T.raises(function() body:symmetry { where = { group = "z0" }, normal = "w" } end, { "'normal'" })
end)

T.case("pinched semi-cylinder (Sze, Liu & Lo 2004): the reference's supports, the first load points", function()
  -- cl.fpm.pinched_semicylinder, the case scripts/bench/fpm_pinched_cylinder.lua runs to 2000 N: the
  -- end z = 0 clamped, the straight edges (y = 0) on the full cylinder's mid-plane (u_y = 0, no
  -- rotation about x or z: they slide sideways), P down at the middle of the free end; half of it
  -- with the symmetry plane x = 0 and P/2. Mesh study (docs/methods/finite-particle.md): at 200 and
  -- 400 N, 8 x 16 cells -12.7%, -7.5%; 16 x 32 -5.3%, -3.1%: flat facets with constant-strain
  -- membranes are too stiff on the curved shell, by an error that shrinks by 0.42 per halving.
  local reference = { 0.161, 0.376 } -- W at P = 200 and 400 N
  local function curve(around)
    local shell, tip = cl.fpm.pinched_semicylinder { around = around, along = 2 * around }
    local static = cl.fpm.static { shell, xi = 20, tol = 1e-4, every = 200, max_steps = 50000 }
    local W = {}
    for k = 1, #reference do
      T.ok(static:settle(200 * k).residual <= 1e-4, "settled")
      W[k] = -shell.d[tip][2]
    end
    return W, shell
  end
  local coarse, shell = curve(8)
  local fine = curve(16)
  for k, W in ipairs(reference) do
    local e8, e16 = coarse[k] / W - 1, fine[k] / W - 1
    print(string.format("    P = %d N: W = %.4f (8 x 16), %.4f (16 x 32), reference %.3f: %+.1f%%, %+.1f%%", 200 * k,
      coarse[k], fine[k], W, 100 * e8, 100 * e16))
    T.ok(e8 < 0 and e16 < 0 and -e16 <= -0.6 * e8, "converging from below (measured: the error x 0.42 and x 0.41)")
    T.ok(math.abs(e16) <= ({ 0.06, 0.04 })[k], "16 x 32 cells within 6% and 4% (measured -5.3%, -3.1%)")
  end
  -- the straight edge stays on the plane y = 0, turns only about y and slides outwards (the hinge
  -- tried before held it: 8 x 16 then gave -12.1% and -9.1%, and the curve lay 13-29% low beyond 600 N)
  local edge, d, q = shell:select { group = "y0" }:to_table(), shell.d:to_table(), shell.q:to_table()
  local slide = 0
  for _, i in ipairs(edge) do
    T.eq(d[i][2], 0, "u_y = 0 on the straight edge")
    T.ok(q[i][2] == 0 and q[i][4] == 0, "no rotation about x or z on the straight edge")
    slide = math.max(slide, d[i][1])
  end
  print(string.format("    the straight edge slides out by up to %.3g m at 400 N", slide))
  T.ok(slide > 1e-3, "the straight edge slides sideways")
end)

T.case("J2 shells: a strip in uniaxial membrane tension beyond yield follows the bilinear curve", function()
  -- E = 200 GPa, nu = 0.3, sy = 250 MPa, Et = E / 10; stress levels up to 2 sy by load control, each
  -- settled by overdamped dynamics (no overshoot, which would yield the strip further)
  local E, sy, Et, L, w, h = 2e11, 2.5e8, 2e10, 0.1, 0.02, 0.005
  local strip = cl.fpm.cantilever { kind = "shell", length = L, elements = 4, width = w, thickness = h,
    material = cl.fpm.j2 { E = E, nu = 0.3, rho = steel.rho, sy = sy, Et = Et } }
  strip:fix { where = "x < 1e-9", dofs = { "x" } }
  strip:fix { where = "x < 1e-9 and y < 0", dofs = { "y" } }
  strip:fix { where = function() return true end, dofs = { "z", "rx", "ry", "rz" } }
  strip:load { where = "x > " .. L .. " - 1e-9", fx = "t * " .. w * h / 2 } -- t: the stress
  local omega = math.pi / 2 * math.sqrt(E / steel.rho) / L -- the first axial mode
  local static = cl.fpm.static { strip, xi = 4 * omega, tol = 1e-5, every = 100, max_steps = 100000 }
  local worst = 0
  for _, ratio in ipairs { 0.5, 0.9, 1.1, 1.3, 1.6, 2.0 } do
    local sigma = ratio * sy
    static:settle(sigma)
    local strain = strip.d[strip:select("x > " .. L .. " - 1e-9"):to_table()[1]][1] / L
    local expected = sigma <= sy and sigma / E or sy / E + (sigma - sy) / Et
    worst = math.max(worst, math.abs(strain / expected - 1))
    T.near(strain, expected, 0.01, string.format("strain at %.1f sy", ratio))
  end
  print(string.format("    shell strip in tension: strain within %.2g of the bilinear curve up to 2 sy", worst))
end)

T.case("J2 shells: a strip bent by an end moment holds 0.98 Mp and collapses at 1.02 Mp (Mp = sy t^2 / 4 per width)", function()
  -- elastic-perfectly plastic, nu = 0; the moment about y at the free end, uniform along the strip;
  -- each level settled by critically damped dynamics within the same budget of steps
  local E, sy, L, w, h = 2e11, 2.5e8, 0.05, 0.02, 0.005
  local Mp = sy * h * h / 4 * w
  local function strip_under(ratio, layers)
    local strip = cl.fpm.cantilever { kind = "shell", length = L, elements = 4, width = w, thickness = h,
      layers = layers, material = cl.fpm.j2 { E = E, nu = 0, rho = steel.rho, sy = sy } }
    strip:fix { where = "x < 1e-9" }
    strip:load { where = "x > " .. L .. " - 1e-9", my = "-t * " .. Mp / 2 }
    -- the first bending mode of the cantilever: 3.516 sqrt(EI / (m L^4))
    local omega = 3.516 * math.sqrt(E * h * h / 12 / steel.rho) / L ^ 2
    local static = cl.fpm.static { strip, xi = 2 * omega, tol = 1e-6, every = 100, max_steps = 5000 }
    for _, r in ipairs { 0.5, 0.9, ratio } do static:settle(r) end
    local tip = strip:select("x > " .. L .. " - 1e-9"):to_table()[1]
    return strip.d[tip][3] * 2 / L ^ 2 / (2 * sy / E / h) -- w = kappa x^2 / 2: kappa over the first yield's
  end
  -- the curvature at 0.98 Mp: the exact section's is 4.08 times the first yield's; 5 Simpson points
  -- reach Mp as soon as the quarter points yield, at twice it (9 points: 2.78, measured)
  local kappa = strip_under(0.98, 5)
  print(string.format("    strip at 0.98 Mp, 5 layers: curvature %.3g of the first yield's", kappa))
  T.ok(kappa > 1 and kappa < 2, "yielded, below the 5-point section's full plastic curvature (2)")
  T.raises(function() strip_under(1.02, 5) end, { "no equilibrium", "t = 1.02" })
end)

T.case("compressed annulus of hexahedra: energy balance within 1%, the centre's history converging", function()
  -- the issue's case 6 with our geometry and material (the paper's are in a figure), the one
  -- cl.fpm.compressed_annulus defines for this test and scripts/bench/fpm_annulus.lua: a quarter ring,
  -- radii 0.1 and 0.15 m, thickness 0.02 m, E = 2 GPa, nu = 0.3, rho = 1000; the pressure ramped to
  -- 5.25 MPa over 5 ms on the outer face within 15 degrees of x, undamped, 0.02 s; the centre
  -- particle of the loaded face sampled every ms on 6 x 2, 12 x 4 and 24 x 8 cells. Measured: balance 1.9e-5, 6.4e-6, 9.8e-7; RMS differences of the histories
  -- 4.7e-4 and 2.1e-4 m (of ~3e-3 m).
  local function history(around)
    local u, balance = cl.fpm.compressed_annulus { around = around }
    T.ok(balance <= 0.01, string.format("energy balance %.3g of the external work (around %d)", balance, around))
    T.ok(u[20] < 0, "the loaded face moves inwards")
    return u
  end
  local h = { history(6), history(12), history(24) }
  local function rms(a, c)
    local s = 0
    for k = 1, 20 do s = s + (a[k] - c[k]) ^ 2 end
    return math.sqrt(s / 20)
  end
  local d1, d2 = rms(h[1], h[2]), rms(h[2], h[3])
  print(string.format("    annulus: RMS history differences %.3g m (6 -> 12), %.3g m (12 -> 24)", d1, d2))
  T.ok(d2 <= 0.6 * d1, "the histories converge (the difference shrinks with the cells)")
end)

T.case("mesh files: shells and hexahedra from Gmsh (2.2, 4.1) and Abaqus (S3, C3D8) with their groups", function()
  local dir = T.outdir("fpm_mesh")
  local function write(name, text)
    local f = assert(io.open(dir .. "/" .. name, "w"))
    f:write(text)
    f:close()
    return dir .. "/" .. name
  end
  local function sorted(list) -- integers (a field's rows come back as numbers) in order, as text
    local copy = {}
    for i, v in ipairs(list) do copy[i] = math.tointeger(v) end
    table.sort(copy)
    return table.concat(copy, " ")
  end
  local function cells(body) return body.conn:to_table() end
  -- two triangles in space (z = 0.5 on the far edge), a physical line "edge" and surface "plate"; a
  -- point without a group is skipped
  local shell_msh = write("plate.msh", [[
$MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
2
1 1 "edge"
2 2 "plate"
$EndPhysicalNames
$Nodes
4
1 0 0 0
2 1 0 0
3 1 1 0.5
4 0 1 0.5
$EndNodes
$Elements
4
1 15 2 0 1 1
2 1 2 1 1 1 2
3 2 2 2 1 1 2 3
4 2 2 2 1 1 3 4
$EndElements
]])
  local shell_inp = write("plate.inp", [[
** the same plate as S3 shells
*NODE
1, 0, 0, 0
2, 1, 0, 0
3, 1, 1, 0.5
4, 0, 1, 0.5
*ELEMENT, TYPE=S3, ELSET=plate
10, 1, 2, 3
11, 1, 3, 4
*NSET, NSET=edge
1, 2
]])
  for _, path in ipairs { shell_msh, shell_inp } do
    local plate = cl.fpm.read { path = path, thickness = 0.01, material = elastic() }
    T.eq(plate.kind, "shell", path .. ": shells")
    T.eq(plate.n, 4, path .. ": particles")
    T.eq(plate.points[3][3], 0.5, path .. ": z kept")
    local c = cells(plate)
    T.eq(#c, 2, path .. ": triangles")
    T.eq(sorted(c[2]), "0 2 3", path .. ": the second triangle's particles (0-based)")
    T.eq(sorted(plate:select { group = "edge" }:to_table()), "1 2", path .. ": group 'edge'")
    T.eq(sorted(plate:select { group = "plate" }:to_table()), "1 2 3 4", path .. ": group 'plate'")
    -- the area of the two triangles: 1 x sqrt(1 + 0.25)
    T.near(plate.mass:sum(), steel.rho * 0.01 * math.sqrt(1.25), 1e-12, path .. ": mass = rho t area")
  end
  -- two hexahedra along x (0..2 x 0..1 x 0..1): Gmsh 4.1 with the face x = 0 as a physical surface of
  -- a quadrangle and the volume as "solid"; Abaqus C3D8 with *NSET root and the *ELSET of the second
  local X = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 1, 0, 1 }, { 1, 1, 1 }, { 0, 1, 1 },
    { 2, 0, 0 }, { 2, 1, 0 }, { 2, 0, 1 }, { 2, 1, 1 } }
  local tags, coords, nodes = {}, {}, {}
  for i, p in ipairs(X) do
    tags[i] = tostring(i)
    coords[i] = table.concat(p, " ")
    nodes[i] = i .. ", " .. table.concat(p, ", ")
  end
  local hex_msh = write("bar.msh", "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n2 1 \"root\"\n" ..
    "3 2 \"solid\"\n$EndPhysicalNames\n$Entities\n0 0 1 1\n1 0 0 0 0 1 1 1 1 0\n1 0 0 0 2 1 1 1 2 0\n$EndEntities\n" ..
    "$Nodes\n1 12 1 12\n3 1 0 12\n" .. table.concat(tags, "\n") .. "\n" .. table.concat(coords, "\n") ..
    "\n$EndNodes\n$Elements\n2 3 1 3\n2 1 3 1\n1 1 4 8 5\n3 1 5 2\n2 1 2 3 4 5 6 7 8\n3 2 9 10 3 6 11 12 7\n" ..
    "$EndElements\n")
  local hex_inp = write("bar.inp", "*NODE\n" .. table.concat(nodes, "\n") .. "\n*ELEMENT, TYPE=C3D8R, ELSET=solid\n" ..
    "1, 1, 2, 3, 4, 5, 6, 7, 8\n2, 2, 9, 10, 3, 6, 11, 12,\n7\n*NSET, NSET=root\n1, 4, 8, 5\n*ELSET, ELSET=last\n2\n")
  local box = cl.fpm.box { x = { 0, 2 }, y = { 0, 1 }, z = { 0, 1 }, nx = 2, ny = 1, nz = 1, material = elastic() }
  for _, path in ipairs { hex_msh, hex_inp } do
    local bar = cl.fpm.read { path = path, material = elastic() }
    T.eq(bar.kind, "hex", path .. ": hexahedra")
    T.eq(#cells(bar), 2, path .. ": two hexahedra")
    T.eq(sorted(bar:select { group = "root" }:to_table()), "1 4 5 8", path .. ": group 'root' (the face x = 0)")
    T.eq(#bar:select { group = "solid" }:to_table(), 12, path .. ": group 'solid'")
    T.near(bar.mass:sum(), box.mass:sum(), 1e-12, path .. ": the generator's mass")
    T.near(bar:stable_dt(), box:stable_dt(), 1e-12, path .. ": the generator's stable step")
  end
  T.eq(sorted(cl.fpm.read { path = hex_inp, material = elastic() }:select { group = "last" }:to_table()),
    "2 3 6 7 9 10 11 12", "an *ELSET names its elements' nodes")
  T.raises(function() cl.fpm.read { path = dir .. "/bar.vtu", material = elastic() } end, { "'path'", ".msh", ".inp" })
  T.raises(function() cl.fpm.read { path = hex_inp, thickness = 0.1, material = elastic() } end,
    { "hexahedra", "'thickness'" })
  T.raises(function() cl.fpm.read { path = write("tet.inp", "*NODE\n1, 0, 0, 0\n2, 1, 0, 0\n3, 0, 1, 0\n4, 0, 0, 1\n" ..
    "*ELEMENT, TYPE=C3D4\n1, 1, 2, 3, 4\n"), material = elastic() } end, { "C3D4", "S3", "C3D8" })
  T.raises(function() cl.fpm.read { path = write("quads.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n" ..
    "1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n$EndNodes\n$Elements\n1\n1 3 2 0 1 1 2 3 4\n$EndElements\n"),
    material = elastic() } end, { "no triangles (element type 2) or hexahedra (type 5)" })
  T.raises(function() cl.fpm.read { path = write("mixed.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n8\n" ..
    "1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n5 0 0 1\n6 1 0 1\n7 1 1 1\n8 0 1 1\n$EndNodes\n$Elements\n2\n" ..
    "1 2 2 0 1 1 2 3\n2 5 2 0 1 1 2 3 4 5 6 7 8\n$EndElements\n"), material = elastic() } end,
    { "mixed.msh:", "one kind of cell per file" })
end)

T.case("pressure on hexahedra: the boundary faces' consistent load; a follower on hexahedra is refused", function()
  -- a unit cube pressed on its top: p A / 4 on each of the top face's corners, along -z
  local cube = cl.fpm.box { x = { 0, 1 }, y = { 0, 1 }, z = { 0, 1 }, nx = 2, ny = 2, nz = 2, material = elastic() }
  cube:pressure { where = "z > 1 - 1e-9", p = 8 }
  T.raises(function() cube:pressure { where = "z > 1 - 1e-9", p = 8, follower = true } end, { "follower", "hexahedra" })
  T.raises(function() cube:pressure { where = "z > 0.4 and z < 0.6", p = 8 } end, { "no boundary face" })
  local run = cl.fpm.explicit { cube, steps = 1, progress = false }
  run:go()
  local f = cube.fext:to_table()
  local top = cube:select("z > 1 - 1e-9"):to_table()
  local sum = 0
  for _, i in ipairs(top) do
    local p = cube.points[i]
    local faces = (p[1] == 0.5 and 2 or 1) * (p[2] == 0.5 and 2 or 1) -- faces of 0.5 x 0.5 at the particle
    T.near(f[i][3], -8 * 0.25 * faces / 4, 1e-12, "corner load")
    T.near(f[i][1], 0, 1e-12, "no tangential load", 1)
    sum = sum + f[i][3]
  end
  T.near(sum, -8, 1e-12, "total = p A")
end)

T.case("PNG of the deformed shape: shells, hexahedra and beams from a view direction", function()
  local dir = T.outdir("fpm_png")
  local shell = cl.fpm.cylinder { radius = 1, length = 2, thickness = 0.01, part = "half", around = 8, along = 4,
    material = elastic() }
  shell.d:assign(function(i) local p = shell.points[i] return 0, -0.1 * p[3] * p[2], 0 end)
  shell:png { path = dir .. "/cylinder.png", field = "dy", view = { 1, 1, 1 } }
  local ring = cl.fpm.annulus { inner = 1, outer = 1.5, thickness = 0.2, part = "quarter", around = 6, radial = 2,
    material = elastic() }
  ring:png { path = dir .. "/annulus.png", view = { 0, 0, 1 } }
  local beam = cl.fpm.cantilever { kind = "beam", length = 1, elements = 4, material = elastic(),
    section = { b = 0.1, h = 0.1 } }
  local run = cl.fpm.explicit { beam, steps = 2, progress = false, output = { png = { path = dir .. "/beam.png",
    view = { 0, 1, 0 } } } }
  run:go()
  for _, name in ipairs { "cylinder", "annulus", "beam" } do
    T.eq(T.read(dir .. "/" .. name .. ".png"):sub(2, 4), "PNG", name .. ".png is a PNG file")
  end
  T.raises(function() ring:png { path = dir .. "/x.png", field = "stress" } end, { "'field'" })
  T.raises(function() ring:png { path = dir .. "/x.png", view = { 0, 0, 0 } } end, { "'view'" })
  T.raises(function() ring:png { path = dir .. "/x.png", view = { 0, 0, 1 }, up = { 0, 0, 2 } } end, { "'up'" })
end)

T.case("output: VTU series, CSV energies, checkpoint and restore", function()
  local dir = T.outdir("fpm_output")
  local function make()
    local body = cl.fpm.cantilever { kind = "beam", length = 1, elements = 6, material = elastic(),
      section = { b = 0.02, h = 0.03 } }
    body:fix { where = "x < 1e-9" }
    body:load { where = "x > 1 - 1e-9", fz = "-50 * min(t / 1e-3, 1)", my = 3 }
    return body
  end
  local straight = make()
  local run = cl.fpm.explicit { straight, steps = 200, xi = 50, progress = false,
    output = { every = 50, vtu = dir .. "/beam", csv = dir .. "/beam.csv", checkpoint = dir .. "/beam.ckpt" } }
  run:go { steps = 100 }
  run:go()
  local pvd = io.open(dir .. "/beam.pvd"):read("a")
  T.eq(select(2, pvd:gsub("<DataSet", "")), 5, "VTU files at steps 0, 50, ..., 200")
  local lines = {}
  for line in io.lines(dir .. "/beam.csv") do lines[#lines + 1] = line end
  T.eq(lines[1], "step,t,kinetic,strain,internal_work,external_work,damping,constraint_work,balance", "CSV header")
  T.eq(#lines, 6, "CSV rows at steps 0, 50, ..., 200")
  -- a run restored from a checkpoint of step 100 ends where the straight run did
  local again = make()
  local resumed = cl.fpm.explicit { again, steps = 200, xi = 50, progress = false }
  local first = cl.fpm.explicit { make(), steps = 100, xi = 50, progress = false }
  first:go()
  first:save(dir .. "/half.ckpt")
  resumed:restore(dir .. "/half.ckpt")
  T.eq(resumed.step, 100, "restored step")
  resumed:go()
  local a, b = straight.d:to_table(), again.d:to_table()
  for i = 1, straight.n do
    for c = 1, 3 do T.near(b[i][c], a[i][c], 1e-12, "displacement after restore", 1e-12) end
  end
  T.near(again:energies().external, straight:energies().external, 1e-12, "work after restore")
end)

T.case("CPU and CUDA agree (f64, 1e-10 on displacements after 100 steps), every element type, both assemblies", function()
  if not gpu then T.skip("needs a usable GPU") end
  local function displacements(device, kind, assembly)
    return T.on_device(device, function()
      -- "shell_j2": J2 shells that yield (sy = 1 MPa) under the same loads
      local j2 = cl.fpm.j2 { E = steel.E, nu = 0.3, rho = steel.rho, sy = 1e6, Et = 2e10 }
      local body = kind == "beam" and cl.fpm.cantilever { kind = "beam", length = 1, elements = 12, material = elastic(),
        section = { b = 0.02, h = 0.03 }, orient = { 0, 1, 1 }, assembly = assembly } or kind:match("^shell") and
        cl.fpm.cantilever { kind = "shell", length = 0.4, elements = 8, width = 0.1, ny = 2, thickness = 0.01,
        material = kind == "shell" and elastic() or j2, assembly = assembly } or cl.fpm.cantilever { kind = "hex",
        length = 0.4, elements = 8, width = 0.1, height = 0.1, ny = 2, nz = 2, assembly = assembly, material = cl.fpm.j2 { E = steel.E, nu = 0.3,
        rho = steel.rho, sy = 1e6, Et = 2e10 } }
      body:fix { where = "x < 1e-9" }
      body:load { where = "x > 0.39", fz = "-1e4 * min(t / 1e-5, 1)", fy = 3e3 }
      cl.fpm.explicit { body, steps = 100, xi = 10, progress = false }:go()
      return body.d:to_table(), body.d:norm()
    end)
  end
  for _, kind in ipairs { "beam", "shell", "shell_j2", "hex" } do
    for _, assembly in ipairs { "scatter", "gather" } do
      local a, scale = displacements("cpu", kind, assembly)
      local b = displacements("cuda", kind, assembly)
      local worst = 0
      for i = 1, #a do
        for c = 1, 3 do worst = math.max(worst, math.abs(a[i][c] - b[i][c])) end
      end
      print(string.format("    %s, %s: largest CPU-CUDA difference %.3g of |d| = %.3g", kind, assembly, worst, scale))
      T.ok(worst <= 1e-10 * scale, kind .. ", " .. assembly .. ": CPU and CUDA displacements")
    end
  end
end)

T.case("kernel variants: every GPU build of the shell and hexahedron kernels gives the default's displacements", function()
  -- J2 shells and hexahedra that yield, scatter, 100 steps; on the CPU the variants run its one loop
  -- (identical results), on CUDA the builds differ in registers and launch shape only: the same
  -- operations, the atomics' order aside (1e-10 of |d|, as CPU against CUDA)
  local function displacements(device, kind, variant)
    return T.on_device(device, function()
      local before = cl.fpm.kernel_variant { [kind] = variant }
      local j2 = cl.fpm.j2 { E = steel.E, nu = 0.3, rho = steel.rho, sy = 1e6, Et = 2e10 }
      local body = kind == "shell" and cl.fpm.cantilever { kind = "shell", length = 0.4, elements = 8, width = 0.1,
        ny = 2, thickness = 0.01, material = j2 } or cl.fpm.cantilever { kind = "hex", length = 0.4, elements = 8,
        width = 0.1, height = 0.1, ny = 2, nz = 2, material = j2 }
      body:fix { where = "x < 1e-9" }
      body:load { where = "x > 0.39", fz = "-1e4 * min(t / 1e-5, 1)", fy = 3e3 }
      cl.fpm.explicit { body, steps = 100, xi = 10, progress = false }:go()
      cl.fpm.kernel_variant(before)
      return body.d:to_table(), body.d:norm()
    end)
  end
  local defaults = cl.fpm.kernel_variant {}
  for _, device in ipairs(gpu and { "cpu", "cuda" } or { "cpu" }) do
    for _, kind in ipairs { "shell", "hex" } do
      local default = kind == "hex" and defaults.hex.j2 or defaults[kind] -- the bodies are J2
      local a, scale = displacements(device, kind, default)
      for _, variant in ipairs(cl.fpm.kernel_variants[kind]) do
        local b = displacements(device, kind, variant)
        local worst = 0
        for i = 1, #a do
          for c = 1, 3 do worst = math.max(worst, math.abs(a[i][c] - b[i][c])) end
        end
        print(string.format("    %s, %s, %s: largest difference from %s %.3g of |d| = %.3g", device, kind, variant,
          default, worst, scale))
        T.ok(worst <= (device == "cpu" and 0 or 1e-10 * scale), device .. ", " .. kind .. ", " .. variant)
      end
    end
  end
  T.eq(cl.fpm.kernel_variant {}.shell, defaults.shell, "the variants are restored")
  T.raises(function() cl.fpm.kernel_variant { shell = "lb64" } end, { "'shell'", "default", "lb128x4" })
  T.raises(function() cl.fpm.kernel_variant { hex = 8 } end, { "'hex'", "lanes96", "element" })
  T.raises(function() cl.fpm.kernel_variant { beam = "x" } end, { "beam" })
end)

T.case("kernel variants: hexahedra choose their build per law; a name sets every law's, a table the laws it names",
  function()
  -- the defaults are the fastest builds of the lead's H100 run (docs/benchmarks.md)
  local defaults = cl.fpm.kernel_variant {}
  T.eq(defaults.hex.elastic, "element", "elastic default")
  T.eq(defaults.hex.j2, "lanes128", "J2 default")
  T.eq(defaults.hex.user, "lanes256", "user law default")
  T.eq(cl.fpm.kernel_variant { hex = { j2 = "lanes96" } }.hex.j2, "lanes128", "the result is the state before")
  local now = cl.fpm.kernel_variant { hex = "lanes128x5" }
  T.eq(now.hex.j2, "lanes96", "a table set only the laws it names")
  T.eq(now.hex.elastic, "element", "a table left the other laws")
  now = cl.fpm.kernel_variant(defaults)
  T.ok(now.hex.elastic == "lanes128x5" and now.hex.j2 == "lanes128x5" and now.hex.user == "lanes128x5",
    "a name set every law's")
  T.eq(cl.fpm.kernel_variant {}.hex.user, "lanes256", "restored from the table kernel_variant returned")
  T.raises(function() cl.fpm.kernel_variant { hex = { plastic = "element" } } end, { "plastic" })
  T.raises(function() cl.fpm.kernel_variant { hex = { j2 = "lanes64" } } end, { "'hex.j2'", "lanes128" })
end)

T.case("bad input is named", function()
  local m = elastic()
  T.raises(function() cl.fpm.elastic { E = 0, rho = 1 } end, { "'E'" })
  T.raises(function() cl.fpm.elastic { E = 1e9, rho = -1 } end, { "'rho'" })
  T.raises(function() cl.fpm.elastic { E = 1e9, rho = 1, nu = 0.5 } end, { "'nu'", "[0, 0.5)" })
  T.raises(function() cl.fpm.j2 { E = 1e9, rho = 1, sy = 1e6, Et = 2e9 } end, { "'Et'" })
  T.raises(function() cl.fpm.elastic { E = 1e9, rho = 1, G = 3 } end, { "G" })
  -- the hexahedron's state layouts: the stage and the module name what they need
  local cube = cl.fpm.box { x = { 0, 1 }, y = { 0, 1 }, z = { 0, 1 }, nx = 1, ny = 1, nz = 1, material = m }
  T.raises(function() m.law:fpm_hex_module(cube.x0, nil, "stored") end, { "'state'", "incremental", "plastic" })
  local total = m.law:fpm_hex_module(cube.x0, nil, "total")
  local function hex_stage(extra)
    local args = { conn = cube.conn, x0 = cube.x0, d = cube.d, f = cube.f, law = total }
    for k, v in pairs(extra) do args[k] = v end
    return cl.stage.fpm_hex(args)
  end
  T.raises(function() hex_stage { state = "stored" } end, { "'state'", "\"total\"" })
  T.raises(function() hex_stage {} end, { "'sig'" }) -- incremental (the default) needs the stress and strain
  T.raises(function() hex_stage { state = "plastic" } end, { "'plastic'" })
  local plastic = cl.field { n = 8, k = 6 }
  T.raises(function() hex_stage { state = "plastic", plastic = plastic } end, { "'E'" })
  T.raises(function() hex_stage { state = "total", plastic = plastic } end, { "'plastic'", "\"plastic\"" })
  hex_stage { state = "total" }:run() -- the elastic layout keeps nothing
  T.raises(function() cl.fpm.cantilever { kind = "beam", length = 1, elements = 2, material = m,
    section = { b = 0.1, h = 0.1 } }:stress() end, { "body:stress", "hexahedra" })
  local pts = { { 0, 0, 0 }, { 1, 0, 0 } }
  T.raises(function() cl.fpm.body { points = pts, beams = { { 1, 2 } }, material = m, section = { b = 0.1, h = 0 } } end,
    { "'h'" })
  T.raises(function() cl.fpm.body { points = pts, beams = { { 1, 2 } }, material = m, section = { b = 0.1, h = 0.1 } } end,
    { "'orient'" })
  T.raises(function()
    cl.fpm.body { points = pts, beams = { { 1, 2 } }, material = m, section = { b = 0.1, h = 0.1 }, orient = { 2, 0, 0 } }
  end, { "beam 1", "'orient'" })
  T.raises(function() cl.fpm.body { points = pts, beams = { { 1, 3 } }, material = m, section = { b = 1, h = 1 },
    orient = { 0, 1, 0 } } end, { "particle 3" })
  T.raises(function() cl.fpm.body { points = { { 0, 0, 0 }, { 1, 0, 0 }, { 2, 0, 0 } }, shells = { { 1, 2, 3 } },
    thickness = 0.01, material = m } end, { "shell 1", "degenerate" })
  T.raises(function() cl.fpm.body { points = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } }, shells = { { 1, 2, 3 } },
    thickness = 0, material = m } end, { "'thickness'" })
  T.raises(function() cl.fpm.body { points = { { 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } }, shells = { { 1, 2, 3 } },
    thickness = 0.01, material = cl.fpm.material { law = cl.fpm.j2 { E = 1e9, rho = 1, sy = 1e6 }.law, E = 1e9, rho = 1 } }
  end, { "shells take cleave.fpm.elastic{...} or cleave.fpm.j2{...}" })
  local cube = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 1, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 1, 0, 1 }, { 1, 1, 1 }, { 0, 1, 1 } }
  T.raises(function() cl.fpm.body { points = cube, hexes = { { 5, 6, 7, 8, 1, 2, 3, 4 } }, material = m } end,
    { "hexahedron 1", "inverted", "VTK order" })
  local flat = {}
  for i, p in ipairs(cube) do flat[i] = { p[1], p[2], 0 } end
  T.raises(function() cl.fpm.body { points = flat, hexes = { { 1, 2, 3, 4, 5, 6, 7, 8 } }, material = m } end,
    { "hexahedron 1", "degenerate" })
  T.raises(function() cl.fpm.box { x = { 0, 1 }, y = { 0, 1 }, z = { 1, 0 }, nx = 1, ny = 1, nz = 1, material = m } end,
    { "'z'" })
  local body = cl.fpm.box { x = { 0, 1 }, y = { 0, 1 }, z = { 0, 1 }, nx = 1, ny = 1, nz = 1, material = m }
  T.raises(function() body:fix { where = "x > 2" } end, { "holds no particle" })
  local frame = cl.fpm.cantilever { kind = "beam", length = 1, elements = 2, material = m, section = { b = 0.1, h = 0.1 } }
  T.raises(function() frame:pressure { p = 1 } end, { "pressure acts on shell and hexahedron faces", "body:load" })
  T.raises(function() body:pressure { p = "1 +* t" } end, { "body:pressure: p:", "column 4" })
  T.raises(function() body:load { where = "x > 0.5", mx = 1 } end, { "'mx'", "only beams" })
  T.raises(function() body:fix { where = "x > 0.5", dofs = { "rz" } } end, { "'rz'" })
  T.raises(function() body:load { where = "x > 0.5", fx = "1 +* t" } end, { "fx" })
  T.raises(function() cl.fpm.explicit { body, dt = 10 * body:stable_dt(), steps = 1 } end,
    { "'dt'", "exceeds the stable time step", string.format("%g", body:stable_dt()) })
  T.raises(function() cl.fpm.explicit { body, steps = 1, xi = -1 } end, { "'xi'" })
  T.raises(function() cl.fpm.explicit { body, steps = 1, spets = 1 } end, { "spets" })
  T.raises(function() cl.fpm.cantilever { kind = "plate", length = 1, elements = 1, material = m } end, { "'kind'" })
  local moving = cl.fpm.box { x = { 0, 1 }, y = { 0, 1 }, z = { 0, 1 }, nx = 1, ny = 1, nz = 1, material = m }
  moving:velocity { where = "x > 0.5", vx = 1 }
  T.raises(function() cl.fpm.static { moving, xi = 1 } end, { "prescribed velocity", "body:fix" })
  T.raises(function() cl.fpm.static { body, xi = 1, criterion = "energy" } end, { "'criterion'" })
  T.raises(function() cl.fpm.static { body, xi = 1, dt = 10 * body:stable_dt() } end, { "'dt'", "stable step" })
  T.raises(function() cl.fpm.static { body } end, { "'xi'" })
  T.raises(function() cl.fpm.cantilever { kind = "shell", length = 1, elements = 1, width = 1, thickness = 0.01,
    layers = 4, material = m } end, { "'layers'", "odd" })
  T.raises(function() cl.fpm.box { x = { 0, 1 }, y = { 0, 1 }, z = { 0, 1 }, nx = 1, ny = 1, nz = 1, material = m,
    assembly = "atomic" } end, { "'assembly'" })
end)

T.run()
