-- Kalthoff-Winkler: a plate with two parallel notches, struck between them
-- at 32 m/s. The cracks leave the notch tips at about 70 degrees to the notch
-- direction (Kalthoff & Winkler 1988; Silling 2003). Bond-based PD, PMB.
--
--   cleave run scripts/kalthoff_winkler.lua [dx_mm] [precision] [outdir]
--
-- dx defaults to 1 mm on the CPU (20 000 points) and 0.25 mm on a GPU (320 000 points).
-- Geometry: x (notch direction, impact on x = 0) 0..100 mm, y -100..100 mm;
-- notches from x = 0 to 50 mm at y = +-25 mm; the impactor covers |y| < 25 mm.
-- Maraging steel 18Ni(300): E = 191 GPa, rho = 8000 kg/m3, G0 = 22 170 J/m2.
local cl = require "cleave"
local dx = (tonumber(arg[1]) or (cl.device() == "cuda" and 0.25 or 1.0)) * 1e-3
local precision = arg[2] or "f64"
local outdir = arg[3] or "out/kw"
os.execute("mkdir -p '" .. outdir .. "'")

local plate = cl.pd.body {
  shape = cl.geom.rect { 0, 0.1, -0.1, 0.1 }, dx = dx, horizon = 3.015,
  dim = 2, plane = "stress", thickness = 0.009, precision = precision,
  material = cl.pd.pmb { E = 191e9, rho = 8000, G0 = 22170 },
}
plate:precrack { { -dx, 0.025 }, { 0.05, 0.025 } }
plate:precrack { { -dx, -0.025 }, { 0.05, -0.025 } }
-- the impactor: the layer of points the projectile touches moves at 32 m/s
plate:velocity { where = function(x, y) return x < 3 * dx and math.abs(y) < 0.025 end, vx = 32 }
print(plate)

local steps = math.floor(90e-6 / (0.8 * plate:stable_dt())) -- 90 microseconds
local run = cl.explicit { plate, dt = "auto", steps = steps,
  output = { every = math.max(100, steps // 10), vtu = outdir .. "/kw", csv = outdir .. "/kw_energy.csv",
    png = outdir .. "/kw_damage.png" } }
print(run)
local stats = run:go()
print(string.format("%d steps, %.2f s, %.3g bond updates/s on %s", stats.steps, stats.seconds,
  stats.bond_updates_per_second, cl.device()))

local angles = cl.pd.crack_angles(plate, { { 0.05, 0.025, 1 }, { 0.05, -0.025, -1 } })
for k, a in ipairs(angles) do
  print(string.format("crack %d: %.1f degrees from the notch direction (%d damaged points used)", k, a.angle, a.points))
end
return { plate = plate, run = run, angles = angles }
