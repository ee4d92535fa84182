"""Calibration samples with known ranges, for calibrate.test:
DIR/one/{s0,s1}.npy for quantizable.mlir (sample 0 spans [-1, 2], sample 1
[-3, 1.5]); DIR/two/{s0,s1}/{a,b}.npy for two-input-linear.mlir (a + b
spans [-2, 4] over both); DIR/bad-count/s0/a.npy (one file for two
inputs); DIR/bad-shape/s0.npy (a 1x2x4x5 array); DIR/nan/s0.npy (a NaN);
DIR/empty (no sample)."""
import os
import sys

import numpy as np

out = sys.argv[1]
for d in ["one", "two/s0", "two/s1", "bad-count/s0", "bad-shape", "nan", "empty"]:
    os.makedirs(f"{out}/{d}", exist_ok=True)
x0 = np.linspace(-1, 2, 32, dtype=np.float32).reshape(1, 2, 4, 4)
x1 = np.linspace(1.5, -3, 32, dtype=np.float32).reshape(1, 2, 4, 4)
np.save(f"{out}/one/s0.npy", x0)
np.save(f"{out}/one/s1.npy", x1)
np.save(f"{out}/two/s0/a.npy", np.full((2, 4), 1.0, np.float32))
np.save(f"{out}/two/s0/b.npy", np.linspace(-3, 3, 8, dtype=np.float32).reshape(2, 4))
np.save(f"{out}/two/s1/a.npy", np.full((2, 4), -1.0, np.float32))
np.save(f"{out}/two/s1/b.npy", np.linspace(1, 2, 8, dtype=np.float32).reshape(2, 4))
np.save(f"{out}/bad-count/s0/a.npy", np.zeros((2, 4), np.float32))
np.save(f"{out}/bad-shape/s0.npy", np.zeros((1, 2, 4, 5), np.float32))
nan = x0.copy()
nan[0, 1, 2, 3] = np.nan
np.save(f"{out}/nan/s0.npy", nan)
