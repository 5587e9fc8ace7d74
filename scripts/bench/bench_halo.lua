-- The cost of a partitioned PD body's halo exchange against its force stage, per rank, and the
-- bytes it moves (docs/scale-out.md, "Halo volume per step"). Usage:
--   mpirun -np N cleave run scripts/bench/bench_halo.lua [dx_mm] [repeats]
local cl = require "cleave"
local dx = (tonumber(arg[1]) or 0.125) * 1e-3
local repeats = tonumber(arg[2]) or 1000
if cl.comm.size() < 2 then print("bench_halo: run it under mpirun -np 2 or more (one rank has no halo)") return end

local body = cl.pd.body { shape = cl.geom.rect { 0, 0.04, 0, 0.02 }, dx = dx, precision = "f64", thickness = 1e-3,
  material = cl.pd.pmb { E = 192e9, rho = 8000, G0 = 500 } }
local halo, force = body:halo(body.u), body:force_stage()
local real = body.precision == "f64" and 8 or 4

local function per_run(stage, n)
  cl.comm.barrier()
  local t0 = cl.clock()
  for _ = 1, n do stage:run() end
  cl.sync()
  return (cl.clock() - t0) / n
end
local t_halo = per_run(halo, repeats)
local t_force = per_run(force, math.max(1, repeats // 10))
local rows = { body.owned, body.n - body.owned, body.plan.sent, t_halo * 1e6, t_force * 1e6 }
-- every rank's line, printed by rank 0 (print is rank 0's only)
local all = {}
for k, v in ipairs(rows) do all[k] = cl.comm.gather(v) end
if cl.comm.rank() == 0 then
  print(string.format("bench_halo: %d points, dx = %g mm, %s, %s", body.global_n, dx * 1e3, body.precision, cl.info().device))
  print("rank  owned  ghosts  rows sent  bytes/step  halo (us)  force stage (us)")
  for r = 1, cl.comm.size() do
    print(string.format("%4d %6d %7d %10d %11d %10.1f %17.1f", r - 1, all[1][r], all[2][r], all[3][r],
      all[3][r] * body.dim * real, all[4][r], all[5][r]))
  end
end
