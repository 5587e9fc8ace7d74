-- Peridynamics over ranks and GPUs (issue 18; docs/scale-out.md, docs/benchmarks.md): weak and strong
-- scaling of the whole explicit step, the halo's bytes, time and share of the step, and the
-- point-to-point bandwidth between the ranks measured in the same run; and Kalthoff-Winkler on N
-- ranks saved as a checkpoint, to compare with the one-rank run. One rank per GPU:
--
--   mpirun -np N cleave run scripts/bench/pd_scaling.lua weak   [points per rank = 1e8] [f32|f64] [steps = 20] [dim = 2] [overlap = on|off]
--   mpirun -np N cleave run scripts/bench/pd_scaling.lua strong [points in all = 4e8]   [f32|f64] [steps = 20] [dim = 2] [overlap = on|off]
--   mpirun -np N cleave run scripts/bench/pd_scaling.lua kw     [dx_mm = 0.1] [outdir = out/pd_scaling]
--   cleave run scripts/bench/pd_scaling.lua compare a.ckpt b.ckpt
--   cleave run scripts/bench/pd_scaling.lua partition [dx_mm = 0.25] [L_mm = 40]
--
-- weak / strong: a box body (rect in 2D, box in 3D) of the lattice layout with breaking on, built
-- per rank from its grid (cl.comm.partition_grid), its points in a rigid motion (the step's work
-- does not depend on the stretch; no surface correction, whose set-up is a host loop over the
-- points). Weak: each rank's block holds `points` points (blocks of a square or cube of side
-- (points)^(1/dim) grid steps, laid as the bisection cuts them: 2 x 1, 2 x 2, 4 x 2 ... in 2D);
-- strong: one square (cube) of `points` points. Timed: the median over 3 runs of `steps` steps after
-- a warm-up of 2 (wall clock between device synchronisations), the slowest rank's. The halo stage
-- alone: the median over 3 runs of `steps` exchanges. One line per run (rank 0 prints):
--   ranks, points, precision, ms per step, halo bytes sent per rank and step (largest rank), halo ms
--   per step (largest), halo share of the step, link bandwidth (GB/s each way, the slowest pair of
--   ranks 2p <-> 2p+1, 64 MB messages), the transport, set-up seconds, and the memory the body and its
--   run hold on the largest rank (device bytes per rank and per local point: on a GPU the device's
--   used memory after the run less before the body; on the CPU backend the process's resident memory
--   after the run less before the body, and its peak during set-up).
-- overlap: the body's step computes its interior rows while the halo travels (on, the default) or
-- exchanges the halo, then computes (off) (cl.pd.body{ overlap = }). The transport is the halo
-- stage's "auto": NCCL between GPUs when every rank has its own, else MPI through (pinned) host
-- buffers; CLEAVE_TRANSPORT=mpi|nccl forces one (cl.pd.body{ transport = }).
-- kw: scripts/kalthoff_winkler.lua at dx (f64), its run saved at its end as the checkpoint
--   <outdir>/kw_<N>ranks.ckpt (the one-rank checkpoint of the whole body on any N); prints max |u|
--   and the broken bonds. compare: max |du| / max |u| of two such checkpoints and whether their
--   bond states are the same; fails (exit status 1) above 1e-12 or on any other bond.
local cl = require "cleave"
local mode = arg[1] or "weak"
local rank, ranks = cl.comm.rank(), cl.comm.size()

local function median(t) table.sort(t); return t[(#t + 1) // 2] end

-- partition: a non-convex point file (scripts/bench/lshape_points.lua: an L-shaped plate with two
-- holes) cut in 2, 3 and 4 parts (all computed on this process, as each rank does): recursive
-- coordinate bisection balanced by bonds with the ghosts of the box rule ("rcb box": every point
-- within a horizon of the box of a part's points, the plans of cleave before the graph partition) and
-- with the ghosts of the bond graph ("rcb", what cl.pd.body does now), and METIS on the bond graph
-- ("graph"). Per cut: ghost points (all parts, the largest part's), rows and bytes sent per step by
-- the largest part (f64 2D: 16 B a row), the bond imbalance (the largest part's bonds over the mean)
-- and the seconds of the partition and plans.
if mode == "partition" then
  local dx, L = (tonumber(arg[2]) or 0.25) * 1e-3, (tonumber(arg[3]) or 40) * 1e-3
  local dir = "out/pd_scaling"
  local path = string.format("%s/lshape_%g_%g.txt", dir, L * 1e3, dx * 1e3)
  os.execute("mkdir -p " .. dir)
  dofile(debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") .. "/lshape_points.lua")(path, L, dx, 1e-3)
  local x = cl.geom.read_points(path)
  local delta = 3.015 * dx
  local graph = cl.pd.bonds { x = x, delta = delta * (1 + 1e-6), layout = "list" } -- as cl.pd.body cuts
  local counts = graph:counts():convert("f64")
  local bonds = counts:to_table()
  print(string.format("pd_scaling partition: L-shaped plate with 2 holes, L = %g mm, dx = %g mm, %d points, %d bonds",
    L * 1e3, dx * 1e3, x.n, graph.count))
  print(string.format("%5s %-9s %8s %10s %9s %10s %14s %8s", "parts", "method", "ghosts", "max ghosts", "max sent",
    "max B/step", "bonds max/mean", "seconds"))
  for parts = 2, 4 do
    for _, method in ipairs { "rcb box", "rcb", "graph" } do
      local t0, ghosts, most, sent, heaviest = cl.clock(), 0, 0, 0, 0
      for r = 0, parts - 1 do
        local plan = cl.comm.partition { x = x, reach = delta, parts = parts, rank = r,
          method = method == "graph" and "graph" or "rcb", weights = method ~= "graph" and counts or nil,
          bonds = method ~= "rcb box" and graph or nil }
        local global, mine = plan.global:to_table(), 0
        for i = 1, plan.owned do mine = mine + bonds[global[i] + 1] end
        ghosts, most, sent, heaviest = ghosts + plan.ghosts, math.max(most, plan.ghosts), math.max(sent, plan.sent),
          math.max(heaviest, mine)
      end
      print(string.format("%5d %-9s %8d %10d %9d %10d %14.4f %8.2f", parts, method, ghosts, most, sent, sent * 16,
        heaviest / (graph.count * 2 / parts), cl.clock() - t0))
    end
  end
  return
end

if mode == "compare" then
  local a, b = assert(arg[2], "compare: give two checkpoints"), assert(arg[3], "compare: give two checkpoints")
  local fa, va = cl.io.load_checkpoint(a)
  local fb, vb = cl.io.load_checkpoint(b)
  if va.n ~= vb.n or va.step ~= vb.step then
    error(string.format("%s holds %s points at step %s, %s %s at step %s", a, va.n, va.step, b, vb.n, vb.step), 0)
  end
  local ua, ub, du, umax = fa.u:to_table(), fb.u:to_table(), 0, 0
  for i = 1, #ua do
    for c = 1, #ua[i] do du, umax = math.max(du, math.abs(ua[i][c] - ub[i][c])), math.max(umax, math.abs(ub[i][c])) end
  end
  local ba, bb, bonds_differ = fa.bonds:to_table(), fb.bonds:to_table(), 0
  for i = 1, #ba do if ba[i] ~= bb[i] then bonds_differ = bonds_differ + 1 end end
  print(string.format("compare: %d points, step %d: max |du| / max |u| = %.3g, bond words differing: %d", va.n, va.step,
    du / umax, bonds_differ))
  if not (du <= 1e-12 * umax) or bonds_differ > 0 then os.exit(1) end
  return
end

if mode == "kw" then
  local dx_mm, outdir = arg[2] or "0.1", arg[3] or "out/pd_scaling"
  local script = debug.getinfo(1, "S").source:match("^@(.*)/bench/[^/]*$") .. "/kalthoff_winkler.lua"
  local explicit, run = cl.explicit, nil
  cl.explicit = function(spec) run = explicit(spec) return run end -- the script's run, saved below
  arg = { [0] = script, dx_mm, "f64", outdir }
  local ok, err = pcall(dofile, script)
  cl.explicit = explicit
  if not ok then error(err, 0) end
  local path = string.format("%s/kw_%dranks.ckpt", outdir, ranks)
  run:save(path)
  local body = run.body
  local umax = math.max(math.abs(body:max(body.u)), math.abs(body:min(body.u)))
  print(string.format("kw: %d ranks, dx = %s mm, step %d: max |u| = %.17g, broken bonds %d; checkpoint %s", ranks, dx_mm,
    run.step, umax, body:broken_bonds(), path))
  return
end

if mode ~= "weak" and mode ~= "strong" then error("mode (argument 1) must be weak, strong, kw, compare or partition", 0) end
local points = tonumber(arg[2]) or (mode == "weak" and 1e8 or 4e8)
local precision = arg[3] or "f64"
local steps = math.tointeger(tonumber(arg[4]) or 20)
local dim = math.tointeger(tonumber(arg[5]) or 2)
local overlap = (arg[6] or "on") ~= "off"
assert(arg[6] == nil or arg[6] == "on" or arg[6] == "off", "overlap (argument 6) must be on or off")
assert(precision == "f32" or precision == "f64", "precision (argument 3) must be f32 or f64")
assert(dim == 2 or dim == 3, "dim (argument 5) must be 2 or 3")

-- grid steps per axis: weak, a block of `points` per rank laid as the bisection cuts the box (it
-- halves the longest axis, x first among equal ones); strong, one square or cube
local side = math.floor(points ^ (1 / dim) + 0.5)
local blocks = { 1, 1, 1 }
if mode == "weak" then
  local p, axis = ranks, 1
  while p % 2 == 0 do blocks[axis], p, axis = blocks[axis] * 2, p // 2, axis % dim + 1 end
  blocks[1] = blocks[1] * p -- an odd factor: strips along x
end
local dx = 1e-3
local extent = {}
for a = 1, 3 do extent[a] = blocks[a] * side * dx end
local shape = dim == 2 and cl.geom.rect { 0, extent[1], 0, extent[2] } or cl.geom.box { 0, extent[1], 0, extent[2], 0, extent[3] }

-- bytes the device holds now (GPU: used memory; CPU backend: this process's resident memory) and the
-- peak so far (CPU only: VmHWM)
local function memory()
  local info = cl.info()
  if info.device:match("^cpu") then
    local status = assert(io.open("/proc/self/status")):read("a")
    return tonumber(status:match("VmRSS:%s*(%d+)")) * 1024, tonumber(status:match("VmHWM:%s*(%d+)")) * 1024
  end
  return info.memory_total - info.memory_free, nil
end

collectgarbage()
local memory0 = memory()
cl.comm.barrier()
local t0 = cl.clock()
local transport = os.getenv("CLEAVE_TRANSPORT") or "auto"
local body = cl.pd.body { shape = shape, dx = dx, dim = dim, precision = precision, thickness = 1e-3,
  surface_correction = false, material = cl.pd.pmb { E = 191e9, rho = 8000, G0 = 22170 }, overlap = overlap,
  transport = transport }
cl.sync()
local setup = cl.comm.max(cl.clock() - t0)
body.v:fill(0.1) -- a rigid motion: the bonds keep their length, none breaks
local halo = body.plan and body:halo(body.u) -- timed alone below
local dt = 1e-9
local stages = { cl.stage.verlet_kick_drift { u = body.u, v = body.v, a = body.a, dt = dt } }
for _, stage in ipairs(body:step_force_stages()) do stages[#stages + 1] = stage end
stages[#stages + 1] = cl.stage.verlet_kick { v = body.v, a = body.a, dt = dt }
local pipeline = cl.pipeline(stages)

local collective = body.plan ~= nil
cl.run { pipeline = pipeline, steps = 2, progress = false, collective = collective }
local samples = {}
for k = 1, 3 do samples[k] = cl.run { pipeline = pipeline, steps = steps, progress = false, collective = collective }.seconds / steps end
local step = cl.comm.max(median(samples))

local real = precision == "f64" and 8 or 4
local bytes, halo_s, link, used = 0, 0, nil, "none"
if halo then
  bytes = body.plan.sent * dim * real
  local only = cl.pipeline { halo }
  cl.run { pipeline = only, steps = 2, progress = false, collective = true }
  for k = 1, 3 do samples[k] = cl.run { pipeline = only, steps = steps, progress = false, collective = true }.seconds / steps end
  halo_s = median(samples)
  local bw = cl.comm.bandwidth { bytes = 1 << 26, repeats = 10, transport = transport }
  link, used = cl.comm.min(bw.bandwidth or math.huge), bw.transport
end
bytes, halo_s = cl.comm.max(bytes), cl.comm.max(halo_s)
collectgarbage()
local held, peak = memory()
held = held - memory0
local per_point = cl.comm.max(held / body.n)
peak = peak and cl.comm.max(peak - memory0)
held = cl.comm.max(held)

if rank == 0 then
  print(string.format("pd_scaling %s, %dD, %s, %s, %d steps, overlap %s (%s)", mode, dim, precision, cl.info().device,
    steps, overlap and "on" or "off", os.date("!%Y-%m-%d %H:%M UTC")))
  print(string.format("%5s %13s %5s %10s %12s %9s %7s %10s %9s %8s %9s %8s %9s", "ranks", "points", "prec", "ms/step",
    "halo B/step", "halo ms", "share", "link GB/s", "transport", "setup s", "GB/rank", "B/point", "peak GB"))
  print(string.format("%5d %13d %5s %10.3f %12d %9.4f %6.2f%% %10s %9s %8.1f %9.3f %8.1f %9s", ranks, body.global_n, precision,
    step * 1e3, bytes, halo_s * 1e3, 100 * halo_s / step, link and link < math.huge and string.format("%.2f", link / 1e9) or "-",
    used, setup, held / 1e9, per_point, peak and string.format("%.3f", peak / 1e9) or "-"))
end
