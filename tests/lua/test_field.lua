-- Fields from Lua: construction, indexing, reductions on the device against
-- values computed here, copies, printing, and errors for bad use.
local cl = require "cleave"
local T = require "testing"

local dtypes = { "f32", "f64", "i32", "u32", "u8" }

T.case("every dtype is created zero-filled with its shape", function()
  for _, dt in ipairs(dtypes) do
    local f = cl.field { n = 7, k = 3, dtype = dt }
    T.eq(#f, 7, dt .. " #f")
    T.eq(f.k, 3, dt .. " k")
    T.eq(f.dtype, dt, "dtype")
    T.eq(f:sum(), 0, dt .. " sum of a new field")
    T.eq(f.device, cl.device(), "field lives on the current device")
  end
end)

T.case("rows read and write as numbers (k = 1) or tables (k > 1)", function()
  local s = cl.field { n = 4 }
  s[2] = 2.5
  T.eq(s[2], 2.5, "scalar row")
  T.eq(s[1], 0, "untouched row")
  local v = cl.field { n = 3, k = 2, dtype = "f32" }
  v[3] = { 1.5, -2 }
  local row = v[3]
  T.eq(row[1], 1.5, "component 1")
  T.eq(row[2], -2, "component 2")
  T.eq(v:sum(1), 1.5, "sum of component 1")
end)

T.case("data tables become fields; to_table gives them back", function()
  local f = cl.field { data = { { 1, 2 }, { 3, 4 }, { 5, 6 } }, k = 2, dtype = "i32" }
  local t = f:to_table()
  T.eq(#t, 3, "rows")
  T.eq(t[2][1], 3, "row 2 component 1")
  T.eq(t[3][2], 6, "row 3 component 2")
  local g = cl.field { data = { 1.25, 2.5 } }
  T.eq(g:to_table()[2], 2.5, "scalar to_table")
end)

T.case("assign sets every row from a function of the row index", function()
  local f = cl.field { n = 5, k = 2, dtype = "f32" }:assign(function(i) return i, -2 * i end)
  T.eq(f[4][2], -8, "row 4 component 2")
  T.eq(f:sum(1), 15, "sum of component 1")
  T.raises(function() f:assign(function() return 1 end) end, { "row 1 component 2", "needs 2 numbers" })
  local u = cl.field { n = 2, dtype = "u8" }
  T.raises(function() u:assign(function() return 300 end) end, "does not fit")
end)

T.case("integer dtypes truncate toward zero; values out of range are errors", function()
  local f = cl.field { n = 2, dtype = "u8" }
  f[1] = 255
  f[2] = 7.9
  T.eq(f[1], 255, "u8 max")
  T.eq(f[2], 7, "u8 truncates")
  local i = cl.field { n = 1, dtype = "i32" }
  i[1] = -3.7
  T.eq(i[1], -3, "i32 truncates toward zero")
  T.raises(function() f[1] = 256 end, "does not fit in a u8")
  T.raises(function() f:fill(-1) end, "does not fit in a u8")
  T.raises(function() i[1] = 0 / 0 end, "does not fit in a i32")
  T.raises(function() cl.field { n = 1, dtype = "u32", value = 2 ^ 32 } end, "does not fit")
end)

T.case("reductions match sums computed in Lua on random data", function()
  local rand = T.rng(7)
  local n = 100003
  for _, dt in ipairs { "f64", "f32" } do
    local data, mn, mx, sum, sq = {}, math.huge, -math.huge, 0, 0
    for i = 1, n do
      local v = rand() * 2 - 1
      if dt == "f32" then v = string.unpack("f", string.pack("f", v)) end
      data[i] = v
      mn, mx, sum, sq = math.min(mn, v), math.max(mx, v), sum + v, sq + v * v
    end
    local f = cl.field { data = data, dtype = dt }
    T.eq(f:min(), mn, dt .. " min")
    T.eq(f:max(), mx, dt .. " max")
    -- both sides add the same values in double, in different orders
    T.near(f:sum(), sum, 1e-12, dt .. " sum", n)
    T.near(f:norm(), math.sqrt(sq), 1e-12, dt .. " norm")
  end
end)

T.case("per-component reductions", function()
  local f = cl.field { data = { { 1, -4 }, { 3, 2 }, { -2, 8 } }, k = 2 }
  T.eq(f:min(1), -2, "min of x")
  T.eq(f:max(2), 8, "max of y")
  T.eq(f:sum(2), 6, "sum of y")
  T.near(f:norm(1), math.sqrt(14), 1e-15, "norm of x")
  T.eq(f:sum(), 8, "sum of all entries")
end)

-- numpy's convention: one NaN makes min, max, sum and norm NaN. The fields span several
-- blocks of the device reduction, so the combination of partials is checked too.
T.case("reductions propagate NaN; an all-NaN field reduces to NaN", function()
  local function isnan(v) return v ~= v end
  for _, dt in ipairs { "f32", "f64" } do
    for _, at in ipairs { 1, 2, 4097, 70000 } do
      local f = cl.field { n = 70000, dtype = dt }
      f:assign(function(i) return i % 7 end)
      f[at] = 0 / 0
      for _, op in ipairs { "min", "max", "sum", "norm" } do
        T.ok(isnan(f[op](f)), string.format("%s %s with a NaN at row %d: got %s", dt, op, at, tostring(f[op](f))))
      end
    end
    local all = cl.field { n = 3000, dtype = dt, value = 0 / 0 }
    for _, op in ipairs { "min", "max", "sum", "norm" } do T.ok(isnan(all[op](all)), dt .. " all-NaN " .. op) end
    local g = cl.field { data = { 0 / 0, 1, 2 }, dtype = dt }
    T.ok(isnan(g:max()) and isnan(g:min()), dt .. " the issue's { 0/0, 1, 2 }")
    T.ok(isnan(g:max(1)), dt .. " per-component max")
    local inf = cl.field { data = { 1, math.huge, 2 }, dtype = dt }
    T.eq(inf:max(), math.huge, dt .. " infinity is a value, not NaN")
  end
end)

T.case("first_nonfinite finds the first NaN or infinity by row and component", function()
  for _, dt in ipairs { "f32", "f64" } do
    local f = cl.field { n = 70000, k = 2, dtype = dt }
    f:assign(function(i) return i, -i end)
    T.eq(f:first_nonfinite(), nil, dt .. " finite field")
    f[60001] = { 1, -math.huge }
    T.eq(select("#", f:first_nonfinite()), 2, "row and component")
    local row, c = f:first_nonfinite()
    T.eq(row, 60001, dt .. " row of -inf")
    T.eq(c, 2, dt .. " component of -inf")
    f[65000] = { 0 / 0, 0 }
    row, c = f:first_nonfinite()
    T.eq(row, 65000, dt .. " the earlier entry in storage order (component 1) wins")
    T.eq(c, 1, dt .. " component 1")
    f[3] = { math.huge, 0 }
    T.eq(f:first_nonfinite(), 3, dt .. " smallest index")
  end
  T.eq(cl.field { n = 5, dtype = "i32" }:first_nonfinite(), nil, "integer fields are finite")
  T.eq(cl.field { n = 0, dtype = "f64" }:first_nonfinite(), nil, "empty field")
end)

T.case("fill and copy are independent", function()
  local f = cl.field { n = 5, k = 2 }
  T.eq(f:fill(3), f, "fill returns the field")
  local g = f:copy()
  g:fill(1)
  T.eq(f:sum(), 30, "original unchanged")
  T.eq(g:sum(), 10, "copy filled")
  local h = f:copy("cpu")
  T.eq(h.device, "cpu", "copy onto the cpu")
  T.eq(h:sum(), 30, "copied values")
end)

T.case("tostring shows dtype, shape, device and memory", function()
  local s = tostring(cl.field { n = 1000, k = 3, dtype = "f32" })
  T.ok(s:find("f32", 1, true) and s:find("1000 x 3", 1, true) and s:find(cl.device(), 1, true)
    and s:find("11.7 KiB", 1, true), "tostring: " .. s)
end)

T.case("bad indices and values are Lua errors", function()
  local f = cl.field { n = 3, k = 2 }
  T.raises(function() return f[0] end, "out of range (1..3)")
  T.raises(function() return f[4] end, "out of range")
  T.raises(function() return f[1.5] end, "integer")
  T.raises(function() f[1] = 5 end, "table of k numbers")
  T.raises(function() f[1] = { 1 } end, "table of k = 2 numbers (got 1)")
  T.raises(function() f[1] = { 1, "x" } end, "not a number")
  T.raises(function() return f.nosuch end, { "nosuch", "methods" })
  T.raises(function() f.n = 4 end, "read-only")
  T.raises(function() return f:min(3) end, "component 3 out of range")
  T.raises(function() return cl.field { n = 0 }:min() end, "empty")
end)

T.case("bad construction arguments name the argument", function()
  T.raises(function() cl.field { nn = 3 } end, { "unknown argument 'nn'", "valid:", "dtype" })
  T.raises(function() cl.field { n = 3, dtype = "f16" } end, { "dtype 'f16'", "f32" })
  T.raises(function() cl.field { n = 3, k = 0 } end, "'k'")
  T.raises(function() cl.field { n = "three" } end, "'n'")
  T.raises(function() cl.field {} end, "'n'")
  T.raises(function() cl.field { n = -1 } end, "'n'")
  T.raises(function() cl.field { n = 2, data = { 1, 2, 3 } } end, "'data' has 3 rows")
  T.raises(function() cl.field(3) end, "table of named arguments")
  T.raises(function() cl.field { n = "3" } end, "'n' must be an integer")
  T.raises(function() cl.field { data = { 1, 2 }, value = 3 } end, "'data' or 'value', not both")
end)

T.case("a field too large for the device is a clear error", function()
  local err = T.raises(function() cl.field { n = 1 << 36, k = 8 } end, { "out of memory", "GB" })
  T.ok(err:find("free", 1, true), "message says how much is free: " .. err)
end)

T.run()
