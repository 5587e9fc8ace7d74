-- cleave.describe(): the text `cleave info` prints, built on cleave.info(); cleave.internal.
local cl = ...

--- Names in cleave's tables that are helpers shared between its own files, not API: the REPL's
--- Tab completion leaves them out (with every name ending in "_mt", the metatables).
cl.internal = {}
for name in ([[internal explicit_run jit_safe run_points run_region embedded evaluator allocate_law_state
  load_stages surface_factors continue_history continue_series restore_fields]]):gmatch "%S+" do
  cl.internal[name] = true
end

local function bytes(n)
  if not n then return "unknown" end
  local units = { "B", "KiB", "MiB", "GiB", "TiB" }
  local u = 1
  while n >= 1024 and u < #units do n, u = n / 1024, u + 1 end
  return string.format(u == 1 and "%.0f %s" or "%.1f %s", n, units[u])
end

function cl.describe()
  local i = cl.info()
  local lines = {
    string.format("cleave %s", i.version),
    string.format("backends:      cpu%s", i.backends.cuda and ", cuda" or " (built without CUDA)"),
    string.format("device:        %s — %s", i.device, i.device_name),
    string.format("memory:        %s free of %s", bytes(i.memory_free), bytes(i.memory_total)),
  }
  if i.gpu then
    lines[#lines + 1] = string.format("gpu:           %s, compute capability %s, %d SMs, %s",
      i.gpu.name, i.gpu.compute_capability, i.gpu.multiprocessors, bytes(i.gpu.memory_total))
  elseif i.backends.cuda then
    lines[#lines + 1] = "gpu:           none usable (no NVIDIA driver or no device)"
  end
  if i.backends.cuda then
    lines[#lines + 1] = string.format("cuda runtime:  %s, driver %s", i.cuda_runtime or "?",
      i.cuda_driver or "none")
    lines[#lines + 1] = string.format("nvrtc:         %s", i.nvrtc or "not found")
  end
  if i.jit_cache then
    lines[#lines + 1] = string.format("jit cache:     %s (%s)", i.jit_cache, bytes(i.jit_cache_bytes))
  end
  return table.concat(lines, "\n")
end
