-- cleave.jit: user laws written as short C snippets, wrapped in the kernel templates and
-- compiled at run time for the device that runs them (jit/jit.h: NVRTC on the GPU, the system
-- C compiler on the CPU, a disk cache). The snippet kinds fix the names a law sees and sets.
local cl = ...
local jit = cl.jit

--- When true, snippets must pass cl.jit_safe.check (no preprocessor, pointers, asm, and only
--- the math functions below): for hosts that run scripts they do not trust.
jit.safe = false

local MATH = { "sqrt", "exp", "log", "pow", "fabs", "fmin", "fmax", "floor", "ceil", "sin", "cos", "tan",
  "asin", "acos", "atan", "atan2", "tanh", "sinh", "cosh", "log1p", "expm1", "cbrt", "hypot", "copysign" }

-- The snippet kinds: the names a law of each kind sees (taken: no parameter may use them) and
-- how many state variables it may keep (CL_PD_LAW_STATE_MAX, CL_MP_STATE_MAX).
local KINDS = {
  bond_force = { names = "s r r0 xi eta dim broken", max_state = 4 },
  stress_update = { names = "deps sig D", max_state = 8 },
  traction = { names = "dn dt tn tt", max_state = 8 },
}
for _, kind in pairs(KINDS) do
  kind.reserved = { real = true }
  for name in kind.names:gmatch("%S+") do kind.reserved[name] = true end
end
local C_KEYWORDS = {}
for word in ([[auto break case char const continue default do double else enum extern float for goto if
  inline int long register restrict return short signed sizeof static struct switch typedef union unsigned
  void volatile while]]):gmatch("%a+") do C_KEYWORDS[word] = true end

local function check_params(fn, params, what, reserved)
  local names = {}
  for name, value in pairs(params) do
    if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") or name:match("^cl_") or name:match("^__") then
      error(string.format("%s: %s name %s is not a C identifier (letters, digits, _; not cl_ or __)", fn, what,
        tostring(name)), 4)
    end
    if reserved[name] or C_KEYWORDS[name] then
      error(string.format("%s: %s name '%s' is taken (by the law's inputs or by C)", fn, what, name), 4)
    end
    if type(value) ~= "number" or value ~= value or math.abs(value) == math.huge then
      error(string.format("%s: %s '%s' must be a finite number", fn, what, name), 4)
    end
    names[#names + 1] = name
  end
  table.sort(names)
  return names
end

local function read_source(fn, args)
  if args.source ~= nil and args.file ~= nil then error(fn .. ": give 'source' or 'file', not both", 3) end
  if args.file ~= nil then
    local f, err = io.open(args.file, "r")
    if not f then error(string.format("%s: cannot read 'file': %s", fn, err), 3) end
    local text = f:read("a")
    f:close()
    return text
  end
  if type(args.source) ~= "string" then error(fn .. ": give 'source' (the snippet) or 'file' (a path)", 3) end
  return args.source
end

local law_mt = {}
law_mt.__index = law_mt
law_mt.__tostring = function(law)
  return string.format("jit.%s<%s, %d parameters, %d state variables>", law.kind, law.name, #law.param_names,
    #law.state_names)
end

--- cleave.jit.bond_force{ source = | file =, params = { name = number, ... }, state = { name =
---   initial value, ... }, name = "bond_force", fast_math = false } -> a peridynamic bond law for
--- cleave.pd.body{ law = }. The snippet is the body of a C function returning the bond's scalar
--- force density (PMB: c s); it sees s (stretch), r0 and r (reference and current length), xi[]
--- and eta[] (reference vector and relative displacement, dim components), the parameters, its
--- state variables (one real per bond, read and written by name, kept between steps), and sets
--- broken = 1 to break the bond for good. See kernels/pd/laws/pmb.c (cleave.jit.law_source("pmb")).
-- (called from the public functions, not as a tail call: its errors count their frame)
local function new_law(kind, args)
  local fn, spec = "cleave.jit." .. kind, KINDS[kind]
  cl.check_args(fn, args, { source = true, file = true, params = true, state = true, name = true, fast_math = true }, 4)
  local source = read_source(fn, args)
  local name = args.name or kind
  if type(name) ~= "string" or not name:match("^[%w_%-]+$") then error(fn .. ": 'name' must be a word", 3) end
  if jit.safe then cl.jit_safe.check(source, { what = name, functions = MATH }) end
  local params, state = args.params or {}, args.state or {}
  if type(params) ~= "table" then error(fn .. ": 'params' must be a table of numbers", 3) end
  if type(state) ~= "table" then error(fn .. ": 'state' must be a table of initial values", 3) end
  local state_names = check_params(fn, state, "state variable", spec.reserved)
  if #state_names > spec.max_state then
    error(string.format("%s: at most %d state variables", fn, spec.max_state), 3)
  end
  for _, s in ipairs(state_names) do
    if params[s] ~= nil then error(string.format("%s: '%s' is both a parameter and a state variable", fn, s), 3) end
  end
  return setmetatable({ kind = kind, name = name, source = source, params = params,
    param_names = check_params(fn, params, "parameter", spec.reserved), state = state, state_names = state_names,
    fast_math = args.fast_math == true, modules = {} }, law_mt)
end

function jit.bond_force(args) return (new_law("bond_force", args)) end

--- cleave.jit.stress_update{ source = | file =, params =, state =, name =, fast_math = } -> a
--- small-strain constitutive law: the snippet updates sig[6] (previous stress in, new out) for the
--- strain increment deps[6] (Voigt xx yy zz yz xz xy, engineering shears), may update its state
--- variables (one real per point each) and writes the tangent D[36] (row-major 6 x 6).
function jit.stress_update(args) return (new_law("stress_update", args)) end

--- cleave.jit.traction{ ... } -> a cohesive law: from the openings dn (normal) and dt (tangential)
--- the snippet sets the tractions tn and tt and may update its state variables (the history).
function jit.traction(args) return (new_law("traction", args)) end

local BUILTIN = { pmb = "kernels/pd/laws/pmb.c", elastic = "kernels/fe/laws/elastic.c", j2 = "kernels/fe/laws/j2.c",
  mohr_coulomb = "kernels/fe/laws/mohr_coulomb.c",
  linear_softening = "kernels/czm/laws/linear_softening.c", ppr = "kernels/czm/laws/ppr.c" }

--- cleave.jit.law_source(name) -> the text of a built-in law, to copy and edit: "pmb" (bond_force),
--- "elastic", "j2", "mohr_coulomb" (stress_update), "linear_softening", "ppr" (traction; cleave.jit.ppr{} sets the
--- latter's parameters).
function jit.law_source(name)
  if not BUILTIN[name] then
    local names = {}
    for k in pairs(BUILTIN) do names[#names + 1] = k end
    table.sort(names)
    error(string.format("cleave.jit.law_source: no built-in law '%s' (%s)", tostring(name), table.concat(names, ", ")), 2)
  end
  return jit.embedded(BUILTIN[name])
end

--- cleave.jit.ppr{ G_I =, G_II =, sigma_max =, tau_max =, alpha = 2, beta = 2, lambda_n = 0,
---   lambda_t = 0, name = "ppr", fast_math = false } -> the PPR potential-based mixed-mode cohesive
--- law (Park, Paulino & Roesler 2009) with unloading towards the origin (Park & Paulino 2012), a
--- traction law running kernels/czm/laws/ppr.c. G_I, G_II: mode I and II fracture energies;
--- sigma_max, tau_max: normal and tangential cohesive strengths; alpha, beta (> 1): the shape of the
--- softening (2 linear, > 2 steep first, between 1 and 2 flat first); lambda_n, lambda_t in [0, 1):
--- the opening of the peak traction over the final opening, 0 (the default) for the extrinsic law
--- (traction sigma_max at zero opening, as the cohesive FEM inserts it), > 0 for an intrinsic law
--- rising from zero. State: dn_max, dt_max (the largest normal and |tangential| openings).
--- law.ppr holds the inputs and the derived constants (delta_n, delta_t: the final openings; m, n,
--- Gamma_n, Gamma_t, dphi_nt, dphi_tn).
function jit.ppr(args)
  local fn = "cleave.jit.ppr"
  cl.check_args(fn, args, { G_I = true, G_II = true, sigma_max = true, tau_max = true, alpha = true, beta = true,
    lambda_n = true, lambda_t = true, name = true, fast_math = true })
  local function number(key, default)
    local v = args[key]
    if v == nil then v = default end
    if type(v) ~= "number" or v ~= v or math.abs(v) == math.huge then
      error(string.format("%s: '%s' must be a finite number (got %s)", fn, key, tostring(v)), 3)
    end
    return v
  end
  local p = {}
  for _, k in ipairs { { "G_I", "the mode I fracture energy" }, { "G_II", "the mode II fracture energy" },
    { "sigma_max", "the normal cohesive strength" }, { "tau_max", "the tangential cohesive strength" } } do
    if args[k[1]] == nil then error(string.format("%s: give '%s' (%s, > 0)", fn, k[1], k[2]), 2) end
    p[k[1]] = number(k[1])
    if p[k[1]] <= 0 then
      error(string.format("%s: '%s' (%s) must be > 0 (got %.17g)", fn, k[1], k[2], p[k[1]]), 2)
    end
  end
  p.alpha, p.beta = number("alpha", 2), number("beta", 2)
  p.lambda_n, p.lambda_t = number("lambda_n", 0), number("lambda_t", 0)
  -- per direction: the exponent (m or n), the final opening and (shape/exponent)^exponent
  local function direction(shape, sname, lambda, lname, phi, strength, ename)
    if shape <= 1 then
      error(string.format("%s: '%s' must be > 1 (got %.17g): the softening must start with a negative slope; " ..
        "%s = 1 gives a flat one and %s < 1 a traction rising to infinity at the final opening (use 2 for linear " ..
        "softening)", fn, sname, shape, sname, sname), 3)
    end
    if lambda < 0 or lambda >= 1 then
      error(string.format("%s: '%s' must be in [0, 1) (got %.17g): 0 for the extrinsic law, the peak's opening " ..
        "over the final opening for an intrinsic one", fn, lname, lambda), 3)
    end
    if shape * lambda * lambda >= 1 then
      error(string.format("%s: cohesive parameters that give a negative initial slope: %s * %s^2 = %.17g must be " ..
        "< 1 (otherwise the exponent %s is negative); lower '%s' below 1/sqrt(%s) = %.6g", fn, sname, lname,
        shape * lambda * lambda, ename, lname, sname, 1 / math.sqrt(shape)), 3)
    end
    local e = shape * (shape - 1) * lambda * lambda / (1 - shape * lambda * lambda)
    if e == 0 then return 0, shape * phi / strength, 1 end -- extrinsic (or lambda so small that m underflows)
    local final = phi / strength * shape * lambda * (1 - lambda) ^ (shape - 1) * (shape / e + 1)
      * (shape / e * lambda + 1) ^ (e - 1)
    return e, final, (shape / e) ^ e
  end
  local m, delta_n, pm = direction(p.alpha, "alpha", p.lambda_n, "lambda_n", p.G_I, p.sigma_max, "m")
  local n, delta_t, pn = direction(p.beta, "beta", p.lambda_t, "lambda_t", p.G_II, p.tau_max, "n")
  -- Gamma_n = (-phi_n)^(<phi_n - phi_t> / (phi_n - phi_t)) (alpha/m)^m and Gamma_t likewise: the
  -- larger energy's Gamma carries -phi, the other's only (shape/exponent)^exponent (equal: Gamma_n)
  local phi_n, phi_t = p.G_I, p.G_II
  local Gamma_n = phi_n >= phi_t and -phi_n * pm or pm
  local Gamma_t = phi_n >= phi_t and pn or -phi_t * pn
  p.delta_n, p.delta_t, p.m, p.n, p.Gamma_n, p.Gamma_t = delta_n, delta_t, m, n, Gamma_n, Gamma_t
  p.dphi_nt, p.dphi_tn = math.max(phi_n - phi_t, 0), math.max(phi_t - phi_n, 0)
  local law = new_law("traction", { name = args.name or "ppr", fast_math = args.fast_math,
    source = jit.law_source("ppr"),
    params = { delta_n = delta_n, delta_t = delta_t, alpha = p.alpha, beta = p.beta, m = m, n = n, Gamma_n = Gamma_n,
      Gamma_t = Gamma_t, dphi_nt = p.dphi_nt, dphi_tn = p.dphi_tn, lambda_n = p.lambda_n, lambda_t = p.lambda_t },
    state = { dn_max = 0, dt_max = 0 } })
  law.ppr = p
  return law
end

-- ---- generated units -----------------------------------------------------------------------

local function precision_define(dtype) return dtype == "f32" and "#define CL_PRECISION_F32\n" or "" end

-- The body of a law's C function after its opening line: the parameters as constants, the names
-- in `macros` ({ name, expansion } pairs, in order) defined around the snippet, which sits under
-- #line 1 "<name>" so that compiler messages point at its own lines.
local function snippet_body(law, unused, macros)
  local lines = {}
  for _, p in ipairs(law.param_names) do
    lines[#lines + 1] = string.format("  const real %s = (real)%.17g;", p, law.params[p])
    unused[#unused + 1] = "(void)" .. p
  end
  lines[#lines + 1] = "  " .. table.concat(unused, ", ") .. ";"
  for _, m in ipairs(macros) do lines[#lines + 1] = string.format("#define %s %s", m[1], m[2]) end
  lines[#lines + 1] = string.format('#line 1 "%s"', law.name)
  lines[#lines + 1] = law.source
  lines[#lines + 1] = '#line 1 "cleave-template"'
  for _, m in ipairs(macros) do lines[#lines + 1] = "#undef " .. m[1] end
  lines[#lines + 1] = "}"
  return table.concat(lines, "\n")
end

-- The state variables as macros of the slot `index` in the arrays `arrays` (C expressions).
local function state_macros(law, arrays, index)
  local macros = {}
  for k, v in ipairs(law.state_names) do
    macros[k] = { v, string.format("(((real *)%s[%d])[%s])", arrays, k - 1, index) }
  end
  return macros
end

-- The entry point `name` applying `item(a, i)` to entries 0..count-1 of its argument struct:
-- an OpenMP loop on the cpu (on one thread below serial_below entries, when given), a grid-stride
-- kernel on cuda (cl_jit_launch runs either).
local function entry_loop(device, name, args_type, count, item, serial_below, launch_bounds)
  if device == "cpu" then
    local clause = serial_below and string.format(" if (a->%s > %d)", count, serial_below) or ""
    return string.format("void %s(void *args) {\n  const %s *a = (const %s *)args;\n" ..
      "#pragma omp parallel for schedule(static)%s\n  for (size_t i = 0; i < a->%s; i++) %s(a, i);\n}\n",
      name, args_type, args_type, clause, count, item)
  end
  -- launch_bounds: "threads, blocks" for __launch_bounds__ (a register budget), or none
  local bounds = launch_bounds and "__launch_bounds__(" .. launch_bounds .. ") " or ""
  return string.format('#include "kernels/common/grid.h"\n' ..
    'extern "C" __global__ void %s%s(%s a) { CL_GRID_STRIDE(i, a.%s) %s(&a, i); }\n', bounds, name, args_type, count,
    item)
end

-- obj.modules[key] for field's device and precision, compiled from make_source() when missing;
-- symbols: the entry point's name, or a list of them.
local function module_of(obj, field, key, make_source, symbols, fast_math)
  local k = field.device .. "/" .. field.dtype .. "/" .. key
  if not obj.modules[k] then
    obj.modules[k] = jit.compile { what = obj.name or obj.opts.what, field = field, fast_math = fast_math,
      source = make_source(), symbols = type(symbols) == "table" and symbols or { symbols } }
  end
  return obj.modules[k]
end

-- The bond law as the C function CL_PD_BOND_LAW (kernels/pd/pmb.h).
local function law_function(law)
  local macros = state_macros(law, "cl_a->law_state", "cl_slot")
  table.insert(macros, 1, { "broken", "(*cl_broken)" })
  return table.concat({ '#include "kernels/pd/force_args.h"', "#define CL_PD_BOND_LAW cl_jit_bond_law",
    "struct cl_pd_pmb;",
    "CL_HD static inline real cl_jit_bond_law(const struct cl_pd_pmb *cl_m, int dim, const real *xi,",
    "                                         const real *eta, real r0, real r, real s, int *cl_broken,",
    "                                         const cl_pd_force_args *cl_a, size_t cl_slot) {",
    snippet_body(law, { "(void)cl_m", "(void)dim", "(void)xi", "(void)eta", "(void)r0", "(void)r", "(void)s",
      "(void)cl_a", "(void)cl_slot" }, macros) }, "\n")
end

-- (a run-time law walks the stencil whatever variant of "point" the built-in kernel is asked for)
local SHAPES = { point = "cl_pd_point_body<%d, %s>", walk = "cl_pd_point_body<%d, %s>",
  tile = "cl_pd_point_body<%d, %s>", tile6 = "cl_pd_point_body<%d, %s>", group = "cl_pd_group_body<%d, %s, 4>",
  group4 = "cl_pd_group_body<%d, %s, 4>", group8 = "cl_pd_group_body<%d, %s, 8>",
  group16 = "cl_pd_group_body<%d, %s, 16>", group32 = "cl_pd_group_body<%d, %s, 32>" }

-- The translation unit: one host function over every point (cpu), or one kernel of the given
-- dimension, bond layout and launch shape (cuda).
local function unit(law, precision, device, dim, layout, shape)
  local parts = { "/* generated by cleave.jit." .. law.kind .. ": do not edit */",
    precision_define(precision) .. '#include "kernels/common/real.h"', law_function(law) }
  if device == "cpu" then
    parts[#parts + 1] = '#include "kernels/pd/force_rows.h"'
    parts[#parts + 1] = "void cl_jit_pd_force(const cl_pd_force_args *a) { cl_pd_force_host(a); }"
  else
    parts[#parts + 1] = '#include "kernels/pd/force_kernels.cuh"'
    parts[#parts + 1] = 'extern "C" __global__ void cl_jit_pd_force(cl_pd_force_args a, cl_pd_pmb m) {'
    parts[#parts + 1] = "  " .. string.format(SHAPES[shape], dim, layout == "lattice" and "true" or "false") .. "(a, m);"
    parts[#parts + 1] = "}"
  end
  return table.concat(parts, "\n") .. "\n"
end

--- law:module(x, layout, shape) -> the compiled module of a bond law for the device and precision
--- of the coordinates x (n x dim), the bond layout and the GPU launch shape (kept per law).
function law_mt:module(x, layout, shape)
  if self.kind ~= "bond_force" then return self:point_module(x) end
  return module_of(self, x, x.device == "cpu" and "" or (x.k .. layout .. shape),
    function() return unit(self, x.dtype, x.device, x.k, layout, shape) end, "cl_jit_pd_force", self.fast_math)
end

jit.law_mt = law_mt

-- ---- expressions (cleave.expr) compiled for the device ---------------------------------------

local function compiled_expression(mt, text, opts)
  local code = cl.expr.to_c(text, opts) -- raises with a caret under the culprit
  return setmetatable({ text = text, code = code, opts = opts, modules = {} }, mt)
end

local region_mt = {}
region_mt.__index = region_mt
region_mt.__tostring = function(r) return string.format("jit.region<%s>", r.text) end

--- cleave.jit.region(text, { params = {}, what = "where" }) -> a region: a boolean expression in
--- x, y, z, dx and the parameters. region:inside(x, dx) -> u8 field, 1 at the points inside.
function jit.region(text, opts)
  opts = opts or {}
  return compiled_expression(region_mt, text, { what = opts.what or "where", kind = "boolean",
    variables = { "x", "y", "z", "dx" }, params = opts.params })
end

function region_mt:inside(x, dx)
  local module = module_of(self, x, "", function()
    return precision_define(x.dtype) .. '#include "kernels/common/real.h"\n#define CL_JIT_REGION\n' ..
      "CL_HD static inline int cl_jit_region_test(real x, real y, real z, real dx) {\n" ..
      "  (void)x, (void)y, (void)z, (void)dx;\n  return " .. self.code .. ";\n}\n" ..
      '#include "kernels/common/expression.h"\n' .. entry_loop(x.device, "cl_jit_region", "cl_region_args", "n", "cl_region_at")
  end, "cl_jit_region")
  return jit.run_region(module, x, dx)
end

local value_mt = {}
value_mt.__index = value_mt
value_mt.__tostring = function(v) return string.format("jit.value<%s>", v.text) end
--- value(t): the expression at time t, evaluated on the host
value_mt.__call = function(v, t) return cl.expr.eval(v.text, v.opts, { t = t }) end

--- cleave.jit.value(text, { params = {}, what = "value" }) -> a load value: a number expression
--- in t and the parameters; value(t) evaluates it on the host, value:module(field, scale) is the
--- kernel setting (or adding) scale * value(t) on rows of the field (cleave.stage.set_rows).
function jit.value(text, opts)
  opts = opts or {}
  return compiled_expression(value_mt, text, { what = opts.what or "value", kind = "number", variables = { "t" },
    params = opts.params })
end

function value_mt:module(field, scale)
  local factor = string.format("%.17g", scale or 1)
  return module_of(self, field, factor, function()
    return precision_define(field.dtype) .. '#include "kernels/common/real.h"\n#define CL_JIT_VALUE\n' ..
      "CL_HD static inline real cl_jit_value(real t) {\n  (void)t;\n  return (" .. self.code .. ") * (real)" ..
      factor .. ";\n}\n" .. '#include "kernels/common/expression.h"\n' ..
      -- one thread below 4096 rows, as cl.stage.set_rows's own loop (kernels/common/rows_cpu.c)
      entry_loop(field.device, "cl_jit_rows", "cl_rows_args", "count", "cl_rows_at", 4096)
  end, "cl_jit_rows")
end

jit.value_mt = value_mt
jit.region_mt = region_mt

-- ---- material-point laws (stress_update, traction): the driver of kernels/common/material_point.h

-- The law as the C function cl_jit_law of one material point (kernels/common/material_point.h):
-- the lines of a unit up to it.
local function point_law(law, dtype)
  local head = law.kind == "stress_update"
    and "const real *deps, real *sig, real *D" or "real dn, real dt, real *cl_tn, real *cl_tt"
  local macros = state_macros(law, "cl_a->state", "cl_i")
  if law.kind == "traction" then
    macros[#macros + 1] = { "tn", "(*cl_tn)" }
    macros[#macros + 1] = { "tt", "(*cl_tt)" }
  end
  return { "/* generated by cleave.jit." .. law.kind .. ": do not edit */",
    precision_define(dtype) .. '#include "kernels/common/material_point.h"',
    "CL_HD static inline void cl_jit_law(" .. head .. ", const cl_mp_args *cl_a, size_t cl_i) {",
    snippet_body(law, { "(void)cl_a", "(void)cl_i" }, macros) }
end

-- The law, then the loop over points (cpu) or the kernel (cuda).
local function point_unit(law, dtype, device)
  local lines = point_law(law, dtype)
  if law.kind == "stress_update" then
    lines[#lines + 1] = [[
CL_HD static inline void cl_jit_point(const cl_mp_args *a, size_t i) {
  const real *in = (const real *)a->in;
  real *out = (real *)a->out, deps[6], sig[6], D[36];
  for (int c = 0; c < 6; c++) deps[c] = in[c * a->n + i], sig[c] = out[c * a->n + i];
  for (int c = 0; c < 36; c++) D[c] = 0;
  cl_jit_law(deps, sig, D, a, i);
  for (int c = 0; c < 6; c++) out[c * a->n + i] = sig[c];
  if (a->tangent)
    for (int c = 0; c < 36; c++) ((real *)a->tangent)[c * a->n + i] = D[c];
}]]
  else
    lines[#lines + 1] = [[
CL_HD static inline void cl_jit_point(const cl_mp_args *a, size_t i) {
  const real *in = (const real *)a->in;
  real *out = (real *)a->out, tn = 0, tt = 0;
  cl_jit_law(in[i], in[a->n + i], &tn, &tt, a, i);
  out[i] = tn, out[a->n + i] = tt;
}]]
  end
  lines[#lines + 1] = entry_loop(device, "cl_jit_points", "cl_mp_args", "n", "cl_jit_point")
  return table.concat(lines, "\n")
end

--- law:cohesive_module(field) -> the cohesive-element kernel of the cohesive FEM around this
--- traction law (kernels/czm/czm_cohesive.h), for the device and precision of field; on cuda also
--- the fused launch of element and cohesive forces (atomic scatter).
function law_mt:cohesive_module(field)
  if self.kind ~= "traction" then error("law:cohesive_module: needs a traction law (got " .. self.kind .. ")", 2) end
  local symbols = { "cl_jit_czm_cohesive" }
  if field.device ~= "cpu" then symbols[2] = "cl_jit_czm_forces" end
  return module_of(self, field, "czm", function()
    local lines = point_law(self, field.dtype)
    lines[#lines + 1] = "#define CL_CZM_LAW cl_jit_law"
    lines[#lines + 1] = '#include "kernels/czm/czm_cohesive.h"'
    lines[#lines + 1] = entry_loop(field.device, symbols[1], "cl_czm_args", "ncoh", "cl_czm_cohesive_live")
    if symbols[2] then
      lines[#lines + 1] = entry_loop(field.device, symbols[2], "cl_czm_args", "ne + a.ncoh * (a.order == 2 ? 3 : 2)",
        "cl_czm_forces_at")
    end
    return table.concat(lines, "\n")
  end, symbols, self.fast_math)
end

--- law:fpm_hex_module(field, variant, state) -> the finite particle method's hexahedron kernel around
--- this stress_update law (kernels/fpm/hex.h), for the device and precision of field. variant (GPU only,
--- cleave.fpm.kernel_variant): { name =, lanes = 8 or 1 (one thread an element), bounds = "threads,
--- blocks" (launch bounds) or nil }; default the 8 lanes without bounds. state: what each Gauss point
--- keeps (hex.h): "incremental" (stress and strain; the default), "total" (nothing: a linear elastic
--- law) or "plastic" (the plastic strain: a law elastic-isotropic in eps - eps_p, the built-in J2).
local HEX_STATES = { incremental = "CL_FPM_HEX_INCREMENTAL", total = "CL_FPM_HEX_TOTAL",
  plastic = "CL_FPM_HEX_PLASTIC" }
function law_mt:fpm_hex_module(field, variant, state)
  if self.kind ~= "stress_update" then error("law:fpm_hex_module: needs a stress_update law (got " .. self.kind .. ")", 2) end
  state = state or "incremental"
  if not HEX_STATES[state] then
    error("law:fpm_hex_module: argument 'state' must be \"incremental\", \"total\" or \"plastic\" (got " ..
      tostring(state) .. ")", 2)
  end
  if field.device == "cpu" or not variant then variant = { name = "lanes", lanes = 8 } end
  return module_of(self, field, "fpm_hex/" .. variant.name .. "/" .. state, function()
    local lines = point_law(self, field.dtype)
    if variant.lanes == 1 then lines[#lines + 1] = "#define CL_FPM_HEX_ONE_THREAD 1" end
    lines[#lines + 1] = "#define CL_FPM_LAW cl_jit_law"
    lines[#lines + 1] = "#define CL_FPM_HEX_STATE " .. HEX_STATES[state]
    lines[#lines + 1] = "#define CL_FPM_LAW_STATES " .. #self.state_names
    lines[#lines + 1] = '#include "kernels/fpm/hex.h"'
    -- one CPU thread below 512 elements (~20 us of work), where forking the team costs more
    -- items: elements on the CPU, 8 lanes of each on the GPU (CL_FPM_HEX_LANES, hex.h)
    lines[#lines + 1] = entry_loop(field.device, "cl_jit_fpm_hex", "cl_fpm_hex_args", "ne * CL_FPM_HEX_LANES",
      "cl_fpm_hex_item", 512, variant.bounds)
    return table.concat(lines, "\n")
  end, "cl_jit_fpm_hex", self.fast_math)
end

--- law:fe_module(field) -> the quasi-static FE's element kernels around this stress_update law
--- (kernels/fe_ep/fe_ep_kernels.h with CL_FE_EP_LAW), for the device and precision of field: the
--- entry points of the element forces and of forces and consistent tangent.
function law_mt:fe_module(field)
  if self.kind ~= "stress_update" then error("law:fe_module: needs a stress_update law (got " .. self.kind .. ")", 2) end
  local symbols = { "cl_jit_fe_forces", "cl_jit_fe_forces_tangent" }
  return module_of(self, field, "fe_ep", function()
    local lines = point_law(self, field.dtype)
    lines[#lines + 1] = "#define CL_FE_EP_LAW cl_jit_law"
    lines[#lines + 1] = '#include "kernels/fe_ep/fe_ep_kernels.h"'
    -- one CPU thread below 512 elements, as the built-in loops (kernels/fe_ep/fe_ep_cpu.c): forking the
    -- team costs more than a small mesh's work
    lines[#lines + 1] = entry_loop(field.device, symbols[1], "cl_fe_ep_args", "ne", "cl_fe_ep_law_forces", 512)
    lines[#lines + 1] = entry_loop(field.device, symbols[2], "cl_fe_ep_args", "ne", "cl_fe_ep_law_forces_tangent", 512)
    return table.concat(lines, "\n")
  end, symbols, self.fast_math)
end

function law_mt:point_module(field)
  return module_of(self, field, "", function() return point_unit(self, field.dtype, field.device) end,
    "cl_jit_points", self.fast_math)
end

local WIDTH = { stress_update = 6, traction = 2 }

--- law:evaluate{ input =, output =, tangent =, state = { name = field } }: one update of a
--- stress_update or traction law at every row of the fields (their device and precision): input
--- n x 6 strain increments or n x 2 openings, output n x 6 stresses (in and out) or n x 2
--- tractions, tangent n x 36 (stress_update, optional), one field per state variable.
function law_mt:evaluate(args)
  local fn = "law:evaluate"
  if self.kind == "bond_force" then error(fn .. ": a bond law runs inside a body's step (cleave.pd.body{ law = })", 2) end
  cl.check_args(fn, args, { input = true, output = true, tangent = true, state = true })
  local w = WIDTH[self.kind]
  if not args.input or args.input.k ~= w or not args.output or args.output.k ~= w then
    error(string.format("%s: 'input' and 'output' must be fields of %d components", fn, w), 2)
  end
  local state = {}
  for k, name in ipairs(self.state_names) do
    state[k] = (args.state or {})[name]
    if not state[k] then error(string.format("%s: give state.%s (a field of one value per point)", fn, name), 2) end
  end
  jit.run_points(self:point_module(args.input), { input = args.input, output = args.output, tangent = args.tangent,
    state = state })
end

--- law:path{ steps = { increment, ... }, precision = "f64", state = { name = value } } -> a list, per
--- step, of { output = {...}, state = { name = value }, tangent = {...} }: the law at one material
--- point driven through the increments (strain increments of 6 or openings of 2; for traction laws
--- the openings themselves, not increments), on the current device.
function law_mt:path(args)
  local fn = "law:path"
  cl.check_args(fn, args, { steps = true, precision = true, state = true })
  local w, dtype = WIDTH[self.kind], args.precision or "f64"
  local input = cl.field { n = 1, k = w, dtype = dtype }
  local output = cl.field { n = 1, k = w, dtype = dtype }
  local tangent = self.kind == "stress_update" and cl.field { n = 1, k = 36, dtype = dtype } or nil
  local state = {}
  for _, name in ipairs(self.state_names) do
    state[name] = cl.field { n = 1, dtype = dtype, value = (args.state or {})[name] or self.state[name] }
  end
  local results = {}
  for k, step in ipairs(args.steps or {}) do
    if type(step) ~= "table" or #step ~= w then error(string.format("%s: step %d must list %d numbers", fn, k, w), 2) end
    input[1] = step
    self:evaluate { input = input, output = output, tangent = tangent, state = state }
    local r = { output = output[1], state = {}, tangent = tangent and tangent[1] }
    for name, f in pairs(state) do r.state[name] = f[1] end
    results[k] = r
  end
  return results
end
