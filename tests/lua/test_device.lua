-- Choosing devices: names, info, unknown names, and fields on two devices.
local cl = require "cleave"
local T = require "testing"

local info = cl.info()
local gpu = info.backends.cuda and info.gpu_count > 0

T.case("info describes the build and the device", function()
  T.eq(info.version, cl.version, "version")
  T.eq(info.backends.cpu, true, "cpu backend always built")
  T.ok(info.device == "cpu" or info.device == "cuda", "device name " .. tostring(info.device))
  T.ok(info.memory_total > 0, "memory total")
  T.ok(type(info.device_name) == "string" and #info.device_name > 0, "device name text")
  T.ok(cl.describe():find("cleave " .. cl.version, 1, true), "describe() heads with the version")
end)

T.case("the default device follows CLEAVE_DEVICE, else auto", function()
  local wanted = os.getenv("CLEAVE_DEVICE")
  local expected = (wanted == "cpu" or wanted == "cuda") and wanted or (gpu and "cuda" or "cpu")
  T.eq(cl.device(), expected, "default device")
end)

T.case("switching devices; fields stay where they were made", function()
  local before = cl.device()
  local f = cl.field { n = 10, value = 2 }
  T.eq(cl.device "cpu", "cpu", "switch to cpu")
  local g = cl.field { n = 10, value = 3 }
  T.eq(g.device, "cpu", "new field on cpu")
  T.eq(f.device, before, "old field on its device")
  T.eq(f:sum(), 20, "old field still usable")
  T.eq(cl.device "auto", gpu and "cuda" or "cpu", "auto picks the GPU when usable")
  cl.device(before)
end)

T.case("unknown and unavailable devices are clear errors", function()
  T.raises(function() cl.device "tpu" end, { "unknown device 'tpu'", "\"cpu\"" })
  if not gpu then
    T.raises(function() cl.device "cuda" end, { "cuda", "\"cpu\"" })
  end
end)

T.case("fields on different devices are not mixed silently", function()
  if not gpu then T.skip("needs a usable GPU") end
  local before = cl.device()
  cl.device "cuda"
  local a = cl.field { n = 8, value = 1 }
  cl.device "cpu"
  local b = cl.field { n = 8, value = 1 }
  cl.device(before)
  T.raises(function() cl.stage.axpy { y = a, x = b, a = 1 } end, { "different devices", "copy" })
  local c = b:copy("cuda")
  T.eq(c.device, "cuda", "copy onto the GPU")
  cl.stage.axpy { y = a, x = c, a = 2 }:run()
  T.eq(a:sum(), 24, "kernel on the GPU copy")
end)

T.run()
