-- f32 peridynamics gets the physics of f64 (issue 19): the same pre-cracks, a body at rest stays
-- at rest, small elastic waves agree, and Kalthoff-Winkler's cracks leave the notch tips at the
-- same angles. The stretch's own accuracy is tests/unit/test_pd_stretch.c.
local cl = require "cleave"
local T = require "testing"

local steel = cl.pd.pmb { E = 191e9, rho = 8000, G0 = 22170 }

-- ||a - b|| / ||b|| over all components of two fields' host copies
local function rel_diff(a, b)
  local ta, tb, num, den = a:to_table(), b:to_table(), 0, 0
  for i = 1, #ta do
    for c = 1, #ta[i] do num, den = num + (ta[i][c] - tb[i][c]) ^ 2, den + tb[i][c] ^ 2 end
  end
  return math.sqrt(num / den)
end

-- The Kalthoff-Winkler plate's notches (scripts/kalthoff_winkler.lua) end where bonds cross their
-- line, and at 0.4 mm they run through a row of points: the bonds cut there were decided by the
-- coordinates' rounding (f32 cut 889 bonds per notch at 1 mm, f64 891; at 0.25 mm the two notches
-- of the f64 plate differed, 3592 and 3591).
T.case("pre-cracks cut the same bonds in f32 and f64, and the same at mirror-image notches", function()
  local L = 0.1
  for _, mm in ipairs { 1, 0.4, 0.25 } do
    local counts = {}
    for _, precision in ipairs { "f64", "f32" } do
      local dx = mm * 1e-3
      local plate = cl.pd.body { shape = cl.geom.rect { 0, L, -L, L }, dx = dx, thickness = 0.09 * L,
        precision = precision, surface_correction = false, material = steel }
      local upper = plate:precrack { { -dx, L / 4 }, { L / 2, L / 4 } }
      local lower = plate:precrack { { L / 2, -L / 4 }, { -dx, -L / 4 } } -- the mirror image, as the script draws it
      T.eq(lower, upper, string.format("%s mm, %s: both notches cut %d bonds", mm, precision, upper))
      counts[precision] = upper
    end
    T.eq(counts.f32, counts.f64, mm .. " mm: f32 cuts the bonds f64 cuts")
  end
end)

-- A lattice takes |xi| from its stencil: with the stretch computed as |xi + eta| / |xi| - 1, f32
-- bonds at rest had stretches of ~1e-7, which cancel inside the body but not at its surfaces (a
-- free plate reached 0.07 m/s in 300 steps).
T.case("an f32 body at rest stays exactly at rest, notch faces included", function()
  for _, layout in ipairs { "lattice", "list" } do
    local b = cl.pd.body { shape = cl.geom.rect { 0, 0.02, 0, 0.01 }, dx = 0.25e-3, precision = "f32",
      layout = layout, material = steel }
    b:precrack { { -0.0005, 0.005 }, { 0.01, 0.005 } }
    cl.explicit { b, steps = 300, progress = false }:go()
    T.eq(b.u:norm(), 0, layout .. ": displacement after 300 steps")
    T.eq(b.v:norm(), 0, layout .. ": velocity after 300 steps")
  end
end)

-- A standing-wave pattern of 1 cm/s (strains ~1e-6, the size of the waves ahead of a crack),
-- 300 steps at the same dt in both precisions. f32 keeps 7 digits of each stretch: the states
-- agree to a few 1e-7 (u) and 1e-5 (v, the small difference of two large kicks); with the
-- cancelling stretch the f32 forces were off by 10-100% at such strains.
T.case("small elastic waves in f32 follow f64", function()
  local runs = {}
  for _, precision in ipairs { "f64", "f32" } do
    local b = cl.pd.body { shape = cl.geom.rect { 0, 0.02, 0, 0.01 }, dx = 0.25e-3, precision = precision,
      material = steel }
    local xs = b.x:to_table()
    b.v:assign(function(i)
      local x, y = xs[i][1], xs[i][2]
      return 0.01 * math.sin(math.pi * x / 0.02) * math.cos(math.pi * y / 0.01), 0.01 * math.cos(3 * x / 0.02)
    end)
    cl.explicit { b, steps = 300, dt = 2e-8, progress = false }:go()
    runs[precision] = b
  end
  local du, dv = rel_diff(runs.f32.u, runs.f64.u), rel_diff(runs.f32.v, runs.f64.v)
  print(string.format("  f32 against f64: u %.3g, v %.3g (relative L2)", du, dv))
  T.ok(du < 2e-6, "u within 2e-6: " .. du)
  T.ok(dv < 1e-4, "v within 1e-4: " .. dv)
end)

-- The cause of the 4 degrees between f32 and f64 at 0.4 mm (issue 19): the script's impactor,
-- |y| < L/4, had its edges on the rows of points the notches run through, and the coordinates'
-- rounding decided them (f64 y = 0.024999999999999994 inside, -0.025000000000000008 outside; f32
-- +-0.0250000004 both outside): f64 drove 3 points more, on the upper notch's row only. With the
-- rows driven alike f64 gives f32's angles (62.9/62.9 degrees, f32 62.6/62.8). The script's set-up
-- alone (0 steps) at 0.4 mm: the same driven points in both precisions, mirror images about y = 0.
T.case("Kalthoff-Winkler, dx = 0.4 mm: the impactor drives the same points in f32 and f64, symmetrically, at one time step", function()
  local dx, driven = 0.4e-3, {}
  for _, precision in ipairs { "f64", "f32" } do
    local saved = arg
    arg = { "0.4", precision, "none", "standard", "0", "0" }
    local plate = dofile(os.getenv("CLEAVE_SOURCE") .. "/scripts/kalthoff_winkler.lua").plate
    arg = saved
    local xs, set, count = plate.x:to_table(), {}, 0
    for _, k in ipairs(plate.constraints) do
      if k.kind == "velocity" then
        for _, i in ipairs(k.rows:to_table()) do
          -- the point's column and 2 y / dx (odd: rows lie at half spacings), integers in both precisions
          set[math.floor(xs[i][1] / dx) .. "," .. math.floor(2 * xs[i][2] / dx + 0.5)] = true
          count = count + 1
        end
      end
    end
    for key in pairs(set) do
      local i, j = key:match("^(-?%d+),(-?%d+)$")
      T.ok(set[i .. "," .. -tonumber(j)], string.format("%s: driven point (%s, %s) has its mirror image", precision, i, j))
    end
    driven[precision] = { set = set, count = count, dt = plate:stable_dt() }
  end
  T.eq(driven.f32.count, driven.f64.count, "f32 drives as many points as f64")
  -- and steps with f64's time step: the f32 lattice's bond lengths in the stable time step were
  -- differences of f32 coordinates, which put it 8.5e-7 off f64's here and 5.5e-6 at 0.1 mm (now
  -- 1.3e-8: the stiffness sums stored in f32; a time step changed by 1e-6 moves f64's cracks)
  local dt_error = math.abs(driven.f32.dt / driven.f64.dt - 1)
  T.ok(dt_error < 1e-7, string.format("f32's stable time step within 1e-7 of f64's: %.3g", dt_error))
  for key in pairs(driven.f64.set) do T.ok(driven.f32.set[key], "f32 drives f64's point " .. key) end
end)

-- The issue's criterion (f32 angles within 3 degrees of f64), at the resolution a CPU test affords,
-- and (formerly a case of test_pd.lua, which ran the same f64 plate once more) that in both
-- precisions a crack grows from each tip, away from the notch: this resolution gives 64.9 and
-- 64.9 degrees; the experiment's 70 needs a finer one. Before the pre-crack and stretch fixes:
-- f64 60.8 and 56.6 degrees (the symmetric plate's two cracks 4 degrees apart), f32 61.5 and 61.5.
T.case("Kalthoff-Winkler, dx = 1 mm: cracks leave both tips at 45-75 degrees, f32 within 3 degrees of f64's", function()
  local angles = {}
  for _, precision in ipairs { "f64", "f32" } do
    local saved = arg
    arg = { "1", precision, "none" }
    angles[precision] = dofile(os.getenv("CLEAVE_SOURCE") .. "/scripts/kalthoff_winkler.lua").angles
    arg = saved
  end
  for precision, cracks in pairs(angles) do
    for k, a in ipairs(cracks) do
      T.ok(a.points >= 30, string.format("%s: a crack grew from tip %d (%d points)", precision, k, a.points))
      T.ok(a.angle > 45 and a.angle < 75, string.format("%s: crack %d angle %.1f", precision, k, a.angle))
    end
  end
  for k = 1, 2 do
    local a32, a64 = angles.f32[k].angle, angles.f64[k].angle
    print(string.format("  crack %d: f64 %.1f, f32 %.1f degrees", k, a64, a32))
    T.ok(math.abs(a32 - a64) <= 3, string.format("crack %d: f32 %.1f against f64 %.1f degrees", k, a32, a64))
  end
  T.ok(math.abs(angles.f64[1].angle - angles.f64[2].angle) <= 1, "f64: the symmetric plate's cracks are symmetric")
end)

T.run()
