-- Discontinuous deformation analysis (cleave.dda, Shi 1988, paper 004): block moments, free fall,
-- sliding and sticking on an incline, a stacked column, friction work, the text format, CPU/CUDA
-- parity and bad input. Tolerances and their reasons: docs/testing.md.
local cl = require "cleave"
local T = require "testing"

local info = cl.info()
local gpu = info.backends.cuda and info.gpu_count > 0
local g = 9.81
local rock = { rho = 2500, E = 1e10, nu = 0.25 }

local shapes = require "dda_shapes"
local rotated, square = shapes.rotated, shapes.rect

-- A fixed base block [-1, 6] x [-1, 0] and a unit block on it at x in [3, 4], the whole turned by theta.
local function incline(theta, phi, extra)
  local base = rotated({ -1, -1, 6, -1, 6, 0, -1, 0 }, theta)
  local args = {
    blocks = { cl.dda.blocks { base }, cl.dda.blocks { rotated(square(3, 0, 1), theta) } },
    materials = { rock }, joints = { { friction = phi } }, gravity = { 0, -g }, max_displacement = 0.01,
    fixed = { { base[1], base[2] }, { base[3], base[4] }, { base[7], base[8] } },
  }
  for k, v in pairs(extra or {}) do args[k] = v end
  return cl.dda.model(args)
end

-- Slip of block 2 down the incline (along -x of the turned frame).
local function slip(m, theta)
  local b = m:block(2)
  return -(b.ux * math.cos(theta) + b.uy * math.sin(theta))
end

-- A 6 x 3 mass cut by a horizontal and an 80 deg joint set (18 blocks) on a fixed base.
local function cut_mass(extra)
  local mass = cl.dda.cut { domain = { 0, 0, 6, 0, 6, 3, 0, 3 },
    joints = { { dip = 0, spacing = 1, origin = { 0, 0 } }, { dip = 80, spacing = 1.2, origin = { 0.3, 0 } } } }
  local args = {
    blocks = { cl.dda.blocks { { -1, -1, 7, -1, 7, 0, -1, 0 } }, mass }, materials = { rock },
    joints = { { friction = 40 } }, fixed = { { -1, -1 }, { 7, -1 }, { -1, 0 } }, gravity = { 0, -g },
    analysis = "static",
  }
  for k, v in pairs(extra or {}) do args[k] = v end
  return cl.dda.model(args), mass
end

T.case("moments: a concave L block's area and centroid by simplex integration", function()
  -- L = [0,2]x[0,1] + [0,1]x[1,2]: area 3, centroid (5/6, 5/6); given clockwise to test orientation
  local L = { 0, 0, 0, 2, 1, 2, 1, 1, 2, 1, 2, 0 }
  local m = cl.dda.model { blocks = cl.dda.blocks { L }, materials = { rock } }
  local b = m:block(1)
  T.near(b.area, 3, 1e-14, "area")
  T.near(b.x, 5 / 6, 1e-14, "centroid x")
  T.near(b.y, 5 / 6, 1e-14, "centroid y")
end)

T.case("free fall: displacement g t^2 / 2 to 1e-9 relative", function()
  local m = cl.dda.model {
    blocks = cl.dda.blocks { square(0, 0, 1) }, materials = { rock }, gravity = { 0, -g }, max_displacement = 0.05,
  }
  m:run { steps = 1000, dt = 1e-3 }
  local s, b = m:stats(), m:block(1)
  T.near(s.t, 1, 1e-12, "time")
  T.near(b.uy, -0.5 * g * s.t ^ 2, 1e-9, "fall")
  T.near(b.velocity[2], -g * s.t, 1e-9, "velocity")
  T.ok(math.abs(b.ux) < 1e-12, "no sideways motion")
  T.near(s.kinetic, s.gravity_work, 1e-9, "kinetic energy = work of gravity")
  -- a dynamic step starts PCG from the displacement at the last step's acceleration: exact here
  -- (from the last step's solution the residual was 2 / (2k + 1) after k steps)
  T.ok(s.warm_residual < 1e-12, "warm start's residual " .. s.warm_residual)
  T.eq(s.pcg, 0, "PCG iterations of the last step")
end)

T.case("dt_growth: after the displacement limit cut the time step, the next steps start near it", function()
  -- a free fall at dt = 0.05 s with 1 cm allowed: past ~0.4 s each step must be cut to keep a step's
  -- displacement under 2 cm. Retried from the requested dt, every step is tried twice. A cut aims a
  -- step's displacement at 1 cm, so from 1.5 times the last accepted step (1.5 cm, then 2.25 cm: cut)
  -- every other step is tried once: 1.5 attempts a step. Both stay exact.
  local function fall(extra)
    local args = { blocks = cl.dda.blocks { square(0, 0, 1) }, materials = { rock }, gravity = { 0, -g },
      max_displacement = 0.01 }
    for k, v in pairs(extra) do args[k] = v end
    local m, tried = cl.dda.model(args), 0
    for _ = 1, 60 do
      m:run { steps = 1, dt = 0.05 }
      tried = tried + 1 + m:stats().reductions
    end
    local s, b = m:stats(), m:block(1)
    T.near(b.uy, -0.5 * g * s.t ^ 2, 1e-9, "fall")
    return tried, s
  end
  local retried, s0 = fall {}
  local grown, s1 = fall { dt_growth = 1.5 }
  T.ok(retried >= 115, string.format("retried from 0.05 s: %d attempts for 60 steps", retried))
  T.eq(s0.reduced_by, "blocks moved more than twice the allowed displacement", "stats().reduced_by: the last cut's reason")
  T.ok(grown <= 95, string.format("from 1.5 x the last: %d attempts for 60 steps", grown))
  T.ok(s1.t > s0.t, string.format("and further in time (%.4f s against %.4f s)", s1.t, s0.t))
  T.raises(function() cl.dda.model { blocks = cl.dda.blocks { square(0, 0, 1) }, materials = { rock }, dt_growth = 0.5 } end,
    { "dt_growth", "0.5", ">= 1" }, "a factor below 1")
end)

T.case("initial velocity: a free spinning block moves v t, turns omega t, keeps its area and energy", function()
  local m = cl.dda.model {
    blocks = cl.dda.blocks { square(0, 0, 2, 1) }, materials = { rock }, velocity = { [1] = { 2, 0, 1 } },
    max_displacement = 0.05,
  }
  m:run { steps = 1, dt = 1e-3 }
  local k1 = m:stats().kinetic
  m:run { steps = 999, dt = 1e-3 }
  local b, s = m:block(1), m:stats()
  T.near(b.ux, 2 * s.t, 1e-12, "translation")
  T.ok(math.abs(b.uy) < 1e-12, "no drift across")
  T.near(b.rotation, s.t, 1e-12, "rotation")
  T.near(b.area, 2, 1e-12, "area (rotation moves vertices on circles)")
  T.near(s.kinetic, k1, 1e-12, "kinetic energy")
end)

T.case("incline 30 deg, friction 20 deg: slides d = g (sin - cos tan phi) t^2 / 2 within 1% at 1 s", function()
  local theta, phi = math.rad(30), math.rad(20)
  local m = incline(theta, 20)
  local dir = T.outdir("dda_incline")
  m:run { steps = 1000, dt = 1e-3, csv = dir .. "/history.csv", blocks = { 2 }, vtu = dir .. "/blocks",
    png = dir .. "/picture", every = 500 }
  local t = m:stats().t
  local exact = 0.5 * g * (math.sin(theta) - math.cos(theta) * math.tan(phi)) * t ^ 2
  T.near(t, 1, 1e-12, "time")
  T.near(slip(m, theta), exact, 0.01, "slide distance")
  local N = 0
  for _, c in ipairs(m:contacts()) do
    T.eq(c.state, "slide", "contact state")
    N = N + c.normal_force
  end
  T.near(N, rock.rho * g * math.cos(theta), 0.01, "normal force = weight x cos(theta)")
  T.ok(T.exists(dir .. "/blocks_000500.vtu") and T.exists(dir .. "/blocks_001000.vtu"), "VTU every 500 steps")
  local series = T.read(dir .. "/blocks.pvd")
  T.ok(series:find('file="blocks_000500.vtu"', 1, true) and series:find('file="blocks_001000.vtu"', 1, true),
    "PVD series of the blocks")
  T.ok(T.read(dir .. "/blocks_contacts.pvd"):find('file="blocks_contacts_001000.vtu"', 1, true), "of the contacts")
  local contacts = T.read(dir .. "/blocks_contacts_001000.vtu")
  T.ok(contacts:find('NumberOfCells="2"', 1, true) and contacts:find("normal_force", 1, true), "contacts VTU")
  local lines, header, last = 0, nil, nil
  for line in T.read(dir .. "/history.csv"):gmatch("[^\n]+") do
    lines = lines + 1
    header, last = header or line, line
  end
  T.eq(lines, 1001, "CSV rows (header + one per step)")
  local column = 0
  for name in header:gmatch("[^,]+") do
    column = column + 1
    if name == "b2_ux" then break end
  end
  local values = {}
  for v in last:gmatch("[^,]+") do values[#values + 1] = tonumber(v) end
  T.eq(values[column], m:block(2).ux, "block 2's ux in the last CSV row")
  T.ok(T.read(dir .. "/picture_001000.png"):sub(2, 4) == "PNG", "PNG picture")
end)

T.case("incline 30 deg, friction 35 deg: stays (slip below 1e-4 of the block size)", function()
  local theta = math.rad(30)
  local m = incline(theta, 35)
  m:run { steps = 1000, dt = 1e-3 }
  T.ok(math.abs(slip(m, theta)) < 1e-4, string.format("slip %.3g m on a 1 m block", slip(m, theta)))
  for _, c in ipairs(m:contacts()) do T.eq(c.state, "lock", "contact state") end
end)

T.case("stacked column (static, VV1 contacts): each interface carries the weight above within 1%", function()
  local nb = 4
  local sets = { cl.dda.blocks { { -1, -1, 2, -1, 2, 0, -1, 0 } } }
  for k = 1, nb do sets[#sets + 1] = cl.dda.blocks { square(0, k - 1, 1) } end
  local m = cl.dda.model {
    blocks = sets, analysis = "static", materials = { rock }, joints = { { friction = 30 } },
    fixed = { { -1, -1 }, { 2, -1 }, { -1, 0 } }, gravity = { 0, -g },
  }
  m:run { steps = 50, dt = 0.01 }
  local load, kinds = {}, {}
  for _, c in ipairs(m:contacts()) do
    local below = math.min(c.vertex_block, c.edge_block)
    load[below] = (load[below] or 0) + c.normal_force
    kinds[c.kind] = true
  end
  T.ok(kinds.VV1, "equal blocks touch corner to corner (VV1)")
  for k = 1, nb do
    T.near(load[k] or 0, (nb - k + 1) * rock.rho * g, 0.01, string.format("normal force under block %d", k + 1))
  end
end)

T.case("friction work: a block pushed across a plane dissipates mu N x slip within 2%", function()
  local mu = math.tan(math.rad(20))
  local W = rock.rho * g -- the unit block's weight
  local m = cl.dda.model {
    blocks = { cl.dda.blocks { { -1, -1, 6, -1, 6, 0, -1, 0 } }, cl.dda.blocks { square(0, 0, 1) } },
    materials = { rock }, joints = { { friction = 20 } }, gravity = { 0, -g }, max_displacement = 0.01,
    fixed = { { -1, -1 }, { 6, -1 }, { -1, 0 } },
    loads = { { 0.5, 0.5, fx = "2 * " .. (mu * W) .. " * min(t / 0.1, 1)" } },
  }
  m:run { steps = 600, dt = 1e-3 }
  local s, b = m:stats(), m:block(2)
  T.ok(b.ux > 0.3, string.format("the block slid (%.3g m)", b.ux))
  local dissipated = s.load_work + s.gravity_work - s.kinetic
  T.near(dissipated, mu * W * b.ux, 0.02, "load work - kinetic energy = mu N slip")
  T.near(s.friction_work, mu * W * b.ux, 0.02, "friction work recorded by the contacts")
end)

T.case("toppling: a 0.5 x 1 block on a slope stands 0.5 deg below atan(w/h) and topples 0.5 deg above", function()
  local w, h = 0.5, 1
  local critical = math.atan(w / h)
  local function rotation_after_1s(theta)
    local base = rotated({ -1, -1, 6, -1, 6, 0, -1, 0 }, theta)
    local m = cl.dda.model {
      blocks = { cl.dda.blocks { base }, cl.dda.blocks { rotated({ 3, 0, 3 + w, 0, 3 + w, h, 3, h }, theta) } },
      materials = { rock }, joints = { { friction = 45 } }, gravity = { 0, -g }, max_displacement = 0.01,
      fixed = { { base[1], base[2] }, { base[3], base[4] }, { base[7], base[8] } },
    }
    m:run { steps = 1000, dt = 1e-3 }
    return m:block(2).rotation
  end
  local below, above = rotation_after_1s(critical - math.rad(0.5)), rotation_after_1s(critical + math.rad(0.5))
  T.ok(math.abs(below) < 1e-4, string.format("stands below the critical angle (rotation %.3g rad)", below))
  -- rigid toppling about the corner from 0.5 deg past balance: 0.0087 (cosh(3.63 t) - 1) = 0.16 rad at 1 s
  T.ok(above > 0.1, string.format("topples above it (rotation %.3g rad)", above))
end)

T.case("joint strength: tension holds a hanging block, cohesion holds a block on a 30 deg slope", function()
  local W = rock.rho * g -- a unit block's weight, carried by a 1 m joint
  -- static analysis: suddenly applied gravity would overshoot the static tension (up to twice) in a
  -- dynamic one
  local function hanging(strength)
    local m = cl.dda.model {
      analysis = "static",
      blocks = { cl.dda.blocks { { -1, 0, 2, 0, 2, 1, -1, 1 } }, cl.dda.blocks { square(0, -1, 1) } },
      materials = { rock }, joints = { { friction = 30, tension = strength, cohesion = strength } }, gravity = { 0, -g },
      fixed = { { -1, 1 }, { 2, 1 }, { -1, 0 } }, max_displacement = 0.01,
    }
    m:run { steps = 50, dt = 0.01 }
    return m:block(2).uy
  end
  T.ok(math.abs(hanging(1.2 * W)) < 1e-5, "tensile strength (and cohesion) 1.2 x weight / length holds")
  T.ok(hanging(0.8 * W) < -0.01, "0.8 x weight / length lets it fall")
  local theta = math.rad(30)
  -- shear beyond friction: W (sin 30 - cos 30 tan 20) = 0.185 W on the 1 m joint. 0.1 W is below it;
  -- 0.6 W keeps a margin for the suddenly applied load's overshoot and the uneven split between the
  -- two corner contacts (the rear one carries less normal force and fails first)
  local held, slid = incline(theta, 20, { joints = { { friction = 20, cohesion = 0.6 * W } } }),
      incline(theta, 20, { joints = { { friction = 20, cohesion = 0.1 * W } } })
  held:run { steps = 300, dt = 1e-3 }
  slid:run { steps = 300, dt = 1e-3 }
  T.ok(math.abs(slip(held, theta)) < 1e-4, string.format("cohesion 0.6 W holds (slip %.3g)", slip(held, theta)))
  T.ok(slip(slid, theta) > 0.01, string.format("cohesion 0.1 W does not (slip %.3g)", slip(slid, theta)))
end)

T.case("a step that cannot converge is an error with its history; the state stays at the last step", function()
  -- a block sliding at 1 m/s: its contacts start locked and must slide whatever the time step,
  -- which one open-close iteration cannot follow
  local m = incline(0, 20, { open_close_max = 1, velocity = { [2] = { 1, 0, 0 } } })
  local before = m:block(2)
  T.raises(function() m:run { steps = 3, dt = 1e-3 } end,
    { "step 1 cannot converge", "open-close iteration did not settle", "the state is that of step 0" })
  local s, after = m:stats(), m:block(2)
  T.eq(s.steps, 0, "steps accepted")
  T.eq(after.x, before.x, "block x")
  T.eq(after.y, before.y, "block y")
end)

T.case("SSOR approximate inverse: the same solution as block Jacobi in fewer PCG iterations", function()
  local function run(preconditioner)
    local m = cut_mass { preconditioner = preconditioner, analysis = "dynamic" }
    local iterations = 0
    for _ = 1, 10 do iterations = iterations + m:run { steps = 1, dt = 2e-3 }.pcg end
    return m, iterations
  end
  local jacobi, n_jacobi = run("block_jacobi")
  local ssor, n_ssor = run("ssor")
  -- the step's trace of open-close iterations: each solve's PCG iterations sum to the step's, the
  -- last solve changed no state, and the warm start's residual (from the last step's solution) is kept
  local s = jacobi:stats()
  local sum = 0
  for _, n in ipairs(s.iterations.pcg) do sum = sum + n end
  T.eq(#s.iterations.pcg, s.open_close, "traced open-close iterations")
  T.eq(sum, s.pcg, "traced PCG iterations")
  T.eq(s.iterations.changed[#s.iterations.changed] + s.iterations.unsettled[#s.iterations.unsettled], 0,
    "changes after the last solve")
  T.ok(s.warm_residual > 0 and s.warm_residual < math.huge, "warm start's residual " .. s.warm_residual)
  -- the host waits for the device (stats().syncs) only for the step's pattern, indices and start
  -- states (one packed upload), the warm start (1), the last step's contacts down for the host's
  -- transfer (1), the solution down (1) and the accepted step's friction work and closed count (2),
  -- and in each open-close iteration for PCG's scalars before its iterations and every 8 and the
  -- rule's counts (before the rule ran on the device, 2 a CG iteration and 4 more an open-close
  -- iteration; before the contacts' states stayed there, the states went up each attempt and came
  -- down with their bookkeeping done on the host)
  T.eq(s.reductions, 0, "the bound below is for one attempt")
  local allowed = 1 + 1 + 1 + 1 + 2
  for _, n in ipairs(s.iterations.pcg) do allowed = allowed + 2 + math.ceil(n / 8) end
  T.ok(s.syncs <= allowed and s.syncs > 0, string.format("%d host waits in a step of %d PCG iterations (at most %d)",
    s.syncs, s.pcg, allowed))
  T.ok(n_ssor < 0.8 * n_jacobi, string.format("PCG iterations: %d with SSOR-AI, %d with block Jacobi", n_ssor, n_jacobi))
  -- two solutions of the same steps, each stopped by the update's displacement test (pcg_displacement
  -- 1e-9 of max_displacement, 0.04 m here: 4e-11 m a step): within that bound over the 10 steps
  for i = 2, jacobi:count() do
    local a, b = ssor:block(i).uy, jacobi:block(i).uy
    T.ok(math.abs(a - b) <= 10 * 4e-11, string.format("block %d's settlement: %.17g against %.17g", i, a, b))
  end
  T.raises(function() cut_mass { preconditioner = "ilu" } end, { "preconditioner", "block_jacobi" }, "unknown one")
end)

T.case("friction work never negative: a jointed slope's sliding contacts dissipate in every step", function()
  -- scripts/dda_slope.lua's slope (36 blocks, friction 30 deg), 12 steps of 2 ms. A contact held in
  -- its state after 4 changes used to stay sliding while its slip ran back, its friction pushing the
  -- blocks along: step 10 lost 1.6 J of friction work. The open-close rule lets a sliding contact's
  -- slip run back by its round-off band, 1e-9 x max_displacement (0.08 m), at friction forces below
  -- 4e5 N: 3e-5 J a contact, 1e-3 J a step at most.
  local rock = cl.dda.cut {
    domain = { 0, 0, 12, 0, 12, 4, 4, 8, 0, 8 },
    joints = { { dip = 35, spacing = 1.5, origin = { 0.1, 0.2 } }, { dip = 125, spacing = 2, origin = { 0.3, 0.1 } } },
  }
  local m = cl.dda.model {
    blocks = { cl.dda.blocks { { -2, -2, 14, -2, 14, 0, -2, 0 }, { -2, 0, 0, 0, 0, 10, -2, 10 } }, rock },
    materials = { { rho = 2500, E = 1e10, nu = 0.25 } }, joints = { { friction = 30 } },
    fixed = { { -2, -2 }, { 14, -2 }, { -2, 0 }, { -2, 10 }, { -1, 5 } }, gravity = { 0, -g },
  }
  local before = 0
  for step = 1, 12 do
    local work = m:run { steps = 1, dt = 2e-3 }.friction_work
    T.ok(work - before >= -1e-3, string.format("step %d's friction work %.3g J", step, work - before))
    before = work
  end
end)

T.case("PCG stops on its update's displacement: a settling mass in under half the iterations, the same settlements", function()
  -- 20 static steps of 0.1 ms (the paper's time step); pcg_displacement = 0 is the relative residual
  -- 1e-12 alone. The stopping updates move the lightest block by < 1e-9 x max_displacement (0.04 m)
  -- each step, and CG's later updates shrink geometrically: the settlements agree within 20 steps x
  -- 4e-11 m (they differ by 1e-10 m of 1e-6 m).
  local function run(pcg_displacement)
    local m = cut_mass { pcg_displacement = pcg_displacement }
    local iterations = 0
    for _ = 1, 20 do iterations = iterations + m:run { steps = 1, dt = 1e-4 }.pcg end
    return m, iterations
  end
  local tight, n_tight = run(0)
  local by_displacement, n = run(nil)
  T.ok(n < 0.5 * n_tight, string.format("PCG iterations: %d stopping on the displacement, %d on the residual", n, n_tight))
  for i = 2, tight:count() do
    T.near(by_displacement:block(i).uy, tight:block(i).uy, 8e-10, string.format("block %d's settlement (m)", i), 1)
  end
  T.raises(function() cut_mass { pcg_displacement = -1 } end, { "pcg_displacement", ">= 0" }, "negative")
end)

T.case("device matrix: HSBCSR (upper blocks) and BSR (both triangles) give the same steps", function()
  local function run(spmv)
    local m = cut_mass { spmv = spmv, analysis = "dynamic" }
    local iterations = 0
    for _ = 1, 5 do iterations = iterations + m:run { steps = 1, dt = 2e-3 }.pcg end
    return m, iterations
  end
  local half, n_half = run("hsbcsr")
  local full, n_full = run("bsr")
  -- the products differ only in the order of their sums: the iterations may differ by one or two,
  -- and a solve that stops one iteration apart differs by at most about its last update, which the
  -- displacement criterion keeps below pcg_displacement (1e-9) x max_displacement (1% of half the
  -- 8 m domain: 0.04 m): 5 steps, 2e-10 m
  T.ok(math.abs(n_half - n_full) <= 0.01 * n_full, string.format("PCG iterations: %d HSBCSR, %d BSR", n_half, n_full))
  for i = 2, half:count() do
    T.near(half:block(i).uy, full:block(i).uy, 2e-10, string.format("block %d's settlement (m)", i), 1)
  end
  T.raises(function() cut_mass { spmv = "csr" } end, { "spmv", "hsbcsr", "bsr" }, "unknown format")
  -- the persistent grid's size (a GPU's choice; the cpu's solve is one loop): a count of blocks
  T.raises(function() cut_mass { pcg_blocks = 1.5 } end, { "pcg_blocks", "whole number" }, "a fraction of a block")
  T.raises(function() cut_mass { pcg_blocks = -1 } end, { "pcg_blocks", "> 0" }, "a negative block count")
end)

T.case("contact detection on the device (detection = \"device\", here the cpu device) gives the host's steps; so do the pattern and indices built there", function()
  local function run(detection)
    local m = cut_mass { detection = detection, analysis = "dynamic" }
    for _ = 1, 5 do m:run { steps = 1, dt = 2e-3 } end
    return m
  end
  local host, device = run("host"), run("device")
  T.ok(not host:stats().device_detection and device:stats().device_detection, "stats name where detection ran")
  T.ok(not host:stats().device_pattern and device:stats().device_pattern, "stats name where the pattern was built")
  -- the same contacts in the same order, found by the same per-pair function: on the cpu device every
  -- step the same, bit for bit; on a GPU the device's narrow phase rounds with fused multiply-adds
  -- (contact geometry within 1e-12 of the host's, unit/test_dda), and PCG stops on its displacement
  -- criterion (1e-9 x max_displacement, 0.04 m: 4e-11 m a solve), so the forces and settlements agree
  -- to that, not bit for bit: forces to 1e-6 of the largest, settlements to 1e-9 m over 5 steps
  local a, b = host:contacts(), device:contacts()
  T.ok(#a == #b and #a > 20, string.format("%d contacts on the host, %d on the device", #a, #b))
  local exact, largest = cl.device() == "cpu", 0
  for k = 1, #a do largest = math.max(largest, math.abs(a[k].normal_force)) end
  for k = 1, #a do
    local same_force = exact and a[k].normal_force == b[k].normal_force or
      math.abs(a[k].normal_force - b[k].normal_force) <= 1e-6 * largest
    T.ok(a[k].vertex_block == b[k].vertex_block and a[k].edge_block == b[k].edge_block and a[k].kind == b[k].kind and
      a[k].state == b[k].state and same_force, string.format("contact %d: blocks %d-%d / %d-%d, state %s / %s, normal force %.17g / %.17g",
      k, a[k].vertex_block, a[k].edge_block, b[k].vertex_block, b[k].edge_block, a[k].state, b[k].state, a[k].normal_force,
      b[k].normal_force))
  end
  for i = 2, host:count() do
    local d = math.abs(host:block(i).uy - device:block(i).uy)
    T.ok(exact and d == 0 or not exact and d <= 1e-9, string.format("block %d's settlement (difference %g m)", i, d))
  end
  T.raises(function() cut_mass { detection = "gpu" } end, { "detection", "host", "device" }, "unknown place")
end)

T.case("a block crushed by stiffer contacts: the step shrinks, then fails naming it; never turned inside out", function()
  -- a 0.1 m block of E = 1e4 under a 2 x 1 rock block: equilibrium would need a strain of ~50;
  -- an allowed displacement of 0.5 m lets one step squash it past zero area
  local m = cl.dda.model {
    blocks = { cl.dda.blocks { { -2, -1, 3, -1, 3, 0, -2, 0 } },
               cl.dda.blocks { { 0, 0, 0.1, 0, 0.1, 0.1, 0, 0.1 }, material = 2 },
               cl.dda.blocks { { -1, 0.1, 1, 0.1, 1, 1.1, -1, 1.1 } } },
    materials = { rock, { rho = 2500, E = 1e4, nu = 0.25 } }, fixed = { { -2, -1 }, { 3, -1 }, { -2, 0 } },
    gravity = { 0, -g }, analysis = "static", max_displacement = 0.5,
  }
  T.raises(function() for _ = 1, 10 do m:run { steps = 1, dt = 1 } end end,
    { "cannot converge", "area of block 2 would change by more than a factor 2" })
  T.ok(m:block(2).area > 0, string.format("block 2's area %g stays positive", m:block(2).area))
end)

T.case("block file: one block per line, x y pairs, comments", function()
  local dir = T.outdir("dda_file")
  local path = dir .. "/blocks.txt"
  local f = assert(io.open(path, "w"))
  f:write("# two unit squares side by side\n0 0  1 0  1 1  0 1\n\n1,0, 2,0, 2,1, 1,1  # second\n")
  f:close()
  local set = cl.dda.blocks { file = path }
  T.eq(#set.polygons, 2, "blocks read")
  local m = cl.dda.model { blocks = set, materials = { rock } }
  T.near(m:block(2).x, 1.5, 1e-14, "second block's centroid")
  local bad = dir .. "/bad.txt"
  f = assert(io.open(bad, "w"))
  f:write("0 0 1 0 1 1 0 1\n0 0 1 x 1 1\n")
  f:close()
  T.raises(function() cl.dda.blocks { file = bad } end, { "bad.txt:2", "'x' is not a number" })
end)

local function total_area(set)
  local sum = 0
  for _, p in ipairs(set.polygons) do
    local a = 0
    for k = 1, #p, 2 do
      local l = k + 2 <= #p and k + 2 or 1
      a = a + p[k] * p[l + 1] - p[l] * p[k + 1]
    end
    T.ok(a > 0, "pieces counter-clockwise")
    sum = sum + a / 2
  end
  return sum
end

T.case("block cutting: joint sets and lines cut a domain into blocks that tile it", function()
  local box = { 0, 0, 10, 0, 10, 6, 0, 6 }
  local grid = cl.dda.cut { domain = box, joints = { { dip = 0, spacing = 1, origin = { 0, 0 } },
    { dip = 90, spacing = 1, origin = { 0, 0 } } } }
  T.eq(#grid.polygons, 60, "a 10 x 6 box cut every metre both ways (joints on the boundary cut nothing)")
  T.near(total_area(grid), 60, 1e-12, "their areas")
  local three = cl.dda.cut { domain = box, joints = { { dip = 0, spacing = 1, origin = { 0, 0 } },
    { dip = 90, spacing = 1, origin = { 0, 0 } }, { dip = 45, spacing = 1.3 } } }
  T.ok(#three.polygons > 60, "a third, inclined set cuts more")
  T.near(total_area(three), 60, 1e-12, "areas with the third set")
  cl.dda.model { blocks = three, materials = { rock } } -- every piece a simple polygon, none overlapping
  -- finite traces (3 m, bridges 1 m) cut only where a trace crosses a block: fewer pieces, the same area
  local traces = cl.dda.cut { domain = box, joints = { { dip = 0, spacing = 1, origin = { 0, 0 } },
    { dip = 90, spacing = 1, origin = { 0, 0 }, trace = 3, bridge = 1, perturbation = 0.3, seed = 7 } } }
  T.ok(#traces.polygons > 6 and #traces.polygons < 60, string.format("%d pieces", #traces.polygons))
  T.near(total_area(traces), 60, 1e-12, "areas with finite traces")
  -- a concave L cut by two lines: four pieces, one of them still concave
  local L = cl.dda.cut { domain = { 0, 0, 4, 0, 4, 1, 1, 1, 1, 4, 0, 4 },
    lines = { { -1, 0.5, 5, 0.5 }, { 0.5, -1, 0.5, 5 } } }
  T.eq(#L.polygons, 4, "pieces of the L")
  T.near(total_area(L), 7, 1e-12, "the L's area")
  T.raises(function() cl.dda.cut { domain = box, lines = { { 2, 3, 5, 3 } } } end, { "line 1 cuts no block" },
    "a line ending inside the domain leaves no dangling crack")
  -- Shi's DC removes a trace's dangling parts: here a line cuts the box at y = 3 and a second cuts the
  -- lower half at x = 5 and runs on 1 m into the upper half, where it ends (dangling)
  local parts = cl.dda.cut { domain = box, lines = { { -1, 3, 11, 3 }, { 5, -1, 5, 4 } } }
  T.eq(#parts.polygons, 3, "the lower half's two pieces and the uncut upper half")
  T.near(total_area(parts), 60, 1e-12, "their areas")
  local uppers = 0
  for i, p in ipairs(parts.polygons) do
    local top = 0
    for k = 2, #p, 2 do top = math.max(top, p[k]) end
    if top > 3 then
      uppers = uppers + 1
      T.eq(#p, 8, string.format("piece %d, the upper half: its 4 corners alone, no slit to the dangling end (5, 4)", i))
      for k = 1, #p, 2 do
        T.ok(p[k + 1] == 3 or p[k + 1] == 6, string.format("vertex (%g, %g) on the half's boundary", p[k], p[k + 1]))
      end
    end
  end
  T.eq(uppers, 1, "one piece above y = 3")
  T.raises(function() cl.dda.cut { domain = box, joints = { { dip = 0, spacing = 1, origin = { 0, 0 }, trace = 0.5, bridge = 20 } } } end,
    { "joint set 1 cuts no block" }, "traces shorter than the domain")
  T.raises(function() cl.dda.cut { domain = box, joints = { { dip = 0 } } } end, { "spacing" }, "missing spacing")
end)

-- 2 area / perimeter of each piece (the cutter's sliver measure), the smallest
local function thinnest(set)
  local least = math.huge
  for _, p in ipairs(set.polygons) do
    local a, per = 0, 0
    for k = 1, #p, 2 do
      local l = k + 2 <= #p and k + 2 or 1
      a, per = a + p[k] * p[l + 1] - p[l] * p[k + 1], per + math.sqrt((p[l] - p[k]) ^ 2 + (p[l + 1] - p[k + 1]) ^ 2)
    end
    least = math.min(least, math.abs(a) / per)
  end
  return least
end

T.case("block cutting: slivers thinner than a tenth of the joint spacing are merged into a neighbour", function()
  -- a 10 x 6 box cut every metre both ways and by a line 3 cm right of x = 2: six 0.03 x 1 strips
  -- (2 area / perimeter 0.029, against 0.5 for the unit blocks)
  local box = { 0, 0, 10, 0, 10, 6, 0, 6 }
  local function cut(sliver)
    return cl.dda.cut { domain = box, sliver = sliver, joints = { { dip = 0, spacing = 1, origin = { 0, 0 } },
      { dip = 90, spacing = 1, origin = { 0, 0 } } }, lines = { { 2.03, -1, 2.03, 7, joint = 2 } } }
  end
  local kept = cut(0)
  T.eq(#kept.polygons, 66, "sliver = 0 keeps the six strips")
  T.near(thinnest(kept), 0.03 / 1.03, 1e-12, "the strips' 2 area / perimeter")
  local merged = cut()
  T.eq(#merged.polygons, 60, "each strip merged into a neighbour")
  T.eq(merged.slivers.merged, 6, "six merged")
  T.eq(merged.slivers.dropped, 0, "none dropped")
  T.near(total_area(merged), 60, 1e-12, "the pieces still tile the box")
  T.ok(thinnest(merged) >= 0.1, string.format("no piece thinner than 0.1 m (thinnest %.3g)", thinnest(merged)))
  local line_edges = 0 -- the strips' edges along the line (joint 2, 0-based 1) survive the merge
  for _, tags in ipairs(merged.edge_joints) do
    for _, t in ipairs(tags) do if t == 1 then line_edges = line_edges + 1 end end
  end
  T.ok(line_edges >= 6, string.format("%d edges on the line keep its joint", line_edges))
  cl.dda.model { blocks = merged, materials = { rock }, joints = { {}, {} } } -- simple, none overlapping
  T.raises(function() cut(-1) end, { "sliver", ">= 0" }, "a negative fraction")
end)

T.case("joint materials per joint set: a block slides on the cut joint (20 deg) and not on the base (35 deg)", function()
  local theta, phi = math.rad(30), math.rad(20)
  local base = rotated({ -1, -1, 6, -1, 6, 0, -1, 0 }, theta)
  -- a 3 x 2 slab on the incline, cut along its middle by a line whose edges get joint 2
  local slab = cl.dda.cut { domain = rotated({ 1, 0, 4, 0, 4, 2, 1, 2 }, theta),
    lines = { (function() local l = rotated({ 0, 1, 5, 1 }, theta) l.joint = 2 return l end)() } }
  T.eq(#slab.polygons, 2, "the slab cut in two")
  local m = cl.dda.model {
    blocks = { cl.dda.blocks { base }, slab }, materials = { rock },
    joints = { { friction = 35 }, { friction = 20 } }, gravity = { 0, -g }, max_displacement = 0.01,
    fixed = { { base[1], base[2] }, { base[3], base[4] }, { base[7], base[8] } },
  }
  m:run { steps = 500, dt = 1e-3 }
  local t = m:stats().t
  local lower, upper = m:block(2).y < m:block(3).y and 2 or 3, m:block(2).y < m:block(3).y and 3 or 2
  local function down(i) local b = m:block(i) return -(b.ux * math.cos(theta) + b.uy * math.sin(theta)) end
  T.ok(math.abs(down(lower)) < 1e-4, string.format("the lower block stays (%.3g m)", down(lower)))
  T.near(down(upper), 0.5 * g * (math.sin(theta) - math.cos(theta) * math.tan(phi)) * t ^ 2, 0.01,
    "the upper block slides on the cut joint")
  T.raises(function()
    cl.dda.model { blocks = { cl.dda.blocks { base }, slab }, materials = { rock }, joints = { { friction = 35 } } }
  end, { "joint 2", "only 1 joints" }, "a joint the model lacks")
end)

T.case("a cut rock mass settles on a fixed base (static): the base carries its weight within 1%", function()
  local m, mass = cut_mass()
  m:run { steps = 50, dt = 0.01 }
  local N, area = 0, 0
  for _, c in ipairs(m:contacts()) do
    if c.vertex_block == 1 or c.edge_block == 1 then N = N + c.normal_force end
  end
  for i = 2, m:count() do area = area + m:block(i).area end
  T.near(total_area(mass), 18, 1e-12, "the pieces' area")
  T.near(area, 18, 1e-4, "the settled blocks' area (elastic strain under their weight ~1e-5)")
  T.near(N, area * rock.rho * g, 0.01, "normal force on the base")
end)

T.case("bad input: each error names the parameter and the fix", function()
  local function model(extra)
    local args = { blocks = cl.dda.blocks { square(0, 0, 1) }, materials = { rock } }
    for k, v in pairs(extra) do args[k] = v end
    return cl.dda.model(args)
  end
  T.raises(function() model { joints = { { friction = 90 } } } end, { "friction", "[0, 90)" }, "friction 90")
  T.raises(function() model { joints = { { friction = -1 } } } end, { "friction", "[0, 90)" }, "friction < 0")
  T.raises(function() model { materials = { { rho = 2500, E = 0 } } } end, { "E", "> 0" }, "E = 0")
  T.raises(function() model { materials = { { rho = -1, E = 1e9 } } } end, { "rho", "> 0" }, "rho < 0")
  T.raises(function() model { normal_stiffness = 0 } end, { "normal_stiffness", "> 0" }, "stiffness 0")
  T.raises(function() model { fixed = { { 5, 5 } } } end, { "fixed point 1", "outside every block" }, "fixed point")
  T.raises(function() model { frction = 20 } end, { "unknown argument 'frction'" }, "misspelt key")
  T.raises(function() model { blocks = cl.dda.blocks { { 0, 0, 1, 0, 2, 0 } } } end, { "block 1", "degenerate" },
    "collinear block")
  T.raises(function() model { blocks = cl.dda.blocks { { 0, 0, 1, 1, 1, 0, 0, 1 } } } end,
    { "block 1", "self-intersecting" }, "bow tie")
  T.raises(function() model { blocks = cl.dda.blocks { { 0, 0, 1, 0, 1, 0, 0, 1 } } } end,
    { "block 1", "same point" }, "repeated vertex")
  T.raises(function() model { blocks = cl.dda.blocks { square(0, 0, 1), square(0.5, 0.5, 1) } } end,
    { "blocks 1 and 2 overlap" }, "overlap")
  T.raises(function() model { blocks = cl.dda.blocks { square(0, 0, 1), square(0, 0, 1) } } end,
    { "blocks 1 and 2 overlap" }, "coincident blocks")
  model { blocks = cl.dda.blocks { square(0, 0, 1), square(1, 0, 1) } } -- touching blocks are fine
  T.raises(function() cl.dda.blocks { { 0, 0, 1, 0, 1 } } end, { "block 1", "x, y pairs" }, "odd coordinates")
  T.raises(function() model { loads = { { 0.5, 0.5, fx = "2 * tt" } } } end, { "fx", "tt" }, "unknown variable")
  local m = model { gravity = { 0, -g } }
  T.raises(function() m:run { steps = 1, dt = -1 } end, { "dt", "> 0" }, "negative dt")
end)

T.case("PCG as one persistent kernel: the launches' steps, one host wait an open-close iteration", function()
  T.raises(function() cut_mass { pcg = "graph" } end, { "pcg", "persistent", "launches" }, "unknown one")
  if not gpu then T.skip("no GPU (the cpu's solve is one loop either way)") end
  local function run(pcg)
    return T.on_device("cuda", function()
      local m = cut_mass { pcg = pcg, analysis = "dynamic" }
      for _ = 1, 5 do m:run { steps = 1, dt = 2e-3 } end
      local settled = {}
      for i = 2, m:count() do settled[i] = m:block(i).uy end
      return m:stats(), settled
    end)
  end
  local sp, up = run("persistent")
  local sl, ul = run("launches")
  -- the same operations but for the dots' order of summation: a solve may stop one iteration apart,
  -- an update the displacement criterion keeps below 1e-9 x max_displacement (0.04 m) a step
  for i = 2, #up do T.near(up[i], ul[i], 1e-6, string.format("block %d's settlement", i), 1e-9) end
  T.ok(math.abs(sp.pcg - sl.pcg) <= sl.open_close, string.format("PCG iterations: %d persistent, %d launches", sp.pcg,
    sl.pcg))
  -- the last step's host waits: its pattern and indices (one packed upload), the warm start, the
  -- states up and down and the solution down, and one an open-close iteration for the solve and the
  -- rule together (with the launches: 2 + ceil(PCG / 8) an open-close iteration)
  T.eq(sp.reductions, 0, "the count below is for one attempt")
  T.ok(sp.syncs <= 5 + sp.open_close, string.format("%d host waits in a step of %d open-close iterations (at most %d)",
    sp.syncs, sp.open_close, 5 + sp.open_close))
end)

T.case("CPU and CUDA agree (f64) on the sliding block after 200 steps", function()
  if not gpu then T.skip("no GPU") end
  local theta = math.rad(30)
  local function run(device)
    return T.on_device(device, function()
      -- PCG to its 1e-12 residual alone: the displacement criterion may stop the two a CG update of
      -- up to 1e-11 m apart, more than the arithmetic's differences this compares
      local m = incline(theta, 20, { pcg_displacement = 0 })
      m:run { steps = 200, dt = 1e-3 }
      return m:block(2)
    end)
  end
  local a, b = run("cpu"), run("cuda")
  -- the per-block kernels are the same f64 source; nvcc's fused multiply-adds and the device's
  -- sin/cos differ from the host's by ulps in each step, passed on through 200 solves
  T.near(b.ux, a.ux, 1e-10, "ux")
  T.near(b.uy, a.uy, 1e-10, "uy")
  -- the velocities stay on the device until asked for (cl_dda_host_state): v = 2 D / dt - v passes
  -- the displacements' 1e-10 m on as 2e-7 m/s a step, alternating; 1e-4 m/s of the ~0.36 m/s still
  -- tells a copy left behind (zero) apart
  T.near(b.velocity[1], a.velocity[1], 1e-4, "vx (m/s)")
  T.near(b.velocity[2], a.velocity[2], 1e-4, "vy (m/s)")
end)

T.case("CUDA: contact detection on the device and on the host give the same contacts and steps", function()
  if not gpu then T.skip("no GPU") end
  local function run(detection)
    return T.on_device("cuda", function()
      local m = cut_mass { detection = detection, analysis = "dynamic", pcg_displacement = 0 }
      for _ = 1, 5 do m:run { steps = 1, dt = 2e-3 } end
      return m:contacts(), m:block(8).uy
    end)
  end
  local a, uya = run("host")
  local b, uyb = run("device")
  T.ok(#a == #b and #a > 20, string.format("%d contacts on the host, %d on the device", #a, #b))
  for k = 1, #a do
    T.ok(a[k].vertex_block == b[k].vertex_block and a[k].edge_block == b[k].edge_block and a[k].kind == b[k].kind and
      a[k].state == b[k].state, string.format("contact %d", k))
  end
  -- the device's hypot rounds the contacts' edge parameters and lengths differently from the host's
  -- in the last bits (test_dda.c: 1e-12), passed on through 5 solves
  T.near(uyb, uya, 1e-10, "block 8's settlement (m)")
end)

-- 20 static steps of 0.1 ms of the cut mass built with extra: the model, its PCG and open-close
-- iterations over them.
local function settle_cut_mass(extra)
  local m = cut_mass(extra)
  local iterations, solves = 0, 0
  for _ = 1, 20 do
    local s = m:run { steps = 1, dt = 1e-4 }
    iterations, solves = iterations + s.pcg, solves + s.open_close
  end
  return m, iterations, solves
end

T.case("pcg_variant = \"pipelined\" (one reduction an iteration) settles a cut mass as the standard PCG does", function()
  -- 20 static steps of 0.1 ms, as the displacement criterion's case. The two PCGs give the same
  -- iterates in exact arithmetic and round differently: a solve may stop an iteration or two apart
  -- (test_dda.c), and then differs by about its last updates, each under pcg_displacement (1e-9) x
  -- max_displacement (0.04 m): the settlements within 20 steps x 4e-11 m, as there.
  local standard, n_standard, solves_standard = settle_cut_mass { pcg_variant = "standard" }
  local pipelined, n_pipelined, solves_pipelined = settle_cut_mass { pcg_variant = "pipelined" }
  T.ok(solves_pipelined == solves_standard and math.abs(n_pipelined - n_standard) <= 2 * solves_standard,
    string.format("PCG iterations %d standard, %d pipelined; open-close iterations %d and %d", n_standard, n_pipelined,
      solves_standard, solves_pipelined))
  for i = 2, standard:count() do
    T.near(pipelined:block(i).uy, standard:block(i).uy, 8e-10, string.format("block %d's settlement (m)", i), 1)
  end
  T.raises(function() cut_mass { pcg_variant = "fast" } end, { "pcg_variant", "fast", "standard", "pipelined" },
    "an unknown variant")
  T.raises(function() cut_mass { pcg_variant = "pipelined", preconditioner = "ssor" } end,
    { "pcg_variant", "block_jacobi", "standard" }, "the pipelined PCG with SSOR-AI")
end)

T.case("open_close_tolerance: loose open-close solves, confirmed at the full tolerance, settle a cut mass as full ones do", function()
  -- 20 static steps of 0.1 ms, as the pipelined PCG's case, with every open-close solve to the full
  -- tolerances (1) and the solves that change states to 100 times them: only a full-tolerance solve
  -- the rule leaves unchanged and settled ends a step, so the accepted solutions stop on the same
  -- test, each within a few updates under pcg_displacement (1e-9) x max_displacement (0.04 m) of the
  -- full path's: settlements within 20 steps x 4e-11 m, as there; one accepted at the loose tolerance
  -- (4e-9 m a step) is off by more.
  local full, n_full, solves_full = settle_cut_mass { open_close_tolerance = 1 }
  local loose, n_loose, solves_loose = settle_cut_mass { open_close_tolerance = 100 }
  T.ok(n_loose < n_full, string.format("PCG iterations %d full, %d loose (open-close iterations %d and %d)", n_full,
    n_loose, solves_full, solves_loose))
  for i = 2, full:count() do
    T.near(loose:block(i).uy, full:block(i).uy, 8e-10, string.format("block %d's settlement (m)", i), 1)
    T.near(loose:block(i).ux, full:block(i).ux, 8e-10, string.format("block %d's slide (m)", i), 1)
  end
  -- The same state for every contact that carries a force beyond the rule's round-off band (1e-9 x
  -- 0.04 m x kn 5e11 N/m = 20 N; the blocks weigh ~25 kN): inside it a contact carries no force to the
  -- rule's precision, open and locked at zero force both satisfy it, and which one the iteration
  -- reaches depends on its path (here a few contacts of 1-18 N).
  local a, b, band, undecided = full:contacts(), loose:contacts(), 1e-9 * 0.04 * 5e11, 0
  T.ok(#a == #b and #a > 20, string.format("%d contacts with full solves, %d with loose ones", #a, #b))
  for k = 1, #a do
    local carries = math.max(math.abs(a[k].normal_force), math.abs(b[k].normal_force)) > band
    if not carries and a[k].state ~= b[k].state then undecided = undecided + 1 end
    T.ok(a[k].vertex_block == b[k].vertex_block and a[k].edge_block == b[k].edge_block and
      (a[k].state == b[k].state or not carries), string.format("contact %d: blocks %d-%d / %d-%d, state %s / %s, " ..
      "normal force %.6g / %.6g N", k, a[k].vertex_block, a[k].edge_block, b[k].vertex_block, b[k].edge_block,
      a[k].state, b[k].state, a[k].normal_force, b[k].normal_force))
  end
  T.ok(undecided <= #a / 20, string.format("%d of %d contacts inside the band in another state", undecided, #a))
  T.raises(function() cut_mass { open_close_tolerance = 0.5 } end, { "open_close_tolerance", "0.5", ">= 1" },
    "a factor below 1")
end)

T.case("stats().pattern_reuses: a block sliding on an incline keeps the matrix's pattern after its first step", function()
  local m = incline(30, 20)
  m:run { steps = 20, dt = 1e-3 }
  local s = m:stats()
  -- its contacts' pairs of blocks (the block's two vertices on the incline's edge) stay those of the
  -- first step, which built the pattern (docs/methods/dda.md, Assembly)
  T.ok(s.pattern_reuses == s.steps - 1, string.format("pattern kept on %d of %d steps", s.pattern_reuses, s.steps))
end)

T.case("stats().transfer_shortcuts: the device transfer of a block sliding on an incline skips its sort after the first step", function()
  local m = incline(30, 20, { detection = "device", spmv = "bsr" })
  m:run { steps = 20, dt = 1e-3 }
  local s = m:stats()
  -- the block's two vertices on the incline's edge are found every step, in the same order
  -- (docs/methods/dda.md, the transfer's shortcut); the host's detection has no device transfer
  T.ok(s.device_pattern and s.transfer_shortcuts == s.steps - 1,
    string.format("the sort skipped on %d of %d steps", s.transfer_shortcuts, s.steps))
  local h = incline(30, 20, { detection = "host" })
  h:run { steps = 3, dt = 1e-3 }
  T.ok(h:stats().transfer_shortcuts == 0, "none on the host")
end)

T.run()
