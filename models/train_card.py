"""Step 4b, the card reader: trains `CardNet` on the whole rectified cards that
`render_crops.py` stores beside the index crops (`card`, 56 x 40), fits its
temperature on the validation designs and exports `card_reader.onnx`.

    train_card.py --epochs 10 --threads 2
"""
from __future__ import annotations

import os
import time

import numpy as np
import torch
import torch.nn.functional as F

import model as M
from train import augment_colour, export_checked, fit, fit_temperature, logits_of, to_float, training_parser


def load_cards(paths: list[str]):
    xs, ys = [], []
    for p in paths:
        if not os.path.exists(p):
            raise SystemExit(f"train_card: no crops at {p} (render them first: see train.sh)")
        d = np.load(p)
        if "card" not in d:
            raise SystemExit(f"train_card: {p} has no whole cards (rendered by an older "
                             "render_crops.py: render it again)")
        xs.append(d["card"])
        ys.append(d["label"])
    x = torch.from_numpy(np.concatenate(xs)).permute(0, 3, 1, 2).contiguous()
    return x, torch.from_numpy(np.concatenate(ys))


def shift(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Localisation error on top of the rendered jitter: zoom by 0.94-1.06 and shift by
    up to 3 % about the centre; half the cards turned by 180 degrees (either portrait
    ordering is valid)."""
    n = x.shape[0]
    r = lambda *s: torch.rand(*s, generator=g, device=g.device)  # noqa: E731
    scale = 0.94 + 0.12 * r(n)
    turn = torch.where(r(n) < 0.5, -1.0, 1.0).to(x.device)
    tx, ty = (r(n) - 0.5) * 0.06, (r(n) - 0.5) * 0.06
    zero = torch.zeros_like(scale)
    theta = torch.stack([torch.stack([turn / scale, zero, tx], 1),
                         torch.stack([zero, turn / scale, ty], 1)], 1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)


def main() -> None:
    a = training_parser(__doc__, epochs=10, width=24).parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    t0 = time.time()
    dev = torch.device(a.device)
    xtr, ytr = load_cards([os.path.join(a.data, f"{f}.npz") for f in a.sets.split(",")])
    xtr, ytr = xtr.to(dev), ytr.to(dev)
    xva, yva = load_cards([os.path.join(a.data, "val.npz")])
    print(f"train cards {len(ytr)}, val cards {len(yva)}")
    net = M.CardNet(a.width).to(dev)
    print(f"CardNet width {a.width}: {M.count_params(net)} parameters")
    g = torch.Generator(device=dev).manual_seed(a.seed)

    def after_epoch(epoch, loss, acc):
        vl = logits_of(net, xva)
        vacc = float((vl.argmax(1) == yva).float().mean())
        print(f"epoch {epoch + 1}: train loss {loss:.4f} acc {acc:.4f} | "
              f"val card acc {vacc:.4f} | {time.time() - t0:.0f} s")

    fit(net, ytr, lambda idx: shift(augment_colour(to_float(xtr[idx]), g), g), a.epochs,
        a.batch, a.lr, g, after_epoch=after_epoch)
    net = net.cpu().eval()
    vl = logits_of(net, xva)
    temperature = fit_temperature(vl, yva)
    print(f"card reader temperature {temperature:.4f}")
    os.makedirs(a.out, exist_ok=True)
    torch.save({"state": net.state_dict(), "width": a.width, "temperature": temperature},
               os.path.join(a.data, "card_reader.pt"))
    onnx_path = os.path.join(a.out, "card_reader.onnx")
    export_checked(net, (3, 56, 40), onnx_path, to_float(xva[:256]), vl[:256])
    print(f"train_card: {time.time() - t0:.0f} s; card_reader.onnx "
          f"{os.path.getsize(onnx_path) / 1e6:.2f} MB, temperature {temperature:.4f}")


if __name__ == "__main__":
    main()
