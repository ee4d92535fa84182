"""A small segmentation-style network exported with symbolic image sizes
(and batch): strided and dilated convolutions, a ceil-mode max pool, an
average pool, an upsampling by a constant scale, F.interpolate to the size
of a skip connection and of the input (sizes read at run time), a
transposed convolution and a global-pool branch. Writes <dir>/dynamic_image.onnx
and, per image size HxW given, <dir>/x_HxW.npy and PyTorch's
<dir>/y_HxW.npy."""
import os
import sys
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 2, 1)
        self.body = nn.Conv2d(8, 8, 3, 1, 2, dilation=2)
        self.up = nn.ConvTranspose2d(8, 4, 3, 2, 1, output_padding=1)
        self.head = nn.Conv2d(4 + 3, 5, 1)
        self.gate = nn.Linear(8, 5)

    def forward(self, x):
        skip = F.relu(self.stem(x))
        y = F.max_pool2d(skip, 3, 2, 1, ceil_mode=True)
        y = F.avg_pool2d(F.relu(self.body(y)), 3, 1, 1, count_include_pad=False)
        y = F.interpolate(y, scale_factor=2.0, mode="nearest")
        y = F.interpolate(y, size=skip.shape[-2:], mode="bilinear", align_corners=False)
        gate = torch.sigmoid(self.gate(F.adaptive_avg_pool2d(y, 1).flatten(1)))
        y = F.relu(self.up(y + skip))
        y = F.interpolate(y, size=x.shape[-2:], mode="bilinear", align_corners=True)
        return self.head(torch.cat([y, x], 1)) * gate[:, :, None, None]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    net = Net().eval()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net, torch.randn(2, 3, 32, 32), os.path.join(out, "dynamic_image.onnx"),
                          opset_version=13, input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": {0: "n", 2: "h", 3: "w"},
                                        "y": {0: "n", 2: "h", 3: "w"}})
        for size in sys.argv[2:]:
            h, w = map(int, size.split("x"))
            x = torch.randn(1 + h % 2, 3, h, w)
            np.save(os.path.join(out, f"x_{size}.npy"), x.numpy())
            np.save(os.path.join(out, f"y_{size}.npy"), net(x).numpy())


if __name__ == "__main__":
    main()
