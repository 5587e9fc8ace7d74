-- A wellbore in Mohr-Coulomb rock (paper 002; issue 14, case 3): in-situ stress 50 MPa
-- (compression), the support pressure in the hole lowered from 50 to 10 MPa, c = 5 MPa,
-- phi = 20 degrees, E = 2000 MPa, nu = 0.2, hole radius 0.1 m, outer boundary 4 m, a quarter
-- with symmetry conditions. Prints the iterations of the three solvers and the plastic radius
-- against the closed form, and writes the solution for ParaView.
--
--   cleave run scripts/fe_wellbore.lua [order] [nr] [outdir]
--
-- Expected (order 2, nr 16): Newton 11 iterations, modified IS 89, IS 564; the yielded Gauss
-- points end at 0.163 m and the elastic ones begin at 0.178 m, around the closed form's 0.1729 m
-- (the fit of docs/methods/elastoplastic-fe.md reads it to 0.1%).
local cl = require "cleave"
local order, nr = tonumber(arg[1]) or 2, tonumber(arg[2]) or 16
local outdir = arg[3] or "out/fe_wellbore"
os.execute("mkdir -p '" .. outdir .. "'")

local a, b, P0, p_i, c, phi = 0.1, 4, 50, 10, 5, 20
local s = math.sin(math.rad(phi))
local N, sc = (1 + s) / (1 - s), 2 * c * math.cos(math.rad(phi)) / (1 - s)
local Rp = a * (2 * (P0 * (N - 1) + sc) / ((1 + N) * ((N - 1) * p_i + sc))) ^ (1 / (N - 1))

local model
for _, method in ipairs { "newton", "mis", "is" } do
  local mesh = cl.fe.wellbore { r_int = a, r_ext = b, order = order, nr = nr, nt = 4 }
  model = cl.fe.model { mesh = mesh, material = { law = "mohr_coulomb", E = 2000, nu = 0.2, c = c, phi = phi } }
  model:fix { where = "xsym", x = 0 }
  model:fix { where = "ysym", y = 0 }
  model:initial_stress { xx = -P0, yy = -P0, zz = -P0 }
  model:pressure { where = "outer", p = P0 }
  model:pressure { where = "inner", p = p_i }
  local r = model:solve { method = method, increments = 4, tol = 1e-10, max_iter = 1000 }
  print(string.format("%-6s %4d iterations, %4d residuals, %2d factorizations (%s), %.3f s", method, r.iterations,
    r.residuals, r.factorizations, r.linear_solver, r.t_residual + r.t_tangent + r.t_factor + r.t_solve))
end
print(model)

local g, last_plastic, first_elastic = model:gauss(), 0, math.huge
for k = 1, #g.ep do
  local r = math.sqrt(g.x[k] ^ 2 + g.y[k] ^ 2)
  if g.ep[k] > 0 then last_plastic = math.max(last_plastic, r) else first_elastic = math.min(first_elastic, r) end
end
print(string.format("plastic zone ends between %.4f and %.4f m; closed form %.4f m", last_plastic, first_elastic, Rp))
model:vtu(outdir .. "/wellbore.vtu")
print("wrote " .. outdir .. "/wellbore.vtu")
