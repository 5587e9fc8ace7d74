-- Restart on another rank count (tests/CMakeLists.txt runs it under mpirun, when MPI is found):
--   test_mpi_restart.lua LAYOUT save STEP OUT          runs the partitioned plate to STEP, saves OUT
--   test_mpi_restart.lua LAYOUT resume IN [STEP OUT]   restores IN; runs to STEP and saves OUT, or to
--                                                       step 400 and checks
-- e.g. saved on 2 ranks at step 200, resumed on 3 and on 1; or saved on 1 at 150, resumed on 2 and
-- saved at 300, resumed on 3 (LAYOUT: the bonds', "lattice" or "list"). A run resumed to step 400
-- must equal the one-rank run of 400 steps without a restart, with the same broken bonds: bit for bit
-- with the lattice layout (checked to 1e-12 of max |u|, found 0); the list layout's rows sum their
-- bonds in each rank's local order, which differs in round-off (1e-13, as test_mpi_pd's list case).
-- A failure ends every rank with its message.
local cl = require "cleave"
cl.device "cpu"
local model = require "mpi_plate"

local layout, phase, path, stop, out = arg[1], arg[2], arg[3], tonumber(arg[4]), arg[5]
if (layout ~= "lattice" and layout ~= "list") or (phase ~= "save" and phase ~= "resume") or not path then
  error("usage: test_mpi_restart.lua lattice|list save STEP OUT | resume IN [STEP OUT]")
end
local steps = 400

local part = model.plate(true, layout)
local run = cl.explicit { part, steps = steps, progress = false }
if phase == "save" then stop, out, path = tonumber(path), arg[4], nil end
if path then run:restore(path) end
if stop then
  run:go { steps = stop - run.step }
  run:save(out)
  print(string.format("test_mpi_restart: %s, %d ranks saved step %d to %s", layout, cl.comm.size(), run.step, out))
  return
end
local restored = run.step
run:go()
local ref = model.plate(false, layout)
cl.explicit { ref, steps = steps, progress = false }:go()
local diff = model.compare(part, ref)
local broken, broken_ref = part:broken_bonds(), ref:broken_bonds()
print(string.format("test_mpi_restart: %s, resumed at step %d on %d ranks to step %d: max |du| / max |u| = %.3g, " ..
  "max |d damage| = %.3g, broken bonds %d (one rank, no restart: %d)", layout, restored, cl.comm.size(), run.step,
  diff.u, diff.damage, broken, broken_ref))
if broken ~= broken_ref then error(string.format("broken bonds %d, without a restart %d", broken, broken_ref)) end
if not (diff.u <= 1e-12 and diff.damage <= 1e-12) then
  error(string.format("the resumed run differs from one without a restart: u by %.3g, damage by %.3g", diff.u, diff.damage))
end
print("test_mpi_restart: passed")
