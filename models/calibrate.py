"""Step 5, calibrate: fit the exported model's temperature and confirmation threshold
on the validation designs and write them into recognizer.json.

Two kinds of validation reads are used, both of designs never trained on:

* the index crops of `data/val.npz` (rendered around single targets), and
* the labelled cards of full table scenes of the validation designs
  (`render_scenes.py --out data/val-scenes --designs val`), which hold what crops
  alone under-represent: spread hands of small cards, blurred frames, glare.

The temperature minimises the negative log-likelihood of single crops; the threshold
is the confidence of the surest validation misread with a margin on its odds (ten
times by default: readout.choose_threshold, readout.ODDS_MARGIN). The same on every
validation crop read alone gives `confirm_threshold_one_corner`, the threshold of a
card read from one index corner (a card partly covered in an overlapping row).
The model itself (recognizer.onnx) is run by onnxruntime, so the artefact is what is
calibrated.

    calibrate.py [--crops val] [--scenes data/val-scenes] [--odds-margin 10]
    calibrate.py --crops val,val_kde --scenes data/val-scenes --scenes data/val-kde-scenes
                                     # also the three KDE check designs (model card)
"""
from __future__ import annotations

import argparse
import json
import os

import numpy as np
import torch

import evaluate
import readout
from train import fit_temperature

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=HERE)
    ap.add_argument("--data", default=os.path.join(HERE, "data"))
    ap.add_argument("--crops", default="val",
                    help="validation crop files in --data, without .npz, comma separated")
    ap.add_argument("--scenes", action="append",
                    help="validation scene folder (repeatable; default data/val-scenes)")
    ap.add_argument("--odds-margin", type=float, default=readout.ODDS_MARGIN,
                    help="how many times surer than the surest validation misread (odds)")
    a = ap.parse_args()
    if not a.odds_margin >= 1.0:
        raise SystemExit(f"calibrate: --odds-margin must be at least 1, not {a.odds_margin}")
    scenes = a.scenes or [os.path.join(HERE, "data", "val-scenes")]
    for folder in scenes:
        if not os.path.isdir(folder):
            raise SystemExit(f"calibrate: no validation scenes in {folder} (render_scenes.py --designs val)")
    rec = evaluate.Recognizer(a.model)
    tls, brs, ys = [], [], []
    for name in a.crops.split(","):
        path = os.path.join(a.data, f"{name}.npz")
        if not os.path.exists(path):
            raise SystemExit(f"calibrate: no validation crops at {path} (render_crops.py --split {name})")
        d = np.load(path)
        tls.append(d["tl"])
        brs.append(d["br"])
        ys.append(d["label"])
    n_crop_reads = sum(len(y) for y in ys)
    n_scenes = 0
    for folder in scenes:
        stl, sbr, sy, _, n = evaluate.scene_crops(folder, seed=12)
        tls.append(stl)
        brs.append(sbr)
        ys.append(sy)
        n_scenes += n
    tl, br, y = np.concatenate(tls), np.concatenate(brs), np.concatenate(ys)
    l1, l2 = rec.logits(tl), rec.logits(br)
    temperature = fit_temperature(torch.from_numpy(np.concatenate([l1, l2])),
                                  torch.from_numpy(np.concatenate([y, y])))
    reads = readout.combine(l1, l2, temperature)
    threshold, stats = readout.choose_threshold(reads, y, a.odds_margin)
    singles = np.exp(readout.log_softmax(np.concatenate([l1, l2]) / temperature))
    one_corner, one_stats = readout.choose_threshold(singles, np.concatenate([y, y]), a.odds_margin)
    stats["crop_reads"] = int(n_crop_reads)
    stats["scene_reads"] = int(len(y) - n_crop_reads)
    stats["scenes"] = int(n_scenes)
    path = os.path.join(a.model, "recognizer.json")
    with open(path) as f:
        meta = json.load(f)
    meta["temperature"] = round(temperature, 6)
    meta["confirm_threshold"] = round(threshold, 6)
    meta["confirm_threshold_one_corner"] = round(one_corner, 6)
    meta["validation"] = stats
    meta["validation_one_corner"] = one_stats
    with open(path, "w") as f:
        json.dump(meta, f, indent=1)
    print(f"calibrate: temperature {temperature:.4f}, confirm_threshold {threshold:.6f}, validation {stats}")
    print(f"calibrate: confirm_threshold_one_corner {one_corner:.6f}, single crops {one_stats}")


if __name__ == "__main__":
    main()
