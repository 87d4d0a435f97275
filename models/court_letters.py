"""How the model reads decks whose court cards carry other letters than J, Q, K:
what `--confirm-courts` (of `eleusis serve` and `eleusis recognize`) is for.

    court_letters.py                                    # data/check_letters.npz
    court_letters.py --crops data/check_letters_h145-250.npz
    court_letters.py --threshold 0.99999                # a stricter table threshold instead

The crops are those of `render_crops.py --split check_letters --pips` (French V, D, R
with an ace "1"; German B, D, K: fetch.OTHER_LETTER_THEMES), labelled with the cards
they are (a French R is a king). The model's classes are English indices and it never
saw these decks. Every read is made as `evaluate.py` makes the service's reads (both
crops, the card reader, blank corners, the pip check); a read asks God as the service
asks (under the threshold, from one corner beside a blank one, or by the pip check).
Per design and per kind of card (aces, courts, number cards, "not a card") it prints
how many reads are right, how many right ones ask God, how many wrong ones ask, and
how many wrong ones do not (those the table would be judged on), then the same as
`--confirm-courts` reads: every number card and ace checked against its pips at any
height, and every read that names a court card asking; and the wrong reads that
still pass. Run on other crop sets (`--crops data/heldout.npz`), it says what the
option costs a deck with English indices.
"""

from __future__ import annotations

import argparse
import collections
import os

import numpy as np

import evaluate
import readout

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = {
    "aces": {"A"},
    "courts": {"J", "Q", "K"},
    "numbers": {str(r) for r in range(2, 11)},
    "not a card": {""},
}


def rank_of(cls: int) -> str:
    """The rank of class `cls` ("" for "not a card")."""
    return "" if cls == readout.NOT_A_CARD else readout.CLASS_NAMES[cls][:-1]


def table(d, pred: np.ndarray, asks: np.ndarray) -> tuple[list[str], list[tuple]]:
    """Lines of the per-design, per-kind table, and the wrong reads that do not ask."""
    lines = []
    for di, name in enumerate(d["design_names"]):
        for kind, ranks in KINDS.items():
            sel = (d["design"] == di) & np.array([rank_of(c) in ranks for c in d["label"]])
            if not sel.any():
                continue
            right = pred[sel] == d["label"][sel]
            lines.append(f"{name:15s} {kind:10s} {int(sel.sum()):4d} reads, "
                         f"{right.mean() * 100:5.1f} % right, "
                         f"{int((right & asks[sel]).sum()):3d} right asking, "
                         f"{int((~right & asks[sel]).sum()):3d} wrong asking, "
                         f"{int((~right & ~asks[sel]).sum()):3d} wrong not asking")
    passing = [(str(d["design_names"][d["design"][i]]), readout.CLASS_NAMES[d["label"][i]],
                readout.CLASS_NAMES[pred[i]]) for i in np.where((pred != d["label"]) & ~asks)[0]]
    return lines, passing


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=HERE)
    ap.add_argument("--crops", default=os.path.join(HERE, "data", "check_letters.npz"))
    ap.add_argument("--threshold", type=float, default=None,
                    help="a stricter table threshold (serve --confirm-threshold) to compare")
    a = ap.parse_args()
    rec = evaluate.Recognizer(a.model)
    if rec.pips is None:
        raise SystemExit("court_letters: the model's settings name no pip reader, which "
                         "--confirm-courts relies on for number cards")
    d = np.load(a.crops)
    l1, l2 = rec.logits(d["tl"]), rec.logits(d["br"])
    probs, one = rec.reads_of(l1, l2, rec.whole_terms(d["card"]), d["height"])
    asking = rec.one_corner_asks(one, probs, d["height"])
    # The table's threshold, where stricter, is the one reads are checked under,
    # as in the service (`Recognizer::set_table_threshold`).
    threshold = max(rec.meta["confirm_threshold"], a.threshold or 0.0)
    logits = rec.pip_logits(d["pip_patches"], d["pip_target"], len(d["label"]))
    pred, asks = readout.pip_check(probs, d["height"], logits, rec.meta["pip_reader"],
                                   d["ink_family"], threshold, asking)
    below = probs.max(1) < threshold
    asks = asks | asking | below
    # --confirm-courts: every number card and ace is checked against its pips, at
    # any height (as a card under PIP_CHECK_BELOW is), and every court read asks.
    pred_c, asks_c = readout.pip_check(probs, np.zeros_like(d["height"]), logits,
                                       rec.meta["pip_reader"], d["ink_family"], threshold, asking)
    courts = np.array([rank_of(c) in KINDS["courts"] for c in pred_c])
    asks_c = asks_c | asking | below | courts
    heights = d["height"]
    print(f"{a.crops}: {len(pred)} reads, cards {heights.min():.0f}-{heights.max():.0f} px tall; "
          f"threshold {threshold}")
    for title, pred, asked in (("as the service reads", pred, asks),
                               ("with --confirm-courts", pred_c, asks_c)):
        lines, passing = table(d, pred, asked)
        right = pred == d["label"]
        print(f"\n{title}: {int((right & asked).sum())} of {int(right.sum())} right reads "
              f"ask God ({(right & asked).sum() / right.sum() * 100:.1f} %)")
        print("\n".join(lines))
        print("wrong reads not asking:", dict(collections.Counter(passing)) or "none")


if __name__ == "__main__":
    main()
