"""Instructions per bond of the lattice step kernels, from `cuobjdump -sass` of probe.cu's cubin.

A bond's code begins with the test for an absent neighbour (ISETP.NE ... -0x1), so the bond's
length is the distance between consecutive tests: for the unrolled table kernel (probe_table) the
mean over the first copy of its K bonds (the compiler makes a second copy for bodies without the
partial-volume correction), for the stencil walk (probe_walk) the size of its innermost loop over
the bonds in it. usage: python3 per_bond.py FILE.sass (the unrolled kernels' last template argument
is the instance, stencil_table.cuh: ...ELi1 PLAIN, uniform volume and no surface correction; ...ELi2
SURFACE, uniform volume with the correction; ...ELi0 the general one)"""
import re
import sys

INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);")

for function in re.split(r"\n\s*Function : ", open(sys.argv[1]).read())[1:]:
    name = function.split("\n")[0].split("EEv")[0]
    listing = INSTRUCTION.findall(function)
    address = [int(a, 16) for a, _ in listing]
    ops = [op for _, op in listing]
    checks = [k for k, op in enumerate(ops) if "ISETP.NE" in op and "-0x1, PT" in op]
    if len(checks) < 3:
        continue
    if "table" in name or "tile" in name:  # unrolled: template arguments <DIM, K, ...>
        numbers = [int(v) for v in re.findall(r"Li(\d+)", name)]
        bonds = numbers[1]
        gaps = [b - a for a, b in zip(checks, checks[1:])][: bonds - 1]
        per_bond = sum(gaps) / len(gaps)
        # with one copy of the bonds, the point loop (the tile kernel: all of it) over K also counts what
        # was hoisted out of the bonds
        outer = max((k - address.index(int(t.group(1), 16)) + 1 for k, op in enumerate(ops)
                     for t in [re.search(r"BRA.*0x([0-9a-f]+)", op)] if t and int(t.group(1), 16) < address[k]),
                    default=0)
        if "tile" in name:  # a thread per point, no point loop: the whole kernel
            outer = len(ops)
        if len(checks) <= bonds + 2 and outer:
            print(f"{name:36s} {per_bond:6.1f} instructions per bond ({outer / bonds:.1f} with the point's share)")
            continue
    else:
        loops = []
        for k, op in enumerate(ops):
            target = re.search(r"BRA.*0x([0-9a-f]+)", op)
            if target and int(target.group(1), 16) < address[k]:
                start = address.index(int(target.group(1), 16))
                if start <= checks[0] <= k:
                    loops.append((k - start + 1, sum(start <= c <= k for c in checks)))
        size, inside = min(loops)
        per_bond = size / inside
    print(f"{name:36s} {per_bond:6.1f} instructions per bond")
