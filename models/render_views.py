"""Camera views: real-sized cards on a real-sized table, seen through a webcam's lens.

The scenes of `render_scenes.py` paste cards straight into the frame with a mild
per-card tilt. A webcam on a lamp arm or a phone held by a player sees the whole
table through one perspective: cards far from the lens are smaller and more
foreshortened than near ones, all in the same way, and the lens bends straight edges.
This renderer builds that view:

* the table is a top view in centimetres (cloth: wood or green felt), cards are
  8.8 cm tall with the design's own aspect, laid out as one card, a row of 2-4, or
  eight cards (two loose rows), never overlapping;
* a pinhole camera (horizontal field of view 55-78 degrees, 1280 x 720) looks at the
  cards either from straight above (0-8 degrees off vertical) or at a slant (25-50
  degrees), from a distance that makes the nearest cards 95-200 px tall, turned about
  its axis by up to 6 degrees;
* radial lens distortion (barrel, k1 in [-0.15, 0.02]), then the shared camera model
  of `synth.camera` (exposure, white balance, vignette, glare, cast shadows, blur,
  noise) and JPEG quality 85.

Sidecars have the format of `tests/data/scenes/` (corners through the same camera and
lens), plus the view in `meta`, so `eleusis recognize --check DIR` and
`evaluate.py --scenes DIR` read them.

    render_views.py --out data/views --count 160 --designs heldout --seed 41
"""
from __future__ import annotations

import argparse
import json
import os
import time

import cv2
import numpy as np
from tqdm import tqdm

import render_scenes
import synth

CARD_H_CM = 8.8
W, H = 1280, 720


def layout_cards(rng, kind: str, aspect: float) -> list[np.ndarray]:
    """Card corners [TL, TR, BR, BL] on the table, in centimetres around (0, 0)."""
    w = CARD_H_CM * aspect

    def quad(cx, cy, rot_deg):
        q = synth.card_quad(rng, 0, 0, CARD_H_CM, aspect, rot_deg, 0)
        return q + np.array([cx, cy], np.float32)

    def flip():
        return 180.0 if rng.random() < 0.3 else 0.0

    if kind == "single":
        return [quad(0, 0, rng.uniform(-25, 25) + flip())]
    if kind == "row":
        n = int(rng.integers(2, 5))
        step = w + rng.uniform(0.4, 2.5)
        base = rng.uniform(-6, 6)
        return [quad((i - (n - 1) / 2) * step, rng.uniform(-0.4, 0.4),
                     base + rng.uniform(-4, 4) + flip()) for i in range(n)]
    # eight: two loose rows of four, each card nudged and turned
    out = []
    step_x, step_y = w + rng.uniform(1.0, 3.0), CARD_H_CM + rng.uniform(1.5, 3.5)
    for i in range(8):
        cx = (i % 4 - 1.5) * step_x + rng.uniform(-0.4, 0.4)
        cy = (i // 4 - 0.5) * step_y + rng.uniform(-0.4, 0.4)
        out.append(quad(cx, cy, rng.uniform(-8, 8) + flip()))
    return out


def look_at(rng, view: str, target_px: float, f: float) -> tuple[np.ndarray, np.ndarray, dict]:
    """World-to-camera rotation R (rows: image right, image down, forward) and the
    camera centre C for a camera looking at the table's origin."""
    elev = rng.uniform(0, 8) if view == "above" else rng.uniform(25, 50)
    dist = f * CARD_H_CM / target_px
    az = rng.uniform(0, 2 * np.pi)
    a = np.array([np.cos(az), np.sin(az), 0.0])  # towards the camera's side of the table
    t = np.deg2rad(elev)
    # Table coordinates run x right, y down (as images do), so the side of the table
    # the camera looks at is z < 0 in a right-handed frame: the camera sits at -z.
    c = dist * (np.sin(t) * a + np.array([0.0, 0.0, -np.cos(t)]))
    fwd = -c / np.linalg.norm(c)
    down = a - (a @ fwd) * fwd
    down /= np.linalg.norm(down)
    right = np.cross(down, fwd)
    roll = np.deg2rad(rng.uniform(-6, 6))
    right, down = (np.cos(roll) * right + np.sin(roll) * down,
                   -np.sin(roll) * right + np.cos(roll) * down)
    r = np.stack([right, down, fwd])
    meta = {"view": view, "elevation_deg": round(float(elev), 1), "distance_cm": round(float(dist), 1)}
    return r, c, meta


def distort(pts: np.ndarray, k1: float, f: float, w: int = W, h: int = H) -> np.ndarray:
    """Radial lens distortion of undistorted pixel coordinates (forward model)."""
    n = (pts - [w / 2, h / 2]) / f
    r2 = (n ** 2).sum(-1, keepdims=True)
    return n * (1 + k1 * r2) * f + [w / 2, h / 2]


def undistort_grid(k1: float, f: float, w: int = W, h: int = H) -> np.ndarray:
    """For every output pixel, the undistorted pixel it shows (fixed-point inverse)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    d = np.stack([(xx - w / 2) / f, (yy - h / 2) / f], -1)
    u = d.copy()
    for _ in range(8):
        u = d / (1 + k1 * (u ** 2).sum(-1, keepdims=True))
    return u * f + [w / 2, h / 2]


def render_view(rng, design: synth.Design, kind: str, view: str, size: tuple[int, int] = (W, H)):
    """One view through a camera of `size` pixels. Every length in pixels (card
    heights, texture detail, blur) scales with the frame's height over 720: a
    1920 x 1080 view shows the table of a 1280 x 720 view, through the same lens,
    with 1.5 times the pixels; the random draws are the same for every size."""
    W, H = size  # noqa: N806 (this view's size, under the module's names)
    px = H / 720
    keys = [str(k) for k in rng.choice(synth.CARDS, 8 if kind == "eight" else 4)]
    aspect = design.faces[keys[0]].shape[1] / design.faces[keys[0]].shape[0]
    quads_cm = layout_cards(rng, kind, aspect)
    keys = keys[:len(quads_cm)]
    hfov = rng.uniform(55, 78)
    f = (W / 2) / np.tan(np.deg2rad(hfov / 2))
    k = np.array([[f, 0, W / 2], [0, f, H / 2], [0, 0, 1]])
    k1 = rng.uniform(-0.15, 0.02)
    target = (rng.uniform(95, 150) if kind == "eight" else rng.uniform(110, 200)) * px
    for _ in range(100):
        r, c, meta = look_at(rng, view, target, f)
        shift = rng.uniform(-0.25, 0.25, 2) * np.array([W, H]) * (0.3 if kind == "eight" else 1.0)
        hom_cm = k @ np.column_stack([r[:, 0], r[:, 1], -r @ c])  # table (cm) -> undistorted px
        hom_cm = np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]]) @ hom_cm
        img_quads = [distort(cv2.perspectiveTransform(q.reshape(-1, 1, 2).astype(np.float64),
                                                      hom_cm).reshape(4, 2), k1, f, W, H) for q in quads_cm]
        allp = np.concatenate(img_quads)
        if allp[:, 0].min() > 8 and allp[:, 1].min() > 8 and allp[:, 0].max() < W - 8 and \
                allp[:, 1].max() < H - 8:
            break
        target *= 0.95  # step back until everything is in view
    else:
        raise RuntimeError("no camera pose shows every card")
    # Table texture: the part of the table the frame can show, at about the frame's scale.
    grid = undistort_grid(k1, f, W, H)
    table_pts = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), np.linalg.inv(hom_cm)).reshape(H, W, 2)
    lo = np.percentile(table_pts.reshape(-1, 2), 0.5, axis=0) - 2
    hi = np.percentile(table_pts.reshape(-1, 2), 99.5, axis=0) + 2
    near_px = max(np.linalg.norm(q[3] - q[0]) for q in img_quads)
    ppc = min(40.0 * px, max(12.0 * px, 1.3 * near_px / CARD_H_CM))  # texture pixels per centimetre
    tw, th = int((hi[0] - lo[0]) * ppc), int((hi[1] - lo[1]) * ppc)
    scale_limit = 3500 * px / max(tw, th)
    if scale_limit < 1:  # a far horizon at a strong slant: cap the texture size
        ppc *= scale_limit
        tw, th = int((hi[0] - lo[0]) * ppc), int((hi[1] - lo[1]) * ppc)
    cloth_kind = str(rng.choice(["wood", "green"]))
    tex, cloth_name = synth.cloth(rng, th, tw, cloth_kind)
    to_tex = lambda q: ((q - lo) * ppc).astype(np.float32)  # noqa: E731
    for key, q in zip(keys, quads_cm):
        synth.paste_rgba(tex, design.faces[key], to_tex(q), rng)
    tex = cv2.GaussianBlur(tex, (0, 0), 0.5 * px)  # against aliasing where the view shrinks it
    tex_pts = to_tex(table_pts)
    img = cv2.remap(tex, tex_pts[..., 0], tex_pts[..., 1], cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REFLECT)
    out = synth.camera(img, rng, strength=float(rng.uniform(0.5, 1.0)), jpeg=False, pixel_scale=px)
    cards = [{"card": key, "corners": np.round(synth.normalise_corners(q).astype(np.float64), 1).tolist()}
             for key, q in sorted(zip(keys, img_quads), key=lambda kq: float(kq[1][:, 0].mean()))]
    meta.update({"design": design.name, "cloth": cloth_name, "layout": kind, "size": [W, H],
                 "hfov_deg": round(float(hfov), 1), "k1": round(float(k1), 3)})
    return out, {"cards": cards, "distractors": [], "meta": meta}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--count", type=int, default=160)
    ap.add_argument("--designs", default="heldout", help="split name(s) or design names, comma separated")
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--size", default="1280x720",
                    help="frame size WxH: the same views through a camera of more or fewer pixels "
                         "(1920x1080, what the God console asks a webcam for; 640x360)")
    a = ap.parse_args()
    try:
        size = tuple(int(v) for v in a.size.lower().split("x"))
        if len(size) != 2 or min(size) < 64:
            raise ValueError
    except ValueError:
        raise SystemExit(f"render_views: --size must be WxH, at least 64x64, not {a.size!r}")
    t0 = time.time()
    os.makedirs(a.out, exist_ok=True)
    designs = synth.load_split(a.designs)
    index = []
    for i in tqdm(range(a.count), desc="views"):
        rng = np.random.default_rng([a.seed, i])
        design = designs[int(rng.integers(len(designs)))]
        kind = ["single", "row", "eight"][i % 3]
        view = "above" if (i // 3) % 2 == 0 else "slant"
        img, side = render_view(rng, design, kind, view, size)
        name = f"{i:04d}-{kind}-{view}"
        render_scenes.write(a.out, name, img, side)
        index.append({"image": name + ".jpg", "labels": name + ".json", "design": design.name,
                      "cards": [c["card"] for c in side["cards"]], "view": side["meta"]})
    with open(os.path.join(a.out, "index.json"), "w") as f:
        json.dump({"scenes": index}, f, indent=1)
    print(f"render_views: {a.count} views in {time.time() - t0:.0f} s -> {a.out}")


if __name__ == "__main__":
    main()
