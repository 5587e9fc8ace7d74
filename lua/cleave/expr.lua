-- cleave.expr: the small expression language of load values and region
-- predicates ("y > 0.05 - dx", "1e6 * sin(2 * pi * t)"). A text is parsed and
-- type-checked once, then either emitted as C for the kernels (gcc and NVRTC
-- alike) or evaluated in Lua, so hosts without a compiler and the tests see
-- the same semantics. Errors quote the text with a caret under the culprit.
local cl = ...
local lpeg = require "lpeg"
local P, R, S, C, Cp, Ct = lpeg.P, lpeg.R, lpeg.S, lpeg.C, lpeg.Cp, lpeg.Ct

local expr = {}
cl.expr = expr

-- Lexer: numbers, names, operators, and any other character as "bad".
local digit = R "09"
local number = (digit ^ 1 * (P "." * digit ^ 0) ^ -1 + P "." * digit ^ 1) * (S "eE" * S "+-" ^ -1 * digit ^ 1) ^ -1
-- what Lua would read as one numeral: "1.2.3", "1e", "2x" are single malformed tokens
local numeral = (digit + P "." * digit) * (S "eE" * S "+-" + R("09", "az", "AZ") + S "._") ^ 0
local name = (R("az", "AZ") + "_") * (R("az", "AZ", "09") + "_") ^ 0
local operator = P "<=" + ">=" + "==" + "~=" + "!=" + S "<>+-*/^(),"
local utf8char = R "\xC2\xF4" * R "\x80\xBF" ^ 0 + P(1)
local function token(kind, patt)
  return Cp() * C(patt) / function(pos, text) return { kind = kind, pos = pos, text = text } end
end
local space = S " \t\r\n" ^ 0
local lexer = Ct((space * (token("number", numeral) + token("name", name) + token("op", operator)
  + token("bad", utf8char))) ^ 0) * space * Cp()

local hints = { ["="] = " (compare with '==')", ["!"] = " (use 'not')", ["&"] = " (use 'and')", ["|"] = " (use 'or')" }
local keywords = { ["and"] = true, ["or"] = true, ["not"] = true }
local comparisons = { ["<"] = "<", ["<="] = "<=", [">"] = ">", [">="] = ">=", ["=="] = "==", ["~="] = "!=", ["!="] = "!=" }

local function fmin(a, b)
  if a ~= a then return b end
  if b ~= b then return a end
  return a < b and a or b
end
local function fmax(a, b) return -fmin(-a, -b) end

-- Lua 5.4 has no tanh: expm1 by Kahan's trick keeps small arguments accurate.
local function tanh(x)
  local a = math.abs(x)
  if a > 20 then return x < 0 and -1.0 or 1.0 end
  local u = math.exp(2 * a)
  local t = u == 1 and 2 * a or (u - 1) * (2 * a) / math.log(u)
  return (x < 0 and -1 or 1) * t / (t + 2)
end

-- name -> C name, argument count (more: or more), Lua implementation
local functions = {
  sin = { c = "sin", n = 1, f = math.sin }, cos = { c = "cos", n = 1, f = math.cos },
  tan = { c = "tan", n = 1, f = math.tan }, asin = { c = "asin", n = 1, f = math.asin },
  acos = { c = "acos", n = 1, f = math.acos }, atan = { c = "atan", n = 1, f = math.atan },
  exp = { c = "exp", n = 1, f = math.exp }, log = { c = "log", n = 1, f = math.log },
  sqrt = { c = "sqrt", n = 1, f = math.sqrt }, abs = { c = "fabs", n = 1, f = math.abs },
  floor = { c = "floor", n = 1, f = function(a) return a // 1 end },
  ceil = { c = "ceil", n = 1, f = function(a) return -(-a // 1) end },
  tanh = { c = "tanh", n = 1, f = tanh },
  min = { c = "fmin", n = 2, more = true, f = fmin }, max = { c = "fmax", n = 2, more = true, f = fmax },
  pow = { c = "pow", n = 2, f = function(a, b) return a ^ b end },
  atan2 = { c = "atan2", n = 2, f = math.atan },
}

local function sorted_keys(t)
  local list = {}
  for k in pairs(t) do list[#list + 1] = k end
  table.sort(list)
  return list
end
local function_list = table.concat(sorted_keys(functions), ", ")

-- "<what>: <reason> at column N", the text, and a caret under column N.
local function failer(text, opts)
  local what = opts.what or "expression"
  local shown = text:gsub("[\r\n]", " ")
  return function(col, fmt, ...)
    local pad = text:sub(1, col - 1):gsub("[^\t]", " ")
    error(string.format("%s: %s at column %d\n  %s\n  %s^", what, fmt:format(...), col, shown, pad), 0)
  end
end

local function describe_node(node)
  if node.kind == "number" then return "a number" end
  return comparisons[node.op] and "a comparison" or "a boolean"
end

local function parse(text, opts)
  opts = opts or {}
  local fail = failer(text, opts)
  local tokens, stop = lexer:match(text)
  tokens[#tokens + 1] = { kind = "eof", pos = stop, text = "" }
  for _, t in ipairs(tokens) do
    if t.kind == "bad" then fail(t.pos, "unexpected character '%s'%s", t.text, hints[t.text] or "") end
    if t.kind == "number" and number:match(t.text) ~= #t.text + 1 then fail(t.pos, "malformed number '%s'", t.text) end
  end
  local variables = {}
  for _, v in ipairs(opts.variables or {}) do variables[v] = true end
  local params = opts.params or {}

  local i = 1
  local function peek() return tokens[i] end
  local function take() i = i + 1; return tokens[i - 1] end
  local function accept(word) if tokens[i].text == word then return take() end end
  local function need(node, kind)
    if node.kind ~= kind then fail(node.pos, "expected a %s, got %s", kind, describe_node(node)) end
    return node
  end
  local function close(open)
    if not accept ")" then fail(peek().pos, "missing ')' for the '(' in column %d", open.pos) end
  end

  local function allowed_names()
    local names = {}
    for _, v in ipairs(opts.variables or {}) do names[#names + 1] = v end
    for _, p in ipairs(sorted_keys(params)) do names[#names + 1] = p end
    names[#names + 1] = "pi"
    return table.concat(names, ", ")
  end

  local function resolve(t)
    local n = t.text
    if variables[n] then
      if params[n] ~= nil then fail(t.pos, "parameter '%s' has the name of a variable", n) end
      return { op = "var", kind = "number", pos = t.pos, name = n }
    elseif params[n] ~= nil then
      local v = params[n]
      if type(v) ~= "number" or v ~= v or math.abs(v) == math.huge then
        fail(t.pos, "parameter '%s' is %s, not a finite number", n, tostring(v))
      end
      return { op = "param", kind = "number", pos = t.pos, name = n, value = v + 0.0 }
    elseif n == "pi" then
      return { op = "pi", kind = "number", pos = t.pos, value = math.pi }
    elseif functions[n] then
      fail(t.pos, "'%s' is a function: call it as %s(...)", n, n)
    end
    fail(t.pos, "unknown variable '%s' (allowed: %s)", n, allowed_names())
  end

  local expression
  local function call(t)
    local f = functions[t.text]
    if not f then fail(t.pos, "unknown function '%s' (allowed: %s)", t.text, function_list) end
    local open = take()
    local node = { op = "call", kind = "number", pos = t.pos, name = t.text }
    if not accept ")" then
      repeat node[#node + 1] = need(expression(), "number") until not accept ","
      close(open)
    end
    if #node ~= f.n and not (f.more and #node > f.n) then
      fail(t.pos, "'%s' takes %d%s argument%s, got %d", t.text, f.n, f.more and " or more" or "",
        f.n == 1 and "" or "s", #node)
    end
    return node
  end

  local function primary()
    local t = take()
    if t.kind == "number" then
      return { op = "num", kind = "number", pos = t.pos, text = t.text, value = tonumber(t.text) + 0.0 }
    elseif t.kind == "name" and not keywords[t.text] then
      if peek().text == "(" then return call(t) end
      return resolve(t)
    elseif t.text == "(" then
      local node = expression()
      close(t)
      node.pos = t.pos
      return node
    elseif t.kind == "eof" then
      fail(t.pos, "unexpected end of expression")
    end
    fail(t.pos, "expected a number, a name or '(', got '%s'", t.text)
  end

  local unary
  local function power()
    local base = primary()
    if not accept "^" then return base end
    return { op = "^", kind = "number", pos = base.pos, need(base, "number"), need(unary(), "number") }
  end

  function unary()
    local t = accept "-" or accept "+"
    if not t then return power() end
    local operand = need(unary(), "number")
    if t.text == "+" then return operand end
    return { op = "neg", kind = "number", pos = t.pos, operand }
  end

  local function binary(operand, ops, kind)
    return function()
      local a = operand()
      while ops[peek().text] do
        local op = take().text
        a = { op = op, kind = kind, pos = a.pos, need(a, kind), need(operand(), kind) }
      end
      return a
    end
  end
  local mul = binary(unary, { ["*"] = true, ["/"] = true }, "number")
  local add = binary(mul, { ["+"] = true, ["-"] = true }, "number")

  local function comparison()
    local a = add()
    if not comparisons[peek().text] then return a end
    local op = comparisons[take().text]
    local node = { op = op, kind = "boolean", pos = a.pos, need(a, "number"), need(add(), "number") }
    if comparisons[peek().text] then fail(peek().pos, "comparisons cannot be chained (use 'and')") end
    return node
  end

  local function negation()
    local t = accept "not"
    if not t then return comparison() end
    return { op = "not", kind = "boolean", pos = t.pos, need(negation(), "boolean") }
  end
  local conjunction = binary(negation, { ["and"] = true }, "boolean")
  expression = binary(conjunction, { ["or"] = true }, "boolean")

  if peek().kind == "eof" then fail(1, "empty expression") end
  local root = expression()
  if peek().kind ~= "eof" then fail(peek().pos, "unexpected '%s' after a complete expression", peek().text) end
  if opts.kind and root.kind ~= opts.kind then need(root, opts.kind) end
  return root
end
expr.parse = parse

-- C: every operation parenthesized, every constant cast to real.
local function literal(text)
  -- digit-only literals become floating, so C reads neither octal ("010") nor an overflowing integer
  return "(real)" .. (text:find "^%-?%d+$" and text .. ".0" or text)
end

local emit = {
  num = function(n) return literal(n.text) end,
  var = function(n, uses) uses[n.name] = true; return n.name end,
  param = function(n, uses) uses[n.name] = true; return literal(string.format("%.17g", n.value)) end,
  pi = function() return "(real)3.14159265358979323846" end,
  neg = function(n, uses, c) return "(-" .. c(n[1]) .. ")" end,
  ["^"] = function(n, uses, c) return "pow(" .. c(n[1]) .. ", " .. c(n[2]) .. ")" end,
  ["not"] = function(n, uses, c) return "(!" .. c(n[1]) .. ")" end,
  call = function(n, uses, c)
    local f = functions[n.name]
    local code = f.c .. "(" .. c(n[1])
    for k = 2, f.n do code = code .. ", " .. c(n[k]) end
    code = code .. ")"
    for k = f.n + 1, #n do code = f.c .. "(" .. code .. ", " .. c(n[k]) .. ")" end
    return code
  end,
}
local c_infix = { ["and"] = "&&", ["or"] = "||" }

function expr.to_c(text, opts)
  local root, uses = parse(text, opts), {}
  local function c(node)
    if emit[node.op] then return emit[node.op](node, uses, c) end
    return "(" .. c(node[1]) .. " " .. (c_infix[node.op] or node.op) .. " " .. c(node[2]) .. ")"
  end
  return c(root), root.kind, uses
end

local apply = {
  ["+"] = function(a, b) return a + b end, ["-"] = function(a, b) return a - b end,
  ["*"] = function(a, b) return a * b end, ["/"] = function(a, b) return a / b end,
  ["^"] = function(a, b) return a ^ b end,
  ["<"] = function(a, b) return a < b end, ["<="] = function(a, b) return a <= b end,
  [">"] = function(a, b) return a > b end, [">="] = function(a, b) return a >= b end,
  ["=="] = function(a, b) return a == b end, ["!="] = function(a, b) return a ~= b end,
  ["and"] = function(a, b) return a and b end, ["or"] = function(a, b) return a or b end,
}

--- expr.evaluator(text, opts) -> function(env): the expression parsed once, evaluated on the
--- host for the variables in env (a table name -> number) each call.
function expr.evaluator(text, opts)
  opts = opts or {}
  local root, fail = parse(text, opts), failer(text, opts)
  local env
  local function value(node)
    local op = node.op
    if op == "num" or op == "param" or op == "pi" then return node.value end
    if op == "var" then
      local v = env and env[node.name]
      if type(v) ~= "number" then fail(node.pos, "no value given for '%s'", node.name) end
      return v + 0.0
    end
    if op == "neg" then return -value(node[1]) end
    if op == "not" then return not value(node[1]) end
    if op == "call" then
      local f, args = functions[node.name], {}
      for k, arg in ipairs(node) do args[k] = value(arg) end
      local r = f.f(table.unpack(args, 1, f.n))
      for k = f.n + 1, #args do r = f.f(r, args[k]) end
      return r
    end
    return apply[op](value(node[1]), value(node[2]))
  end
  return function(e)
    env = e
    return value(root)
  end
end

function expr.eval(text, opts, env) return expr.evaluator(text, opts)(env) end
