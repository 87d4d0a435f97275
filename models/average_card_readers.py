"""One card reader from several: writes an ONNX file whose logits are the mean of the
given card readers' logits (each trained with `train_card.py --seed N --out DIR`), so
that the service reads the average as it reads one card reader (same input, same
output, the `card_reader` contract of the model card), at the cost of running every
member on each card it reads. Index models (`recognizer.onnx`, from `train.py`) are
averaged the same way into one index model; they are checked on the validation
designs' index crops instead of their whole cards.

    average_card_readers.py OUT.onnx card_reader.onnx /tmp/s1/card_reader.onnx …
    average_card_readers.py DIR/recognizer.onnx recognizer.onnx data/gpu-B-s0/recognizer.onnx

It checks the written file: onnxruntime's logits on the validation cards must equal
the mean of the members' to 1e-4. Then calibrate the model folder holding OUT as
`card_reader.onnx` (`calibrate.py --model DIR`). Tried and not kept (model card,
"Card reader"); kept for the record and for anyone who trains more members.
"""
from __future__ import annotations

import argparse
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

import synth
from train import load_crops, to_float
from train_card import load_cards

HERE = os.path.dirname(os.path.abspath(__file__))


def average(files: list[str]) -> onnx.ModelProto:
    """The members' graphs side by side on one input, their logits summed and scaled
    by 1 / n (Add and Mul)."""
    first = onnx.load(files[0])
    nodes, initializers, outputs = [], [], []
    for i, path in enumerate(files):
        member = onnx.load(path)
        if member.graph.input[0].type != first.graph.input[0].type:
            raise SystemExit(f"average_card_readers: {path} takes another input than {files[0]}")
        member = onnx.compose.add_prefix(member, f"m{i}_")
        inp = member.graph.input[0].name
        for node in member.graph.node:
            node.input[:] = [first.graph.input[0].name if x == inp else x for x in node.input]
            nodes.append(node)
        initializers.extend(member.graph.initializer)
        outputs.append(member.graph.output[0].name)
    total = outputs[0]
    for i, out in enumerate(outputs[1:]):
        nodes.append(helper.make_node("Add", [total, out], [f"sum_{i}"]))
        total = f"sum_{i}"
    initializers.append(numpy_helper.from_array(np.array(1.0 / len(files), np.float32), "one_over_n"))
    nodes.append(helper.make_node("Mul", [total, "one_over_n"], [first.graph.output[0].name]))
    graph = helper.make_graph(nodes, "card_reader_mean", [first.graph.input[0]],
                              [first.graph.output[0]], initializers)
    model = helper.make_model(graph, opset_imports=first.opset_import)
    model.ir_version = first.ir_version
    onnx.checker.check_model(model)
    return model


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="the averaged card reader's file")
    ap.add_argument("members", nargs="+", help="card reader files (train_card.py's card_reader.onnx), "
                    "or index model files (train.py's recognizer.onnx), all of one kind")
    ap.add_argument("--data", default=os.path.join(HERE, "data"))
    a = ap.parse_args()
    if len(a.members) < 2:
        raise SystemExit("average_card_readers: give two or more card readers")
    for path in a.members:
        if not os.path.exists(path):
            raise SystemExit(f"average_card_readers: no card reader at {path}")
    model = average(a.members)
    onnx.save(model, a.out)
    height = model.graph.input[0].type.tensor_type.shape.dim[2].dim_value
    if height == synth.CARD_H:
        x, y = load_cards([os.path.join(a.data, "val.npz")])
    else:  # index models: the validation index crops, both corners
        x, y = load_crops(os.path.join(a.data, "val.npz"))
    xv = to_float(x).numpy()
    y = y.numpy()

    def run(path: str) -> np.ndarray:
        return ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"input": xv})[0]

    logits = [run(p) for p in a.members]
    mean = run(a.out)
    diff = float(np.abs(mean - np.mean(logits, axis=0)).max())
    for path, lg in zip(a.members, logits):
        print(f"{path}: validation reads alone {100 * (lg.argmax(1) == y).mean():.2f} %")
    print(f"{a.out}: {100 * (mean.argmax(1) == y).mean():.2f} %, "
          f"max |difference from the members' mean| {diff:.1e}")
    if diff > 1e-4:
        raise SystemExit("average_card_readers: the written graph disagrees with its members")


if __name__ == "__main__":
    main()
