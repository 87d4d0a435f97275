"""Frames of 2-4 cards laid side by side and touching, as a player lays a sequence
on the table, with labelled sidecars for `eleusis recognize --check`.

Cards of a deck with no printed border merge into one outline when they touch; the
recognizer cuts such an outline into cards. This renders that case: a row of one
design's cards with no gap (or a hair's gap) between them, turned by up to 12
degrees, on a random cloth, through the shared camera model.

    render_touching.py --out data/touching --count 120 --designs heldout --seed 51
    render_touching.py --committed     # tests/data/touching: five frames, and frames 44
                                       # and 103 of the set above
"""
from __future__ import annotations

import argparse
import os

import numpy as np
from tqdm import tqdm

import render_scenes
import synth

HERE = os.path.dirname(os.path.abspath(__file__))


def render(rng, design: synth.Design, n: int, cloth: str | None = None):
    """One 1280 x 720 frame with a row of `n` touching cards -> (RGB image, sidecar)."""
    img, cloth_name = synth.cloth(rng, 720, 1280, cloth)
    ch = float(rng.uniform(120, 230))
    keys = [synth.CARDS[int(rng.integers(52))] for _ in range(n)]
    face = design.faces[keys[0]]
    w = ch * face.shape[1] / face.shape[0]
    gap = w * float(rng.uniform(0.0, 0.015))
    total = n * w + (n - 1) * gap
    centre = np.array([640.0, 360.0]) + rng.uniform(-1, 1, 2) * [max(0.0, 560 - total / 2), 180 - ch / 2]
    ang = np.deg2rad(rng.uniform(-12, 12))
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    cards = []
    for i, key in enumerate(keys):
        x0 = -total / 2 + i * (w + gap)
        q = np.array([[x0, -ch / 2], [x0 + w, -ch / 2], [x0 + w, ch / 2], [x0, ch / 2]])
        if rng.random() < 0.3:  # upside down: the same outline, corners turned
            q = np.roll(q, 2, axis=0)
        q = (q @ rot.T + centre).astype(np.float32)
        synth.paste_rgba(img, design.faces[key], q, rng, shadow=False)
        cards.append({"card": key, "corners": synth.normalise_corners(q).round(1).tolist()})
    out = synth.camera(img, rng, strength=float(rng.uniform(0.4, 1.0)), jpeg=False)
    meta = {"design": design.name, "cloth": cloth_name, "layout": f"touching-{n}", "size": [1280, 720]}
    return out, {"cards": cards, "distractors": [], "meta": meta}


def write(folder: str, name: str, img: np.ndarray, side: dict) -> None:
    render_scenes.write(folder, name, img, side, quality=90)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--committed", action="store_true", help="write tests/data/touching/")
    ap.add_argument("--out", help="output folder for a random set")
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--designs", default="heldout", help="split name(s) or design names, comma separated")
    ap.add_argument("--seed", type=int, default=51)
    a = ap.parse_args()
    if a.committed:
        # Borderless held-out decks (the ones whose touching cards merge), green
        # felt and wood, rows of two to four cards.
        folder = os.path.join(HERE, "..", "tests", "data", "touching")
        os.makedirs(folder, exist_ok=True)
        plan = [("cardsJS", "green", 2), ("younestouati", "wood", 3), ("younestouati", "green", 2),
                ("cardsJS", "wood", 3)]
        rng = np.random.default_rng(61)
        for k, (name, cloth, n) in enumerate(plan):
            img, side = render(rng, synth.load_design(name), n, cloth)
            write(folder, f"{k + 1:02d}-{name}-{cloth}-{n}", img, side)
        # A row of four that merges into one outline as thin as the localiser takes.
        img, side = render(np.random.default_rng(101), synth.load_design("younestouati"), 4, "green")
        write(folder, "05-younestouati-green-4", img, side)
        # Two frames of the held-out set above (same seed, same order of draws):
        # rows whose court card no mask gives on its own, in the middle and at an end.
        replay = {44: "06-cardsJS-wood-3-court-middle", 103: "07-four-colour-wood-4-court-end"}
        names = [n for s in "heldout".split(",") for n in synth.SPLITS.get(s, [s])]
        designs = [synth.load_design(n) for n in names]
        rng = np.random.default_rng(51)
        for k in tqdm(range(max(replay) + 1), desc="replaying the held-out rows"):
            img, side = render(rng, designs[k % len(designs)], 2 + k // len(designs) % 3)
            if k in replay:
                write(folder, replay[k], img, side)
        return
    if not a.out:
        raise SystemExit("render_touching: give --out DIR or --committed")
    os.makedirs(a.out, exist_ok=True)
    names = [n for s in a.designs.split(",") for n in synth.SPLITS.get(s, [s])]
    designs = [synth.load_design(n) for n in names]
    rng = np.random.default_rng(a.seed)
    for k in tqdm(range(a.count), desc="touching rows"):
        design = designs[k % len(designs)]
        img, side = render(rng, design, 2 + k // len(designs) % 3)
        write(a.out, f"{k:04d}", img, side)


if __name__ == "__main__":
    main()
