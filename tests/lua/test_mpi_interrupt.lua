-- Ctrl-C under mpirun (tests/CMakeLists.txt, when MPI is found):
--   test_mpi_interrupt.lua run PATH      the partitioned notched plate (mpi_plate.lua) for 100000
--                                        steps with a checkpoint at PATH (every 50000: only Ctrl-C's); each rank
--                                        writes its pid to PATH.pid<rank> as it starts stepping.
--                                        The test sends SIGINT to one rank only (or to mpirun,
--                                        whose ranks then get SIGTERM): all ranks must stop at the
--                                        same step, save the checkpoint there and end the job.
--   test_mpi_interrupt.lua resume PATH   restores it (on any number of ranks), runs 100 more steps
--                                        and compares with the one-rank run of as many steps
--                                        without a stop: bit for bit (lattice); the CSV's last row
--                                        is not past the checkpoint's step.
-- Had the ranks stopped at different steps, the checkpoint would mix their states (or the save's
-- gather would never meet) and the resumed run would differ.
local cl = require "cleave"
cl.device "cpu"
local model = require "mpi_plate"

local phase, path = arg[1], arg[2]
if (phase ~= "run" and phase ~= "resume") or not path then error("usage: test_mpi_interrupt.lua run|resume PATH") end

local part = model.plate(true)
local run = cl.explicit { part, steps = 100000, progress = false,
  output = { every = 50000, checkpoint = path, csv = path .. ".csv" } }
if phase == "run" then
  local f = assert(io.open(path .. ".pid" .. cl.comm.rank(), "w"))
  f:write(io.open("/proc/self/stat"):read("l"):match("^(%d+)"), "\n")
  f:close()
  run:go()
  error("the run was not interrupted")
end

run:restore(path)
local stopped = run.step
if stopped == 0 then error("the checkpoint holds step 0: the run was stopped before its first step") end
run:go { steps = 100 }
local ref = model.plate(false)
cl.explicit { ref, steps = stopped + 100, progress = false }:go()
local diff = model.compare(part, ref)
local last_row = 0
for line in io.lines(path .. ".csv") do last_row = math.tointeger(tonumber(line:match("^[^,]*"))) or last_row end
print(string.format("test_mpi_interrupt: stopped at step %d (CSV's last row: step %d); resumed on %d ranks to step %d: " ..
  "max |du| / max |u| = %.3g, max |d damage| = %.3g", stopped, last_row, cl.comm.size(), run.step, diff.u, diff.damage))
if last_row > run.step then error(string.format("the CSV holds step %d, past the resumed run's %d", last_row, run.step)) end
if diff.u ~= 0 or diff.damage ~= 0 then
  error(string.format("the resumed run differs from one without a stop: u by %.3g, damage by %.3g", diff.u, diff.damage))
end
print("test_mpi_interrupt: passed")
