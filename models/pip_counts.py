"""How many pips the pip reader counts on each rank: the evidence for the rank
check of the service's pip check (`src/vision/recognizer/pip_check.rs`, `pips_deny_rank`).

A number card shows as many pips as its rank; blur merges some and a pip beside an
index may be left out, so the count falls short, but it never exceeds the rank. A
court card's art gives the pip finder blobs the reader mostly calls "not a pip".
So a read whose pips outnumber its rank, or a read of a six to ten whose card shows
next to no pips (a small king read as a ten), is doubted. This renders cards as
`render_pips.py` does (every blob kept, court cards too), counts the patches read
as a suit, and prints a histogram per rank, for all cards and for cards under
145 px (the ones the service checks), with the two rules' hits, and the colour
family (`pips.ink_family`) each suit's ink is given.

With `--settings`, the counts of every card (all heights) are also written into
the recognizer settings' pip reader as `count_histogram`: the service weighs the
rank of a read that asks God with how likely its card's count is for each rank
(`readout.count_likelihood`). Fit it on the validation designs:

    pip_counts.py --split heldout --per-card 6 --seed 203 [--out eval/pip_counts_heldout.json]
    pip_counts.py --split val --per-card 6 --seed 202 --out eval/pip_counts_val.json --settings recognizer.json
"""
from __future__ import annotations

import argparse
import json
import os
from multiprocessing import Pool

import numpy as np
import onnxruntime as ort
from tqdm import tqdm

import pips
import render_pips
import synth
from readout import FEW_PIPS_AT_MOST as FEW_AT_MOST, FEW_PIPS_FROM_RANK, PIP_CHECK_BELOW as CHECK_BELOW

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
# Reads of these ranks whose card shows FEW_AT_MOST pips or fewer are doubted.
HIGH = {str(r) for r in range(FEW_PIPS_FROM_RANK, 11)}


def count(sess: ort.InferenceSession, patches: np.ndarray) -> int:
    """The patches the reader does not call "not a pip"."""
    if not len(patches):
        return 0
    z = sess.run(None, {"patches": patches[:, None]})[0]
    return int((z.argmax(1) != pips.NOT_A_PIP).sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="heldout")
    ap.add_argument("--per-card", type=int, default=6)
    ap.add_argument("--seed", type=int, default=203)
    ap.add_argument("--model", default="pips.onnx")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="", help="also write the counts as JSON here")
    ap.add_argument("--settings", default="",
                    help="write the counts as the pip reader's count_histogram into this recognizer.json")
    a = ap.parse_args()
    names = [n for s in a.split.split(",") for n in synth.SPLITS.get(s, [s])]
    keys = [i for i, k in enumerate(synth.CARDS) if k[:-1] in RANKS]
    seeds = [(a.seed, d, k, i) for d in range(len(names)) for k in keys for i in range(a.per_card)]
    sess = ort.InferenceSession(a.model, providers=["CPUExecutionProvider"])
    rows, inks = [], []
    with Pool(a.workers, initializer=render_pips._init, initargs=(a.split,)) as pool:
        for key, height, found, family in tqdm(pool.imap(render_pips.render_card, seeds, chunksize=16),
                                               total=len(seeds), desc=f"pip counts {a.split}"):
            rows.append((key[:-1], height, count(sess, found)))
            if key[:-1] not in render_pips.COURT_RANKS:  # the check reads number cards only
                inks.append((key[-1], family))
    report = {"split": a.split, "per_card": a.per_card, "seed": a.seed, "bands": {}}
    for band, small in (("all", False), (f"under {CHECK_BELOW:.0f} px", True)):
        sel = [r for r in rows if not small or r[1] < CHECK_BELOW]
        hist = {r: np.bincount([k for rank, _, k in sel if rank == r], minlength=11).tolist()
                for r in RANKS}
        high = [k for rank, _, k in sel if rank in HIGH]
        courts = [k for rank, _, k in sel if rank in render_pips.COURT_RANKS]
        numbers = [(rank, k) for rank, _, k in sel if rank not in render_pips.COURT_RANKS]
        report["bands"][band] = {
            "histogram": hist,
            "six_to_ten_with_few": [sum(k <= FEW_AT_MOST for k in high), len(high)],
            "courts_with_few": [sum(k <= FEW_AT_MOST for k in courts), len(courts)],
            "numbers_with_more_than_rank": [sum(k > int(r) for r, k in numbers), len(numbers)],
        }
        print(f"{a.split}, {band}: pips counted per rank (0, 1, 2, ...)")
        for r in RANKS:
            print(f"  {r:>2}: {hist[r]}")
        b = report["bands"][band]
        print(f"  sixes to tens with {FEW_AT_MOST} or fewer: {b['six_to_ten_with_few'][0]}/{len(high)}; "
              f"court cards with {FEW_AT_MOST} or fewer: {b['courts_with_few'][0]}/{len(courts)}; "
              f"number cards with more than their rank: {b['numbers_with_more_than_rank'][0]}/{len(numbers)}")
    # The colour family of each number card's ink (`pips.ink_family`): a pip denial
    # towards a suit of the other family is set aside, so a card whose ink is named
    # the family its own suit is not would lose a right denial.
    allowed = {"red": "HD", "black": "SC"}
    families = {s: {f or "neither": sum(1 for su, fa in inks if su == s and fa == f)
                    for f in ("red", "black", None)} for s in "SHDC"}
    wrong = sum(1 for su, fa in inks if fa in allowed and su not in allowed[fa])
    report["ink_families"] = {"by_suit": families, "own_suit_ruled_out": [wrong, len(inks)]}
    print("  ink colour families by suit: " + "; ".join(
        f"{s}: " + ", ".join(f"{k} {v}" for k, v in families[s].items()) for s in "SHDC"))
    print(f"  number cards whose ink is named the family their suit is not: {wrong}/{len(inks)}")
    if a.settings:
        with open(a.settings) as f:
            meta = json.load(f)
        if "pip_reader" not in meta:
            raise SystemExit(f"pip_counts: {a.settings} names no pip reader (run train_pips.py first)")
        meta["pip_reader"]["count_histogram"] = report["bands"]["all"]["histogram"]
        with open(a.settings, "w") as f:
            json.dump(meta, f, indent=1)
        print(f"pip_counts: {a.settings}: count_histogram of {a.split}")
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
