"""Writes .npy files with arbitrary headers (no numpy): raw_npy.py OUT
NAME SHAPE DTYPE VALUES..., SHAPE a Python tuple literal written as is
into the header, VALUES the f32 (<f4) or i32 data (or zeros:N)."""
import struct
import sys

out, name, shape, dtype = sys.argv[1:5]
values = sys.argv[5:]
if len(values) == 1 and values[0].startswith("zeros:"):
    values = ["0"] * int(values[0][len("zeros:"):])
header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (dtype, shape)
header += " " * (63 - (10 + len(header)) % 64) + "\n"
data = b"".join(struct.pack("<f" if dtype == "<f4" else "<i", float(v) if dtype == "<f4" else int(v))
                for v in values)
with open(f"{out}/{name}.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)
