"""Render pip patches for the pip reader (`train_pips.py`), made the way the service
makes them.

Each sample is one card on a small table scene (the renderer of `synth.py`, as in
`render_crops.py`: cloth, neighbours, lighting, glare, blur, noise, JPEG), rectified
with its corners jittered by the localiser's error and cut into pip patches by
`pips.find_pips`. The patches of a number card (2 to 10) are labelled with its
suit (0..3, in the order S H D C); the blobs found on a court card are its art and
are labelled "not a pip" (4), so that the reader learns to say so.

    render_pips.py --split train,fonts,fonts_big --per-card 6 --out data/pips_train.npz
"""
from __future__ import annotations

import argparse
import os
import time
from multiprocessing import Pool

import numpy as np
from tqdm import tqdm

import pips
import synth
from render_crops import _neighbours

_DESIGNS: list[synth.Design] = []
NUMBER_RANKS = {"2", "3", "4", "5", "6", "7", "8", "9", "10"}
COURT_RANKS = {"J", "Q", "K"}
MAX_COURT_PATCHES = 4


def _init(split: str) -> None:
    _DESIGNS.extend(synth.load_split(split))


def render_card(seed: tuple[int, ...]) -> tuple[str, float, np.ndarray, str | None]:
    """One card on a small table, found as the service finds it -> (its name, its
    height in the frame, all its pip patches, its ink's colour family)."""
    rng = np.random.default_rng(list(seed))
    design = _DESIGNS[seed[1] % len(_DESIGNS)]
    key = synth.CARDS[seed[2]]
    face = design.faces[key]
    ch = float(rng.uniform(85, 145) if rng.random() < 0.4 else rng.uniform(90, 250))
    size = int(ch * 1.7)
    img, _ = synth.cloth(rng, size, size)
    c = np.array([size / 2, size / 2]) + rng.uniform(-0.08, 0.08, 2) * ch
    aspect = face.shape[1] / face.shape[0]
    rot = rng.uniform(-20, 20) + (180 if rng.random() < 0.5 else 0)
    quad = synth.card_quad(rng, c[0], c[1], ch, aspect, rot, float(rng.uniform(0, 0.25)))
    if rng.random() < 0.5:
        _neighbours(rng, img, design, quad, ch, aspect, [quad])
    synth.paste_rgba(img, face, quad, rng)
    out = synth.camera(img, rng, strength=float(rng.uniform(0.4, 1.3)))
    q = synth.jitter_quad(rng, quad, float(rng.uniform(0.0, 0.035)))
    q = synth.order_for_reading(q, rng)
    rect = synth.rectify(out, q)
    return key, ch, *pips.pips_and_ink_family(rect)


def render_sample(seed: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """One card -> (its pip patches, their label); a court card's blobs are cut to
    a few, so that art does not outnumber pips."""
    key, _, found, _ = render_card(seed)
    if key[:-1] in COURT_RANKS:
        return found[:MAX_COURT_PATCHES], pips.NOT_A_PIP
    return found, pips.SUITS.index(key[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", required=True, help="train, val, heldout or design names")
    ap.add_argument("--per-card", type=int, default=6, help="renders per card per design")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    t0 = time.time()
    names = [n for s in a.split.split(",") for n in synth.SPLITS.get(s, [s])]
    keys = [i for i, k in enumerate(synth.CARDS) if k[:-1] in NUMBER_RANKS | COURT_RANKS]
    seeds = [(a.seed, d, k, i) for d in range(len(names)) for k in keys for i in range(a.per_card)]
    patches, labels, designs, cards = [], [], [], []
    with Pool(a.workers, initializer=_init, initargs=(a.split,)) as pool:
        for n, (s, (found, label)) in enumerate(zip(seeds, tqdm(pool.imap(render_sample, seeds, chunksize=16),
                                                               total=len(seeds), desc=f"pips {a.split}"))):
            for p in found:
                patches.append(p)
                labels.append(label)
                designs.append(s[1])
                cards.append(n)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    np.savez_compressed(a.out, X=np.stack(patches), y=np.array(labels, np.int64),
                        design=np.array(designs, np.int64), card=np.array(cards, np.int64),
                        design_names=np.array(names))
    print(f"render_pips {a.split}: {len(seeds)} cards, {len(patches)} patches in {time.time() - t0:.0f} s -> {a.out}")


if __name__ == "__main__":
    main()
