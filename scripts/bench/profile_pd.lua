-- A few steps of the 10 M-point peridynamics benchmark body, for profilers:
--   ncu --kernel-name regex:pd_ --launch-skip 4 --launch-count 2 cleave run scripts/bench/profile_pd.lua
local cl = require "cleave"
local side = math.floor(math.sqrt(tonumber(arg[1]) or 10e6))
local precision = arg[2] or "f32"
local body = cl.pd.body { shape = cl.geom.rect { 0, 1, 0, 1 }, dx = 1 / side, precision = precision,
  surface_correction = false, material = cl.pd.pmb { E = 191e9, rho = 8000, G0 = 22170 } }
for _, kernel in ipairs { "group", "point" } do
  local stage = body:force_stage { kernel = kernel }
  for _ = 1, 3 do stage:run() end
end
cl.sync()
