#!/usr/bin/env python3
"""Independent reader for the files tests/output/write_samples writes.

Usage: check_vtu.py DIR

Parses DIR/tri_base64.vtu, DIR/tri_raw.vtu, DIR/points.vtu and
DIR/series.pvd with the standard library only, decodes the appended data
(base64 and raw) the way VTK does, and checks every value against the
formulas write_samples.c uses. Exits non-zero on any mismatch.
"""
import base64
import os
import re
import struct
import sys
import xml.etree.ElementTree as ET

HEADER = struct.Struct("<Q")  # header_type="UInt64", little-endian
FORMATS = {"Float32": "f", "Float64": "d", "Int32": "i", "UInt32": "I", "UInt8": "B"}
VTK_VERTEX, VTK_TRIANGLE = 1, 5

# Grid of write_samples.c: NX x NY points, two triangles per quad.
NX, NY = 4, 3
NPOINTS = NX * NY
NCLOUD = 5


def f32(v):
    """v rounded to single precision, as C stores a float."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def triangles():
    cells = []
    for j in range(NY - 1):
        for i in range(NX - 1):
            p = j * NX + i
            cells += [(p, p + 1, p + NX + 1), (p, p + NX + 1, p + NX)]
    return cells


# Expected tuples per array name, as functions of the row index.
TRI_POINT_DATA = {
    "temperature": ("Float32", lambda p: (f32(1.5 + 0.25 * p),)),
    "displacement": ("Float64", lambda p: (0.1 * p, -2.0 * p + 0.5, 0.0)),
    "label": ("Int32", lambda p: (7 * p - 40,)),
    "id": ("UInt32", lambda p: (4000000000 - 3 * p,)),
    "flag": ("UInt8", lambda p: ((37 * p + 11) % 256,)),
}
TRI_CELL_DATA = {"cell_value": ("Float64", lambda c: (10 + 0.5 * c,))}
CLOUD_POINT_DATA = {"mass": ("Float64", lambda p: (1.0 + p * p,))}


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: " + what)
        return ok


def close(a, b):
    return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))


class AppendedFile:
    """A .vtu split into its XML tree and the bytes after the '_' marker."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        start = data.index(b"<AppendedData")
        tag_end = data.index(b">", start)
        match = re.search(rb'encoding="(\w+)"', data[start:tag_end])
        self.encoding = match.group(1).decode()
        marker = data.index(b"_", tag_end)
        end = data.rindex(b"</AppendedData>")
        # The XML before <AppendedData> is complete but for the root's end tag.
        self.root = ET.fromstring(data[:start] + b"</VTKFile>")
        self.payload = data[marker + 1 : end]

    def block(self, offset):
        """Decodes the array at offset; returns (bytes, encoded length)."""
        if self.encoding == "raw":
            (nbytes,) = HEADER.unpack_from(self.payload, offset)
            body = self.payload[offset + HEADER.size : offset + HEADER.size + nbytes]
            return body, HEADER.size + nbytes
        # base64: header and data encoded together, one padded block per array.
        head = base64.b64decode(self.payload[offset : offset + 12])
        (nbytes,) = HEADER.unpack_from(head)
        length = (HEADER.size + nbytes + 2) // 3 * 4
        decoded = base64.b64decode(self.payload[offset : offset + length], validate=True)
        return decoded[HEADER.size :], length

    def trailing_payload(self, offset):
        return self.payload[offset:].strip()


def read_arrays(ck, name, vtu):
    """All DataArrays as {section/Name: (element, tuples)}, checking that the
    blocks are contiguous in offset order and fill the appended section."""
    elements = []
    for section in ("PointData", "CellData", "Points", "Cells"):
        for da in vtu.root.iter(section):
            for e in da.findall("DataArray"):
                ck.check(e.get("format") == "appended", f"{name}: {e.get('Name')} is appended")
                elements.append((section, e))
    elements.sort(key=lambda se: int(se[1].get("offset")))
    arrays, expected_offset = {}, 0
    for section, e in elements:
        offset = int(e.get("offset"))
        ck.check(offset == expected_offset,
                 f"{name}: {e.get('Name')} starts at {offset}, expected {expected_offset}")
        body, length = vtu.block(offset)
        expected_offset = offset + length
        fmt = FORMATS[e.get("type")]
        count = len(body) // struct.calcsize(fmt)
        ck.check(count * struct.calcsize(fmt) == len(body),
                 f"{name}: {e.get('Name')} byte count {len(body)} is a whole number of values")
        values = struct.unpack("<%d%s" % (count, fmt), body)
        ncomp = int(e.get("NumberOfComponents", "1"))
        tuples = [values[i : i + ncomp] for i in range(0, count, ncomp)]
        arrays[section + "/" + e.get("Name")] = (e, tuples)
    ck.check(vtu.trailing_payload(expected_offset) == b"",
             f"{name}: appended data ends after the last array")
    return arrays


def check_values(ck, name, arrays, section, expected, rows):
    for array_name, (vtk_type, formula) in expected.items():
        key = section + "/" + array_name
        if not ck.check(key in arrays, f"{name}: {key} present"):
            continue
        e, tuples = arrays[key]
        ck.check(e.get("type") == vtk_type, f"{name}: {key} type {e.get('type')} is {vtk_type}")
        ck.check(len(tuples) == rows, f"{name}: {key} has {len(tuples)} rows, expected {rows}")
        bad = [i for i, t in enumerate(tuples)
               if len(t) != len(formula(i)) or not all(map(close, t, formula(i)))]
        ck.check(not bad, f"{name}: {key} values differ at rows {bad[:5]}"
                          + (f": {tuples[bad[0]]} != {formula(bad[0])}" if bad else ""))


def check_cells(ck, name, arrays, npoints, ncells, expected_cells, expected_type):
    conn = [t[0] for t in arrays["Cells/connectivity"][1]]
    offsets = [t[0] for t in arrays["Cells/offsets"][1]]
    types = [t[0] for t in arrays["Cells/types"][1]]
    ck.check(len(offsets) == ncells and len(types) == ncells,
             f"{name}: {len(offsets)} offsets and {len(types)} types for {ncells} cells")
    ck.check(all(a < b for a, b in zip([0] + offsets, offsets)),
             f"{name}: offsets are increasing end offsets")
    ck.check(offsets[-1:] == [len(conn)], f"{name}: last offset equals connectivity length")
    ck.check(all(0 <= p < npoints for p in conn), f"{name}: connectivity indexes points")
    ck.check(all(t == expected_type for t in types), f"{name}: every cell has type {expected_type}")
    cells = [tuple(conn[a:b]) for a, b in zip([0] + offsets, offsets)]
    ck.check(cells == expected_cells, f"{name}: cells are {expected_cells[:3]}...")


def check_header(ck, name, vtu, npoints, ncells):
    root = vtu.root
    ck.check(root.get("type") == "UnstructuredGrid", f"{name}: VTKFile type")
    ck.check(root.get("version") == "1.0", f"{name}: version 1.0")
    ck.check(root.get("header_type") == "UInt64", f"{name}: header_type UInt64")
    ck.check(root.get("byte_order") == "LittleEndian", f"{name}: byte_order LittleEndian")
    piece = root.find("UnstructuredGrid/Piece")
    ck.check(piece is not None and int(piece.get("NumberOfPoints")) == npoints,
             f"{name}: NumberOfPoints {npoints}")
    ck.check(piece is not None and int(piece.get("NumberOfCells")) == ncells,
             f"{name}: NumberOfCells {ncells}")


def check_triangle_file(ck, directory, file_name, encoding):
    vtu = AppendedFile(os.path.join(directory, file_name))
    ck.check(vtu.encoding == encoding, f"{file_name}: encoding {vtu.encoding} is {encoding}")
    ncells = len(triangles())
    check_header(ck, file_name, vtu, NPOINTS, ncells)
    arrays = read_arrays(ck, file_name, vtu)
    check_values(ck, file_name, arrays, "PointData", TRI_POINT_DATA, NPOINTS)
    check_values(ck, file_name, arrays, "CellData", TRI_CELL_DATA, ncells)
    points = {"Points": ("Float64", lambda p: (0.5 * (p % NX), 0.25 * (p // NX), 0.0))}
    check_values(ck, file_name, arrays, "Points", points, NPOINTS)
    check_cells(ck, file_name, arrays, NPOINTS, ncells, triangles(), VTK_TRIANGLE)


def check_point_file(ck, directory):
    name = "points.vtu"
    vtu = AppendedFile(os.path.join(directory, name))
    check_header(ck, name, vtu, NCLOUD, NCLOUD)
    arrays = read_arrays(ck, name, vtu)
    check_values(ck, name, arrays, "PointData", CLOUD_POINT_DATA, NCLOUD)
    points = {"Points": ("Float64", lambda p: (0.5 * p, 1.0 * p, -0.5 * p))}
    check_values(ck, name, arrays, "Points", points, NCLOUD)
    vertices = [(p,) for p in range(NCLOUD)]
    check_cells(ck, name, arrays, NCLOUD, NCLOUD, vertices, VTK_VERTEX)


def check_series(ck, directory):
    root = ET.parse(os.path.join(directory, "series.pvd")).getroot()
    ck.check(root.get("type") == "Collection", "series.pvd: VTKFile type Collection")
    entries = root.findall("Collection/DataSet")
    expected = [(0.0, "tri_base64.vtu"), (0.5, "tri_raw.vtu"), (1.0, "points.vtu")]
    got = [(float(e.get("timestep")), e.get("file")) for e in entries]
    ck.check(got == expected, f"series.pvd: entries {got} are {expected}")
    for e in entries:
        ck.check(e.get("part") == "0" and e.get("group") == "",
                 f"series.pvd: {e.get('file')} has part 0 and an empty group")
        ck.check(os.path.isfile(os.path.join(directory, e.get("file"))),
                 f"series.pvd: {e.get('file')} exists next to the .pvd")


def main(argv):
    if len(argv) != 2:
        print("usage: check_vtu.py DIR", file=sys.stderr)
        return 2
    ck = Checker()
    steps = [
        ("tri_base64.vtu", lambda: check_triangle_file(ck, argv[1], "tri_base64.vtu", "base64")),
        ("tri_raw.vtu", lambda: check_triangle_file(ck, argv[1], "tri_raw.vtu", "raw")),
        ("points.vtu", lambda: check_point_file(ck, argv[1])),
        ("series.pvd", lambda: check_series(ck, argv[1])),
    ]
    for file_name, step in steps:
        try:
            step()
        except (OSError, ValueError, KeyError, IndexError, struct.error, ET.ParseError) as e:
            # binascii.Error (bad base64) is a ValueError.
            ck.check(False, f"{file_name}: cannot read: {type(e).__name__}: {e}")
    print(f"{ck.passed} passed, {ck.failed} failed")
    return 1 if ck.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
