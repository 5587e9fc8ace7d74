-- The expression language of loads and regions (cl.expr): values and kinds of valid
-- expressions, the shape of the generated C, every error with its column and caret,
-- and the generated C compiled by cc against the Lua evaluator.
local cl = require "cleave"
local T = require "testing"

local opts = { what = "where", variables = { "x", "y", "z", "dx", "t" }, params = { E = 2e11, nu = 0.25, k = 3 } }
local env = { x = 0.5, y = -1.25, z = 2, dx = 0.1, t = 0.3 }

-- text, expected value (numbers compared to 1e-15 relative)
local valid = {
  { "1", 1 }, { "1.5", 1.5 }, { ".5", 0.5 }, { "5.", 5 }, { "1e-6", 1e-6 }, { "1.5E+3", 1500 },
  { "1 + 2 * 3", 7 }, { "(1 + 2) * 3", 9 }, { "10 - 4 - 3", 3 }, { "8 / 4 / 2", 1 },
  { "-2^2", -4 }, { "2^3^2", 512 }, { "2^-1", 0.5 }, { "(-2)^2", 4 }, { "-x", -0.5 }, { "- -x", 0.5 },
  { "+x * 2", 1 }, { "-x * y", 0.625 }, { "2 * -3", -6 }, { "x^2 + y^2", 1.8125 }, { "  x\t+\n1  ", 1.5 },
  { "x < 1", true }, { "x <= 0.5", true }, { "x > 0.5", false }, { "x >= 0.5", true }, { "x == 0.5", true },
  { "x ~= 0.5", false }, { "x != 0.5", false }, { "y < 0 and x > 0", true }, { "y > 0 or x > 0", true },
  { "not x < 0", true }, { "not (x < 1) or y < 0", true }, { "x < 1 or y > 0 and z > 5", true },
  { "not not (x < 1)", true }, { "x + 1 < y * -2", true },
  { "sin(pi / 2)", 1 }, { "cos(0)", 1 }, { "tan(pi / 4)", math.tan(math.pi / 4) }, { "asin(1)", math.pi / 2 },
  { "acos(1)", 0 }, { "atan(1)", math.pi / 4 }, { "exp(1)", math.exp(1) }, { "log(exp(2))", 2 },
  { "sqrt(16)", 4 }, { "abs(y)", 1.25 }, { "floor(-2.5)", -3 }, { "ceil(-2.5)", -2 },
  { "tanh(0.5)", 0.46211715726000974 }, { "tanh(1e-9)", 1e-9 }, { "tanh(-30)", -1 },
  { "min(x, y)", -1.25 }, { "max(x, y, z, 1)", 2 }, { "min(3, 1, 2)", 1 }, { "pow(2, 10)", 1024 },
  { "atan2(1, -1)", 3 * math.pi / 4 }, { "E * 1e-11", 2 }, { "k * nu + dx", 0.85 }, { "pi", math.pi },
  { "2 * pi * t", 0.6 * math.pi }, { "sqrt(x^2 + y^2) < 2 and not (z == 0)", true },
}

T.case(#valid .. " valid expressions: kind and value", function()
  for _, case in ipairs(valid) do
    local text, expected = case[1], case[2]
    local _, kind = cl.expr.to_c(text, opts)
    T.eq(kind, type(expected), text .. ": kind")
    local value = cl.expr.eval(text, opts, env)
    if type(expected) == "boolean" then T.eq(value, expected, text)
    else T.near(value, expected, 1e-15, text, 1e-300) end
  end
end)

T.case("generated C: literals, fully parenthesized operators, mapped functions, uses", function()
  local function c(text) return (cl.expr.to_c(text, opts)) end
  T.eq(c "1e-6", "(real)1e-6", "literal text kept")
  T.eq(c "010", "(real)010.0", "integers become floating (no octal)")
  T.eq(c "-2^2", "(-pow((real)2.0, (real)2.0))", "unary minus of a power")
  T.eq(c "x - y - z", "((x - y) - z)", "left associative")
  T.eq(c "min(x, y, z)", "fmin(fmin(x, y), z)", "min of three")
  T.eq(c "abs(x) ~= 1 and not (y < 0 or t >= 2)",
    "((fabs(x) != (real)1.0) && (!((y < (real)0.0) || (t >= (real)2.0))))", "logic")
  T.eq(c "atan2(y, x) + E", "(atan2(y, x) + (real)200000000000.0)", "parameter as a literal")
  T.ok(c "pi":find("^%(real%)3%.14159265358979"), "pi")
  local _, kind, uses = cl.expr.to_c("x * nu + x < t", opts)
  T.eq(kind, "boolean", "kind")
  T.ok(uses.x and uses.nu and uses.t and not uses.y and not uses.E, "uses: x, nu, t only")
  T.eq(select(2, cl.expr.to_c("x", { variables = { "x" }, kind = "number" })), "number", "required kind met")
end)

T.case("parse gives a tree with positions", function()
  local tree = cl.expr.parse("x + sin(y)", opts)
  T.eq(tree.op, "+", "root")
  T.eq(tree[2].op, "call", "right operand")
  T.eq(tree[2].pos, 5, "column of the call")
end)

-- text, reason, column, [opts]
local invalid = {
  { "", "empty expression", 1 }, { "   ", "empty expression", 1 },
  { "x # 1", "unexpected character '#'", 3 }, { "x = 1", "unexpected character '=' (compare with '==')", 3 },
  { "x é", "unexpected character 'é'", 3 },
  { "x +", "unexpected end of expression", 4 }, { "sin(", "unexpected end of expression", 5 },
  { "(x + 1", "missing ')' for the '(' in column 1", 7 }, { "2 * (x + (y - 1)", "missing ')' for the '(' in column 5", 17 },
  { "max(x y)", "missing ')' for the '(' in column 4", 7 },
  { "w + 1", "unknown variable 'w' (allowed: x, y, z, dx, t, E, k, nu, pi)", 1 },
  { "sin + 1", "'sin' is a function: call it as sin(...)", 1 },
  { "x * foo(2)", "unknown function 'foo' (allowed: abs, acos, asin, atan, atan2, ceil, cos, exp, floor, log, max, min, pow, sin, sqrt, tan, tanh)", 5 },
  { "sin(x, y)", "'sin' takes 1 argument, got 2", 1 }, { "1 + atan2(x)", "'atan2' takes 2 arguments, got 1", 5 },
  { "min(x)", "'min' takes 2 or more arguments, got 1", 1 }, { "sqrt()", "'sqrt' takes 1 argument, got 0", 1 },
  { "x < y < z", "comparisons cannot be chained (use 'and')", 7 }, { "0 < x == 1", "comparisons cannot be chained", 7 },
  { "x + (y < 1)", "expected a number, got a comparison", 5 }, { "-(x < 1)", "expected a number, got a comparison", 2 },
  { "sin(x > 0)", "expected a number, got a comparison", 5 }, { "(x < 1) < 2", "expected a number, got a comparison", 1 },
  { "2^(x < 1 or y < 1)", "expected a number, got a boolean", 3 },
  { "x and y < 1", "expected a boolean, got a number", 1 }, { "not x", "expected a boolean, got a number", 5 },
  { "x < 1 and (y < 0 or z)", "expected a boolean, got a number", 21 },
  { "x < 1 y", "unexpected 'y' after a complete expression", 7 }, { "x)", "unexpected ')' after a complete expression", 2 },
  { "1e", "malformed number '1e'", 1 }, { "x + 1.2.3", "malformed number '1.2.3'", 5 },
  { "0x1F", "malformed number '0x1F'", 1 }, { "2x", "malformed number '2x'", 1 },
  { "x * * 2", "expected a number, a name or '(', got '*'", 5 }, { "and x", "got 'and'", 1 },
  { "x + 1", "expected a boolean, got a number", 1, { variables = { "x" }, kind = "boolean" } },
  { "x < 1", "expected a number, got a comparison", 1, { variables = { "x" }, kind = "number" } },
  { "2 * q", "parameter 'q' is hello, not a finite number", 5, { params = { q = "hello" } } },
  { "x", "parameter 'x' has the name of a variable", 1, { variables = { "x" }, params = { x = 1 } } },
}

T.case(#invalid .. " invalid expressions: reason and column", function()
  for _, case in ipairs(invalid) do
    local text, reason, column = case[1], case[2], case[3]
    T.raises(function() cl.expr.to_c(text, case[4] or opts) end,
      { reason, " at column " .. column .. "\n" }, string.format("%q", text))
  end
end)

T.case("error messages quote the text with a caret under the culprit", function()
  local err = T.raises(function() cl.expr.to_c("x < y < z", opts) end, {})
  T.eq(err, "where: comparisons cannot be chained (use 'and') at column 7\n  x < y < z\n        ^", "message")
  err = T.raises(function() cl.expr.to_c("\tx +", { variables = { "x" } }) end, {})
  T.eq(err, "expression: unexpected end of expression at column 5\n  \tx +\n  \t   ^", "tabs kept, default what")
  err = T.raises(function() cl.expr.eval("x + y", opts, { x = 1 }) end, { "no value given for 'y' at column 5" })
  T.ok(err:find("\n  x %+ y\n      %^$"), "caret under y")
end)

-- The generated C compiled with cc and run, against eval at a few points.
local compiled = {
  "x + y * z - t / 2", "-x^2 + 2^-1", "2^3^2 * t", "sin(2 * pi * t) * E", "sqrt(abs(y)) + exp(-x)",
  "min(x, y, z, t)", "max(x, y) - floor(z) + ceil(t)", "atan2(y, x) + atan(z) + tanh(t)",
  "pow(z, 1.5) + log(z)", "asin(t) + acos(t)", "x < y and not (z >= t) or x == 0.5", "x ~= y and y != z",
  "1e-6 * x + .5 + 5. + 010 + 1.5E+3", "cos(x) / (1 + tan(t))", "-(-x) * -nu", "y <= t or z > x",
}
local points = { { x = 0.5, y = -1.25, z = 2, t = 0.3 }, { x = -3.5, y = 0.75, z = 0.25, t = -0.9 },
  { x = 1e-3, y = 1e3, z = 7, t = 0.5 } }

T.case("generated C compiles (C11, and as C++) and agrees with eval to 1e-12", function()
  if not os.execute("command -v cc >/dev/null") then T.skip("no cc") end
  local copts = { variables = { "x", "y", "z", "t" }, params = { E = 2e11, nu = 0.3 } }
  local dir = T.outdir("expr_cc")
  local src = { "#include <math.h>\n#include <stdio.h>\n" }
  for n, text in ipairs(compiled) do
    src[#src + 1] = string.format("static double e%d(real x, real y, real z, real t) { return (double)(%s); }\n",
      n, (cl.expr.to_c(text, copts)))
  end
  src[#src + 1] = "int main(void) {\n"
  for _, p in ipairs(points) do
    for n in ipairs(compiled) do
      src[#src + 1] = string.format('  printf("%%.17g\\n", e%d(%.17g, %.17g, %.17g, %.17g));\n', n, p.x, p.y, p.z, p.t)
    end
  end
  src[#src + 1] = "  return 0;\n}\n"
  local body = table.concat(src)
  for real, file in pairs { double = "double.c", float = "float.c" } do
    local f = assert(io.open(dir .. "/" .. file, "w"))
    f:write("typedef " .. real .. " real;\n", body)
    f:close()
  end
  T.ok(os.execute(string.format("cc -std=c11 -Wall -Werror -O0 -o '%s/expr' '%s/double.c' -lm", dir, dir)), "cc, double")
  T.ok(os.execute(string.format("cc -std=c11 -Wall -Werror -fsyntax-only '%s/float.c'", dir)), "cc, float")
  if os.execute("command -v c++ >/dev/null") then
    T.ok(os.execute(string.format("c++ -Wall -Werror -fsyntax-only -x c++ '%s/float.c'", dir)), "c++, float")
  end
  T.ok(os.execute(string.format("'%s/expr' > '%s/values.txt'", dir, dir)), "run")
  local lines = T.read(dir .. "/values.txt"):gmatch("[^\n]+")
  for _, p in ipairs(points) do
    for _, text in ipairs(compiled) do
      local expected = cl.expr.eval(text, copts, p)
      if type(expected) == "boolean" then expected = expected and 1 or 0 end
      T.near(tonumber(lines()), expected, 1e-12, string.format("%s at x = %g", text, p.x), 1)
    end
  end
end)

T.run()
