import sys
import numpy as np
from numpy.lib import format as npformat

out = sys.argv[1]


def save(name, array, version):
    with open(f"{out}/{name}.npy", "wb") as f:
        npformat.write_array(f, np.ascontiguousarray(array), version=version)


save("f32_v2", np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5, (2, 0))
f16 = np.array([-1.5, 0.25, 3.0, -0.0], dtype=np.float16)
save("f16_v3", f16, (3, 0))
save("relu_f16", np.maximum(f16, 0).astype(np.float16), (1, 0))
save("i8_v1", np.array([-128, -1, 0, 127, 5, 6, 7, 8], dtype=np.int8).reshape(2, 2, 2), (1, 0))
save("i32_v1", np.array([-7, 0, 1, 2 ** 31 - 1, -2 ** 31], dtype=np.int32), (1, 0))
save("i64_v2", np.array([[2 ** 40], [-3], [0]], dtype=np.int64), (2, 0))

# Fortran order (numpy writes a transposed array so): dlas-run reads it in
# row-major order. The 3-D one checks the order of all three strides.
a = np.arange(6, dtype=np.float32).reshape(3, 2) * 1.5 - 2.0
np.save(f"{out}/f32_fortran.npy", np.asfortranarray(a))
np.save(f"{out}/f32_fortran_transposed.npy", np.ascontiguousarray(a.T))
c = (np.arange(24, dtype=np.int64).reshape(2, 3, 4) * 7) % 11 - 5
np.save(f"{out}/i64_fortran.npy", np.asfortranarray(c))
np.save(f"{out}/i64_c.npy", c)
