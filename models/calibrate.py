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

With a card reader beside it (`card_reader.onnx`, from train_card.py), its temperature
is fitted the same way on the same cards' whole-card images, and the threshold is
chosen on the combined reads: the index crops' log-probabilities plus the card
reader's times `--card-weight` (1 by default: the two readers' product). The settings
then name it (`card_reader`); `--no-card-reader` calibrates the index model alone.

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

import onnxruntime as ort

import evaluate
import readout
import synth
from train import fit_temperature

HERE = os.path.dirname(os.path.abspath(__file__))
# The card reader's file in the model folder (train_card.py writes it).
CARD_READER_FILE = "card_reader.onnx"


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
    ap.add_argument("--card-weight", type=float, default=1.0,
                    help="weight of the card reader's log-probabilities in a read")
    ap.add_argument("--no-card-reader", action="store_true",
                    help="calibrate the index model alone, even with card_reader.onnx present")
    a = ap.parse_args()
    if not (a.card_weight >= 0.0 and np.isfinite(a.card_weight)):
        raise SystemExit(f"calibrate: --card-weight must be a number of at least 0, not {a.card_weight}")
    card_file = os.path.join(a.model, CARD_READER_FILE)
    use_card = not a.no_card_reader and os.path.exists(card_file)
    if not a.odds_margin >= 1.0:
        raise SystemExit(f"calibrate: --odds-margin must be at least 1, not {a.odds_margin}")
    scenes = a.scenes or [os.path.join(HERE, "data", "val-scenes")]
    for folder in scenes:
        if not os.path.isdir(folder):
            raise SystemExit(f"calibrate: no validation scenes in {folder} (render_scenes.py --designs val)")
    rec = evaluate.Recognizer(a.model)
    tls, brs, cards, ys = [], [], [], []
    for name in a.crops.split(","):
        path = os.path.join(a.data, f"{name}.npz")
        if not os.path.exists(path):
            raise SystemExit(f"calibrate: no validation crops at {path} (render_crops.py --split {name})")
        d = np.load(path)
        if use_card and "card" not in d:
            raise SystemExit(f"calibrate: {path} holds no whole cards for the card reader "
                             f"(render it again with this render_crops.py, or --no-card-reader)")
        if use_card:
            cards.append(d["card"])
        tls.append(d["tl"])
        brs.append(d["br"])
        ys.append(d["label"])
    n_crop_reads = sum(len(y) for y in ys)
    n_scenes = 0
    for folder in scenes:
        wholes: list = []
        stl, sbr, sy, _, n = evaluate.scene_crops(folder, seed=12, wholes=wholes)
        if use_card and wholes:
            cards.append(np.stack(wholes))
        tls.append(stl)
        brs.append(sbr)
        ys.append(sy)
        n_scenes += n
    tl, br, y = np.concatenate(tls), np.concatenate(brs), np.concatenate(ys)
    l1, l2 = rec.logits(tl), rec.logits(br)
    temperature = fit_temperature(torch.from_numpy(np.concatenate([l1, l2])),
                                  torch.from_numpy(np.concatenate([y, y])))
    card_spec = None
    reads = readout.combine(l1, l2, temperature)
    if use_card:
        sess = ort.InferenceSession(card_file, providers=["CPUExecutionProvider"])
        lc = evaluate.run_batched(sess, np.concatenate(cards))
        card_t = fit_temperature(torch.from_numpy(lc), torch.from_numpy(y))
        whole = readout.card_reader_term(lc, card_t, a.card_weight)
        # The card reader reads only the cards the corners alone leave unsure: those
        # under the threshold the corners alone would have.
        below, _ = readout.choose_threshold(reads, y, a.odds_margin)
        card_spec = {"file": CARD_READER_FILE, "input": [3, synth.CARD_H, synth.CARD_W],
                     "temperature": round(card_t, 6), "weight": a.card_weight,
                     "below": round(below, 6)}
        print(f"calibrate: card reader temperature {card_t:.4f}, top-1 alone "
              f"{100 * float((lc.argmax(1) == y).mean()):.2f} %")
        reads = readout.cascade(reads, readout.combine(l1, l2, temperature, whole),
                                card_spec["below"])
    threshold, stats = readout.choose_threshold(reads, y, a.odds_margin)
    if card_spec and threshold > card_spec["below"]:
        # Every read at least `below` sure is taken from the corners alone; one the
        # card reader made less sure than that must not pass a threshold above it.
        print(f"calibrate: validation with this card reader {stats}")
        raise SystemExit(f"calibrate: the threshold {threshold:.6f} is above the card "
                         f"reader's gate {card_spec['below']:.6f}; calibrate with "
                         f"--no-card-reader")
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
    if card_spec:
        meta["card_reader"] = card_spec
    else:
        meta.pop("card_reader", None)
    with open(path, "w") as f:
        json.dump(meta, f, indent=1)
    print(f"calibrate: temperature {temperature:.4f}, confirm_threshold {threshold:.6f}, validation {stats}")
    print(f"calibrate: confirm_threshold_one_corner {one_corner:.6f}, single crops {one_stats}")


if __name__ == "__main__":
    main()
