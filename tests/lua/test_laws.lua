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
