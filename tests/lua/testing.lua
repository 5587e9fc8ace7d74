-- A small test harness for cleave's Lua tests: register cases with
-- T.case(name, fn), check with the helpers below, finish with T.run(),
-- which prints one line per case and "N passed, M failed" and exits non-zero
-- on any failure. Cases can skip themselves with T.skip(reason).
local T = { cases = {} }

function T.case(name, fn) T.cases[#T.cases + 1] = { name = name, fn = fn } end

local skip_marker = {}
function T.skip(reason) error({ [skip_marker] = reason }, 0) end

local function fail(msg, level) error(msg, (level or 1) + 2) end

function T.eq(actual, expected, what)
  if actual ~= expected then
    fail(string.format("%s: expected %s, got %s", what or "value", tostring(expected), tostring(actual)))
  end
end

function T.ok(cond, what) if not cond then fail(what or "condition is false") end end

--- |actual - expected| <= tol * max(|expected|, floor)
function T.near(actual, expected, tol, what, floor)
  local scale = math.max(math.abs(expected), floor or 1e-300)
  if not (math.abs(actual - expected) <= tol * scale) then
    fail(string.format("%s: expected %.17g, got %.17g (relative error %.3g > %.3g)", what or "value",
      expected, actual, math.abs(actual - expected) / scale, tol))
  end
end

--- fn must raise an error whose message contains every plain-text needle.
function T.raises(fn, needles, what)
  local ok, err = pcall(fn)
  if ok then fail((what or "call") .. " did not raise an error") end
  err = tostring(err)
  for _, needle in ipairs(type(needles) == "table" and needles or { needles }) do
    if not err:find(needle, 1, true) then
      fail(string.format("%s: error %q does not mention %q", what or "call", err, needle))
    end
  end
  return err
end

--- Deterministic pseudo-random numbers in [0, 1) (64-bit LCG).
function T.rng(seed)
  local state = seed or 12345
  return function()
    state = (state * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
    return (state >> 11) / (1 << 52)
  end
end

--- Runs fn() with cleave's device switched to `device`, and switches back whatever happens;
--- returns what fn returns.
function T.on_device(device, fn)
  local cl = require "cleave"
  local before = cl.device()
  cl.device(device)
  local result = table.pack(pcall(fn))
  cl.device(before)
  if not result[1] then error(result[2], 0) end
  return table.unpack(result, 2, result.n)
end

--- A fresh output folder for this test under $CLEAVE_TEST_OUT.
function T.outdir(name)
  local dir = (os.getenv("CLEAVE_TEST_OUT") or "out") .. "/" .. name
  os.execute("rm -rf '" .. dir .. "' && mkdir -p '" .. dir .. "'")
  return dir
end

function T.read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

function T.exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

function T.run()
  local passed, failed, skipped = 0, 0, 0
  for _, c in ipairs(T.cases) do
    local ok, err = xpcall(c.fn, function(e)
      if type(e) == "table" and e[skip_marker] then return e end
      return debug.traceback(tostring(e), 2)
    end)
    if ok then
      passed = passed + 1
      print("PASS " .. c.name)
    elseif type(err) == "table" then
      skipped = skipped + 1
      print("SKIP " .. c.name .. ": " .. err[skip_marker])
    else
      failed = failed + 1
      print("FAIL " .. c.name .. "\n  " .. tostring(err):gsub("\n", "\n  "))
    end
  end
  print(string.format("%d passed, %d failed, %d skipped", passed, failed, skipped))
  os.exit(failed == 0 and 0 or 1, true) -- close the state: leak checkers see every field freed
end

return T
