-- Run under mpirun -np 2 (tests/CMakeLists.txt): an error on rank 1 while rank 0 waits for it in a
-- collective ends both ranks, with rank 1's message, instead of leaving rank 0 waiting for ever.
local cl = require "cleave"
if cl.comm.rank() == 1 then error("an error raised on rank 1") end
cl.comm.barrier()
io.stderr:write("test_mpi_abort: rank ", cl.comm.rank(), " went past the barrier\n")
