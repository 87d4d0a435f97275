"""The index-crop classifier: a small CNN that reads a card's corner index.

Input float32 [N, 3, 72, 40] RGB in [0, 1]; output float32 [N, 53] logits (classes
0..51 = Card::index(), 52 = not a card / no index). Normalisation is inside the
graph so that the Rust side feeds plain [0, 1] pixels.
"""
from __future__ import annotations

import torch
from torch import nn

NUM_CLASSES = 53


def conv_bn(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class IndexNet(nn.Module):
    """72 x 40 -> 36 x 20 (a strided first convolution: cheap on CPU) -> 18 x 10 ->
    9 x 5 feature maps, then a linear read-out that keeps the layout (rank above suit)
    instead of pooling it away."""

    def __init__(self, width: int = 40, dropout: float = 0.2, mix: int = 0, norm: str = "fixed"):
        super().__init__()
        if norm not in NORMS:
            raise ValueError(f"norm must be one of {', '.join(NORMS)}, not {norm!r}")
        self.norm = norm
        w = width
        layers = [
            nn.Conv2d(6 if norm == "both" else 3, w // 2, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(w // 2),
            nn.ReLU(inplace=True),                      # 36 x 20
            conv_bn(w // 2, w), nn.MaxPool2d(2),        # 18 x 10
            conv_bn(w, 2 * w), conv_bn(2 * w, 2 * w), nn.MaxPool2d(2),  # 9 x 5
            conv_bn(2 * w, 2 * w),
        ]
        out = 2 * w
        if mix:  # a 1 x 1 convolution at 9 x 5: capacity where it is cheap
            layers += [nn.Conv2d(out, mix, 1, bias=False), nn.BatchNorm2d(mix), nn.ReLU(inplace=True)]
            out = mix
        self.features = nn.Sequential(*layers)
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(dropout),
                                  nn.Linear(out * 9 * 5, NUM_CLASSES))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        fixed = (x - 0.5) * 4.0
        if self.norm == "fixed":
            return self.head(self.features(fixed))
        crop = per_crop(x)
        if self.norm == "crop":
            return self.head(self.features(crop))
        return self.head(self.features(torch.cat([fixed, crop], 1)))


# How a crop's pixels reach the first convolution: "fixed" (the same affine map for
# every crop), "crop" (each crop's colour planes standardised on their own: a faint
# yellow or washed-out index stands out as strongly as a black one), "both" (the two
# side by side, six planes).
NORMS = ("fixed", "crop", "both")

# The least spread a colour plane is divided by: a plane flatter than this (the red
# plane of a red index on white) is not blown up into its noise.
CROP_SPREAD_FLOOR = 0.05


def per_crop(x: torch.Tensor) -> torch.Tensor:
    """Each crop's colour planes standardised on their own (mean 0, spread 1, the
    spread floored at CROP_SPREAD_FLOOR)."""
    mean = x.mean(dim=(2, 3), keepdim=True)
    d = x - mean
    spread = (d * d).mean(dim=(2, 3), keepdim=True).sqrt().clamp(min=CROP_SPREAD_FLOOR)
    return d / spread


def count_params(m: nn.Module) -> int:
    return sum(p.numel() for p in m.parameters())


class CardNet(nn.Module):
    """The card reader: the whole rectified card shrunk to 56 x 40 (h x w), read for the
    same 53 classes. Where a small card's index is a few pixels tall, its pips and court
    art still span many: a spade and a club, an 8 and a 10 differ in the middle of the
    card as much as in its corner. 56 x 40 -> 28 x 20 -> 14 x 10 -> 7 x 5 feature maps,
    then a linear read-out of the 7 x 5 map (pip layout kept)."""

    def __init__(self, width: int = 24, dropout: float = 0.2):
        super().__init__()
        w = width
        self.features = nn.Sequential(
            nn.Conv2d(3, w, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(w),
            nn.ReLU(inplace=True),                      # 28 x 20
            conv_bn(w, 2 * w), nn.MaxPool2d(2),         # 14 x 10
            conv_bn(2 * w, 2 * w), nn.MaxPool2d(2),     # 7 x 5
            conv_bn(2 * w, 2 * w),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(dropout),
                                  nn.Linear(2 * w * 7 * 5, NUM_CLASSES))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features((x - 0.5) * 4.0))
