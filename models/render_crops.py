"""Step 2, render: index crops for the classifier, made the way the service makes them.

Each sample is a small table scene (the renderer of `synth.py`: cloth, neighbouring
cards, distractors, lighting, glare, blur, noise, JPEG) around one target. The
target is rectified with its ground-truth corners jittered by a few pixels (the
localiser's error), in either portrait ordering, and cut into the contract's two
index crops. Targets:

* a card face: both crops are labelled with the card's class (0..51);
* "not a card" (class 52): a card back or joker, a bare cloth patch, a distractor,
  or the centre of a card (pips or court art, no index).

    render_crops.py --split train --per-card 60 --out data/train.npz
"""
from __future__ import annotations

import argparse
import os
import time
from multiprocessing import Pool

import cv2
import numpy as np
from tqdm import tqdm

import pips
import synth

_DESIGNS: list[synth.Design] = []
# Card heights in pixels drawn for every target, when set (--heights); otherwise the
# default mix below.
_HEIGHTS: list[tuple[float, float]] = []
# Set (--pips): each target also gives its height in the frame and its pip patches,
# for the service's pip check in `evaluate.py`.
_PIPS: list[bool] = []


def _init(split: str, heights: tuple[float, float] | None = None, with_pips: bool = False) -> None:
    _DESIGNS.extend(synth.load_split(split))
    if heights:
        _HEIGHTS.append(heights)
    if with_pips:
        _PIPS.append(True)


def _neighbours(rng, img, design, quad, ch, aspect, occ_polys):
    """Other cards of the same deck beside the target, as in a sequence or a hand."""
    n = int(rng.integers(1, 4))
    centre = quad.mean(0)
    for _ in range(n):
        ang = rng.uniform(0, 2 * np.pi)
        dist = ch * aspect * rng.uniform(1.1, 1.6) if abs(np.cos(ang)) > 0.5 else ch * rng.uniform(1.08, 1.4)
        c = centre + dist * np.array([np.cos(ang), np.sin(ang)])
        key = synth.CARDS[int(rng.integers(52))]
        f = design.faces[key]
        q = synth.card_quad(rng, c[0], c[1], ch * rng.uniform(0.95, 1.05), f.shape[1] / f.shape[0],
                            rng.uniform(-15, 15) + (180 if rng.random() < 0.3 else 0), 0.1)
        if any(_overlap(q, p) for p in occ_polys):
            continue
        synth.paste_rgba(img, f, q, rng)
        occ_polys.append(q)


def _overlap(a, b) -> bool:
    lo = np.minimum(a.min(0), b.min(0)).astype(int) - 2
    hi = np.maximum(a.max(0), b.max(0)).astype(int) + 2
    shape = (hi[1] - lo[1] + 1, hi[0] - lo[0] + 1)
    ma = np.zeros(shape, np.uint8)
    mb = np.zeros(shape, np.uint8)
    cv2.fillPoly(ma, [np.round(a - lo).astype(np.int32)], 1)
    cv2.fillPoly(mb, [np.round(b - lo).astype(np.int32)], 1)
    return bool((ma & mb).any())


def render_sample(seed: tuple[int, ...]) -> tuple:
    """One target -> (top-left crop, bottom-right crop, whole card, label), and with
    --pips also (its card's height in the frame, its pip patches, its ink's colour
    family)."""
    rng = np.random.default_rng(list(seed))
    design = _DESIGNS[seed[1] % len(_DESIGNS)]
    card = seed[2]  # 0..51 a face, 52.. a "not a card" kind
    # Card height in pixels: 40 % of targets are small (a spread hand, a far card),
    # where the index is a few pixels tall and most misreads happen.
    ch = float(rng.uniform(85, 145) if rng.random() < 0.4 else rng.uniform(90, 250))
    if _HEIGHTS:  # a set of one size band (cards seen through a low-resolution camera)
        ch = float(rng.uniform(*_HEIGHTS[0]))
    size = int(ch * 1.7)
    img, _ = synth.cloth(rng, size, size)
    c = np.array([size / 2, size / 2]) + rng.uniform(-0.08, 0.08, 2) * ch
    label = card if card < 52 else synth.NOT_A_CARD
    neg_kind = None if card < 52 else ["other", "cloth", "distractor", "centre"][(card - 52) % 4]
    if neg_kind == "other" and not design.others:
        neg_kind = "centre"
    if card < 52 or neg_kind == "centre":
        face = design.faces[synth.CARDS[card if card < 52 else int(rng.integers(52))]]
    elif neg_kind == "other":
        face = design.others[int(rng.integers(len(design.others)))]
    else:
        face = design.faces["AS"]  # only for the quad's shape
    aspect = face.shape[1] / face.shape[0]
    rot = rng.uniform(-20, 20) + (180 if rng.random() < 0.5 else 0)
    quad = synth.card_quad(rng, c[0], c[1], ch, aspect, rot, float(rng.uniform(0, 0.25)))
    occ = [quad]
    if rng.random() < 0.5:
        _neighbours(rng, img, design, quad, ch, aspect, occ)
    if neg_kind == "distractor":
        kind = synth.DISTRACTOR_KINDS[int(rng.integers(4))]
        synth.add_distractor(img, rng, kind, c[0], c[1], ch * rng.uniform(0.9, 1.6))
    elif neg_kind != "cloth":
        synth.paste_rgba(img, face, quad, rng)
    elif rng.random() < 0.3:  # a sliver of a neighbouring card inside the patch
        _neighbours(rng, img, design, quad, ch * 0.9, aspect, [quad])
    out = synth.camera(img, rng, strength=float(rng.uniform(0.4, 1.3)))
    q = quad
    if neg_kind == "centre":
        # A sub-quad in the middle of the card: what a crop sees with no index in it.
        u0, v0 = rng.uniform(0.3, 0.42), rng.uniform(0.3, 0.42)
        u1, v1 = 1 - rng.uniform(0.3, 0.42), 1 - rng.uniform(0.3, 0.42)
        h = cv2.getPerspectiveTransform(np.float32([[0, 0], [1, 0], [1, 1], [0, 1]]), quad.astype(np.float32))
        sub = np.float32([[u0, v0], [u1, v0], [u1, v1], [u0, v1]]).reshape(-1, 1, 2)
        q = cv2.perspectiveTransform(sub, h).reshape(4, 2)
    q = synth.jitter_quad(rng, q, float(rng.uniform(0.0, 0.035)))
    q = synth.order_for_reading(q, rng)
    rect = synth.rectify(out, q)
    tl, br = synth.index_crops(rect)
    if _PIPS:
        return tl, br, synth.whole_card(rect), label, ch, *pips.pips_and_ink_family(rect)
    return tl, br, synth.whole_card(rect), label


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", required=True, help="train, val, heldout or design names")
    ap.add_argument("--per-card", type=int, default=40, help="renders per card per design")
    ap.add_argument("--neg-frac", type=float, default=0.15, help="share of 'not a card' targets")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--heights", help="LO,HI: every target's card height in pixels drawn from this "
                                      "band (e.g. 45,85: a 640x480 camera) instead of the default mix")
    ap.add_argument("--pips", action="store_true",
                    help="also store each target's height, pip patches and ink colour family "
                         "(evaluate.py's pip check)")
    a = ap.parse_args()
    heights = None
    if a.heights:
        try:
            lo, hi = (float(v) for v in a.heights.split(","))
        except ValueError:
            raise SystemExit(f"render_crops: --heights must be LO,HI in pixels, not {a.heights!r}")
        if not 20 <= lo < hi:
            raise SystemExit(f"render_crops: --heights needs 20 <= LO < HI, not {a.heights!r}")
        heights = (lo, hi)
    t0 = time.time()
    names = [n for s in a.split.split(",") for n in synth.SPLITS.get(s, [s])]
    n_designs = len(names)
    seeds = []
    for d in range(n_designs):
        for card in range(52):
            for k in range(a.per_card):
                seeds.append((a.seed, d, card, k))
        n_neg = int(round(52 * a.per_card * a.neg_frac / (1 - a.neg_frac)))
        for k in range(n_neg):
            seeds.append((a.seed, d, 52 + k % 4, 10_000 + k))
    tl, br, whole, labels, design_ids = [], [], [], [], []
    card_heights, patches, patch_target, families = [], [], [], []
    with Pool(a.workers, initializer=_init, initargs=(a.split, heights, a.pips)) as pool:
        for n, (s, sample) in enumerate(zip(seeds, tqdm(pool.imap(render_sample, seeds, chunksize=32),
                                                        total=len(seeds), desc=f"crops {a.split}"))):
            x, y, c, lab = sample[:4]
            tl.append(x)
            br.append(y)
            whole.append(c)
            labels.append(lab)
            design_ids.append(s[1])
            if a.pips:
                card_heights.append(sample[4])
                patches.extend(sample[5])
                patch_target.extend([n] * len(sample[5]))
                families.append(sample[6] or "")
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    extra = {}
    if a.pips:
        extra = {"height": np.array(card_heights, np.float32),
                 "pip_patches": (np.stack(patches) if patches
                                 else np.zeros((0, pips.PATCH, pips.PATCH), np.float32)),
                 "pip_target": np.array(patch_target, np.int64),
                 "ink_family": np.array(families)}
    np.savez(a.out, tl=np.stack(tl), br=np.stack(br), card=np.stack(whole), label=np.array(labels, np.int64),
             design=np.array(design_ids, np.int64), design_names=np.array(names), **extra)
    print(f"render {a.split}: {len(seeds)} targets in {time.time() - t0:.0f} s -> {a.out}")


if __name__ == "__main__":
    main()
