-- The energy balance every timed benchmark run passes before its time is reported: a speed is
-- only a speed of a right answer. Loaded by the benchmark scripts beside it:
--   local balance = dofile((arg[0]:match("^(.*)/") or ".") .. "/balance.lua")
--   local before = body:energies()   ... the timed run ...
--   local seconds = balance.checked("plate 192x48", before, body:energies(), stats.seconds)
--   print(balance.time(seconds, "%.3f s"))          -- "REFUSED" instead of a time when nil
--   balance.exit()                                   -- exit status 1 when any run was refused
--
-- Energies are tables of named terms (J), read by name so that terms a method adds later fit:
-- a term whose name ends in "_work" is work done on the body (external_work, the work of
-- prescribed motions); every other term is energy the body holds or has dissipated. The balance
-- is the change of (held - work) over the run, relative to the largest term at its start or end;
-- a run is refused when that exceeds the tolerance (1%) or any term is not finite.
local balance = { tolerance = 0.01, refused = 0 }

local function is_work(name) return name:sub(-5) == "_work" end

-- held - work, the largest |term| and whether every term is finite, of one table of energies.
local function total(energies)
  local sum, largest, finite = 0, 0, true
  for name, value in pairs(energies) do
    if value ~= value or value == math.huge or value == -math.huge then finite = false end
    sum = sum + (is_work(name) and -value or value)
    largest = math.max(largest, math.abs(value))
  end
  return sum, largest, finite
end

-- The terms of energies other than a method's own `balance`.
local function without_balance(energies)
  local terms = {}
  for name, value in pairs(energies) do if name ~= "balance" then terms[name] = value end end
  return terms
end

--- balance.error(before, after) -> relative drift of the balance (nil when a term is not finite),
--- absolute drift (J), the reference energy (J). A run with every term 0 at both ends has drift 0.
--- A method that keeps its own bookkeeping gives it as the term `balance` (cleave.czm: the
--- staggered kinetic energy the integrator conserves, docs/methods/cohesive-fem.md); its change is
--- then the drift, and the other terms give the reference and the finiteness check.
function balance.error(before, after)
  local own0, own1 = before.balance, after.balance
  before, after = without_balance(before), without_balance(after)
  local s0, l0, f0 = total(before)
  local s1, l1, f1 = total(after)
  if own1 ~= nil then s0, s1 = own0 or 0, own1 end
  local finite = f0 and f1 and s0 == s0 and s1 == s1 and math.abs(s1 - s0) ~= math.huge
  if not finite then return nil, s1 - s0, math.max(l0, l1) end
  local reference = math.max(l0, l1)
  local drift = s1 - s0
  return reference > 0 and math.abs(drift) / reference or math.abs(drift), drift, reference
end

local function terms(energies)
  local names = {}
  for name in pairs(energies) do names[#names + 1] = name end
  table.sort(names)
  local parts = {}
  for _, name in ipairs(names) do parts[#parts + 1] = string.format("%s %.6g", name, energies[name]) end
  return table.concat(parts, ", ")
end

--- balance.checked(label, before, after, seconds [, tolerance]) -> seconds, or nil when refused:
--- prints the run's energies at the end and its balance, and REFUSED with the reason when the
--- balance is off by more than the tolerance or a term is not finite.
function balance.checked(label, before, after, seconds, tolerance)
  tolerance = tolerance or balance.tolerance
  local rel, drift, reference = balance.error(before, after)
  local ok = rel ~= nil and rel <= tolerance
  print(string.format("  %s energy: %s", label, terms(after)))
  if rel == nil then
    print(string.format("  %s balance: REFUSED, an energy is not finite: no time reported", label))
  else
    print(string.format("  %s balance: drift %.4g J of %.4g J (%.3f%%, limit %g%%)%s", label, drift, reference,
      100 * rel, 100 * tolerance, ok and "" or ": REFUSED, no time reported"))
  end
  if not ok then
    balance.refused = balance.refused + 1
    return nil
  end
  return seconds
end

--- balance.energies(body) -> the named energies of a body: cleave.czm's body:energies(), or a
--- peridynamic body's strain and kinetic energy (body:energy()).
function balance.energies(body)
  if body.energies then return body:energies() end
  local strain, kinetic = body:energy()
  return { strain = strain, kinetic = kinetic }
end

--- balance.refuse(label, reason): a run refused for a wrong answer other than its energy.
function balance.refuse(label, reason)
  print(string.format("  %s: REFUSED, %s: no time reported", label, reason))
  balance.refused = balance.refused + 1
end

--- balance.time(seconds, format) -> the formatted time, or "REFUSED" for a refused run's nil.
function balance.time(seconds, format)
  if seconds == nil then return "REFUSED" end
  return string.format(format, seconds)
end

--- balance.exit(): ends the script with status 1 when any run was refused (after its report).
function balance.exit()
  if balance.refused > 0 then
    io.stderr:write(string.format("%d benchmark run(s) refused: energy balance off or not finite\n", balance.refused))
    os.exit(1)
  end
end

return balance
