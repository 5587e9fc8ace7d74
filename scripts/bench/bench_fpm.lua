-- Finite particle method throughput (paper 001, Table 1-3's unit: seconds per 10^4 elements per
-- 10^4 steps; the issue's unit: element-steps/s), per element type, material and assembly. Usage:
--   cleave run scripts/bench/bench_fpm.lua [elements] [steps] [precision]
-- (defaults 100000 elements, 200 steps, f64 on the GPU; give fewer on the CPU). Each timed run is a
-- cantilever block under a ramped end load (hexahedra) or a 3D frame of beams on the same grid; its
-- energy balance (kinetic + strain + damping against the external work) must hold within 1%
-- (balance.lua) or no time is reported. The J2 runs stay elastic (the balance counts no plastic
-- dissipation): they time the law's yield check and state, not its return mapping.
local cl = require "cleave"
local balance = dofile((arg[0]:match("^(.*)/") or ".") .. "/balance.lua")
local elements, steps = tonumber(arg[1] or "100000"), tonumber(arg[2] or "200")
local precision = arg[3] or "f64"

-- A grid of nx x ny x nz cells with about `count` cells, 4:1:1.
local function grid(count)
  local n = math.max(1, math.floor((count / 16) ^ (1 / 3) + 0.5))
  return 4 * n, n, n
end

local function hex_body(material, assembly)
  local nx, ny, nz = grid(elements)
  return cl.fpm.box { x = { 0, 4 }, y = { 0, 1 }, z = { 0, 1 }, nx = nx, ny = ny, nz = nz, material = material,
    precision = precision, assembly = assembly }, 4
end

-- Beams along the edges of a grid (3 per node, as a space frame).
local function beam_body(assembly)
  local nx, ny, nz = grid(elements / 3)
  local points, beams, orient = {}, {}, {}
  local function id(i, j, k) return 1 + i + (nx + 1) * (j + (ny + 1) * k) end
  for k = 0, nz do
    for j = 0, ny do
      for i = 0, nx do points[id(i, j, k)] = { 4 * i / nx, j / ny, k / nz } end
    end
  end
  local function add(a, b, o)
    beams[#beams + 1] = { a, b }
    orient[#orient + 1] = o
  end
  for k = 0, nz do
    for j = 0, ny do
      for i = 0, nx do
        if i < nx then add(id(i, j, k), id(i + 1, j, k), { 0, 0, 1 }) end
        if j < ny then add(id(i, j, k), id(i, j + 1, k), { 0, 0, 1 }) end
        if k < nz then add(id(i, j, k), id(i, j, k + 1), { 1, 0, 0 }) end
      end
    end
  end
  return cl.fpm.body { points = points, beams = beams, orient = orient, section = { b = 0.02, h = 0.02 },
    material = cl.fpm.elastic { E = 2e11, nu = 0.3, rho = 7850 }, precision = precision, assembly = assembly }, 4
end

local function energies(body)
  local e = body:energies()
  return { kinetic = e.kinetic, strain = e.strain, damping = e.damping, external_work = e.external + e.constraint }
end

local function timed(label, body, length)
  body:fix { where = "x < 1e-9" }
  body:load { where = "x > " .. length .. " - 1e-9", fz = "-1e3 * min(t / 1e-4, 1)" }
  local run = cl.fpm.explicit { body, steps = steps, xi = 10, progress = false }
  run:go { steps = 5 } -- compiles and warms up
  local before = energies(body)
  local stats = run:go()
  local seconds = balance.checked(label, before, energies(body), stats.seconds)
  print(string.format("%-34s %8d elements  %s  %s element-steps/s  %s s per 1e4 elements per 1e4 steps", label, body.ne,
    balance.time(seconds, "%.3f s"), seconds and string.format("%.3g", body.ne * steps / seconds) or "-",
    seconds and string.format("%.3g", seconds / (body.ne / 1e4) / (steps / 1e4)) or "-"))
end

print(string.format("cleave.fpm on %s, %s, %d steps", cl.info().device, precision, steps))
for _, assembly in ipairs { "scatter", "gather" } do
  timed("beams, " .. assembly, beam_body(assembly))
  timed("hexahedra elastic, " .. assembly, hex_body(cl.fpm.elastic { E = 2e11, nu = 0.3, rho = 7850 }, assembly))
  timed("hexahedra J2, " .. assembly, hex_body(cl.fpm.j2 { E = 2e11, nu = 0.3, rho = 7850, sy = 2.5e8, Et = 2e10 },
    assembly))
end
balance.exit()
