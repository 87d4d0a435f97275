"""Train the pip reader: a number card's suit read from the shape of its pips.

The index model reads a card from its corners, where at a webcam's resolution the
suit sign is a few pixels wide: a club and a spade, or a faint four-colour club and
a diamond, can look alike there. The pips in the middle of a number card are the
same suit drawn four to ten times larger. This small network reads one pip patch
(`pips.find_pips`: 24 x 24 ink strength, colour left out on purpose, so that a
green club is a club) as spade, heart, diamond, club or "not a pip"; the service
sums the log-probabilities of a card's clear pips (read at least `--min-confidence`
sure) and asks God to confirm a read whose suit they deny (`src/vision/pips.rs`; model card, "Pips").

    train_pips.py --train data/pips_train.npz --val data/pips_val.npz --out pips.onnx

Trains on CPU in well under a minute per epoch; exports ONNX (input `patches`,
[n, 1, 24, 24] float32 in 0..1; output `logits`, [n, 5]), checks the export
against PyTorch with onnxruntime, and prints accuracy per split and design, per
patch and per card.
"""
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm import tqdm

import pips

CLASSES = 5


class PipNet(nn.Module):
    """Three 3 x 3 convolutions with batch norm (`width`, twice and three times as
    many channels, each followed by a 2 x 2 max-pool: 24 -> 12 -> 6 -> 3) and a
    linear read-out: about 25 k parameters at width 16."""

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        w1, w2, w3 = width, 2 * width, 3 * width
        self.c1 = nn.Conv2d(1, w1, 3, padding=1)
        self.b1 = nn.BatchNorm2d(w1)
        self.c2 = nn.Conv2d(w1, w2, 3, padding=1)
        self.b2 = nn.BatchNorm2d(w2)
        self.c3 = nn.Conv2d(w2, w3, 3, padding=1)
        self.b3 = nn.BatchNorm2d(w3)
        self.fc = nn.Linear(w3 * 3 * 3, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.b1(self.c1(x))), 2)
        x = F.max_pool2d(F.relu(self.b2(self.c2(x))), 2)
        x = F.max_pool2d(F.relu(self.b3(self.c3(x))), 2)
        return self.fc(x.flatten(1))


_BLUR = torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0]) / 16


def augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Small turns, scales, shifts and mirror images (every suit sign is symmetric
    left to right), extra blur, contrast and noise: what a pip found a little off
    centre, on a tilted card, through a worse camera, looks like."""
    n = x.shape[0]
    ang = (torch.rand(n, generator=g) * 30 - 15) * np.pi / 180
    sc = 1 + torch.rand(n, generator=g) * 0.3 - 0.15
    flip = torch.where(torch.rand(n, generator=g) < 0.5, -1.0, 1.0)
    cos, sin = torch.cos(ang) / sc, torch.sin(ang) / sc
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = cos * flip
    theta[:, 0, 1] = -sin
    theta[:, 1, 0] = sin * flip
    theta[:, 1, 1] = cos
    theta[:, :, 2] = (torch.rand(n, 2, generator=g) - 0.5) * 0.2
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, align_corners=False)
    k = (_BLUR[:, None] * _BLUR[None, :])[None, None]
    blur = torch.rand(n, generator=g) < 0.3
    if blur.any():
        x[blur] = F.conv2d(x[blur], k, padding=2)
    gain = 0.5 + torch.rand(n, 1, 1, 1, generator=g) * 0.7
    noise = torch.randn(x.shape, generator=g) * torch.rand(n, 1, 1, 1, generator=g) * 0.08
    return (x * gain + noise).clamp(0, 1)


def card_reads(logp: np.ndarray, cards: np.ndarray, min_confidence: float = 0.0,
               min_pips: int = 2) -> dict[int, np.ndarray]:
    """Each card's suit log-probabilities from its pips (`pips.suit_sum`), for the
    cards with at least `min_pips` pips read `min_confidence` sure."""
    sums = {int(c): pips.suit_sum(logp[cards == c], min_confidence, min_pips) for c in np.unique(cards)}
    return {c: s for c, s in sums.items() if s is not None}


def evaluate(onnx_path: str, path: str, min_confidence: float = 0.0, min_pips: int = 2,
             names_key: str = "design_names") -> dict:
    """Reads a set of patches with the exported model, as the service would, its
    cards' suits from at least `min_pips` pips read at least `min_confidence` sure."""
    import onnxruntime as ort
    d = np.load(path)
    y = d["y"]
    z = ort.InferenceSession(onnx_path).run(None, {"patches": d["X"][:, None]})[0]
    logp = z - np.logaddexp.reduce(z, axis=1, keepdims=True)
    pred = logp.argmax(1)
    names = list(d[names_key]) if names_key in d else []
    report = {"patches": int(len(y)), "patch_accuracy": float((pred == y).mean()), "designs": {}}
    reads = card_reads(logp, d["card"], min_confidence, min_pips)
    label = {int(c): int(y[d["card"] == c][0]) for c in np.unique(d["card"])}
    design = {int(c): int(d["design"][d["card"] == c][0]) for c in np.unique(d["card"])}
    number = {c: v for c, v in reads.items() if label[c] < 4}
    wrong = [c for c, v in number.items() if v.argmax() != label[c]]
    worst = sorted(float(np.exp(number[c].max())) for c in wrong)
    denied = [float(np.exp(v[label[c]])) for c, v in number.items()]
    # The likeliest wrong suit of each card: a misread to it would be denied
    # when even it is below the threshold.
    rival = [float(np.exp(np.delete(v, label[c]).max())) for c, v in number.items()]
    report.update({
        "number_cards_read": len(number),
        "cards_wrong": len(wrong),
        "surest_wrong": worst[-1] if worst else None,
        "right_suit_below": {str(t): int(sum(p < t for p in denied)) for t in (1e-2, 1e-3, 1e-4, 1e-6)},
        "every_wrong_suit_below": {str(t): int(sum(p < t for p in rival)) for t in (1e-2, 1e-3, 1e-4, 1e-6)},
    })
    for i, n in enumerate(names):
        s = d["design"] == i
        cs = [c for c in number if design[c] == i]
        report["designs"][str(n)] = {
            "patch_accuracy": float((pred[s] == y[s]).mean()) if s.any() else None,
            "cards": len(cs), "cards_wrong": sum(1 for c in cs if c in wrong),
            "every_wrong_suit_below_0.001": sum(
                1 for c in cs if np.exp(np.delete(number[c], label[c]).max()) < 1e-3)}
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", default="data/pips_train.npz")
    ap.add_argument("--val", default="data/pips_val.npz")
    ap.add_argument("--eval", action="append", default=[], help="more .npz sets to report")
    ap.add_argument("--epochs", type=int, default=24)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--width", type=int, default=16, help="channels of the first convolution")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default="pips.onnx")
    ap.add_argument("--report", default="eval/pips.json")
    ap.add_argument("--evaluate-only", action="store_true", help="read the sets with the model at --out")
    ap.add_argument("--deny-below", type=float, default=1e-3,
                    help="a read's suit its pips leave less likely than this asks God")
    ap.add_argument("--min-pips", type=int, default=2, help="the fewest pips that may deny a read")
    ap.add_argument("--ace-deny-below", type=float, default=0.5,
                    help="an ace's suit whose probability from its one pip is below this is denied "
                         "(model card, \"Aces\"; ace_pips.py measures it)")
    ap.add_argument("--min-confidence", type=float, default=0.7,
                    help="a pip is evidence of its suit only when read at least this sure")
    ap.add_argument("--settings", default="recognizer.json",
                    help="the recognizer settings to name the pip reader in ('' to leave them)")
    a = ap.parse_args()
    if a.evaluate_only:
        # The training run's facts (time, epochs, width) stay; the reads are renewed.
        report = {}
        if a.report and os.path.exists(a.report):
            with open(a.report) as f:
                report = json.load(f)
        report.update({"min_confidence": a.min_confidence,
                       "sets": {p: evaluate(a.out, p, a.min_confidence, a.min_pips) for p in [a.val, *a.eval]}})
        if a.report:
            with open(a.report, "w") as f:
                json.dump(report, f, indent=1)
        print(json.dumps(report, indent=1))
        return
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    g = torch.Generator().manual_seed(a.seed)
    tr = np.load(a.train)
    x = torch.tensor(tr["X"])[:, None]
    y = torch.tensor(tr["y"])
    model = PipNet(a.width)
    opt = torch.optim.AdamW(model.parameters(), a.lr, weight_decay=1e-4)
    steps = a.epochs * ((len(x) + a.batch - 1) // a.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, a.lr, total_steps=steps)
    t0 = time.time()
    for ep in range(a.epochs):
        model.train()
        perm = torch.randperm(len(x), generator=g)
        right = seen = 0
        bar = tqdm(range(0, len(x), a.batch), desc=f"epoch {ep + 1}/{a.epochs}", leave=False,
                   mininterval=10)
        for i in bar:
            idx = perm[i:i + a.batch]
            out = model(augment(x[idx], g))
            loss = F.cross_entropy(out, y[idx], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            right += int((out.argmax(1) == y[idx]).sum())
            seen += len(idx)
        print(f"epoch {ep + 1}: augmented training patches {right / seen:.4f}, {time.time() - t0:.0f} s", flush=True)
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 1, pips.PATCH, pips.PATCH), a.out, input_names=["patches"],
                      output_names=["logits"], dynamic_axes={"patches": {0: "n"}, "logits": {0: "n"}},
                      opset_version=17, dynamo=False)
    import onnxruntime as ort
    probe = torch.rand(7, 1, pips.PATCH, pips.PATCH)
    got = ort.InferenceSession(a.out).run(None, {"patches": probe.numpy()})[0]
    with torch.no_grad():
        want = model(probe).numpy()
    if not np.allclose(got, want, atol=1e-4):
        raise SystemExit("train_pips: the exported model does not match PyTorch")
    report = {"seconds": round(time.time() - t0), "epochs": a.epochs, "seed": a.seed, "width": a.width,
              "min_confidence": a.min_confidence,
              "sets": {p: evaluate(a.out, p, a.min_confidence, a.min_pips) for p in [a.val, *a.eval]}}
    with open(a.report, "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report, indent=1))
    if a.settings:
        # The service finds the pip reader through the index model's settings; the
        # file must lie beside them.
        with open(a.settings) as f:
            meta = json.load(f)
        meta["pip_reader"] = {"file": os.path.basename(a.out), "input": [1, pips.PATCH, pips.PATCH],
                              "deny_below": a.deny_below, "min_pips": a.min_pips,
                              "min_confidence": a.min_confidence, "ace_deny_below": a.ace_deny_below}
        with open(a.settings, "w") as f:
            json.dump(meta, f, indent=1)
        print(f"train_pips: {a.settings} names {os.path.basename(a.out)}, deny_below {a.deny_below}")


if __name__ == "__main__":
    main()
