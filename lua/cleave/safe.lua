-- cleave.jit_safe: the checker of "safe mode" for user C snippets (force laws
-- and the like) before they are compiled into kernels by gcc or NVRTC. It
-- tokenizes the snippet and lets through only arithmetic, comparisons, logic,
-- assignments, structured control flow, scalar declarations and calls to a
-- whitelist of functions: no pointers, memory access, preprocessor, assembly
-- or calls out. Anything else is refused with the line and a caret.
local cl = ...
local lpeg = require "lpeg"
local P, R, S, C, Cp, Ct = lpeg.P, lpeg.R, lpeg.S, lpeg.C, lpeg.Cp, lpeg.Ct

cl.jit_safe = {}

local function token(kind, patt)
  return Cp() * C(patt) / function(pos, text) return { kind = kind, pos = pos, text = text } end
end

local alpha, digit = R("az", "AZ") + "_", R "09"
local operators = { "%:%:", "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
  "||", "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##", "::", "<:", ":>", "<%", "%>", "%:" }
local operator = S "+-*/%<>=!&|^~?:;,.(){}[]#"
for k = #operators, 1, -1 do operator = P(operators[k]) + operator end

local space = S " \t\f\v\n" ^ 1
local comment = "//" * (1 - P "\n") ^ 0 + "/*" * (1 - P "*/") ^ 0 * P "*/" ^ -1
local function quoted(q) return q * (P "\\" * 1 + (1 - S(q .. "\\\n"))) ^ 0 * P(q) ^ -1 end
local lexer = Ct(((space + comment) ^ 1 + token("name", alpha * (alpha + digit) ^ 0)
  + token("number", (digit + "." * digit) * (S "eEpP" * S "+-" + alpha + digit + ".") ^ 0)
  + token("string", quoted '"') + token("char", quoted "'") + token("op", operator)
  + token("bad", R "\xC2\xF4" * R "\x80\xBF" ^ 0 + 1)) ^ 0)

local types = { real = true, int = true, float = true, double = true, const = true, unsigned = true }
local statements = { ["if"] = true, ["else"] = true, ["for"] = true, ["while"] = true, ["do"] = true,
  ["return"] = true, ["break"] = true, ["continue"] = true }
local control = { ["if"] = true, ["for"] = true, ["while"] = true }

local refused_words = {
  asm = "inline assembly ('asm')", __asm__ = "inline assembly ('__asm__')", __asm = "inline assembly ('__asm')",
  __attribute__ = "attributes ('__attribute__')", ["goto"] = "'goto'",
}
-- every other keyword of C11, and those of C++ (NVRTC compiles C++)
for word in ([[extern static volatile register typedef struct union sizeof auto case char default enum
  long short signed switch void inline restrict _Bool _Complex _Imaginary _Alignas _Alignof _Atomic
  _Generic _Noreturn _Static_assert _Thread_local _Pragma new delete this template class namespace
  operator typename using friend virtual mutable explicit throw try catch typeid decltype alignas
  alignof constexpr thread_local static_cast const_cast dynamic_cast reinterpret_cast noexcept
  nullptr static_assert export private protected public]]):gmatch "%S+" do
  refused_words[word] = refused_words[word] or "the keyword '" .. word .. "'"
end

local refused_ops = {
  ["#"] = "the preprocessor ('#')", ["##"] = "the preprocessor ('##')",
  ["%:"] = "the preprocessor ('%:')", ["%:%:"] = "the preprocessor ('%:%:')",
  ["->"] = "member access through a pointer ('->')", ["."] = "member access ('.')", ["..."] = "'...'",
  ["["] = "subscripts ('[')", ["]"] = "subscripts (']')", ["::"] = "scope resolution ('::')",
  ["<:"] = "digraphs ('<:')", [":>"] = "digraphs (':>')", ["<%"] = "digraphs ('<%')", ["%>"] = "digraphs ('%>')",
}

-- "<what>: safe mode refuses <thing> at line L, column C", the line, and a caret.
local function refuser(source, what)
  return function(pos, fmt, ...)
    local line, start = 1, 1
    for nl in source:sub(1, pos - 1):gmatch "()\n" do line, start = line + 1, nl + 1 end
    local text = source:match("[^\n]*", start)
    local pad = source:sub(start, pos - 1):gsub("[^\t]", " ")
    error(string.format("%s: safe mode refuses %s at line %d, column %d\n  %s\n  %s^",
      what, fmt:format(...), line, pos - start + 1, text, pad), 0)
  end
end

-- Does the token end an operand (so that a following '*' or '&' is binary)?
-- A ')' does when it closes an expression or a call, not a cast or an if/for/while head.
local function ends_operand(t, was_operand, closed)
  if t.kind == "number" then return true end
  if t.kind == "name" then return not types[t.text] and not statements[t.text] end
  if t.text == ")" then return closed == "expression" end
  if t.text == "++" or t.text == "--" then return was_operand end
  return false
end

-- Loops must end, since a snippet runs inside a kernel that Ctrl-C cannot stop. Safe mode takes
-- only counted for loops,
--   for (int i = A; i < B; i++)   (< or <= with i++, ++i or i += S; > or >= with i--, --i or i -= S)
-- where A, B and S are decimal integer literals up to 1e9 (A and B may be negative, S is
-- positive) and the counter is assigned nowhere outside its loop's header; while, do and every
-- other for are refused.
local counted_form = "only counted loops 'for (int i = A; i < B; i++)' (A, B integer literals up to 1e9; also <=, " ..
  "> and >= with i--, and steps i += S, i -= S), with the counter assigned nowhere else"
local assignments = { ["="] = true, ["+="] = true, ["-="] = true, ["*="] = true, ["/="] = true, ["%="] = true,
  ["<<="] = true, [">>="] = true, ["&="] = true, ["|="] = true, ["^="] = true, ["++"] = true, ["--"] = true }
local counting_up = { ["<"] = true, ["<="] = true }
local counting_down = { [">"] = true, [">="] = true }

local function check_loops(tokens, refuse)
  local in_header, counters = {}, {}
  for i, t in ipairs(tokens) do
    if t.kind == "name" and (t.text == "while" or t.text == "do") then
      refuse(t.pos, "'%s' loops (they may never end; safe mode takes %s)", t.text, counted_form)
    elseif t.kind == "name" and t.text == "for" then
      local k = i + 1
      local function take(want) -- the next token when its text is want (or it is of kind want)
        local x = tokens[k]
        if x and (x.text == want or x.kind == want) then
          k = k + 1
          return x
        end
      end
      local function literal() -- a decimal literal up to 1e9: no counter overflows past its bound
        local x = take "number"
        return x and x.text:match "^%d+$" and tonumber(x.text) <= 1e9 and tonumber(x.text)
      end
      local function integer()
        take "-"
        return literal()
      end
      local name
      local ok = take "(" and take "int" and take "name"
      if ok then name = tokens[k - 1].text end
      ok = ok and take "=" and integer() and take ";" and take(name) and tokens[k]
      local op = ok and tokens[k].text
      ok = ok and (counting_up[op] or counting_down[op]) and take(op) and integer() and take ";"
      local up = counting_up[op]
      local inc, step = up and "++" or "--", up and "+=" or "-="
      ok = ok and ((take(name) and (take(inc) or take(step) and (literal() or 0) > 0)) or (take(inc) and take(name)))
        and take ")"
      if not ok then refuse(t.pos, "this for loop (it may never end; safe mode takes %s)", counted_form) end
      for j = i + 1, k - 1 do in_header[j] = true end
      counters[name] = true
    end
  end
  for i, t in ipairs(tokens) do
    if t.kind == "name" and counters[t.text] and not in_header[i] then
      local after, before = tokens[i + 1], tokens[i - 1]
      if (after and assignments[after.text]) or (before and (before.text == "++" or before.text == "--")) then
        refuse(t.pos, "an assignment to the loop counter '%s' outside its for header (safe mode takes %s)",
          t.text, counted_form)
      end
    end
  end
end

--- cl.jit_safe.check(source, { what =, functions = { names } }) -> true, or raises
function cl.jit_safe.check(source, opts)
  opts = opts or {}
  -- gcc may end a line at a lone CR: a "//" comment must not run on past one here
  source = source:gsub("\r\n?", "\n")
  local refuse = refuser(source, opts.what or "snippet")
  local whitelist = {}
  for _, f in ipairs(opts.functions or {}) do whitelist[f] = true end

  -- line splices and trigraphs act before comments end, so they could hide code from the lexer
  local at = source:find "\\[ \t\f\v]*\n"
  if at then refuse(at, "a line continuation ('\\' at the end of a line)") end
  at = source:find "%?%?[=/'()!<>%-]"
  if at then refuse(at, "trigraphs ('%s')", source:sub(at, at + 2)) end

  local tokens = lexer:match(source)
  local groups, closed, operand = {}, nil, false
  for i, t in ipairs(tokens) do
    local text, prev, next_ = t.text, tokens[i - 1], tokens[i + 1]
    if t.kind == "bad" then refuse(t.pos, "the character '%s'", text)
    elseif t.kind == "string" then refuse(t.pos, "string literals")
    elseif t.kind == "char" then refuse(t.pos, "character literals")
    elseif t.kind == "name" then
      if refused_words[text] then refuse(t.pos, "%s", refused_words[text]) end
      if text:sub(1, 2) == "__" then refuse(t.pos, "the reserved identifier '%s'", text) end
      if next_ and next_.text == "(" and not types[text] and not statements[text] and not whitelist[text] then
        local names = {}
        for _, f in ipairs(opts.functions or {}) do names[#names + 1] = f end
        refuse(t.pos, "a call to '%s' (allowed: %s)", text, #names > 0 and table.concat(names, ", ") or "none")
      end
    elseif refused_ops[text] then refuse(t.pos, "%s", refused_ops[text])
    elseif (text == "*" or text == "&" or text == "&&") and not operand then
      if prev and types[prev.text] then refuse(t.pos, "a pointer or reference declaration ('%s')", text) end
      refuse(t.pos, text == "*" and "pointer dereference ('*')" or text == "&" and "address-of ('&')"
        or "label addresses ('&&')")
    elseif text == "(" and prev and prev.text == ")" and closed == "expression" then
      refuse(t.pos, "a call through an expression ('(' after ')')")
    end

    local group = groups[#groups]
    if text == ")" then
      groups[#groups] = nil
      closed = not group and "expression" or group.head or (group.cast and group.types > 0 and "cast") or "expression"
    elseif group then
      group.cast = group.cast and types[text] ~= nil
      group.types = group.types + (types[text] and 1 or 0)
    end
    if text == "(" then
      groups[#groups + 1] = { head = prev and control[prev.text] and "head", cast = true, types = 0 }
    end
    operand = ends_operand(t, operand, closed)
  end
  check_loops(tokens, refuse)
  return true
end
