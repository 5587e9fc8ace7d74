-- Material-point laws of the stress_update and traction kinds (cleave.jit), driven on their own
-- (law:path, law:evaluate) on the current device: the built-in snippets against closed-form
-- answers, the J2 tangent against finite differences, the cohesive law's fracture energy.
local cl = require "cleave"
local T = require "testing"

local E, nu, sy, H = 200e9, 0.3, 250e6, 10e9
local mu, K = E / (2 * (1 + nu)), E / (3 * (1 - 2 * nu))

local function j2() return cl.jit.stress_update { name = "j2", source = cl.jit.law_source("j2"),
  params = { E = E, nu = nu, sy = sy, H = H }, state = { ep = 0 } } end

T.case("linear elasticity: sig = D eps and the tangent is D", function()
  local law = cl.jit.stress_update { source = cl.jit.law_source("elastic"), params = { E = E, nu = nu } }
  local eps = { 1e-3, -2e-4, 3e-4, 5e-4, -1e-4, 2e-4 }
  local r = law:path { steps = { eps } }[1]
  local lambda = E * nu / ((1 + nu) * (1 - 2 * nu))
  local tr = eps[1] + eps[2] + eps[3]
  for c = 1, 3 do T.near(r.output[c], lambda * tr + 2 * mu * eps[c], 1e-12, "normal stress " .. c) end
  for c = 4, 6 do T.near(r.output[c], mu * eps[c], 1e-12, "shear stress " .. c) end
  T.near(r.tangent[1], lambda + 2 * mu, 1e-12, "D11")
  T.near(r.tangent[2], lambda, 1e-12, "D12")
  T.near(r.tangent[22], mu, 1e-12, "D44")
end)

-- Uniaxial strain eps (others zero) with linear hardening: yield at 2 mu eps = sy, then
-- ep = (2 mu eps - sy) / (3 mu + H), sig_eq = sy + H ep, sig_xx = K eps + 2/3 sig_eq,
-- sig_yy = K eps - 1/3 sig_eq. Radial return is exact for this proportional path.
T.case("J2 under uniaxial strain follows the closed form, in one step or in many", function()
  local steps = {}
  for k = 1, 40 do steps[k] = { 1e-4, 0, 0, 0, 0, 0 } end
  local path = j2():path { steps = steps }
  for k, r in ipairs(path) do
    local eps = 1e-4 * k
    local ep = math.max(0, (2 * mu * eps - sy) / (3 * mu + H))
    local seq = ep > 0 and sy + H * ep or 2 * mu * eps
    T.near(r.state.ep, ep, 1e-9, "ep at step " .. k, 1e-12)
    T.near(r.output[1], K * eps + 2 / 3 * seq, 1e-10, "sig_xx at step " .. k)
    T.near(r.output[2], K * eps - 1 / 3 * seq, 1e-10, "sig_yy at step " .. k)
  end
  local one = j2():path { steps = { { 4e-3, 0, 0, 0, 0, 0 } } }[1]
  T.near(one.output[1], path[40].output[1], 1e-12, "one step of 4e-3 equals 40 of 1e-4")
  T.ok(path[40].state.ep > 0.001, "deep in the plastic range")
end)

T.case("J2: the consistent tangent matches finite differences of the update", function()
  -- a plastic state reached by a mixed path, then a further mixed increment
  local pre = { { 2e-3, -5e-4, 0, 0, 0, 1.5e-3 } }
  local base = j2():path { steps = pre }[1]
  local d = { 2e-4, 1e-4, -5e-5, 3e-5, 0, 1e-4 }
  local function update(inc)
    local law = j2()
    local input = cl.field { n = 1, k = 6 }
    local output = cl.field { n = 1, k = 6 }
    local ep = cl.field { n = 1, value = base.state.ep }
    local tangent = cl.field { n = 1, k = 36 }
    output[1] = base.output
    input[1] = inc
    law:evaluate { input = input, output = output, tangent = tangent, state = { ep = ep } }
    return output[1], tangent[1]
  end
  local _, D = update(d)
  local h = 1e-9
  for c = 1, 6 do
    local plus, minus = {}, {}
    for k = 1, 6 do plus[k], minus[k] = d[k], d[k] end
    plus[c], minus[c] = d[c] + h, d[c] - h
    local sp, sm = update(plus), update(minus)
    for r = 1, 6 do
      T.near(D[6 * (r - 1) + c], (sp[r] - sm[r]) / (2 * h), 1e-5, string.format("D[%d][%d]", r, c), mu)
    end
  end
end)

T.case("linear softening: the envelope, unloading to the origin, and the fracture energy", function()
  local smax, dc = 1e6, 1e-3
  local law = cl.jit.traction { source = cl.jit.law_source("linear_softening"),
    params = { sigma_max = smax, delta_c = dc, beta = 1 }, state = { dmax = 0 } }
  local path = law:path { steps = { { 0, 0 }, { 2e-4, 0 }, { 5e-4, 0 }, { 2.5e-4, 0 }, { 0, 0 }, { 8e-4, 0 }, { 1.1e-3, 0 }, { 5e-4, 0 } } }
  local expect = { smax, 0.8 * smax, 0.5 * smax, 0.25 * smax, 0, 0.2 * smax, 0, 0 }
  for k, r in ipairs(path) do T.near(r.output[1], expect[k], 1e-12, "tn at step " .. k, smax) end
  T.near(path[4].state.dmax, 5e-4, 1e-12, "the history keeps the largest opening")
  -- G_I = sigma_max delta_c / 2: the trapezoid rule is exact on the linear envelope
  local steps, N = {}, 1000
  for k = 0, N do steps[k + 1] = { dc * k / N, 0 } end
  local work = 0
  local rs = law:path { steps = steps }
  for k = 1, N do work = work + 0.5 * (rs[k].output[1] + rs[k + 1].output[1]) * dc / N end
  T.near(work, smax * dc / 2, 1e-9, "fracture energy")
  -- pure shear with beta = 2: d = beta |dt|, tt = beta^2 t dt / d
  local shear = cl.jit.traction { source = cl.jit.law_source("linear_softening"),
    params = { sigma_max = smax, delta_c = dc, beta = 2 }, state = { dmax = 0 } }:path { steps = { { 0, 1e-4 } } }[1]
  T.near(shear.output[2], 4 * smax * (1 - 2e-4 / dc) * 1e-4 / 2e-4, 1e-12, "shear traction")
  T.eq(shear.output[1], 0, "no normal traction in pure shear")
end)

-- ---- PPR (cleave.jit.ppr): Park, Paulino & Roesler 2009, unloading of Park & Paulino 2012 ----

local GI, GII, SMAX, TMAX = 100, 300, 2e6, 3e6

-- The monotonic PPR tractions from the papers' formulas as written (the unfactored brackets, Gamma
-- through the <.> exponents), computed here independently of cleave.jit.ppr's constants.
local function ppr_reference(a)
  local alpha, beta, ln, lt = a.alpha or 2, a.beta or 2, a.lambda_n or 0, a.lambda_t or 0
  local pn, pt = a.G_I, a.G_II
  local m = alpha * (alpha - 1) * ln ^ 2 / (1 - alpha * ln ^ 2)
  local n = beta * (beta - 1) * lt ^ 2 / (1 - beta * lt ^ 2)
  local am = m == 0 and 1 or (alpha / m) ^ m
  local bn = n == 0 and 1 or (beta / n) ^ n
  local dn = ln == 0 and alpha * pn / a.sigma_max or pn / a.sigma_max * alpha * ln * (1 - ln) ^ (alpha - 1)
    * (alpha / m + 1) * (alpha / m * ln + 1) ^ (m - 1)
  local dt = lt == 0 and beta * pt / a.tau_max or pt / a.tau_max * beta * lt * (1 - lt) ^ (beta - 1)
    * (beta / n + 1) * (beta / n * lt + 1) ^ (n - 1)
  local dnt, dtn = math.max(pn - pt, 0), math.max(pt - pn, 0)
  local Gn, Gt
  if pn == pt then
    Gn, Gt = -pn * am, bn
  else
    Gn, Gt = (-pn) ^ (dnt / (pn - pt)) * am, (-pt) ^ (dtn / (pt - pn)) * bn
  end
  local function f(x) return m == 0 and (1 - x) ^ alpha or (1 - x) ^ alpha * (m / alpha + x) ^ m end
  local function g(y) return n == 0 and (1 - y) ^ beta or (1 - y) ^ beta * (n / beta + y) ^ n end
  local function fp(x)
    if m == 0 then return -alpha * (1 - x) ^ (alpha - 1) end
    return m * (1 - x) ^ alpha * (m / alpha + x) ^ (m - 1) - alpha * (1 - x) ^ (alpha - 1) * (m / alpha + x) ^ m
  end
  local function gp(y)
    if n == 0 then return -beta * (1 - y) ^ (beta - 1) end
    return n * (1 - y) ^ beta * (n / beta + y) ^ (n - 1) - beta * (1 - y) ^ (beta - 1) * (n / beta + y) ^ n
  end
  return function(Dn, Dt)
    local x, y = math.max(Dn, 0) / dn, math.abs(Dt) / dt
    local tn, tt = 0, 0
    if x < 1 and y < 1 then
      local b, b0 = Gt * g(y) + dtn, Gt * g(0) + dtn
      if b * b0 > 0 then tn = Gn / dn * fp(x) * b end
      b, b0 = Gn * f(x) + dnt, Gn * f(0) + dnt
      if b * b0 > 0 then tt = Gt / dt * gp(y) * b * (Dt > 0 and 1 or Dt < 0 and -1 or 0) end
    end
    return tn, tt
  end, dn, dt
end

-- A fresh law (every point on its envelope) evaluated at many openings at once.
local function ppr_fresh(args, openings)
  local law = cl.jit.ppr(args)
  local N = #openings
  local input, output = cl.field { n = N, k = 2 }, cl.field { n = N, k = 2 }
  for i, o in ipairs(openings) do input[i] = o end
  law:evaluate { input = input, output = output, state = { dn_max = cl.field { n = N }, dt_max = cl.field { n = N } } }
  local r = {}
  for i = 1, N do r[i] = output[i] end
  return r, law
end

-- The work of the traction along a monotonic path of N steps to `final` ({dn, dt}), trapezoid rule:
-- exact for alpha = 2, relative error h^2 / 2 for alpha = 3, about 1.7e-5 for the intrinsic curves
-- (lambda = 0.05) with N = 2000. The path starts at 1e-12 of the way, not at 0: the extrinsic shear
-- traction at dt = 0 has no direction (tt = 0 there), its limit along the path is tau_max.
local function ppr_work(law, final, N, c)
  local steps = {}
  for k = 0, N do
    -- start just off zero: below 1e-9 delta_t the shear opening counts as round-off (no traction)
    local s = math.max(k, 1e-3) / N
    steps[k + 1] = { final[1] * s, final[2] * s }
  end
  local rs, work = law:path { steps = steps }, 0
  local h = math.abs(final[c]) / N
  for k = 1, N do work = work + 0.5 * (math.abs(rs[k].output[c]) + math.abs(rs[k + 1].output[c])) * h end
  return work
end

T.case("ppr extrinsic: the mode I and mode II envelopes and the fracture energies", function()
  for _, shape in ipairs { 2, 3 } do
    local law = cl.jit.ppr { G_I = GI, G_II = GII, sigma_max = SMAX, tau_max = TMAX, alpha = shape, beta = shape }
    local dn, dt = law.ppr.delta_n, law.ppr.delta_t
    T.near(dn, shape * GI / SMAX, 1e-15, "delta_n = alpha G_I / sigma_max")
    T.near(dt, shape * GII / TMAX, 1e-15, "delta_t = beta G_II / tau_max")
    local steps = {}
    for k = 0, 24 do steps[#steps + 1] = { dn * k / 20, 0 } end
    for k, r in ipairs(law:path { steps = steps }) do
      local x = steps[k][1] / dn
      T.near(r.output[1], x < 1 and SMAX * (1 - x) ^ (shape - 1) or 0, 1e-12, "mode I tn at " .. x, SMAX)
      T.eq(r.output[2], 0, "no shear traction in mode I")
    end
    steps = {}
    for k = 0, 24 do steps[#steps + 1] = { 0, dt * k / 20 } end
    for k, r in ipairs(law:path { steps = steps }) do
      local y = steps[k][2] / dt
      -- tt = tau_max (1 - y)^(beta-1) sign(dt): none at dt = 0
      T.near(r.output[2], y > 0 and y < 1 and TMAX * (1 - y) ^ (shape - 1) or 0, 1e-12, "mode II tt at " .. y, TMAX)
    end
    -- a shear opening at round-off level (a mode-I crack on a symmetry line) carries no traction
    local tiny = cl.jit.ppr { G_I = GI, G_II = GII, sigma_max = SMAX, tau_max = TMAX }:path {
      steps = { { 0, 1e-10 * dt }, { 0, -1e-10 * dt }, { 0, 1e-8 * dt } } }
    T.eq(tiny[1].output[2], 0, "tt at dt = 1e-10 delta_t")
    T.eq(tiny[2].output[2], 0, "tt at dt = -1e-10 delta_t")
    T.ok(tiny[3].output[2] > 0.99 * TMAX, "tt at dt = 1e-8 delta_t is on the envelope")
    -- and a normal opening at round-off level on either side of zero keeps sigma_max
    local fresh = cl.jit.ppr { G_I = GI, G_II = GII, sigma_max = SMAX, tau_max = TMAX }
    T.near(fresh:path { steps = { { -1e-12 * dn, 0 } } }[1].output[1], SMAX, 1e-12, "tn at dn = -1e-12 delta_n", SMAX)
    T.eq(fresh:path { steps = { { -1e-6 * dn, 0 } } }[1].output[1], 0, "tn when closing at dn = -1e-6 delta_n")
    -- a history of round-off openings is no history: no secant unloading from it
    local noise = fresh:path { steps = { { 1e-12 * dn, 1e-12 * dt }, { 0.5e-12 * dn, -0.3e-12 * dt } } }
    T.near(noise[2].output[1], SMAX, 1e-9, "tn after a round-off maximum", SMAX)
    T.eq(noise[2].output[2], 0, "tt after a round-off maximum")
    -- the areas under the curves: G_I and G_II
    T.near(ppr_work(cl.jit.ppr { G_I = GI, G_II = GII, sigma_max = SMAX, tau_max = TMAX, alpha = shape,
      beta = shape }, { dn, 0 }, 2000, 1), GI, 1e-4, "G_I, alpha = " .. shape)
    T.near(ppr_work(cl.jit.ppr { G_I = GI, G_II = GII, sigma_max = SMAX, tau_max = TMAX, alpha = shape,
      beta = shape }, { 0, -dt }, 2000, 2), GII, 1e-4, "G_II, beta = " .. shape)
  end
end)

T.case("ppr: unloading to the origin, reloading on the same line, a lower peak after unloading", function()
  local law = cl.jit.ppr { G_I = GI, G_II = GII, sigma_max = SMAX, tau_max = TMAX, alpha = 3, beta = 3 }
  local dn, dt = law.ppr.delta_n, law.ppr.delta_t
  local env = function(x) return SMAX * (1 - x) ^ 2 end
  local xs = { 0.1, 0.4, 0.3, 0.1, 0, -0.1, 0.1, 0.3, 0.4, 0.5, 0.25, 0.6 }
  local steps = {}
  for k, x in ipairs(xs) do steps[k] = { x * dn, 0 } end
  local path = law:path { steps = steps }
  local xmax = 0
  for k, r in ipairs(path) do
    local x = xs[k]
    xmax = math.max(xmax, x)
    local expect = x >= xmax and env(x) or env(xmax) * math.max(x, 0) / xmax
    T.near(r.output[1], expect, 1e-12, "tn at step " .. k .. " (x = " .. x .. ")", SMAX)
    T.near(r.state.dn_max, xmax * dn, 1e-12, "dn_max at step " .. k)
  end
  -- irreversibility: after the excursion to 0.4 delta_n, the reloading peaks at env(0.4) < sigma_max
  local peak = 0
  for k = 5, 9 do peak = math.max(peak, path[k].output[1]) end
  T.near(peak, env(0.4), 1e-12, "reloading peaks where unloading started")
  T.ok(peak < 0.4 * SMAX, "the peak after unloading is lower than sigma_max")
  -- the same in shear, both signs: tt = tt(dt_max) dt / dt_max
  local ys = { 0.2, 0.5, 0.25, -0.25, -0.5, -0.6, 0.3 }
  steps = {}
  for k, y in ipairs(ys) do steps[k] = { 0, y * dt } end
  local ymax = 0
  for k, r in ipairs(cl.jit.ppr { G_I = GI, G_II = GII, sigma_max = SMAX, tau_max = TMAX, alpha = 3, beta = 3 }:path {
    steps = steps }) do
    local y = ys[k]
    ymax = math.max(ymax, math.abs(y))
    local expect = math.abs(y) >= ymax and TMAX * (1 - ymax) ^ 2 * (y > 0 and 1 or -1) or TMAX * (1 - ymax) ^ 2 * y / ymax
    T.near(r.output[2], expect, 1e-12, "tt at step " .. k .. " (y = " .. y .. ")", TMAX)
    T.near(r.state.dt_max, ymax * dt, 1e-12, "dt_max at step " .. k)
  end
end)

T.case("ppr: mixed mode against the paper's formulas, conjugate openings, symmetry", function()
  local rng = T.rng(7)
  for _, a in ipairs {
    { G_I = GI, G_II = GII, sigma_max = SMAX, tau_max = TMAX },
    { G_I = GII, G_II = GI, sigma_max = SMAX, tau_max = TMAX, alpha = 3, beta = 2.5 },
    { G_I = GI, G_II = GI, sigma_max = SMAX, tau_max = TMAX, alpha = 1.5, beta = 4 },
    { G_I = GI, G_II = GII, sigma_max = SMAX, tau_max = TMAX, alpha = 4, beta = 2, lambda_n = 0.05, lambda_t = 0.1 },
    { G_I = GII, G_II = GI, sigma_max = SMAX, tau_max = TMAX, alpha = 2, beta = 3, lambda_n = 0.2, lambda_t = 0 },
  } do
    local ref, dn, dt = ppr_reference(a)
    local openings = {}
    for i = 1, 400 do openings[i] = { (1.3 * rng() - 0.15) * dn, (2.6 * rng() - 1.3) * dt } end
    local out, law = ppr_fresh(a, openings)
    T.near(law.ppr.delta_n, dn, 1e-13, "delta_n")
    T.near(law.ppr.delta_t, dt, 1e-13, "delta_t")
    for i, o in ipairs(openings) do
      local tn, tt = ref(o[1], o[2])
      if o[1] < 0 then tn = 0 end -- closing: no normal traction from the law (contact is the method's)
      T.near(out[i][1], tn, 1e-10, string.format("tn at (%g, %g)", o[1], o[2]), SMAX)
      T.near(out[i][2], tt, 1e-10, string.format("tt at (%g, %g)", o[1], o[2]), TMAX)
    end
    -- symmetry: tt odd, tn even in dt
    local mirrored = {}
    for i, o in ipairs(openings) do mirrored[i] = { o[1], -o[2] } end
    local back = ppr_fresh(a, mirrored)
    for i = 1, #openings do
      T.eq(back[i][2], -out[i][2], "tt(-dt) = -tt(dt)")
      T.eq(back[i][1], out[i][1], "tn(-dt) = tn(dt)")
    end
  end
  -- G_I < G_II: tn vanishes beyond the conjugate tangential opening delta_t (1 - (1 - G_I/G_II)^(1/beta)),
  -- tt only at delta_n; G_I > G_II: tt vanishes beyond delta_n (1 - (1 - G_II/G_I)^(1/alpha))
  local a = { G_I = GI, G_II = GII, sigma_max = SMAX, tau_max = TMAX, beta = 3 }
  local _, dn, dt = ppr_reference(a)
  local conj = dt * (1 - (1 - GI / GII) ^ (1 / 3))
  local out = ppr_fresh(a, { { 0.3 * dn, 0.99 * conj }, { 0.3 * dn, 1.01 * conj }, { 0.3 * dn, -1.01 * conj },
    { 0.3 * dn, 0.9 * dt }, { 0.99 * dn, 0.5 * dt }, { 1.01 * dn, 0.5 * dt } })
  T.ok(out[1][1] > 0, "tn > 0 inside the conjugate tangential opening")
  T.eq(out[2][1], 0, "tn = 0 beyond the conjugate tangential opening")
  T.eq(out[3][1], 0, "tn = 0 beyond it, negative dt")
  T.eq(out[4][1], 0, "tn = 0 far beyond it")
  T.ok(out[2][2] > 0 and out[5][2] > 0, "tt > 0 up to delta_n when G_I < G_II")
  T.eq(out[6][2], 0, "tt = 0 beyond delta_n")
  a = { G_I = GII, G_II = GI, sigma_max = SMAX, tau_max = TMAX, alpha = 3 }
  _, dn, dt = ppr_reference(a)
  conj = dn * (1 - (1 - GI / GII) ^ (1 / 3))
  out = ppr_fresh(a, { { 0.99 * conj, 0.3 * dt }, { 1.01 * conj, 0.3 * dt }, { 0.9 * dn, -0.3 * dt },
    { 0.5 * dn, 0.99 * dt }, { 0.5 * dn, 1.01 * dt } })
  T.ok(out[1][2] > 0, "tt > 0 inside the conjugate normal opening")
  T.eq(out[2][2], 0, "tt = 0 beyond the conjugate normal opening")
  T.eq(out[3][2], 0, "tt = 0 far beyond it")
  T.ok(out[4][1] > 0, "tn > 0 up to delta_t when G_I > G_II")
  T.eq(out[5][1], 0, "tn = 0 beyond delta_t")
end)

T.case("ppr intrinsic (lambda = 0.05): the peak at lambda delta, the areas, elastic before the peak", function()
  local a = { G_I = GI, G_II = GII, sigma_max = SMAX, tau_max = TMAX, alpha = 3, beta = 2, lambda_n = 0.05,
    lambda_t = 0.05 }
  local law = cl.jit.ppr(a)
  local dn, dt = law.ppr.delta_n, law.ppr.delta_t
  local near = ppr_fresh(a, { { 0, 0 }, { 0.05 * dn, 0 }, { 0.049 * dn, 0 }, { 0.051 * dn, 0 }, { 0, 0.05 * dt },
    { 0, -0.05 * dt }, { 0, 0.049 * dt }, { 0, 0.051 * dt } })
  T.eq(near[1][1], 0, "no traction at zero opening")
  T.near(near[2][1], SMAX, 1e-9, "tn peak at lambda_n delta_n")
  T.ok(near[3][1] < near[2][1] and near[4][1] < near[2][1], "it is the maximum")
  T.near(near[5][2], TMAX, 1e-9, "tt peak at lambda_t delta_t")
  T.near(near[6][2], -TMAX, 1e-9, "and its mirror")
  T.ok(near[7][2] < near[5][2] and near[8][2] < near[5][2], "it is the maximum")
  T.near(ppr_work(law, { dn, 0 }, 2000, 1), GI, 1e-4, "G_I")
  T.near(ppr_work(cl.jit.ppr(a), { 0, dt }, 2000, 2), GII, 1e-4, "G_II")
  -- before the peak the law is elastic (Park & Paulino 2012 keep no history there), after it secant
  local path = cl.jit.ppr(a):path { steps = { { 0.04 * dn, 0 }, { 0.02 * dn, 0 }, { 0.2 * dn, 0 }, { 0.1 * dn, 0 } } }
  local curve = ppr_fresh(a, { { 0.02 * dn, 0 }, { 0.2 * dn, 0 } })
  T.near(path[2].output[1], curve[1][1], 1e-12, "unloading before the peak follows the curve")
  T.near(path[4].output[1], curve[2][1] / 2, 1e-12, "unloading after it goes to the origin")
end)

T.case("ppr: single precision, safe mode", function()
  local law = cl.jit.ppr { G_I = GI, G_II = GII, sigma_max = SMAX, tau_max = TMAX }
  local r = law:path { precision = "f32", steps = { { 0, 0 }, { 0.5 * law.ppr.delta_n, 0 } } }
  T.near(r[1].output[1], SMAX, 1e-6, "f32: sigma_max at zero opening")
  T.near(r[2].output[1], SMAX / 2, 1e-6, "f32: half way")
  local safe = cl.jit.safe
  cl.jit.safe = true
  local ok, err = pcall(cl.jit.ppr, { G_I = GI, G_II = GII, sigma_max = SMAX, tau_max = TMAX })
  cl.jit.safe = safe
  T.ok(ok, "the built-in snippet passes the safe-mode check: " .. tostring(err))
end)

T.case("ppr: refused parameters name the argument and the fix", function()
  local function ppr(extra)
    local a = { G_I = GI, G_II = GII, sigma_max = SMAX, tau_max = TMAX }
    for k, v in pairs(extra) do a[k] = v end
    return function() return cl.jit.ppr(a) end
  end
  T.raises(ppr { alpha = 1 }, { "'alpha' must be > 1 (got 1)", "negative slope", "alpha = 1 gives a flat one",
    "use 2" })
  T.raises(ppr { beta = 0.5 }, "'beta' must be > 1")
  T.raises(ppr { lambda_n = 0.9 }, { "negative initial slope", "alpha * lambda_n^2 = 1.62", "exponent m",
    "lower 'lambda_n' below 1/sqrt(alpha) = 0.707107" })
  T.raises(ppr { beta = 3, lambda_t = 0.6 }, { "negative initial slope", "beta * lambda_t^2", "exponent n" })
  T.raises(ppr { lambda_t = 1 }, "'lambda_t' must be in [0, 1)")
  T.raises(ppr { lambda_n = -0.1 }, "'lambda_n' must be in [0, 1)")
  T.raises(ppr { G_I = -1 }, "'G_I' (the mode I fracture energy) must be > 0")
  T.raises(ppr { tau_max = 0 }, "'tau_max' (the tangential cohesive strength) must be > 0")
  T.raises(ppr { sigma_max = "big" }, "'sigma_max' must be a finite number")
  T.raises(function() cl.jit.ppr { G_I = GI, sigma_max = SMAX, tau_max = TMAX } end, "give 'G_II'")
  T.raises(ppr { Gc = 1 }, "unknown argument 'Gc'")
end)

T.case("material-point laws: errors name what is wrong", function()
  T.raises(function() cl.jit.law_source("nope") end, { "no built-in law 'nope'", "j2" })
  T.raises(function() cl.jit.stress_update { source = "return;", params = { sig = 1 } } end, "'sig' is taken")
  local bad = cl.jit.stress_update { name = "broken_law", source = "sig[0] = ;" }
  local ok, err = pcall(function() bad:path { steps = { { 0, 0, 0, 0, 0, 0 } } } end)
  T.ok(not ok and err:find("broken_law", 1, true) and err:find("sig[0] = ;", 1, true), tostring(err))
  local law = cl.jit.traction { source = "tn = dn; tt = dt;" }
  T.raises(function() law:path { steps = { { 1, 2, 3 } } } end, "step 1 must list 2 numbers")
  T.raises(function() law:evaluate { input = cl.field { n = 1, k = 6 }, output = cl.field { n = 1, k = 2 } } end,
    "2 components")
  T.raises(function() cl.jit.traction { source = "tn = 0;", state = { dmax = 0 } }:evaluate {
    input = cl.field { n = 1, k = 2 }, output = cl.field { n = 1, k = 2 } } end, "state.dmax")
end)

T.run()
