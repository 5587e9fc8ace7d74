-- Writes the blocks a DDA script builds, for dda_narrow_work: runs the script (its arguments after
-- the output path) until its first cl.dda.model, writes that model's blocks and stops.
--   cleave run scripts/bench/dda_blocks_dump.lua OUT.txt scripts/bench/dda_case1.lua [its arguments]
-- OUT.txt: a line "blocks d0" (d0 = 2.5 x the model's max_displacement, the step's detection
-- distance), then a line a block: its vertex count and its vertices x y ..., as the model holds them.
local cl = require "cleave"
local out, script = arg[1], arg[2]
if not out or not script then error("usage: dda_blocks_dump.lua OUT.txt SCRIPT.lua [arguments]", 0) end
local model = cl.dda.model
cl.dda.model = function(args)
  if not args.max_displacement then error("dda_blocks_dump: " .. script .. " gives no max_displacement", 0) end
  local m = model(args)
  local f = assert(io.open(out, "w"))
  f:write(string.format("%d %.17g\n", m:count(), 2.5 * args.max_displacement))
  for i = 1, m:count() do
    local v = m:block(i).vertices
    f:write(#v // 2)
    for k = 1, #v do f:write(string.format(" %.17g", v[k])) end
    f:write("\n")
  end
  f:close()
  print(string.format("%d blocks of %s written to %s", m:count(), script, out))
  os.exit(0)
end
arg = { [0] = script, table.unpack(arg, 3) }
dofile(script)
