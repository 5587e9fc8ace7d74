-- The safe-mode checker of user C snippets (cl.jit_safe.check): what it lets through,
-- and each kind of refusal with its line, column and caret.
local cl = require "cleave"
local T = require "testing"

local opts = { what = "bond_force", functions = { "sqrt", "fabs", "exp", "fmin" } }

local accepted = {
  "if (s0 > 0 && s > s0) { broken = 1; return 0; }\nreturn c * s;",
  "real k = 2 * c;\nfor (int i = 0; i < 3; i++) k *= 2;\nreturn k * sqrt(fabs(s));",
  "const unsigned n = 3u;\nreal a = (real)(s) * 2, b = 0x1p-3;\nif (a > 1) a /= 2;\n{ a += .5e-3; }",
  "real a = x++ * 2 + (y ? 1 : 0) - ~n % 3 + (n & 1) + (n << 2) - (n >> 1) + (n | 2) + (n ^ 1);",
  "if (x) (y) = 1; else { y = -x; } return (double)y * (float)(x) + fmin(a, b);",
  "/* a comment with * & [ ] # \"quotes\" and asm */ return c * s; // # include <stdio.h>",
  "for (int i = 0; i < 8; i++) { if (!(s < 1) || s != 2) break; else continue; }\nreturn exp(-s) * c;",
  -- counted loops: every direction and step, nested, one after another with the same counter
  "real k = 0;\nfor (int i = -3; i <= 3; ++i) for (int j = 10; j > 0; j -= 2) k += i * j;\n" ..
    "for (int i = 5; i >= -5; i--) { k -= i; }\nfor (int n = 0; n < 1000000000; n += 250) k *= 1;\nreturn k;",
  "int a = 1, b = 2; a <<= 1; b >>= 1; a &= b; a |= b; a ^= b; a %= 3; a -= b--; return --a;",
  "real f = (s > s0) * c * s;\r\nreturn f;",
}

T.case(#accepted .. " accepted snippets", function()
  for _, source in ipairs(accepted) do
    local ok, err = pcall(cl.jit_safe.check, source, opts)
    T.ok(ok, string.format("%q refused: %s", source, err))
    T.eq(err, true, "returns true")
  end
end)

-- source, what is refused, line, column
local refused = {
  { "#include <stdio.h>", "the preprocessor ('#')", 1, 1 },
  { "x = 1;\n  #define X 2", "the preprocessor ('#')", 2, 3 },
  { "x = 1;\n  %:define X", "the preprocessor ('%:')", 2, 3 },
  { "asm(\"nop\");", "inline assembly ('asm')", 1, 1 },
  { "x = 1; __asm__ volatile (\"\");", "inline assembly ('__asm__')", 1, 8 },
  { "__asm (\"nop\");", "inline assembly ('__asm')", 1, 1 },
  { "if (s > 1) goto out;", "'goto'", 1, 12 },
  { "return *p;", "pointer dereference ('*')", 1, 8 },
  { "return (real)*p;", "pointer dereference ('*')", 1, 14 },
  { "if (x)\n\t*p = 1;", "pointer dereference ('*')", 2, 2 },
  { "x = ++*p;", "pointer dereference ('*')", 1, 7 },
  { "real *p = 0;", "a pointer or reference declaration ('*')", 1, 6 },
  { "real a, *p;", "pointer dereference ('*')", 1, 9 },
  { "int &r = n;", "a pointer or reference declaration ('&')", 1, 5 },
  { "y = &x;", "address-of ('&')", 1, 5 },
  { "x = &&lab;", "label addresses ('&&')", 1, 5 },
  { "p->x = 1;", "member access through a pointer ('->')", 1, 2 },
  { "a.b = 1;", "member access ('.')", 1, 2 },
  { "a[0] = 1;", "subscripts ('[')", 1, 2 },
  { "return a<:0:>;", "digraphs ('<:')", 1, 9 },
  { "s = \"hi\";", "string literals", 1, 5 },
  { "c = 'a';", "character literals", 1, 5 },
  { "__attribute__((x)) real a;", "attributes ('__attribute__')", 1, 1 },
  { "extern real g;", "the keyword 'extern'", 1, 1 },
  { "static real g;", "the keyword 'static'", 1, 1 },
  { "volatile real v;", "the keyword 'volatile'", 1, 1 },
  { "register int r;", "the keyword 'register'", 1, 1 },
  { "typedef real R;", "the keyword 'typedef'", 1, 1 },
  { "struct S s;", "the keyword 'struct'", 1, 1 },
  { "union U u;", "the keyword 'union'", 1, 1 },
  { "n = sizeof(real);", "the keyword 'sizeof'", 1, 5 },
  { "real q = new real;", "the keyword 'new'", 1, 10 },
  { "switch (n) { }", "the keyword 'switch'", 1, 1 },
  { "real k = 1;\nreturn printf(x);", "a call to 'printf' (allowed: sqrt, fabs, exp, fmin)", 2, 8 },
  { "return sqrt (s) + cbrt /* c */ (s);", "a call to 'cbrt'", 1, 19 },
  { "(exit)(1);", "a call through an expression ('(' after ')')", 1, 7 },
  { "real __x = 1;", "the reserved identifier '__x'", 1, 6 },
  { "__builtin_trap();", "the reserved identifier '__builtin_trap'", 1, 1 },
  { "std::exit(1);", "scope resolution ('::')", 1, 4 },
  { "x = 1; \\\ny", "a line continuation ('\\' at the end of a line)", 1, 8 },
  { "/* *\\\n/ asm */", "a line continuation", 1, 5 },
  { "x ??= 1;", "trigraphs ('??=')", 1, 3 },
  { "k = 1 @ 2;", "the character '@'", 1, 7 },
  { "k = $1;", "the character '$'", 1, 5 },
  { "// comment\rasm", "inline assembly ('asm')", 2, 1 },
  -- loops that may never end (a snippet runs in a kernel, which Ctrl-C cannot stop)
  { "while (1) {}", "'while' loops (they may never end", 1, 1 },
  { "real a = s;\ndo { a /= 2; } while (a > 1);", "'do' loops", 2, 1 },
  { "for (;;) {}", "this for loop (it may never end", 1, 1 },
  { "for (int i = 0; i < n; i++) {}", "this for loop", 1, 1 },
  { "for (int i = 0; i < 3; i--) {}", "this for loop", 1, 1 },
  { "for (int i = 3; i > 0; i++) {}", "this for loop", 1, 1 },
  { "for (int i = 0; i < 3; i += 0) {}", "this for loop", 1, 1 },
  { "for (int i = 0; i <= 2000000000; i++) {}", "this for loop", 1, 1 },
  { "for (real x = 0; x < 3; x++) {}", "this for loop", 1, 1 },
  { "for (int i = 0; i < 3; j++) {}", "this for loop", 1, 1 },
  { "for (int i = 0; i < 3; i++) { i = 0; }", "an assignment to the loop counter 'i' outside its for header", 1, 31 },
  { "for (int i = 0; i < 3; i++)\n  if (s > 0) --i;", "an assignment to the loop counter 'i'", 2, 16 },
}

T.case(#refused .. " refused snippets: what, line and column", function()
  for _, case in ipairs(refused) do
    local source, thing, line, column = case[1], case[2], case[3], case[4]
    T.raises(function() cl.jit_safe.check(source, opts) end,
      { "bond_force: safe mode refuses " .. thing, string.format(" at line %d, column %d\n", line, column) },
      string.format("%q", source))
  end
end)

T.case("refusals quote the offending line with a caret", function()
  local err = T.raises(function() cl.jit_safe.check("real k = 2;\nif (k > 1)\n\tk = *p;\nreturn k;", opts) end, {})
  T.eq(err, "bond_force: safe mode refuses pointer dereference ('*') at line 3, column 6\n  \tk = *p;\n  \t    ^",
    "message")
  err = T.raises(function() cl.jit_safe.check("return f(s);", {}) end, {})
  T.ok(err:find("^snippet: safe mode refuses a call to 'f' %(allowed: none%)"), "no whitelist, default what: " .. err)
end)

T.run()
