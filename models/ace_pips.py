"""How surely an ace's one big pip names its suit: what `ace_deny_below` rests on.

    ace_pips.py                                   # validation and check designs' crop sets
    ace_pips.py --splits heldout                  # held-out designs (for the record)
    ace_pips.py --render val --per-card 24 --seed 202   # aces rendered as pip_counts.py renders cards
    ace_pips.py --deny-below 0.5 --splits val     # how many true aces a threshold denies

Reads every ace's pip patches with the pip reader named in the model's settings, as
the service checks a read ace (`Recognizer::check_ace`, `readout.ace_verdict`): only
a card showing exactly one blob of a pip's size is checked, and its pip is evidence
when read at least `min_confidence` sure. The aces are those of crop sets rendered
with `--pips` (`render_crops.py`; default), or, with `--render`, aces rendered afresh
on small tables as `render_pips.py` and `pip_counts.py` render cards. Per design it
prints how many aces there were, how many showed one blob, how many of those gave a
sure pip, how many such pips name the ace's own suit, the least probability they
leave it, and how many aces a threshold would deny although they are aces of that
suit (every ace counted, whatever its height and however surely its index reads: a
bound on the confirmations the check can cost).
"""

from __future__ import annotations

import argparse
import json
import os
from multiprocessing import Pool

import numpy as np
import onnxruntime as ort

import pips
import render_pips
import synth
from readout import CLASS_NAMES, SUITS

HERE = os.path.dirname(os.path.abspath(__file__))


def own_suit_probability(sess: ort.InferenceSession, patches: np.ndarray, suit: str,
                         min_confidence: float) -> float | None:
    """The probability an ace's pip leaves its own `suit`, as the service reads it;
    None when the ace is not checked (not exactly one blob, or its blob read less
    than `min_confidence` sure, or as "not a pip")."""
    if len(patches) != 1:
        return None
    logits = sess.run(None, {"patches": patches[:, None].astype(np.float32)})[0]
    lp = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    s = pips.suit_sum(lp, min_confidence, 1)
    return None if s is None else float(np.exp(s[SUITS.index(suit)]))


def crop_set_aces(path: str):
    """(design, suit, pip patches) of each ace of the crop set at `path`."""
    d = np.load(path)
    if "pip_patches" not in d:
        raise SystemExit(f"ace_pips: {path} holds no pip patches (render it with --pips)")
    labels, target, patches = d["label"], d["pip_target"], d["pip_patches"]
    names, designs = d["design_names"], d["design"]
    for i in np.flatnonzero([lab < 52 and CLASS_NAMES[lab][0] == "A" for lab in labels]):
        yield str(names[designs[i]]), CLASS_NAMES[labels[i]][-1], patches[target == i]


def rendered_aces(split: str, per_card: int, seed: int, workers: int):
    """(design, suit, pip patches) of `per_card` renders of each ace of each design
    of `split` (`render_pips.render_card`)."""
    names = [n for s in split.split(",") for n in synth.SPLITS.get(s, [s])]
    aces = [i for i, k in enumerate(synth.CARDS) if k[:-1] == "A"]
    seeds = [(seed, d, k, i) for d in range(len(names)) for k in aces for i in range(per_card)]
    with Pool(workers, initializer=render_pips._init, initargs=(split,)) as pool:
        for s, (key, _, found, _) in zip(seeds, pool.imap(render_pips.render_card, seeds, chunksize=8)):
            yield names[s[1]], key[-1], found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=HERE, help="folder of recognizer.json and the pip reader")
    ap.add_argument("--splits", default="val,val_kde,check_kennard",
                    help="crop sets in data/ rendered with --pips, comma separated")
    ap.add_argument("--render", default="", help="render the aces of this split instead")
    ap.add_argument("--per-card", type=int, default=24, help="with --render: renders per ace per design")
    ap.add_argument("--seed", type=int, default=202, help="with --render")
    ap.add_argument("--workers", type=int, default=2, help="with --render")
    ap.add_argument("--deny-below", type=float, default=None,
                    help="threshold to count denials at (default: the settings' ace_deny_below, else 0.5)")
    a = ap.parse_args()
    with open(os.path.join(a.model, "recognizer.json")) as f:
        spec = json.load(f).get("pip_reader")
    if not spec:
        raise SystemExit("ace_pips: the model settings name no pip_reader")
    deny = a.deny_below if a.deny_below is not None else (spec.get("ace_deny_below") or 0.5)
    sess = ort.InferenceSession(os.path.join(a.model, spec["file"]), providers=["CPUExecutionProvider"])
    min_confidence = spec.get("min_confidence", 0.0)
    if a.render:
        sets = [(f"{a.render} (rendered, seed {a.seed})",
                 rendered_aces(a.render, a.per_card, a.seed, a.workers))]
    else:
        sets = [(split, crop_set_aces(os.path.join(HERE, "data", f"{split}.npz")))
                for split in a.splits.split(",")]
    for label, aces in sets:
        by_design: dict[str, list] = {}
        for design, suit, patches in aces:
            p = own_suit_probability(sess, patches, suit, min_confidence)
            by_design.setdefault(design, []).append((len(patches), p))
        for design, rows in by_design.items():
            one = [p for n, p in rows if n == 1]
            sure = np.array([p for p in one if p is not None])
            least = f"{sure.min():.4f}" if len(sure) else "-"
            print(f"{label} {design}: {len(rows)} aces, {len(one)} showing one blob, "
                  f"{len(sure)} with a sure pip, "
                  f"least probability of their own suit {least}, "
                  f"denied below {deny:g}: {int((sure < deny).sum())}")


if __name__ == "__main__":
    main()
