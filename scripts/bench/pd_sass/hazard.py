"""Stores issued while a load of the same address is in flight, from `cuobjdump -sass` of a cubin.

On sm_70 and later a load of global memory (LDG) sets a scoreboard barrier of its control bits, and
the first instruction that needs its value waits on that barrier; a store (STG) to the address of a
load whose barrier no instruction has waited on yet goes out while the load is still in flight. The
step kernels' epilogue did that (a(n - 1) read for the fused opening kick, then a(n), which does not
depend on it, stored to the same address at once: kernels/pd/point_force.h, cl_pd_finish), and on the
H100 the kernel ran 3.8 times slower with the same instructions, stalled on L1TEX. This lists each
such pair: function, the load's and the store's addresses in the listing and the address operand.
The scan is linear, in the listing's order (a conservative reading of forward branches); an address
register written between the load and the store ends the match.
usage: python3 hazard.py FILE.sass [NAME_SUBSTRING]   exit status 1 if a pair is found"""
import re
import sys

LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?);\s*/\*\s*0x[0-9a-f]{16}\s*\*/\s*\n\s*/\*\s*(0x[0-9a-f]{16})\s*\*/")
ADDRESS = re.compile(r"\[(R\d+)(?:\.64)?((?:\+-?0x[0-9a-f]+)?)\]")
REGISTER = re.compile(r"\bR(\d+)\b")


def control(hi):
    """The scoreboard fields of an instruction's control bits: write barrier, wait mask."""
    return (hi >> 46) & 7, (hi >> 52) & 0x3F


def scan(name, listing):
    found = []
    pending = []  # loads in flight: (address, key, barrier)
    for address, text, hi in listing:
        wbar, wait = control(int(hi, 16))
        # a wait on a barrier ends the loads that set it
        pending = [p for p in pending if not (wait >> p[2]) & 1]
        body = re.sub(r"^@!?U?P\w+\s+", "", text)
        opcode = body.split()[0] if body.split() else ""
        operands = body[len(opcode):]
        target = ADDRESS.search(operands)
        key = target and (target.group(1), target.group(2))
        if opcode.startswith(("STG", "ST.", "RED", "ATOM")) and key:
            for p in pending:
                if p[1] == key:
                    found.append((name, p[0], address, "[%s%s]" % key))
        # a register written here (the first operand of an instruction with a destination) moves the
        # addresses computed from it
        first = REGISTER.match(operands.strip())
        if first and not opcode.startswith(("STG", "ST.", "STS", "RED", "BRA", "EXIT", "BAR")):
            written = int(first.group(1))
            span = 2 if (".WIDE" in opcode or ".64" in opcode) else 1
            pending = [p for p in pending
                       if not written <= int(p[1][0][1:]) + 1 or not int(p[1][0][1:]) <= written + span - 1]
        if opcode.startswith("LDG") and key and wbar != 7:
            pending.append((address, key, wbar))
    return found


def main():
    text = open(sys.argv[1]).read()
    wanted = sys.argv[2] if len(sys.argv) > 2 else ""
    found = []
    functions = 0
    for function in re.split(r"\n\s*Function : ", text)[1:]:
        name = function.split("\n")[0].strip()
        if wanted not in name:
            continue
        functions += 1
        found += scan(name, LINE.findall(function))
    for name, load, store, operand in found:
        print(f"{name}: store at {store} to {operand} while the load at {load} from it is in flight")
    print(f"{functions} function(s), {len(found)} store(s) to an address being loaded")
    sys.exit(1 if found or functions == 0 else 0)


main()
