-- Where the time of a cohesive-FEM step goes (model:profile: median per part, device
-- synchronised around each call), on the ring after it has fragmented, and for insertion by
-- colour. Usage: cleave run scripts/bench/profile_czm.lua [nr nt steps_before sigma_max]
local cl = require "cleave"
local balance = dofile((arg[0]:match("^(.*)/") or ".") .. "/balance.lua")
local nr, nt, before = tonumber(arg[1] or 115), tonumber(arg[2] or 787), tonumber(arg[3] or 9000)
local mesh = cl.czm.ring { r_in = 0.08, r_out = 0.15, nr = nr, nt = nt, order = 2 }
mesh:perturb { fraction = 0.2, seed = 1 }
local sigma = tonumber(arg[4] or "1.2e9")
local b = cl.czm.body { mesh = mesh, E = 210e9, nu = 0.3, rho = 7850, thickness = 1e-3, plane = "stress",
  law = cl.jit.ppr { G_I = 2000, G_II = 2000, sigma_max = sigma, tau_max = sigma } }
b:pressure { where = function(x, y) return x * x + y * y < 0.081 ^ 2 end, value = 400e6 }
local run = cl.czm.explicit { b, dt = 3e-9, steps = before, progress = false }
local function report(label)
  local p = b.model:profile(50)
  local inf = b.model:info()
  print(string.format("%s: %d elements, %d nodes, %d cohesive", label, inf.elements, inf.nodes, inf.cohesive))
  for _, k in ipairs { "begin", "cohesive", "forces", "end", "stress", "check" } do
    print(string.format("  %-9s %8.1f us", k, p[k] * 1e6))
  end
end
report("before fracture")
local before = b:energies()
local s = run:go()
-- the time of a run whose energy balance holds (balance.lua), nothing otherwise
local seconds = balance.checked("ring", before, b:energies(), s.seconds)
print(string.format("%d steps in %s", s.steps, balance.time(seconds and seconds / s.steps * 1e6, "%.1f us per step")))
report("after " .. before .. " steps")
balance.exit()
