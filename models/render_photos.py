"""Physical photos: cards on a table, path-traced with Blender's Cycles, through a webcam.

Every other renderer here pastes flat artwork into a flat frame and paints the light
on top. A photo of a real table differs in ways that painting cannot fake, and this
renderer makes them with light transport instead (Blender, Debian package `blender`;
`photo_blender.py` is its half of the work):

* cards are paper: bent by up to 3.5 mm (bowed in the middle or curled at the edges,
  along either side), lying on the cloth with their own soft contact shadows;
* their coating is glossy (most decks) or matte: a lamp's reflection is a real
  specular highlight, shaped and placed by the bend, and half of the frames put the
  lamp where the coating mirrors it into the lens (over a card's index or not, as
  it falls);
* cloth is green felt (rough, with sheen and fibres) or varnished planks of wood
  (its clear coat mirrors the lamp too), both drawn by Blender's own procedural
  textures, so that no texture is shared with the training renders; light comes from a lamp of 2 700-5 000 K, a room's
  ambient light of another colour, sometimes a window, and sometimes an object out
  of frame casts a soft shadow over the cards;
* the camera is the one of `render_views.py` (same layouts and poses: one card, a
  row of 2-4, eight cards; straight above or at a slant of 25-50 degrees) with a
  webcam's small sensor and its depth of field, then what a webcam's processing
  does: automatic exposure metered on the frame's centre (white cards on a dark
  cloth clip), automatic white balance that corrects only part of a lamp's colour,
  sensor noise, barrel lens distortion, sharpening halos and JPEG at quality 60-92.

Sidecars have the format of `tests/data/scenes/` (corners projected through the
camera from the bent mesh's corners, then the lens), so
`eleusis recognize --check DIR` and `evaluate.py --scenes DIR` read them.

    render_photos.py --out data/photos --count 60 --designs heldout --seed 71

Cycles on two CPU cores takes about a minute a frame (`--samples`, default 48; the
path noise left over is part of the sensor noise).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import cv2
import numpy as np
from tqdm import tqdm

import render_scenes
import render_views
import synth

HERE = os.path.dirname(os.path.abspath(__file__))
BLENDER_SCRIPT = os.path.join(HERE, "photo_blender.py")
LINEAR_SCALE = 8.0  # photo_blender.LINEAR_SCALE: stored pixel = linear light / 8
CM = 0.01  # metres
SENSOR_MM = 4.8  # a 1/3-inch webcam sensor's width


def to_world(p_cm: np.ndarray) -> np.ndarray:
    """Table coordinates (cm; x right, y down the image of the table, z into the
    table) to Blender's world (metres; z up): a half turn about x."""
    p = np.asarray(p_cm, np.float64) * CM
    return p * np.array([1.0, -1.0, -1.0])[: p.shape[-1]]


def srgb(x: np.ndarray) -> np.ndarray:
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(np.maximum(x, 0), 1 / 2.4) - 0.055)


def plan_frame(rng, design: synth.Design, kind: str, view: str, work: str, name: str,
               samples: int, size=(render_views.W, render_views.H)) -> tuple[dict, dict]:
    """Everything the Blender half needs for one frame, and what the driver keeps."""
    w_px, h_px = size
    keys = [str(k) for k in rng.choice(synth.CARDS, 8 if kind == "eight" else 4, replace=False)]
    aspect = design.faces[keys[0]].shape[1] / design.faces[keys[0]].shape[0]
    quads_cm = render_views.layout_cards(rng, kind, aspect)
    keys = keys[:len(quads_cm)]
    offset = rng.uniform(-6, 6, 2).astype(np.float32) * (0.3 if kind == "eight" else 1.0)
    quads_cm = [q + offset for q in quads_cm]  # the layout off the point the camera looks at
    hfov = rng.uniform(55, 78)
    f = (w_px / 2) / np.tan(np.deg2rad(hfov / 2))
    k = np.array([[f, 0, w_px / 2], [0, f, h_px / 2], [0, 0, 1]])
    k1 = rng.uniform(-0.15, 0.02)
    target = rng.uniform(95, 150) if kind == "eight" else rng.uniform(110, 200)
    for _ in range(100):
        r, c, meta = render_views.look_at(rng, view, target, f)
        hom_cm = k @ np.column_stack([r[:, 0], r[:, 1], -r @ c])
        img_quads = [render_views.distort(cv2.perspectiveTransform(
            q.reshape(-1, 1, 2).astype(np.float64), hom_cm).reshape(4, 2), k1, f, w_px, h_px) for q in quads_cm]
        allp = np.concatenate(img_quads)
        if allp[:, 0].min() > 12 and allp[:, 1].min() > 12 and allp[:, 0].max() < w_px - 12 and \
                allp[:, 1].max() < h_px - 12:
            break
        target *= 0.95
    else:
        raise RuntimeError("no camera pose shows every card")
    # The table the frame can show (as render_views), capped at 1.5 m from the cards.
    grid = render_views.undistort_grid(k1, f, w_px, h_px)
    table_pts = cv2.perspectiveTransform(grid[::8, ::8].reshape(-1, 1, 2), np.linalg.inv(hom_cm)).reshape(-1, 2)
    lo = np.clip(np.percentile(table_pts, 0.5, axis=0) - 10, -150, 150)
    hi = np.clip(np.percentile(table_pts, 99.5, axis=0) + 10, -150, 150)
    wood = rng.random() < 0.5
    if wood:  # from pale pine to dark walnut, linear RGB
        tone = rng.uniform(0.35, 1.1)
        light = np.array([0.48, 0.23, 0.085]) * tone * rng.uniform(0.85, 1.15, 3)
        dark = light * rng.uniform(0.55, 0.8)
    else:  # green felt, of a dye a little bluer or yellower
        light = np.array([0.012, 0.16, 0.03]) * rng.uniform(0.6, 1.4) * rng.uniform(0.7, 1.3, 3)
        dark = light * rng.uniform(0.7, 0.85)
    table = {
        "kind": "wood" if wood else "felt",
        # World corners: (lo.x, -hi.y) is the min corner.
        "lo": [float(lo[0] * CM), float(-hi[1] * CM)], "hi": [float(hi[0] * CM), float(-lo[1] * CM)],
        "turn_rad": float(rng.uniform(0, np.pi)),
        "colour_dark": dark.tolist(), "colour_light": light.tolist(),
        "grain_scale": float(rng.uniform(30, 80) if wood else rng.uniform(4, 15)),
        "grain_distortion": float(rng.uniform(2, 6)),
        "plank_width_m": float(rng.uniform(0.08, 0.2)), "plank_length_m": float(rng.uniform(0.6, 2.0)),
        "roughness": float(rng.uniform(0.25, 0.5) if wood else rng.uniform(0.85, 1.0)),
        "specular": float(0.5 if wood else 0.2),
        "clearcoat": float(rng.uniform(0.0, 0.6) if wood else 0.0),
        "clearcoat_roughness": float(rng.uniform(0.03, 0.15)),
        "sheen": float(0.0 if wood else rng.uniform(0.3, 1.0)),
        "bump_scale": float(400.0 if wood else 1500.0),
        "bump_strength": float(rng.uniform(0.02, 0.08) if wood else rng.uniform(0.15, 0.4)),
    }
    cloth_name = "wood" if wood else "green"
    glossy = rng.random() < 0.65
    cards = []
    for key, q in zip(keys, quads_cm):
        cards.append({
            "face": os.path.join(synth.FACES, design.name, f"{key}.png"),
            "corners": to_world(q.astype(np.float64)).tolist(),
            "bend_m": float(rng.uniform(0.0, 3.5) * 0.001),
            "bend_shape": str(rng.choice(["bow", "curl"])),
            "bend_axis": str(rng.choice(["width", "height"])),
            "lift_m": 0.0003,
            "roughness": float(rng.uniform(0.15, 0.35) if glossy else rng.uniform(0.45, 0.7)),
            "clearcoat": float(rng.uniform(0.3, 1.0) if glossy else 0.0),
            "clearcoat_roughness": float(rng.uniform(0.02, 0.12)),
        })
    cam_pos = to_world(c)
    right, down, fwd = (to_world(v / CM) for v in r)  # directions: the same half turn
    centres = [to_world(q.mean(0)) for q in quads_cm]
    layout_centre = np.mean(centres, 0)
    focus = float(np.linalg.norm(np.append(layout_centre, 0.0) - cam_pos) * rng.uniform(0.9, 1.1))
    camera = {"position": cam_pos.tolist(), "axes": [right.tolist(), (-down).tolist(), (-fwd).tolist()],
              "sensor_mm": SENSOR_MM, "focal_mm": float(SENSOR_MM * f / w_px), "focus_m": focus,
              "fstop": float(rng.uniform(1.8, 2.8))}
    # The lamp: where the coating mirrors it into the lens (glare) or anywhere above.
    height = rng.uniform(0.6, 1.6)
    mirror = rng.random() < 0.5
    if mirror:
        p = np.append(centres[int(rng.integers(len(centres)))], 0.0)
        p[:2] += rng.uniform(-0.02, 0.02, 2)
        d = (p - cam_pos) / np.linalg.norm(p - cam_pos)
        d[2] = -d[2]  # the ray mirrored by the table's plane, going up
        lamp_pos = p + d * (height / d[2])
    else:
        lamp_pos = np.array([*(layout_centre + rng.uniform(-1.0, 1.0, 2)), height])
    lamps = [{"kind": "point", "position": lamp_pos.tolist(), "radius_m": float(rng.uniform(0.01, 0.12)),
              "watts": float(rng.uniform(40, 160) * (np.linalg.norm(lamp_pos - np.append(layout_centre, 0)) ** 2)),
              "kelvin": float(rng.uniform(2700, 5000))}]
    window = rng.random() < 0.3
    if window:
        side = rng.uniform(0, 2 * np.pi)
        wpos = np.array([*(layout_centre + 2.0 * np.array([np.cos(side), np.sin(side)])), rng.uniform(1.0, 2.0)])
        lamps.append({"kind": "area", "position": wpos.tolist(), "target": [*layout_centre.tolist(), 0.0],
                      "size_m": [1.2, 1.0], "watts": float(rng.uniform(150, 600)),
                      "kelvin": float(rng.uniform(5500, 7500))})
    occluders = []
    if rng.random() < 0.35:
        p = np.append(centres[int(rng.integers(len(centres)))] + rng.uniform(-0.06, 0.06, 2), 0.0)
        t = rng.uniform(0.3, 0.7)
        occluders.append({"position": (p + (lamp_pos - p) * t).tolist(),
                          "size_m": [float(rng.uniform(0.04, 0.2)), float(rng.uniform(0.04, 0.25)), 0.03],
                          "turn_rad": float(rng.uniform(0, np.pi))})
    frame = {"size": [w_px, h_px], "seed": int(rng.integers(1 << 30)), "samples": samples,
             "table": table, "cards": cards, "camera": camera, "lamps": lamps,
             "ambient": {"kelvin": float(rng.uniform(3000, 7000)), "strength": float(rng.uniform(0.03, 0.3))},
             "occluders": occluders,
             "linear_png": os.path.join(work, name + "-linear.png"),
             "corners_out": os.path.join(work, name + "-corners.json")}
    meta.update({"design": design.name, "cloth": cloth_name, "layout": kind, "size": [w_px, h_px],
                 "hfov_deg": round(float(hfov), 1), "k1": round(float(k1), 3), "renderer": "cycles",
                 "coating": "glossy" if glossy else "matte", "lamp_mirrored": bool(mirror),
                 "window": bool(window), "shadow": bool(occluders),
                 "bend_mm": [round(cd["bend_m"] * 1000, 1) for cd in cards]})
    keep = {"keys": keys, "k1": float(k1), "f": float(f), "meta": meta,
            "awb": float(rng.uniform(0.4, 0.9)), "mean_target": float(rng.uniform(0.12, 0.24)),
            "headroom": float(rng.uniform(0.95, 1.6)), "shot": float(rng.uniform(0.0003, 0.003)),
            "read": float(rng.uniform(0.001, 0.006)), "sharpen": float(rng.uniform(0.0, 0.9)),
            "quality": int(rng.integers(60, 93)), "noise_seed": int(rng.integers(1 << 30))}
    return frame, keep


def develop(linear: np.ndarray, keep: dict) -> np.ndarray:
    """What a webcam makes of the light on its sensor: white balance, exposure,
    noise, tone curve, lens, sharpening (JPEG is the writer's). Returns uint8 RGB."""
    rng = np.random.default_rng(keep["noise_seed"])
    h, w = linear.shape[:2]
    img = linear.astype(np.float32)
    # Automatic white balance, part of the way, from the bright near-neutral pixels
    # (cards, a lamp's reflection): what a webcam takes for white under a warm lamp.
    flat = img.reshape(-1, 3)
    lum = flat.sum(1) + 1e-6
    chroma = np.abs(flat / lum[:, None] - 1 / 3).sum(1)
    bright = lum >= np.percentile(lum, 90)
    neutral = flat[bright & (chroma <= np.percentile(chroma[bright], 30))]
    means = (neutral if len(neutral) >= 100 else flat).mean(0) + 1e-6
    img *= (means.mean() / means) ** keep["awb"]
    # Automatic exposure metered on the centre; a little headroom over the brightest
    # 0.5 %, never more than the mean asks for: white cards on a dark cloth clip.
    lum = img @ np.array([0.2126, 0.7152, 0.0722], np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    weight = np.exp(-(((xx - w / 2) / (0.35 * w)) ** 2 + ((yy - h / 2) / (0.35 * h)) ** 2))
    mean = float((lum * weight).sum() / weight.sum())
    gain = keep["mean_target"] / max(mean, 1e-6)
    gain = min(gain, keep["headroom"] / max(float(np.percentile(lum, 99.5)), 1e-6))
    img *= gain
    # Shot and read noise, in linear light.
    img += rng.standard_normal(img.shape, dtype=np.float32) * np.sqrt(keep["shot"] * np.maximum(img, 0)
                                                                          + keep["read"] ** 2)
    out = srgb(np.clip(img, 0, 1)).astype(np.float32)
    # The lens: barrel distortion (render_views' model; labels go through it too).
    grid = render_views.undistort_grid(keep["k1"], keep["f"], w, h).astype(np.float32)
    out = cv2.remap(out, grid[..., 0], grid[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    # Sharpening, as webcams do: halos along edges.
    if keep["sharpen"] > 0:
        out = out + keep["sharpen"] * (out - cv2.GaussianBlur(out, (0, 0), 1.2))
    return (np.clip(out, 0, 1) * 255 + 0.5).astype(np.uint8)


def run_blender(job_path: str, n: int, blender: str) -> None:
    cmd = [blender, "-b", "--factory-startup", "-noaudio", "-P", BLENDER_SCRIPT, "--", job_path]
    log_path = job_path + ".log"
    with open(log_path, "w") as log, tqdm(total=n, desc="path tracing") as bar:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert proc.stdout is not None
        for line in proc.stdout:
            log.write(line)
            if line.startswith("photo_blender: frame"):
                bar.update(1)
        rc = proc.wait()
    if rc != 0 or bar.n != n:
        raise SystemExit(f"render_photos: Blender stopped (exit {rc}) after {bar.n} of {n} frames; see {log_path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--designs", default="heldout", help="split name(s) or design names, comma separated")
    ap.add_argument("--seed", type=int, default=71)
    ap.add_argument("--samples", type=int, default=48, help="Cycles samples per pixel")
    ap.add_argument("--threads", type=int, default=0, help="Cycles threads (0: all cores)")
    ap.add_argument("--first", type=int, default=0, help="render frames first..first+count-1 of the seed's sequence")
    ap.add_argument("--blender", default=shutil.which("blender") or "blender")
    a = ap.parse_args()
    if not shutil.which(a.blender) and not os.path.exists(a.blender):
        raise SystemExit("render_photos: Blender not found (Debian: apt-get install blender)")
    t0 = time.time()
    os.makedirs(a.out, exist_ok=True)
    work = os.path.join(a.out, ".work")
    os.makedirs(work, exist_ok=True)
    designs = synth.load_split(a.designs)
    frames, kept, names = [], [], []
    for i in tqdm(range(a.first, a.first + a.count), desc="planning"):
        rng = np.random.default_rng([a.seed, i])
        design = designs[int(rng.integers(len(designs)))]
        kind = ["single", "row", "eight"][i % 3]
        view = "above" if (i // 3) % 2 == 0 else "slant"
        name = f"{i:04d}-{kind}-{view}"
        frame, keep = plan_frame(rng, design, kind, view, os.path.abspath(work), name, a.samples)
        frames.append(frame)
        kept.append(keep)
        names.append(name)
    job_path = os.path.join(work, "job.json")
    with open(job_path, "w") as f:
        json.dump({"frames": frames, "threads": a.threads}, f)
    run_blender(job_path, len(frames), a.blender)
    index_path = os.path.join(a.out, "index.json")
    index = []
    if os.path.exists(index_path):  # runs of other frame ranges add to the same set
        with open(index_path) as f:
            index = [s for s in json.load(f)["scenes"] if s["image"][:-4] not in names]
    for name, frame, keep in zip(tqdm(names, desc="developing"), frames, kept):
        raw = cv2.imread(frame["linear_png"], cv2.IMREAD_UNCHANGED)
        if raw is None:
            raise SystemExit(f"render_photos: {frame['linear_png']} is missing")
        linear = cv2.cvtColor(raw, cv2.COLOR_BGR2RGB).astype(np.float32) / 65535.0 * LINEAR_SCALE
        img = develop(linear, keep)
        with open(frame["corners_out"]) as f:
            projected = np.array(json.load(f), np.float64)
        w_px, h_px = frame["size"]
        quads = [render_views.distort(q, keep["k1"], keep["f"], w_px, h_px) for q in projected]
        cards = [{"card": key, "corners": np.round(synth.normalise_corners(q), 1).tolist()}
                 for key, q in sorted(zip(keep["keys"], quads), key=lambda kq: float(kq[1][:, 0].mean()))]
        side = {"cards": cards, "distractors": [], "meta": keep["meta"]}
        render_scenes.write(a.out, name, img, side, quality=keep["quality"])
        index.append({"image": name + ".jpg", "labels": name + ".json", "design": keep["meta"]["design"],
                      "cards": [c["card"] for c in cards], "view": keep["meta"]})
    index.sort(key=lambda s: s["image"])
    with open(index_path, "w") as f:
        json.dump({"scenes": index}, f, indent=1)
    shutil.rmtree(work)
    print(f"render_photos: {len(names)} photos in {time.time() - t0:.0f} s -> {a.out}")


if __name__ == "__main__":
    sys.exit(main())
