"""Step 5, evaluate: judge the exported model (recognizer.onnx + recognizer.json, run by
onnxruntime, so the artefact itself is measured) on crops of each split and on full
rendered scenes, and write eval/report.json.

    evaluate.py                                   # data/{train,val,heldout}.npz
    evaluate.py --scenes DIR [--scenes DIR2]      # also read the cards of labelled scenes
    evaluate.py --splits heldout --threshold T    # judged at another confirmation threshold

For scenes the cards' labelled corners are jittered by up to 2 % of the card height
(the localiser's error), rectified and cut into the two index crops: this measures
reading, not localisation.
"""
from __future__ import annotations

import argparse
import json
import os
import time

import cv2
import numpy as np
import onnxruntime as ort

import pips
import readout
import synth

HERE = os.path.dirname(os.path.abspath(__file__))


def run_batched(sess: ort.InferenceSession, images_u8: np.ndarray, bs: int = 512) -> np.ndarray:
    """uint8 images N x H x W x 3 -> N x 53 logits of an ONNX model, in batches."""
    out = []
    for i in range(0, len(images_u8), bs):
        x = images_u8[i:i + bs].transpose(0, 3, 1, 2).astype(np.float32) / 255.0
        out.append(sess.run(None, {"input": x})[0])
    return np.concatenate(out) if out else np.zeros((0, 53), np.float32)


def time_ms(sess: ort.InferenceSession, x: np.ndarray, runs: int = 50) -> float:
    """Mean milliseconds of one run on `x`, after five warm-up runs."""
    for _ in range(5):
        sess.run(None, {"input": x})
    t = time.perf_counter()
    for _ in range(runs):
        sess.run(None, {"input": x})
    return round((time.perf_counter() - t) / runs * 1000, 3)


class Recognizer:
    def __init__(self, folder: str, threads: int = 2):
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.sess = ort.InferenceSession(os.path.join(folder, "recognizer.onnx"), opts,
                                         providers=["CPUExecutionProvider"])
        with open(os.path.join(folder, "recognizer.json")) as f:
            self.meta = json.load(f)
        # The card reader, when the settings name one (model card, "Card reader").
        self.card = None
        spec = self.meta.get("card_reader")
        if spec:
            self.card = ort.InferenceSession(os.path.join(folder, spec["file"]), opts,
                                             providers=["CPUExecutionProvider"])
        # The pip reader, when the settings name one (model card, "Pips").
        self.pips = None
        spec = self.meta.get("pip_reader")
        if spec:
            self.pips = ort.InferenceSession(os.path.join(folder, spec["file"]), opts,
                                             providers=["CPUExecutionProvider"])

    def pip_logits(self, patches: np.ndarray, target: np.ndarray, n: int) -> list[np.ndarray]:
        """Each of `n` cards' pip patches (patch i belongs to card target[i]) read
        by the pip reader: a list of (patches x 5) logits."""
        z = (self.pips.run(None, {"patches": patches[:, None].astype(np.float32)})[0]
             if len(patches) else np.zeros((0, 5), np.float32))
        return [z[target == i] for i in range(n)]

    def with_pip_check(self, probs: np.ndarray, labels: np.ndarray, heights: np.ndarray,
                       patches: np.ndarray, target: np.ndarray, families,
                       asking: np.ndarray | None = None) -> dict:
        """The reads' measures after the service's pip check (`readout.pip_check`);
        `asking`: reads that ask God whatever their confidence (`one_corner_asks`)."""
        logits = self.pip_logits(patches, target, len(labels))
        pred, asks = readout.pip_check(probs, heights, logits, self.meta["pip_reader"], families,
                                       self.meta["confirm_threshold"], asking)
        if asking is not None:
            asks = asks | asking
        r = readout.report(probs, labels, self.meta["confirm_threshold"], pred=pred, asks=asks)
        return {k: r[k] for k in ("top1", "misreads", "misreads_above_threshold",
                                  "correct_needing_confirmation", "confusions")}


    def whole_terms(self, cards_u8: np.ndarray | None) -> np.ndarray | None:
        """The card reader's term of each read; None without a card reader."""
        if self.card is None:
            return None
        if cards_u8 is None:
            raise SystemExit("evaluate: these crops hold no whole cards, and the model has a "
                             "card reader (render them again with this render_crops.py)")
        spec = self.meta["card_reader"]
        return readout.card_reader_term(run_batched(self.card, cards_u8), spec["temperature"],
                                        spec["weight"])

    def logits(self, crops_u8: np.ndarray) -> np.ndarray:
        """crops N x 72 x 40 x 3 uint8 -> N x 53 logits."""
        return run_batched(self.sess, crops_u8)

    def reads_of(self, l1: np.ndarray, l2: np.ndarray, terms: np.ndarray | None,
                 heights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The reads of cards whose crops' logits are `l1` (top-left) and `l2`, as the
        service reads a card's outline: a card `heights` (its longest side) says is
        big enough from its top-left crop alone where that is sure
        (`readout.sure_corner_first`; without heights, none), else from both crops,
        any card from one legible crop where the other is blank
        (`readout.blank_corner`), and the card reader where the corners leave the
        card unsure (`readout.cascade`). Returns (the reads, which of them came from
        one legible crop beside a blank one: `one_corner_asks`)."""
        t = self.meta["temperature"]
        both_crops = readout.combine(l1, l2, t)
        # The service reads a blank corner on every outline of one card, whatever
        # its size (src/vision/classify/read.rs, `Outline`); these are all one card's.
        corners, one = readout.blank_corner(both_crops, l1, l2, t)
        if terms is not None:
            both = readout.cascade(corners, readout.combine(l1, l2, t, terms),
                                   self.meta["card_reader"].get("below"))
            corners = np.where(one[:, None], corners, both)
        probs = readout.sure_corner_first(corners, l1, t,
                                          self.meta.get("confirm_threshold_one_corner"), heights)
        return probs, one

    def one_corner_asks(self, one: np.ndarray, probs: np.ndarray,
                        heights: np.ndarray | None = None) -> np.ndarray:
        """Which of the reads `probs` that `one` marks as read from one crop beside a
        blank one (`reads_of`) ask God: a read from one crop is held to the
        one-corner threshold, and one of a card shorter than
        `readout.SURE_CORNER_MIN_HEIGHT` always asks (src/vision/recognizer/mod.rs,
        `small_lone_corner`)."""
        alone = self.meta.get("confirm_threshold_one_corner", self.meta["confirm_threshold"])
        # Crops rendered without their card's height (no --pips) could be small:
        # their blank-corner reads ask.
        small = (np.ones(len(one), bool) if heights is None
                 else np.asarray(heights) < readout.SURE_CORNER_MIN_HEIGHT)
        return one & ((probs.max(1) < alone) | small)


def eval_split(rec: Recognizer, path: str, limit: int | None) -> dict:
    d = np.load(path)
    n = len(d["label"]) if limit is None else min(limit, len(d["label"]))
    idx = np.random.default_rng(0).permutation(len(d["label"]))[:n] if limit else np.arange(n)
    l1, l2 = rec.logits(d["tl"][idx]), rec.logits(d["br"][idx])
    heights = d["height"][idx] if "height" in d else None
    probs, one = rec.reads_of(l1, l2, rec.whole_terms(d["card"][idx] if "card" in d else None),
                              heights)
    one_asks = rec.one_corner_asks(one, probs, heights)
    r = readout.report(probs, d["label"][idx], rec.meta["confirm_threshold"], d["design"][idx],
                       d["design_names"], asks=one_asks)
    r["one_corner_reads"] = int(one.sum())
    # As the service reads them, its pip check included (crops rendered with --pips).
    if rec.pips is not None and "pip_patches" in d and limit is None:
        r["with_pip_check"] = rec.with_pip_check(probs, d["label"], d["height"], d["pip_patches"],
                                                 d["pip_target"], d["ink_family"], one_asks)
    # Single-crop calibration, the quantity the temperature was fitted on.
    lt = rec.logits(np.concatenate([d["tl"][idx], d["br"][idx]]))
    p = np.exp(readout.log_softmax(lt / rec.meta["temperature"]))
    y = np.concatenate([d["label"][idx], d["label"][idx]])
    r["single_crop_top1"] = round(float((p.argmax(1) == y).mean()), 6)
    r["single_crop_ece"] = round(readout.ece(p.max(1), p.argmax(1) == y), 6)
    # Held to the one-corner threshold, as a covered card of an overlapping row is.
    one = rec.meta.get("confirm_threshold_one_corner")
    if one is not None:
        right, sure = p.argmax(1) == y, p.max(1) >= one
        r["single_crop_misread_confident"] = int((~right & sure).sum())
        r["single_crop_correct_needing_confirmation"] = round(float((right & ~sure).sum() / max(1, right.sum())), 6)
    return r


def scene_crops(folder: str, seed: int = 11, cuts: list[list] | None = None,
                wholes: list | None = None, pip_cards: list | None = None):
    """The index crops of every labelled card of a scene folder, rectified with the
    labelled corners jittered by up to 2 % of the card height: (top-left crops,
    bottom-right crops, labels, design names, scene count). With `cuts` (a list of
    empty list per cut), also the crop pairs of the second look's cuts of the same
    outline (`readout.second_look_cuts`), appended there per cut; with `wholes`, the
    whole card of the same outline (the card reader's input), appended there; with
    `pip_cards`, the outline's longest side, its card's pip patches and its ink's
    colour family."""
    rng = np.random.default_rng(seed)
    tls, brs, labels, names = [], [], [], []
    files = sorted(f for f in os.listdir(folder) if f.endswith(".json") and f != "index.json")
    for f in files:
        with open(os.path.join(folder, f)) as fh:
            side = json.load(fh)
        img = cv2.imread(os.path.join(folder, f[:-5] + ".jpg"))
        if img is None:
            continue
        img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
        for c in side["cards"]:
            q = synth.jitter_quad(rng, np.array(c["corners"], np.float32), 0.02)
            rect = synth.rectify(img, q)
            tl, br = synth.index_crops(rect)
            if wholes is not None:
                wholes.append(synth.whole_card(rect))
            if pip_cards is not None:
                side_len = max(float(np.linalg.norm(q[i] - q[(i + 1) % 4])) for i in range(4))
                pip_cards.append((side_len, *pips.pips_and_ink_family(rect)))
            if cuts is not None:
                for out, cut in zip(cuts, readout.second_look_cuts(q)):
                    out.append(synth.index_crops(synth.rectify(img, cut)))
            tls.append(tl)
            brs.append(br)
            labels.append(readout.CLASS_NAMES.index(c["card"]))
            names.append(side.get("meta", {}).get("design", "?"))
    empty = np.zeros((0, synth.CROP_H, synth.CROP_W, 3), np.uint8)
    return (np.stack(tls) if tls else empty, np.stack(brs) if brs else empty,
            np.array(labels, np.int64), names, len(files))


def eval_scenes(rec: Recognizer, folder: str) -> dict:
    """Scene reads as the model's first look, plus (`second_look`) the reads after
    the service's second look at unsure card reads."""
    cuts: list[list] = [[] for _ in readout.SECOND_LOOK_SCALE + readout.SECOND_LOOK_SHIFT]
    wholes: list = []
    pip_cards: list = []
    tls, brs, labels, names, n_files = scene_crops(folder, cuts=cuts, wholes=wholes,
                                                   pip_cards=pip_cards)
    if not len(labels):
        return {"reads": 0}
    terms = rec.whole_terms(np.stack(wholes))
    # The first look's logits serve both the first-look read and the second look.
    looks = [(rec.logits(tls), rec.logits(brs))]
    heights = np.array([h for h, _, _ in pip_cards])
    probs, one = rec.reads_of(*looks[0], terms, heights)
    one_asks = rec.one_corner_asks(one, probs, heights)
    uniq = sorted(set(names))
    groups = np.array([uniq.index(n) for n in names])
    threshold = rec.meta["confirm_threshold"]
    r = readout.report(probs, labels, threshold, groups, uniq, asks=one_asks)
    r["one_corner_reads"] = int(one.sum())
    for pairs in cuts:
        looks.append((rec.logits(np.stack([p[0] for p in pairs])),
                      rec.logits(np.stack([p[1] for p in pairs]))))
    # An unsure read was read with the whole card (its corners were less sure than
    # the card reader's `below`, which is above the threshold), so its second look
    # carries the card reader's term too.
    second = readout.second_look(probs, readout.combine_looks(looks, rec.meta["temperature"],
                                                              terms), threshold, one)
    s = readout.report(second, labels, threshold, asks=one_asks)
    r["second_look"] = {k: s[k] for k in ("top1", "misreads", "misreads_above_threshold",
                                          "correct_needing_confirmation")}
    # The service's pip check after the second look (it is the recognizer's last step).
    if rec.pips is not None:
        patches = [p for _, found, _ in pip_cards for p in found]
        target = np.array([i for i, (_, found, _) in enumerate(pip_cards) for _ in found], np.int64)
        r["with_pip_check"] = rec.with_pip_check(
            second, labels, np.array([h for h, _, _ in pip_cards]),
            np.stack(patches) if patches else np.zeros((0, pips.PATCH, pips.PATCH), np.float32), target,
            [f for _, _, f in pip_cards], one_asks)
    r["scenes"] = n_files
    return r


def latency(rec: Recognizer) -> dict:
    """onnxruntime CPU latency of one card (2 crops) and of a 20-card hand (40 crops),
    and of the card reader on one whole card and on 20."""
    rng = np.random.default_rng(0)
    out = {f"batch_{n}_ms": time_ms(rec.sess, rng.random((n, 3, 72, 40), dtype=np.float32))
           for n in (2, 40)}
    if rec.card is not None:
        for n in (1, 20):
            x = rng.random((n, 3, synth.CARD_H, synth.CARD_W), dtype=np.float32)
            out[f"card_reader_batch_{n}_ms"] = time_ms(rec.card, x)
    return out


def summary(name: str, r: dict) -> str:
    s = (f"{name}: {r['reads']} reads, top-1 {100 * r['top1']:.2f} %, misreads {r['misreads']}, "
         f"above threshold {r['misreads_above_threshold']}, "
         f"confirmations of correct reads {100 * r['correct_needing_confirmation']:.2f} %, "
         f"ECE {r['ece']:.4f}")
    if r.get("surest_misread") is not None:
        s += f", surest misread {r['surest_misread']:.6f}"
    if r.get("second_look"):
        t = r["second_look"]
        s += (f"\n  with the second look: top-1 {100 * t['top1']:.2f} %, misreads {t['misreads']}, "
              f"above threshold {t['misreads_above_threshold']}, "
              f"confirmations of correct reads {100 * t['correct_needing_confirmation']:.2f} %")
    if r.get("with_pip_check"):
        t = r["with_pip_check"]
        s += (f"\n  with the pip check: top-1 {100 * t['top1']:.2f} %, misreads {t['misreads']}, "
              f"above threshold {t['misreads_above_threshold']}, "
              f"confirmations of correct reads {100 * t['correct_needing_confirmation']:.2f} %")
    if r.get("confusions"):
        s += "\n  confusions: " + ", ".join(f"{c['true']}->{c['read']} x{c['count']}"
                                            for c in r["confusions"][:8])
    if r.get("per_design"):
        s += "\n  per design: " + ", ".join(f"{k} {100 * v['top1']:.2f} %"
                                            for k, v in r["per_design"].items())
    return s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=HERE)
    ap.add_argument("--data", default=os.path.join(HERE, "data"))
    ap.add_argument("--splits", default="train,val,val_kde,check_kennard,heldout")
    ap.add_argument("--train-limit", type=int, default=4000, help="reads sampled from the train split")
    ap.add_argument("--scenes", action="append", default=[])
    ap.add_argument("--out", default=os.path.join(HERE, "eval", "report.json"))
    ap.add_argument("--threshold", type=float,
                    help="judge at this confirmation threshold instead of recognizer.json's")
    a = ap.parse_args()
    t0 = time.time()
    rec = Recognizer(a.model)
    if a.threshold is not None:
        if not 0.0 < a.threshold <= 1.0:
            raise SystemExit(f"evaluate: --threshold must be in (0, 1], not {a.threshold}")
        rec.meta["confirm_threshold"] = a.threshold
    report = {"model": rec.meta["version"], "temperature": rec.meta["temperature"],
              "confirm_threshold": rec.meta["confirm_threshold"]}
    for split in a.splits.split(","):
        path = os.path.join(a.data, f"{split}.npz")
        if os.path.exists(path):
            report[split] = eval_split(rec, path, a.train_limit if split == "train" else None)
            print(summary(split, report[split]))
    for folder in a.scenes:
        key = "scenes:" + os.path.relpath(folder, HERE)
        report[key] = eval_scenes(rec, folder)
        print(summary(key, report[key]))
    report["onnxruntime_latency"] = latency(rec)
    print("latency", report["onnxruntime_latency"])
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(report, f, indent=1)
    print(f"evaluate: {time.time() - t0:.0f} s -> {a.out}")


if __name__ == "__main__":
    main()
