-- cleave.fe.cavity_reference: an independent 1D reference for the Mohr-Coulomb wellbore (paper
-- 002's verification, issue 14 case 2): the axisymmetric plane-strain cylinder a..b as an ODE in r,
-- integrated with an adaptive Dormand-Prince Runge-Kutta 5(4) pair, shooting on the outer
-- displacement so that the hole's radial stress is met. Nothing here uses the FE code: the
-- state is (sigma_r, u) along r, the law is written out for the two regimes the cavity goes
-- through (elastic; perfectly plastic on the main plane with sigma_z intermediate), and the
-- elastic-plastic boundary is found as the event where the yield function crosses zero.
local cl = ...
local fe = cl.fe

-- Dormand-Prince 5(4) tableau (Hairer, Norsett & Wanner, table 5.2)
local C = { 0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1 }
local A = {
  {},
  { 1 / 5 },
  { 3 / 40, 9 / 40 },
  { 44 / 45, -56 / 15, 32 / 9 },
  { 19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729 },
  { 9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656 },
  { 35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84 },
}
local B5 = { 35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0 }
local B4 = { 5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40 }

-- one step of size h from (r, y): the 5th-order result and its error estimate against the 4th
local function dp_step(f, r, y, h)
  local k = {}
  for s = 1, 7 do
    local ys = {}
    for i = 1, #y do
      local v = y[i]
      for j = 1, s - 1 do v = v + h * A[s][j] * k[j][i] end
      ys[i] = v
    end
    k[s] = f(r + C[s] * h, ys)
  end
  local y5, err = {}, {}
  for i = 1, #y do
    local v, e = y[i], 0
    for s = 1, 7 do v, e = v + h * B5[s] * k[s][i], e + h * (B5[s] - B4[s]) * k[s][i] end
    y5[i], err[i] = v, e
  end
  return y5, err
end

-- Integrates y' = f(r, y) from r0 to r1 (either direction) with error control (rtol, atol per
-- component). event(r, y) -> g: if g changes sign from negative to positive within a step, the
-- integration stops at the root (bisected on the step to 1e-14 of r) and returns r*, y*, true.
local function integrate(f, r0, y0, r1, rtol, atol, event)
  local r, y, h = r0, y0, (r1 - r0) / 64
  local steps = 0
  while (r1 - r) * h > 0 do
    if math.abs(h) > math.abs(r1 - r) then h = r1 - r end
    local y1, err = dp_step(f, r, y, h)
    local q = 0
    for i = 1, #y do q = math.max(q, math.abs(err[i]) / (atol[i] + rtol * math.max(math.abs(y[i]), math.abs(y1[i])))) end
    if q <= 1 then
      if event and event(r, y) < 0 and event(r + h, y1) >= 0 then
        local lo, hi = 0, h -- event(r + lo) < 0 <= event(r + hi)
        while math.abs(hi - lo) > 1e-14 * math.abs(r) do
          local mid = (lo + hi) / 2
          if event(r + mid, (dp_step(f, r, y, mid))) < 0 then lo = mid else hi = mid end
        end
        return r + hi, (dp_step(f, r, y, hi)), true
      end
      r, y = r + h, y1
    end
    h = h * math.min(5, math.max(0.2, 0.9 * (q > 0 and q ^ -0.2 or 5)))
    steps = steps + 1
    if steps > 100000 then error("cleave.fe.cavity_reference: the Runge-Kutta integration does not advance", 3) end
  end
  return r, y, false
end

--- cl.fe.cavity_reference{ a =, b =, p =, pb = 0, P0 = 0, E =, nu =, c =, phi =, tol = 1e-11 }
--- -> { R = plastic radius (nil when elastic), u_b =, sample = function(rs) -> { {r, sigma_r,
--- sigma_theta, sigma_z, u}, ... } }: the plane-strain thick cylinder a..b of an associative,
--- perfectly plastic Mohr-Coulomb medium (tension positive, phi in degrees) under the pressures p
--- at the hole and pb outside (compression positive), starting from the isotropic in-situ stress
--- -P0 (whose own strain is not counted), loaded monotonically. The plastic zone must lie on the
--- main plane of the yield surface with sigma_z intermediate (the cavity problems of issue 14): a
--- solution that leaves it raises an error rather than being wrong.
function fe.cavity_reference(args)
  local fn = "cleave.fe.cavity_reference"
  cl.check_args(fn, args, { a = true, b = true, p = true, pb = true, P0 = true, E = true, nu = true, c = true,
    phi = true, tol = true })
  for _, key in ipairs { "a", "b", "p", "E", "nu", "c", "phi" } do
    if type(args[key]) ~= "number" then error(fn .. ": '" .. key .. "' must be a number", 2) end
  end
  local a, b, p, pb, P0 = args.a, args.b, args.p, args.pb or 0, args.P0 or 0
  local E, nu, c, tol = args.E, args.nu, args.c, args.tol or 1e-11
  if not (a > 0 and b > a) then error(fn .. ": give 0 < a < b (the radii)", 2) end
  local s = math.sin(math.rad(args.phi))
  local k = 2 * c * math.cos(math.rad(args.phi))
  local G, lam = E / (2 * (1 + nu)), E * nu / ((1 + nu) * (1 - 2 * nu))
  -- the in-situ stress -P0 is counted in sigma_r (the state) and the yield check; strains are of the change
  local function elastic(r, y)
    local dsr, et = y[1] + P0, y[2] / r
    local er = (dsr - lam * et) / (lam + 2 * G)
    local st = -P0 + lam * er + (lam + 2 * G) * et
    return { (st - y[1]) / r, er }, st, -P0 + lam * (er + et)
  end
  local function yield(r, y)
    local _, st, sz = elastic(r, y)
    local hi, lo = math.max(y[1], st, sz), math.min(y[1], st, sz)
    return (hi - lo) + (hi + lo) * s - k
  end
  -- plastic on the main plane: the most tensile of sigma_r, sigma_theta is "1", the other "3",
  -- sigma_1 (1 + s) - sigma_3 (1 - s) = k; associative flow: eps_1^p = l (1 + s), eps_3^p = -l (1 - s),
  -- eps_z^p = 0, so sigma_z = -P0 + nu (dsigma_r + dsigma_theta) and the plastic strains keep the ratio
  local expansion -- sigma_theta > sigma_r (set at the event)
  local function plastic(r, y)
    local sr = y[1]
    local st = expansion and (k + sr * (1 - s)) / (1 + s) or (sr * (1 + s) - k) / (1 - s)
    local dr, dt = sr + P0, st + P0
    local er = (1 + nu) / E * ((1 - nu) * dr - nu * dt)
    local et = (1 + nu) / E * ((1 - nu) * dt - nu * dr)
    local ratio = expansion and (1 - s) / (1 + s) or (1 + s) / (1 - s) -- -eps_r^p / eps_theta^p
    return { (st - sr) / r, er - ratio * (y[2] / r - et) }, st, -P0 + nu * (dr + dt)
  end
  local atol = { tol * math.max(p, pb, k, P0), tol * (math.abs(p) + math.abs(pb) + k) * b / G }
  -- from b inwards: elastic until the yield function reaches zero, then plastic to r_end
  local function shoot(u_b, r_end, on_point)
    local r, y, hit = integrate(elastic, b, { -pb, u_b }, r_end, tol, atol, yield)
    local R
    if hit then
      R = r
      local _, st = elastic(r, y)
      expansion = st > y[1]
      r, y = integrate(plastic, r, y, r_end, tol, atol)
    end
    return y, R
  end
  -- the Lame displacement at b (elastic, no in-situ strain) starts the search for u_b: sigma_r(a) + p
  -- decreases with u_b; bracket it, then the Illinois variant of regula falsi
  -- (sigma_r = Al - Bl / r^2, u = (1 + nu) / E ((1 - 2 nu) Al r + Bl / r))
  local Al, Bl = (p * a ^ 2 - pb * b ^ 2) / (b ^ 2 - a ^ 2), (p - pb) * a ^ 2 * b ^ 2 / (b ^ 2 - a ^ 2)
  local u0 = (1 + nu) / E * ((1 - 2 * nu) * Al * b + Bl / b)
  local function F(u_b) return shoot(u_b, a)[1] + p end
  local u1, F1 = u0, F(u0)
  local dir, step = F1 > 0 and 1 or -1, 1e-3 * math.max(math.abs(u0), atol[2])
  local lo, hi, Flo, Fhi
  for _ = 1, 200 do
    local u2 = u1 + dir * step
    local F2 = F(u2)
    if (F2 > 0) ~= (F1 > 0) then
      lo, Flo, hi, Fhi = u1, F1, u2, F2
      if dir < 0 then lo, Flo, hi, Fhi = u2, F2, u1, F1 end
      break
    end
    u1, F1, step = u2, F2, step * 2
  end
  if not lo then error(fn .. ": no outer displacement meets the hole's pressure", 2) end
  local side = 0
  for _ = 1, 200 do
    local u = (lo * Fhi - hi * Flo) / (Fhi - Flo)
    local Fu = F(u)
    if math.abs(Fu) <= tol * math.max(p, k) or hi - lo <= 1e-15 * math.abs(u) then lo, hi = u, u; break end
    if Fu > 0 then
      lo, Flo = u, Fu
      if side == 1 then Fhi = Fhi / 2 end
      side = 1
    else
      hi, Fhi = u, Fu
      if side == -1 then Flo = Flo / 2 end
      side = -1
    end
  end
  local u_b = (lo + hi) / 2
  local _, R = shoot(u_b, a)
  local ref = { R = R, u_b = u_b }
  -- the solution at the radii rs (in a..b), each integrated from b
  function ref.sample(rs)
    local out = {}
    for i, r in ipairs(rs) do
      if not (r >= a and r <= b) then error(fn .. ": sample radii must lie in [a, b]", 2) end
      local y = shoot(u_b, r)
      local law = (R and r < R) and plastic or elastic
      local _, st, sz = law(r, y)
      if R and r < R and (sz - y[1]) * (st - sz) < 0 then
        error(string.format("%s: at r = %g sigma_z = %g is not between sigma_r = %g and sigma_theta = %g: the " ..
          "plastic zone leaves the main plane, which this reference does not cover", fn, r, sz, y[1], st), 2)
      end
      out[i] = { r, y[1], st, sz, y[2] }
    end
    return out
  end
  return ref
end
