"""Checks the play-zone watcher against a webcam's frame-to-frame noise.

A labelled scene seen by a webcam is never the same frame twice: sensor noise, a
flicker of exposure, a pixel of shake, JPEG. `make` turns each labelled scene into
what the watcher would be sent: three frames of an empty cloth, then eight noisy
copies of the scene (four draws, twice), one folder per scene. `eleusis recognize
--watch --json FOLDER` feeds a folder to the watcher; `score` reads those outputs
and says how many scenes settled as a play, after how many frames of cards, and
with the labelled cards.

    watch_sequences.py make --scenes data/eval-scenes --count 60 --out /tmp/watch
    for d in /tmp/watch/*/; do eleusis recognize --watch --json "$d" > "${d%/}.jsonl"; done
    watch_sequences.py score --scenes data/eval-scenes /tmp/watch/*.jsonl
"""
from __future__ import annotations

import argparse
import json
import os

import numpy as np
from PIL import Image


def noisy(image: np.ndarray, rng: np.random.Generator) -> Image.Image:
    """One webcam frame of a still table: exposure flicker of 2 %, sensor noise of
    4 grey levels, a shake of up to a pixel each way."""
    gain = 1 + rng.normal(0, 0.02)
    frame = image * gain + rng.normal(0, 4, image.shape)
    dy, dx = rng.integers(-1, 2, 2)
    frame = np.roll(frame, (int(dy), int(dx)), (0, 1))
    return Image.fromarray(np.clip(frame, 0, 255).astype(np.uint8))


def make(args: argparse.Namespace) -> None:
    rng = np.random.default_rng(args.seed)
    names = sorted(f[:-4] for f in os.listdir(args.scenes) if f.endswith(".jpg"))[: args.count]
    for name in names:
        image = np.asarray(Image.open(os.path.join(args.scenes, name + ".jpg")).convert("RGB"),
                           dtype=np.float32)
        folder = os.path.join(args.out, name)
        os.makedirs(folder, exist_ok=True)
        # The cloth without the cards: its median colour, with the same noise.
        cloth = np.broadcast_to(np.median(image.reshape(-1, 3), axis=0), image.shape)
        for i in range(3):
            noisy(cloth, rng).save(os.path.join(folder, f"{i:02d}.jpg"), quality=88)
        draws = [noisy(image, rng) for _ in range(4)]
        for i in range(8):
            draws[i % 4].save(os.path.join(folder, f"{i + 3:02d}.jpg"), quality=88)
    print(f"{len(names)} sequences of 11 frames in {args.out}")


def score(args: argparse.Namespace) -> None:
    with_cards = settled = exact = 0
    after = {}
    spurious = 0
    for path in args.outputs:
        name = os.path.basename(path).rsplit(".", 1)[0]
        with open(os.path.join(args.scenes, name + ".json")) as f:
            want = [c["card"] for c in json.load(f)["cards"]]
        with open(path) as f:
            frames = [json.loads(line) for line in f if line.strip()]
        laid = [(i, fr["laid"]) for i, fr in enumerate(frames) if fr.get("laid") is not None]
        if not want:
            spurious += len(laid)
            continue
        with_cards += 1
        if laid:
            settled += 1
            i, cards = laid[0]
            after[i - 2] = after.get(i - 2, 0) + 1
            exact += [c.rstrip("?") for c in cards] == want
    print(json.dumps({
        "scenes_with_cards": with_cards,
        "settled": settled,
        "settled_on_card_frame": dict(sorted(after.items())),
        "laid_exactly_as_labelled": exact,
        "plays_in_scenes_without_cards": spurious,
    }))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="step", required=True)
    m = sub.add_parser("make")
    m.add_argument("--scenes", required=True)
    m.add_argument("--count", type=int, default=60)
    m.add_argument("--out", required=True)
    m.add_argument("--seed", type=int, default=5)
    s = sub.add_parser("score")
    s.add_argument("--scenes", required=True)
    s.add_argument("outputs", nargs="+")
    args = ap.parse_args()
    make(args) if args.step == "make" else score(args)


if __name__ == "__main__":
    main()
