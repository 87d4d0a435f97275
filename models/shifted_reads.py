"""Measure reading each index crop at small shifts and averaging (model card,
"Tried and not kept: shifted reads averaged"): the corners alone, as
`calibrate.py --no-card-reader` reads them, once as cut and once averaged over
the crop moved by a pixel or two (edges repeated), on rendered crop splits.

    shifted_reads.py --splits val,heldout [--reach 1|2] [--threshold T]

The threshold defaults to the card reader's `below` in recognizer.json: the
threshold the corners alone were fitted to.
"""
from __future__ import annotations

import argparse
import json
import os

import numpy as np
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
SHIFTS = {
    1: [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)],
    2: [(0, 0), (2, 0), (-2, 0), (0, 2), (0, -2), (1, 1), (-1, -1), (1, -1), (-1, 1)],
}


def log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(1, keepdims=True)
    return z - np.log(np.exp(z).sum(1, keepdims=True))


def shifted(crops: np.ndarray, dx: int, dy: int, pad: int = 2) -> np.ndarray:
    """The crops moved by (dx, dy) pixels, their edges repeated into the gap."""
    h, w = crops.shape[1:3]
    padded = np.pad(crops, ((0, 0), (pad, pad), (pad, pad), (0, 0)), mode="edge")
    return padded[:, pad + dy:pad + dy + h, pad + dx:pad + dx + w]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=HERE)
    ap.add_argument("--splits", default="val,heldout")
    ap.add_argument("--reach", type=int, choices=sorted(SHIFTS), default=1)
    ap.add_argument("--threshold", type=float)
    args = ap.parse_args()
    with open(os.path.join(args.model, "recognizer.json")) as f:
        meta = json.load(f)
    temperature = meta["temperature"]
    threshold = args.threshold or meta.get("card_reader", {}).get("below", meta["confirm_threshold"])
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(os.path.join(args.model, "recognizer.onnx"), opts,
                                providers=["CPUExecutionProvider"])

    def read(crops: np.ndarray) -> np.ndarray:
        out = []
        for i in range(0, len(crops), 1024):
            x = crops[i:i + 1024].transpose(0, 3, 1, 2).astype(np.float32) / 255.0
            out.append(sess.run(None, {"input": x})[0])
        return log_softmax(np.concatenate(out) / temperature)

    for split in args.splits.split(","):
        data = np.load(os.path.join(HERE, "data", f"{split}.npz"))
        label = data["label"]
        for name, shifts in (("as cut", [(0, 0)]), (f"shifted by {args.reach}", SHIFTS[args.reach])):
            total = sum(np.mean([read(shifted(data[k], dx, dy)) for dx, dy in shifts], axis=0)
                        for k in ("tl", "br"))
            prob = np.exp(log_softmax(total))
            guess, conf = prob.argmax(1), prob.max(1)
            wrong = guess != label
            right = ~wrong
            print(f"{split:>8} {name:>13}: top-1 {100 * right.mean():.2f} %, {wrong.sum()} misreads "
                  f"(surest {conf[wrong].max() if wrong.any() else 0:.6f}), "
                  f"{(wrong & (conf >= threshold)).sum()} at or above {threshold}, "
                  f"{100 * (right & (conf < threshold)).sum() / max(right.sum(), 1):.2f} % of right reads asking")


if __name__ == "__main__":
    main()
