"""Step 6, test scenes: full 1280 x 720 table frames with the contract's JSON sidecar.

    render_scenes.py --committed                      # the labelled set in tests/data/scenes/
    render_scenes.py --out DIR --count N --designs heldout [--seed S]   # an evaluation set

Every image `NAME.jpg` (JPEG quality 85) has `NAME.json`:
{"cards":[{"card":"QH","corners":[[x,y]x4]}], "distractors":[{"kind":..,"polygon":..}],
 "meta":{...}}; corners [TL, TR, BR, BL] of the portrait card, the one of the two
equivalent orderings whose first corner is nearest the image's top-left; cards left
to right by quad centre x. `index.json` lists the scenes.
"""
from __future__ import annotations

import argparse
import json
import os
import time

import cv2
import numpy as np
from tqdm import tqdm

import synth

HERE = os.path.dirname(os.path.abspath(__file__))
COMMITTED_DIR = os.path.join(HERE, "..", "tests", "data", "scenes")

# The committed set: (name, design, layout, description). Mostly held-out designs.
L = synth.Layout
COMMITTED = [
    ("single-green", "neoclassical", L("single", 1, cloth="green"), "one card on felt"),
    ("single-dark", "cardsJS", L("single", 1, cloth="dark"), "one card on a dark cloth"),
    ("single-white", "tigullio", L("single", 1, cloth="white"), "one card on a white cloth"),
    ("single-wood", "neoclassical_4_color", L("single", 1, cloth="wood"), "one four-colour card on wood"),
    ("single-upside-down", "plastic", L("single", 1, cloth="blue", flip_p=1.0), "one card lying upside down"),
    ("seq2-green", "younestouati", L("sequence", 2, cloth="green"), "two cards side by side"),
    ("seq3-wood", "neoclassical", L("sequence", 3, cloth="wood"), "three cards side by side on wood"),
    ("seq4-dark", "cardsJS", L("sequence", 4, (130, 200), cloth="dark"), "four cards side by side on dark"),
    ("seq3-pattern", "tigullio", L("sequence", 3, cloth="pattern"), "three cards on a patterned cloth"),
    ("seq4-white", "plastic", L("sequence", 4, (130, 200), cloth="white"), "four cards on white"),
    ("seq2-4color-red", "neoclassical_4_color", L("sequence", 2, cloth="red"), "two four-colour cards on red"),
    ("spread12-green", "neoclassical", L("spread", 12, (110, 150), cloth="green"), "a spread hand of 12, not overlapping"),
    ("spread16-wood", "cardsJS", L("spread", 16, (105, 135), cloth="wood"), "a spread hand of 16, not overlapping"),
    ("spread20-dark", "tigullio", L("spread", 20, (100, 125), cloth="dark"), "a spread hand of 20, not overlapping"),
    ("spread10-white", "younestouati", L("spread", 10, (110, 150), cloth="white"), "a spread hand of 10, not overlapping"),
    ("glare-single-grey", "plastic", L("single", 1, cloth="grey", glare=1), "a lamp's glare on one card"),
    ("glare-seq3", "neoclassical", L("sequence", 3, cloth="dark", glare=2), "glare on a sequence of three"),
    ("glare-spread", "cardsJS", L("spread", 12, (110, 150), cloth="wood", glare=2), "glare on a spread hand"),
    ("tilted-single", "tigullio", L("single", 1, cloth="green", tilt=0.3, max_rot=25), "a slanted, tilted card"),
    ("tilted-seq3", "younestouati", L("sequence", 3, cloth="wood", tilt=0.25, max_rot=18), "a tilted sequence of three"),
    ("tilted-spread", "neoclassical_4_color", L("spread", 14, (105, 140), cloth="white", tilt=0.25, max_rot=25), "a tilted spread of 14"),
    ("distractors-green", "neoclassical", L("distractors", 0, n_distractors=3, cloth="green"), "no cards: phone, coaster, hand or note"),
    ("distractors-wood", "cardsJS", L("distractors", 0, n_distractors=4, cloth="wood"), "no cards: four distractors on wood"),
    ("distractors-white", "plastic", L("distractors", 0, n_distractors=2, cloth="white"), "no cards: two distractors on white"),
    ("mixed-seq2-blue", "tigullio", L("sequence", 2, n_distractors=2, cloth="blue"), "two cards beside a phone and more"),
    ("mixed-single", "younestouati", L("single", 1, n_distractors=3, cloth="dark"), "one card among distractors"),
    ("train-design-seq3", "anglo", L("sequence", 3, cloth="green"), "a training design (anglo), three cards"),
    ("val-design-spread", "paris", L("spread", 10, (110, 150), cloth="wood"), "a validation design (paris), spread of 10"),
]


def write(out_dir, name, img, sidecar, quality=85):
    """A frame as JPEG and its labels as the sidecar `name.json`."""
    cv2.imwrite(os.path.join(out_dir, name + ".jpg"), cv2.cvtColor(img, cv2.COLOR_RGB2BGR),
                [cv2.IMWRITE_JPEG_QUALITY, quality])
    with open(os.path.join(out_dir, name + ".json"), "w") as f:
        json.dump(sidecar, f, indent=1)


def committed(seed: int) -> None:
    out = os.path.normpath(COMMITTED_DIR)
    os.makedirs(out, exist_ok=True)
    designs = {}
    index = []
    for i, (name, dname, layout, desc) in enumerate(tqdm(COMMITTED, desc="scenes")):
        if dname not in designs:
            designs[dname] = synth.load_design(dname)
        rng = np.random.default_rng([seed, i])
        img, side = synth.compose_scene(rng, designs[dname], layout, strength=0.8, jpeg=False)
        fname = f"{i + 1:02d}-{name}"
        write(out, fname, img, side)
        split = next(s for s, names in synth.SPLITS.items() if dname in names)
        index.append({"image": fname + ".jpg", "labels": fname + ".json", "description": desc,
                      "design": dname, "split": split,
                      "cards": [c["card"] for c in side["cards"]],
                      "distractors": [d["kind"] for d in side["distractors"]]})
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"scenes": index}, f, indent=1)


def random_set(out: str, count: int, split: str, seed: int, cloth: str | None = None) -> None:
    os.makedirs(out, exist_ok=True)
    designs = synth.load_split(split)
    index = []
    for i in tqdm(range(count), desc="scenes"):
        rng = np.random.default_rng([seed, i])
        design = designs[int(rng.integers(len(designs)))]
        kind = str(rng.choice(["single", "sequence", "sequence", "spread", "distractors"]))
        if kind == "single":
            layout = L("single", 1)
        elif kind == "sequence":
            layout = L("sequence", int(rng.integers(2, 5)), (130, 230))
        elif kind == "spread":
            layout = L("spread", int(rng.integers(10, 21)), (100, 140))
        else:
            layout = L("distractors", 0)
        layout.n_distractors = int(rng.integers(0, 3)) if kind != "distractors" else int(rng.integers(1, 5))
        layout.tilt = float(rng.uniform(0, 0.25))
        layout.max_rot = float(rng.uniform(5, 20))
        if cloth:  # one cloth for the whole set (random per scene when None)
            layout.cloth = cloth
        img, side = synth.compose_scene(rng, design, layout, jpeg=False)
        fname = f"{i:04d}"
        write(out, fname, img, side)
        index.append({"image": fname + ".jpg", "labels": fname + ".json", "design": design.name,
                      "cards": [c["card"] for c in side["cards"]]})
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"scenes": index}, f, indent=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--committed", action="store_true", help="write the set in tests/data/scenes/")
    ap.add_argument("--out", help="output folder for a random set")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--designs", default="heldout", help="split name(s) or design names, comma separated")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--cloth", help="one cloth for every scene of a random set (felt, wood, pattern "
                    "or a colour of synth.CLOTH_COLOURS); random per scene by default")
    a = ap.parse_args()
    t0 = time.time()
    if a.committed:
        committed(a.seed)
    elif a.out:
        random_set(a.out, a.count, a.designs, a.seed, a.cloth)
    else:
        ap.error("give --committed or --out DIR")
    print(f"render_scenes: {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
