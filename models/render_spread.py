"""Frames of a hand spread out in one overlapping row, as a player shows a "no play"
hand, with labelled sidecars for `eleusis recognize --check`.

Each card lies on its left neighbour and covers all of it but a strip 22-60 % of a
card wide, where that card's top-left index shows (a card lying upside down shows its
other index there). The row is turned by up to 12 degrees, lies on a random cloth and
goes through the shared camera model. A card's labelled corners are those of the
whole card, hidden corners included.

    render_spread.py --out data/spreads --count 90 --designs heldout --seed 81
    render_spread.py --out data/dev-spreads --count 60 --designs val --seed 82
    render_spread.py --committed     # tests/data/spreads: frames 19, 31, 33, 54 and 71 of the
                                     # first set, frame 17 of the validation set (val-0017-…)
    render_spread.py --fan --out data/fans --count 90 --designs heldout --seed 83
    render_spread.py --fan --committed   # tests/data/fans: frames 6, 9, 12, 24, 31 and 70 of that set
"""
from __future__ import annotations

import argparse
import os

import numpy as np
from tqdm import tqdm

import render_scenes
import synth

HERE = os.path.dirname(os.path.abspath(__file__))


def render(rng, design: synth.Design, n: int, cloth: str | None = None, overlap=None):
    """One 1280 x 720 frame with an overlapping row of `n` cards -> (RGB image, sidecar)."""
    img, cloth_name = synth.cloth(rng, 720, 1280, cloth)
    keys = [synth.CARDS[int(k)] for k in rng.choice(52, n, replace=False)]
    face = design.faces[keys[0]]
    aspect = face.shape[1] / face.shape[0]
    lo, hi = overlap or (0.22, 0.6)
    step_frac = float(rng.uniform(lo, hi))
    # As large as the frame allows, within a card 110-230 px tall.
    fit = 1180 / (aspect * (1 + (n - 1) * step_frac))
    ch = float(min(rng.uniform(110, 230), fit))
    w = ch * aspect
    step = w * step_frac
    total = w + (n - 1) * step
    centre = np.array([640.0, 360.0]) + rng.uniform(-1, 1, 2) * [max(0.0, 600 - total / 2), 180 - ch / 2]
    ang = np.deg2rad(rng.uniform(-12, 12))
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    cards = []
    for i, key in enumerate(keys):
        x0 = -total / 2 + i * step
        q = np.array([[x0, -ch / 2], [x0 + w, -ch / 2], [x0 + w, ch / 2], [x0, ch / 2]])
        if rng.random() < 0.3:  # upside down: the same outline, corners turned
            q = np.roll(q, 2, axis=0)
        q = (q @ rot.T + centre).astype(np.float32)
        synth.paste_rgba(img, design.faces[key], q, rng, shadow=True)
        cards.append({"card": key, "corners": synth.normalise_corners(q).round(1).tolist()})
    out = synth.camera(img, rng, strength=float(rng.uniform(0.4, 1.0)), jpeg=False)
    meta = {"design": design.name, "cloth": cloth_name, "layout": f"overlapping-{n}",
            "step": round(step_frac, 3), "size": [1280, 720]}
    return out, {"cards": cards, "distractors": [], "meta": meta}


def render_fan(rng, design: synth.Design, n: int, cloth: str | None = None):
    """One 1280 x 720 frame with a fan of `n` cards -> (RGB image, sidecar): each card
    turned about one point below the cards, a little more than the one it lies on, so
    that a wedge of each covered card shows its top-left index, as a hand is fanned
    out on the table. The wedge at the cards' top edge is 22-60 % of a card wide, and
    the fan opens 160 degrees at most (long fans show narrower wedges)."""
    img, cloth_name = synth.cloth(rng, 720, 1280, cloth)
    keys = [synth.CARDS[int(k)] for k in rng.choice(52, n, replace=False)]
    face = design.faces[keys[0]]
    aspect = face.shape[1] / face.shape[0]
    step_frac = float(rng.uniform(0.22, 0.6))
    drop = float(rng.uniform(0.05, 0.35))  # the turning point below the cards, in card heights
    # Arc at the top edge between two cards' corners = step_frac of a card width.
    theta = min(step_frac * aspect / (1 + drop), np.deg2rad(160) / max(1, n - 1))
    tilt = np.deg2rad(rng.uniform(-15, 15))
    # Unit card height first; scaled to the frame below.
    base = np.array([[-aspect / 2, -1 - drop], [aspect / 2, -1 - drop], [aspect / 2, -drop], [-aspect / 2, -drop]])
    quads = []
    for i in range(n):
        ang = (i - (n - 1) / 2) * theta + tilt
        rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
        quads.append(base @ rot.T)
    pts = np.concatenate(quads)
    lo, hi = pts.min(0), pts.max(0)
    ch = float(min(rng.uniform(110, 200), 1180 / (hi[0] - lo[0]), 680 / (hi[1] - lo[1])))
    span = (hi - lo) * ch
    room = np.array([1280.0, 720.0]) - span
    origin = rng.uniform(0.2, 0.8, 2) * room - lo * ch
    cards = []
    for key, q in zip(keys, quads):
        q = q * ch + origin
        if rng.random() < 0.3:  # upside down: its other index shows in the wedge
            q = np.roll(q, 2, axis=0)
        q = q.astype(np.float32)
        synth.paste_rgba(img, design.faces[key], q, rng, shadow=True)
        cards.append({"card": key, "corners": synth.normalise_corners(q).round(1).tolist()})
    out = synth.camera(img, rng, strength=float(rng.uniform(0.4, 1.0)), jpeg=False)
    meta = {"design": design.name, "cloth": cloth_name, "layout": f"fan-{n}",
            "step": round(float(theta * (1 + drop) / aspect), 3), "size": [1280, 720]}
    return out, {"cards": cards, "distractors": [], "meta": meta}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--committed", action="store_true", help="write tests/data/spreads/ (with --fan: tests/data/fans/)")
    ap.add_argument("--out", help="output folder for a random set")
    ap.add_argument("--count", type=int, default=90)
    ap.add_argument("--designs", default="heldout", help="split name(s) or design names, comma separated")
    ap.add_argument("--seed", type=int, default=81)
    ap.add_argument("--fan", action="store_true", help="fans (cards turned about one point) instead of rows")
    a = ap.parse_args()
    committed = {19: "four-colour-white-12", 31: "four-colour-dark-20", 33: "borderless-green-20", 54: "neoclassical-pattern-12", 71: "plastic-wood-20"}
    if a.committed and a.fan:
        # Frames 6, 9, 12, 24, 31 and 70 of the held-out fans (seed 83).
        committed = {6: "neoclassical-white-5", 9: "younestouati-pattern-5", 12: "neoclassical-wood-8", 24: "neoclassical-white-16", 31: "four-colour-wood-20", 70: "tigullio-white-20"}
        a.out, a.count, a.designs, a.seed = os.path.join(HERE, "..", "tests", "data", "fans"), max(committed) + 1, "heldout", 83
    elif a.committed:
        # Five frames of the held-out set above (same seed, same order of draws).
        a.out, a.count, a.designs, a.seed = os.path.join(HERE, "..", "tests", "data", "spreads"), max(committed) + 1, "heldout", 81
    if not a.out:
        raise SystemExit("render_spread: give --out DIR or --committed")
    render_set(a.out, a.count, a.designs, a.seed, a.fan, committed if a.committed else None)
    if a.committed and not a.fan:
        # Frame 17 of the validation rows (seed 82): a tight row of 16 on a dark
        # cloth whose masks give groups of strips, found whole only as a short row.
        render_set(a.out, 18, "val", 82, False, {17: "gnomangelo-bitmap-dark-16"}, prefix="val-")


def render_set(out: str, count: int, designs: str, seed: int, fan: bool, committed: dict | None, prefix: str = "") -> None:
    """Renders `count` frames into `out`; with `committed`, only the frames it names
    (`{index: name}`), as `<prefix><index>-<name>`."""
    os.makedirs(out, exist_ok=True)
    names = [n for s in designs.split(",") for n in synth.SPLITS.get(s, [s])]
    loaded = [synth.load_design(n) for n in names]
    rng = np.random.default_rng(seed)
    sizes = [3, 5, 8, 12, 16, 20]
    for k in tqdm(range(count), desc="fans" if fan else "overlapping rows"):
        design = loaded[k % len(loaded)]
        size = sizes[k // len(loaded) % len(sizes)]
        img, side = render_fan(rng, design, size) if fan else render(rng, design, size)
        if committed is not None and k in committed:
            render_scenes.write(out, f"{prefix}{k:04d}-{committed[k]}", img, side, quality=90)
        elif committed is None:
            render_scenes.write(out, f"{k:04d}", img, side, quality=90)


if __name__ == "__main__":
    main()
