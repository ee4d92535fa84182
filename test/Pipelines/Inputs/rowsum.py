"""Input and expected output of dynamic-subview.mlir: row i of a seeded
4x8 matrix times (i + 1), computed here with numpy."""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
a = np.random.default_rng(7).standard_normal((4, 8), dtype=np.float32)
np.save(os.path.join(out, "a.npy"), a)
np.save(os.path.join(out, "expected.npy"), a * np.arange(1, 5, dtype=np.float32)[:, None])
