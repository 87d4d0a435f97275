"""Steps 3 and 4, train and export: fit the index classifier on the training designs,
fit the temperature and the confirmation threshold on the validation designs, export
ONNX and check the exported graph against PyTorch with onnxruntime.

    train.py --epochs 6            # reads data/{train,val}.npz, writes recognizer.{onnx,json}
"""
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

import model as M
import readout

HERE = os.path.dirname(os.path.abspath(__file__))


def load_crops(path: str):
    """All crops of a split: the N top-left crops, then the N bottom-right ones."""
    d = np.load(path)
    x = np.concatenate([d["tl"], d["br"]])  # 2N x 72 x 40 x 3 uint8
    y = np.concatenate([d["label"], d["label"]])
    return torch.from_numpy(x).permute(0, 3, 1, 2).contiguous(), torch.from_numpy(y)


def load_training(paths: list[str]):
    """Training crops of several files, kept as (top-left, bottom-right) pairs: an
    epoch visits every target once through one of its two crops, picked at random
    (the two crops of one render are too alike to be worth two steps)."""
    xs, ys = [], []
    for p in paths:
        if not os.path.exists(p):
            raise SystemExit(f"train: no training crops at {p} (render them first: see train.sh)")
        d = np.load(p)
        xs.append(np.stack([d["tl"], d["br"]], 1))  # N x 2 x 72 x 40 x 3
        ys.append(d["label"])
    x = torch.from_numpy(np.concatenate(xs)).permute(0, 1, 4, 2, 3).contiguous()
    return x, torch.from_numpy(np.concatenate(ys))


def to_float(xb: torch.Tensor) -> torch.Tensor:
    return xb.float().div_(255.0)


def augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Photometric changes (`augment_colour`), then the index's size, place and
    resolution."""
    return degrade(geometric(augment_colour(x, g), g), g)


def faint_ink(x: torch.Tensor, g: torch.Generator, share: float) -> torch.Tensor:
    """A `share` of the crops get faint ink: each colour plane's contrast to the paper
    (its brightest value) cut to its own 10-100 %. A yellow index on white paper is
    faint in two planes of three and a pale or washed-out print in all three; the
    renders and `augment_colour` keep an index's luminance contrast (a hue turn keeps
    luminance), so without this the network never sees a faint index."""
    n = x.shape[0]
    pick = torch.rand(n, generator=g, device=g.device) < share
    if share <= 0 or not pick.any():
        return x
    sub = x[pick]
    paper = sub.amax(dim=(2, 3), keepdim=True)
    keep = 0.1 + 0.9 * torch.rand(sub.shape[0], 3, 1, 1, generator=g, device=g.device)
    x[pick] = paper - (paper - sub) * keep
    return x


def augment_colour(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Cheap photometric changes on top of the rendered ones: exposure, contrast,
    colour swaps (decks print suits in any colour: four-colour decks), greyscale."""
    n = x.shape[0]
    r = lambda *s: torch.rand(*s, generator=g, device=g.device)  # noqa: E731
    gain = 0.75 + 0.5 * r(n, 1, 1, 1)
    bias = (r(n, 1, 1, 1) - 0.5) * 0.2
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    contrast = 0.7 + 0.6 * r(n, 1, 1, 1)
    x = (x - mean) * contrast + mean
    x = x * gain + bias
    perm = r(n) < 0.2
    if perm.any():
        idx = torch.stack([torch.randperm(3, generator=g, device=g.device)
                           for _ in range(int(perm.sum()))])
        sub = x[perm]
        x[perm] = torch.gather(sub, 1, idx[:, :, None, None].expand_as(sub))
    grey = r(n) < 0.1
    if grey.any():
        x[grey] = x[grey].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    hue = r(n) < 0.25
    if hue.any():
        x[hue] = rotate_hue(x[hue], r(int(hue.sum())) * 2 * torch.pi)
    return x.clamp_(0, 1)


# RGB <-> YIQ: a hue turn is a rotation of the (I, Q) chroma plane.
_YIQ = torch.tensor([[0.299, 0.587, 0.114], [0.596, -0.274, -0.322], [0.211, -0.523, 0.312]])
_RGB = torch.linalg.inv(_YIQ)


def rotate_hue(x: torch.Tensor, angle: torch.Tensor) -> torch.Tensor:
    """Turns each crop's hue by its own angle: suits printed in colours no training
    deck uses (yellow diamonds, green clubs of four-colour decks) keep their shape."""
    c, s = torch.cos(angle), torch.sin(angle)
    one, zero = torch.ones_like(c), torch.zeros_like(c)
    rot = torch.stack([torch.stack([one, zero, zero], 1), torch.stack([zero, c, -s], 1),
                       torch.stack([zero, s, c], 1)], 1)  # n x 3 x 3
    m = _RGB.to(x.device) @ rot @ _YIQ.to(x.device)
    return torch.einsum("nij,njhw->nihw", m, x).clamp_(0, 1)


def degrade(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """A third of the crops lose resolution: shrunk to 35-80 % and enlarged back (an
    index a few pixels tall on a far or small card, as the rectifier enlarges it)."""
    n = x.shape[0]
    pick = torch.rand(n, generator=g, device=g.device) < 0.33
    if not pick.any():
        return x
    scale = float(0.35 + 0.45 * torch.rand(1, generator=g, device=g.device))
    sub = x[pick]
    h, w = sub.shape[2:]
    small = F.interpolate(sub, size=(max(8, round(h * scale)), max(5, round(w * scale))),
                          mode="area")
    x[pick] = F.interpolate(small, size=(h, w), mode="bilinear", align_corners=False)
    return x


def geometric(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Index size and place differ between designs: zoom by 0.85-1.35 about a point of
    the crop's upper-left part (where indices start), shift by a few pixels, rotate by
    a few degrees (edge pixels repeat, as the rectifier does)."""
    n = x.shape[0]
    r = lambda *s: torch.rand(*s, generator=g, device=g.device)  # noqa: E731
    scale = 0.85 + 0.5 * r(n)
    ang = (r(n) - 0.5) * 2 * 0.06
    cx, cy = -r(n), -r(n)  # anchor, normalised coordinates in [-1, 0]
    tx = cx * (1 - 1 / scale) + (r(n) - 0.5) * 0.15
    ty = cy * (1 - 1 / scale) + (r(n) - 0.5) * 0.08
    cos, sin = torch.cos(ang) / scale, torch.sin(ang) / scale
    aspect = 72 / 40  # rotate in pixel units, not in normalised units
    theta = torch.stack([torch.stack([cos, -sin * aspect, tx], 1),
                         torch.stack([sin / aspect, cos, ty], 1)], 1)
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)


@torch.no_grad()
def logits_of(net: torch.nn.Module, x: torch.Tensor, bs: int = 512) -> torch.Tensor:
    """Logits on the CPU, run on the network's device in batches."""
    net.eval()
    dev = next(net.parameters()).device
    return torch.cat([net(to_float(x[i:i + bs].to(dev))).cpu() for i in range(0, len(x), bs)])


def fit_temperature(logits: torch.Tensor, y: torch.Tensor) -> float:
    """The T minimising the validation NLL of softmax(logits / T)."""
    log_t = torch.zeros(1, requires_grad=True)
    opt = torch.optim.LBFGS([log_t], lr=0.1, max_iter=200)

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(logits / log_t.exp(), y)
        loss.backward()
        return loss

    opt.step(closure)
    return float(log_t.exp())


def fit(net: torch.nn.Module, labels: torch.Tensor, batch_inputs, epochs: int, batch: int,
        lr: float, g: torch.Generator, after_step=None, after_epoch=None) -> None:
    """The training loop of both networks: AdamW with a one-cycle learning rate,
    label smoothing 0.05, each epoch a fresh permutation of the targets.
    `batch_inputs(idx)` gives the augmented inputs of the targets `idx`;
    `after_step()` runs after every optimiser step; `after_epoch(epoch, loss, acc)`
    after every epoch, with its mean training loss and accuracy."""
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (len(labels) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(labels), generator=g, device=g.device)
        tot, correct, seen = 0.0, 0, 0
        bar = tqdm(range(len(labels) // batch), desc=f"epoch {epoch + 1}/{epochs}")
        for b in bar:
            idx = order[b * batch:(b + 1) * batch]
            xb = batch_inputs(idx)
            yb = labels[idx]
            out = net(xb)
            loss = F.cross_entropy(out, yb, label_smoothing=0.05)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            if after_step is not None:
                after_step()
            tot += float(loss.detach()) * len(yb)
            correct += int((out.argmax(1) == yb).sum())
            seen += len(yb)
            if b % 20 == 0:
                bar.set_postfix(loss=f"{tot / seen:.3f}", acc=f"{correct / seen:.4f}")
        if after_epoch is not None:
            after_epoch(epoch, tot / seen, correct / seen)


def export_checked(net: torch.nn.Module, shape: tuple[int, int, int], path: str,
                   probe: torch.Tensor, logits: torch.Tensor) -> None:
    """Exports the network to ONNX (opset 17, dynamic batch), checks the file, and
    stops unless onnxruntime's logits on `probe` match PyTorch's (`logits`) to 1e-3."""
    torch.onnx.export(net, torch.rand(1, *shape), path, opset_version=17, input_names=["input"],
                      output_names=["logits"], dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}},
                      do_constant_folding=True, dynamo=False)
    import onnx
    import onnxruntime as ort

    onnx.checker.check_model(onnx.load(path))
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    diff = np.abs(sess.run(None, {"input": probe.numpy()})[0] - logits.numpy()).max()
    print(f"onnxruntime vs PyTorch: max |logit difference| {diff:.2e}")
    if diff > 1e-3:
        raise SystemExit("exported graph disagrees with PyTorch")


def training_parser(description: str, epochs: int, width: int) -> argparse.ArgumentParser:
    """The options both training scripts take (this one and train_card.py), with the
    epochs and network width each defaults to."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(HERE, "data"))
    ap.add_argument("--epochs", type=int, default=epochs)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--width", type=int, default=width)
    # One thread: on a shared 2-core machine two OpenMP threads oversubscribe and crawl.
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu",
                    help="torch device to train on (cuda on a GPU machine: the same recipe; the "
                         "default CPU run is unchanged; times in the model card, 'Time of each step')")
    ap.add_argument("--sets", default="train,fonts,fonts_big",
                    help="training crop files in --data, without .npz, comma separated (the "
                         "wider-font experiment of the model card adds fonts_wide)")
    ap.add_argument("--out", default=HERE)
    return ap


def main() -> None:
    ap = training_parser(__doc__, epochs=20, width=40)
    ap.add_argument("--mix", type=int, default=0, help="channels of a 1x1 convolution at 9x5 (0: none)")
    ap.add_argument("--norm", default="fixed", choices=M.NORMS,
                    help="how crops reach the first convolution (model.py, NORMS): one affine "
                         "map for all (fixed), each crop's colour planes standardised (crop), "
                         "or both side by side")
    ap.add_argument("--ema", type=float, default=0.0,
                    help="decay of an exponential moving average of the weights (batch-norm "
                         "statistics included), updated every step; the average is evaluated, "
                         "calibrated and exported instead of the last weights (0: off)")
    ap.add_argument("--faint", type=float, default=0.0,
                    help="share of training crops given faint ink (faint_ink; 0: off)")
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    t0 = time.time()

    dev = torch.device(a.device)
    xtr, ytr = load_training([os.path.join(a.data, f"{f}.npz") for f in a.sets.split(",")])
    xtr, ytr = xtr.to(dev), ytr.to(dev)
    xva, yva = load_crops(os.path.join(a.data, "val.npz"))
    print(f"train targets {len(ytr)} (crop pairs), val crops {len(yva)}")
    net = M.IndexNet(a.width, mix=a.mix, norm=a.norm).to(dev)
    print(f"IndexNet width {a.width}, mix {a.mix}, norm {a.norm}: {M.count_params(net)} parameters")
    ema = None
    if a.ema > 0:
        from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn
        ema = AveragedModel(net, multi_avg_fn=get_ema_multi_avg_fn(a.ema), use_buffers=True)
    g = torch.Generator(device=dev).manual_seed(a.seed)

    def batch_inputs(idx):
        # One of each target's two crops, picked at random.
        side = torch.randint(0, 2, (len(idx),), generator=g, device=dev)
        return augment(faint_ink(to_float(xtr[idx, side]), g, a.faint), g)

    def after_epoch(epoch, loss, acc):
        vl = logits_of(net if ema is None else ema.module, xva)
        vacc = float((vl.argmax(1) == yva).float().mean())
        print(f"epoch {epoch + 1}: train loss {loss:.4f} acc {acc:.4f} | "
              f"val crop acc {vacc:.4f}{' (average)' if ema is not None else ''} | "
              f"{time.time() - t0:.0f} s")

    fit(net, ytr, batch_inputs, a.epochs, a.batch, a.lr, g,
        after_step=None if ema is None else (lambda: ema.update_parameters(net)),
        after_epoch=after_epoch)
    t_train = time.time() - t0
    if ema is not None:
        net = ema.module

    # Calibration on the validation designs.
    net = net.cpu().eval()
    vl = logits_of(net, xva)
    temperature = fit_temperature(vl, yva)
    n = len(yva) // 2
    reads = readout.combine(vl[:n].numpy(), vl[n:].numpy(), temperature)
    threshold, val_stats = readout.choose_threshold(reads, yva[:n].numpy())
    print(f"temperature {temperature:.4f}, confirm_threshold {threshold:.6f}, val {val_stats}")

    # Export and check the exported graph.
    os.makedirs(a.out, exist_ok=True)
    onnx_path = os.path.join(a.out, "recognizer.onnx")
    torch.save(net.state_dict(), os.path.join(a.data, "recognizer.pt"))
    export_checked(net, (3, 72, 40), onnx_path, to_float(xva[:256]), vl[:256])
    meta = {
        "input": [3, 72, 40],
        "classes": 53,
        "temperature": round(temperature, 6),
        "confirm_threshold": round(threshold, 6),
        "version": time.strftime("%Y-%m-%d", time.gmtime()) + f"-w{a.width}" + (f"-m{a.mix}" if a.mix else "")
        + (f"-n{a.norm}" if a.norm != "fixed" else "") + (f"-f{a.faint:g}" if a.faint else "")
        + f"-e{a.epochs}",
        "class_names": readout.CLASS_NAMES,
        "rectified": [160, 224],
        "crop": {"x": [0, 40], "y": [0, 72]},
        "opset": 17,
        "validation": val_stats,
    }
    with open(os.path.join(a.out, "recognizer.json"), "w") as f:
        json.dump(meta, f, indent=1)
    size = os.path.getsize(onnx_path)
    print(f"train: {t_train:.0f} s training, {time.time() - t0:.0f} s total; "
          f"recognizer.onnx {size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
