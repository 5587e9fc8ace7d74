#!/usr/bin/env python3
"""The notched plate of paper 000, section 7.2.1, as a Gmsh 2.2 ASCII mesh that cleave
(cl.czm.read) and Akantu (aka.Mesh.read) both read: the peer comparison runs both codes on
this one file (scripts/bench/akantu_notched_plate.py, scripts/bench/czm_peer_plate.lua).

    python3 scripts/bench/notched_plate_mesh.py NY OUT.msh

A 16 x 4 mm strip, y from -2 to 2 mm, of 4 NY x NY square cells, 4 T6 triangles per cell around
a centre node (the paper's union-jack: NY = 48 gives Table VI's 36 864 elements and, with the
notch, its 74 257 nodes; NY = 96 gives 147 456 and 295 969). The 2 mm notch is a slit on y = 0
from x = 0: its nodes are doubled (the cells above use a copy), the tip node is shared, so the
notch is a traction-free crack in the geometry itself and neither code has to open it.
Physical groups: "bottom" and "top" (3-node lines on y = -2 and 2 mm) and "plate" (triangles).
Standard library only: not a cleave or CI dependency.
"""
import sys

W, H, NOTCH = 16e-3, 4e-3, 2e-3


def plate(ny):
    """Nodes [(x, y)], triangles [(6 node indices)], boundary lines {group: [(a, b, mid)]}."""
    if ny < 2 or ny % 2:
        raise ValueError(f"NY must be an even number >= 2 (the notch lies on the middle row), got {ny}")
    nx, h = 4 * ny, H / ny
    jm, nn = ny // 2, round(NOTCH / h)  # the mid-plane row, the notch's cells
    if abs(nn * h - NOTCH) > 1e-12:
        raise ValueError(f"NY = {ny}: the 2 mm notch must end on a cell corner (NY a multiple of 2)")
    xy = []

    def add(x, y):
        xy.append((x, y))
        return len(xy) - 1

    corner = [[add(i * h, -H / 2 + j * h) for j in range(ny + 1)] for i in range(nx + 1)]
    centre = [[add((i + 0.5) * h, -H / 2 + (j + 0.5) * h) for j in range(ny)] for i in range(nx)]
    hmid = [[add((i + 0.5) * h, -H / 2 + j * h) for j in range(ny + 1)] for i in range(nx)]
    vmid = [[add(i * h, -H / 2 + (j + 0.5) * h) for j in range(ny)] for i in range(nx + 1)]
    # the notch's upper face: copies of the mid-plane corners left of the tip and of their edges' mid nodes
    corner_up = {i: add(*xy[corner[i][jm]]) for i in range(nn)}
    hmid_up = {i: add(*xy[hmid[i][jm]]) for i in range(nn)}
    tris = []
    for i in range(nx):
        for j in range(ny):
            c = [corner[i][j], corner[i + 1][j], corner[i + 1][j + 1], corner[i][j + 1]]
            bottom = hmid[i][j]
            if j == jm and i < nn:  # a cell on the notch's upper face
                c[0], bottom = corner_up[i], hmid_up[i]
                if i + 1 < nn:
                    c[1] = corner_up[i + 1]
            m = centre[i][j]
            xm, ym = xy[m]
            d = [add((xy[k][0] + xm) / 2, (xy[k][1] + ym) / 2) for k in c]  # centre-to-corner mid nodes
            sides = [bottom, vmid[i + 1][j], hmid[i][j + 1], vmid[i][j]]
            for k in range(4):  # counter-clockwise: corner k, corner k+1, centre; then the mid nodes
                tris.append((c[k], c[(k + 1) % 4], m, sides[k], d[(k + 1) % 4], d[k]))
    lines = {"bottom": [(corner[i][0], corner[i + 1][0], hmid[i][0]) for i in range(nx)],
             "top": [(corner[i][ny], corner[i + 1][ny], hmid[i][ny]) for i in range(nx)]}
    return xy, tris, lines


def write_msh(path, xy, tris, lines):
    """Gmsh 2.2 ASCII: 3-node lines (type 8) and 6-node triangles (type 9), 1-based tags."""
    groups = {"bottom": (1, 1), "top": (1, 2), "plate": (2, 3)}  # name: (dimension, tag)
    with open(path, "w") as f:
        f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n%d\n" % len(groups))
        for name, (dim, tag) in groups.items():
            f.write(f'{dim} {tag} "{name}"\n')
        f.write("$EndPhysicalNames\n$Nodes\n%d\n" % len(xy))
        for k, (x, y) in enumerate(xy):
            f.write(f"{k + 1} {x:.17g} {y:.17g} 0\n")
        f.write("$EndNodes\n$Elements\n%d\n" % (sum(map(len, lines.values())) + len(tris)))
        tag = 0
        for name, ls in lines.items():
            g = groups[name][1]
            for a in ls:
                tag += 1
                f.write(f"{tag} 8 2 {g} {g} {a[0] + 1} {a[1] + 1} {a[2] + 1}\n")
        for t in tris:
            tag += 1
            f.write(f"{tag} 9 2 3 3 " + " ".join(str(k + 1) for k in t) + "\n")
        f.write("$EndElements\n")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: notched_plate_mesh.py NY OUT.msh (NY = 48: 36 864 T6 elements, 96: 147 456)")
    try:
        ny = int(sys.argv[1])
        xy, tris, lines = plate(ny)
    except ValueError as e:
        sys.exit(f"notched_plate_mesh.py: {e}")
    write_msh(sys.argv[2], xy, tris, lines)
    print(f"{sys.argv[2]}: {len(tris)} T6 elements, {len(xy)} nodes")


if __name__ == "__main__":
    main()
