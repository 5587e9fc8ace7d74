-- Restart on another rank count (tests/CMakeLists.txt runs it three times, when MPI is found):
--   mpirun -np 2 ... test_mpi_restart.lua save PATH    runs the partitioned plate 200 steps, saves
--   mpirun -np 3 ... test_mpi_restart.lua resume PATH  restores it and runs to step 400
--   mpirun -np 1 ... test_mpi_restart.lua resume PATH  the same on one rank (no partition)
-- A resumed run must equal the one-rank run of 400 steps without a restart, bit for bit (checked to
-- 1e-12 of max |u|), with the same broken bonds. A failure ends every rank with its message.
local cl = require "cleave"
cl.device "cpu"
local model = require "mpi_plate"

local phase, path = arg[1], arg[2]
if (phase ~= "save" and phase ~= "resume") or not path then
  error("usage: test_mpi_restart.lua save|resume CHECKPOINT")
end
local steps, saved_at = 400, 200

local part = model.plate(true)
local run = cl.explicit { part, steps = steps, progress = false }
if phase == "save" then
  run:go { steps = saved_at }
  run:save(path)
  print(string.format("test_mpi_restart: %d ranks saved step %d to %s", cl.comm.size(), run.step, path))
  return
end

run:restore(path)
if run.step ~= saved_at then error(string.format("restored step %d, expected %d", run.step, saved_at)) end
run:go()
local ref = model.plate(false)
cl.explicit { ref, steps = steps, progress = false }:go()
local diff = model.compare(part, ref)
local broken, broken_ref = part:broken_bonds(), ref:broken_bonds()
print(string.format("test_mpi_restart: resumed on %d ranks to step %d: max |du| / max |u| = %.3g, max |d damage| = %.3g, " ..
  "broken bonds %d (one rank, no restart: %d)", cl.comm.size(), run.step, diff.u, diff.damage, broken, broken_ref))
if broken ~= broken_ref then error(string.format("broken bonds %d, without a restart %d", broken, broken_ref)) end
if not (diff.u <= 1e-12 and diff.damage <= 1e-12) then
  error(string.format("the resumed run differs from one without a restart: u by %.3g, damage by %.3g", diff.u, diff.damage))
end
print("test_mpi_restart: passed")
