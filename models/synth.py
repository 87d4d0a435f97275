"""The synthetic table renderer shared by training data, test scenes and evaluation.

Everything that makes a webcam frame of a card table lives here: cloths (felt, wood,
patterned, white-ish), card placement with rotation and perspective tilt, drop
shadows, distractors (phone, coaster, hand, paper note), lighting gradients, glare,
cast shadows, blur, sensor noise and JPEG. The recognizer contract (rectification to
160 x 224, index crops) is implemented by `rectify` and `index_crops`, so training
sees exactly what the Rust side will feed the model.

Images are float32 RGB in [0, 1] while composing, uint8 at the end.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FACES = os.path.join(HERE, ".cache", "faces")

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["S", "H", "D", "C"]
# Class index = Card::index(): suit-major S, H, D, C; rank A..K. 52 = not a card.
CARDS = [r + s for s in SUITS for r in RANKS]
NOT_A_CARD = 52
NUM_CLASSES = 53

RECT_W, RECT_H = 160, 224
CROP_W, CROP_H = 40, 72
CARD_W, CARD_H = 40, 56

# Design split by design family (designs sharing art stay on one side).
SPLITS = {
    "train": [
        "anglo", "anglo_bitmap", "anglo_poker", "anglo_modern", "anglo_modern_4_color",
        "atlasnye", "bellot", "svg-cards", "dondorf", "orell", "simplistic", "tango",
    ],
    "val": ["gnomangelo", "gnomangelo_bitmap", "paris", "ornamental"],
    "heldout": ["neoclassical", "neoclassical_4_color", "cardsJS", "younestouati",
                "tigullio", "plastic"],
}
# Procedural decks drawn with system fonts (font_decks.py), for training only.
SPLITS["fonts"] = [f"font-{i:02d}" for i in range(40)]
SPLITS["fonts_big"] = [f"font-{i:02d}" for i in range(40, 56)]  # large indices
SPLITS["fonts_wide"] = [f"font-{i:02d}" for i in range(56, 96)]  # more fonts and suit signs
# Three KDE card decks (fetch.py): validation designs of a second kind, which check the
# confirmation threshold fitted on "val" (model card, "Threshold check"); never trained on.
SPLITS["val_kde"] = ["jolly_royal", "penguins", "kde_standard"]
# Adrian Kennard's cards in four variants (fetch.py): one more real art family, never
# trained on and never used to fit anything, read only to check the committed model
# (model card, "Check on Kennard's cards").
SPLITS["check_kennard"] = ["kennard", "kennard_4_color", "kennard_big", "kennard_big_4_color"]
# Decks whose court cards carry other letters than J, Q, K (fetch.OTHER_LETTER_THEMES):
# labelled as the cards they are (a French R is a king), never trained on, read only
# to measure `--confirm-courts` (model card, "Decks with other court letters").
SPLITS["check_letters"] = ["ancient_french", "berlin", "lattmann", "rheinland"]
# A deck with German suit signs (fetch.OTHER_SUIT_DECKS), read only to measure it.
SPLITS["check_suits"] = ["xskat_german"]
# Fetched but not used: their index cannot be read in the contract's crop box.
# guyenne-classic: court cards carry no rank index at all (suit symbol only).
# tango_nuevo: the index is wider than the 40 x 72 box and the cards are single-headed.
EXCLUDED = ["guyenne-classic", "tango_nuevo"]


# ----------------------------------------------------------------------------- decks

@dataclass
class Design:
    """One deck design: its 52 faces and its non-card images (backs, jokers)."""

    name: str
    faces: dict[str, np.ndarray]  # card -> RGBA float32
    others: list[np.ndarray] = field(default_factory=list)


def _load_rgba(path: str) -> np.ndarray:
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if img is None:
        raise FileNotFoundError(path)
    if img.shape[2] == 3:
        img = np.dstack([img, np.full(img.shape[:2], 255, np.uint8)])
    img = cv2.cvtColor(img, cv2.COLOR_BGRA2RGBA)
    return img.astype(np.float32) / 255.0


def load_design(name: str) -> Design:
    d = os.path.join(FACES, name)
    faces = {c: _load_rgba(os.path.join(d, f"{c}.png")) for c in CARDS}
    others = [_load_rgba(os.path.join(d, f)) for f in sorted(os.listdir(d))
              if f.startswith(("back", "joker"))]
    return Design(name, faces, others)


def load_split(split: str) -> list[Design]:
    names = [n for s in split.split(",") for n in SPLITS.get(s, [s])]
    return [load_design(n) for n in names]


# ----------------------------------------------------------------------------- cloths

def _grid(h, w):
    """Broadcastable pixel coordinates (cheaper than a full mgrid)."""
    return np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]


def _smooth_noise(rng, h, w, cells, channels=1) -> np.ndarray:
    """Low-frequency noise in [-1, 1]: a coarse random grid upsampled."""
    gh, gw = max(2, int(h / cells)), max(2, int(w / cells))
    g = rng.uniform(-1, 1, (gh, gw, channels)).astype(np.float32)
    out = cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
    return out.reshape(h, w, channels)


CLOTH_COLOURS = {
    "green": (0.10, 0.42, 0.18), "blue": (0.12, 0.22, 0.50), "red": (0.55, 0.10, 0.10),
    "grey": (0.45, 0.45, 0.46), "dark": (0.08, 0.08, 0.09), "white": (0.90, 0.89, 0.86),
    "beige": (0.78, 0.70, 0.55), "brown": (0.40, 0.25, 0.14), "purple": (0.30, 0.15, 0.40),
}


def cloth(rng, h, w, kind: str | None = None) -> tuple[np.ndarray, str]:
    """A table cloth or table top: `kind` is felt (random colour), a colour of
    CLOTH_COLOURS, wood or pattern; random when None. Returns (image, label)."""
    kinds = ["felt", "felt", "wood", "wood", "pattern", "white", "dark"]
    kind = kind or str(rng.choice(kinds))
    if kind == "felt" or kind in CLOTH_COLOURS:
        if kind == "felt":
            name = str(rng.choice(list(CLOTH_COLOURS)))
        else:
            name = kind
        base = np.array(CLOTH_COLOURS[name], np.float32) * rng.uniform(0.8, 1.15, 3)
        img = np.ones((h, w, 3), np.float32) * base
        img += _smooth_noise(rng, h, w, rng.uniform(40, 200)) * rng.uniform(0.01, 0.06)
        fine = cv2.GaussianBlur(rng.standard_normal((h, w), dtype=np.float32), (0, 0), 0.8)
        img += fine[..., None] * rng.uniform(0.01, 0.04)
        label = name
    elif kind == "wood":
        base = np.array([rng.uniform(0.35, 0.75), rng.uniform(0.2, 0.45), rng.uniform(0.08, 0.25)],
                        np.float32)
        yy, xx = _grid(h, w)
        ang = rng.uniform(0, np.pi)
        u = xx * float(np.cos(ang)) + yy * float(np.sin(ang))
        v = -xx * float(np.sin(ang)) + yy * float(np.cos(ang))
        warp = _smooth_noise(rng, h, w, rng.uniform(60, 200))[..., 0] * rng.uniform(10, 40)
        grain = np.sin((v + warp) / rng.uniform(3, 12))
        grain += 0.5 * np.sin((v + 0.7 * warp) / rng.uniform(1.5, 4))
        planks = np.floor((v + 1000) / rng.uniform(80, 250)) % 3
        img = base * (1 + 0.12 * grain[..., None] + 0.06 * (planks[..., None] - 1))
        img *= 1 + 0.04 * np.sin(u / rng.uniform(30, 80))[..., None]
        label = "wood"
    else:  # pattern: gingham, stripes or dots
        c1 = rng.uniform(0.05, 0.95, 3).astype(np.float32)
        c2 = np.clip(c1 * rng.uniform(0.3, 0.7) + rng.uniform(0, 0.5, 3), 0, 1).astype(np.float32)
        yy, xx = _grid(h, w)
        ang = rng.uniform(-0.3, 0.3)
        u = xx * float(np.cos(ang)) + yy * float(np.sin(ang))
        v = -xx * float(np.sin(ang)) + yy * float(np.cos(ang))
        p = rng.uniform(12, 60)
        style = rng.integers(3)
        if style == 0:
            m = ((np.floor(u / p) + np.floor(v / p)) % 2)
        elif style == 1:
            m = (np.floor(u / p) % 2)
        else:
            m = (((u % p) - p / 2) ** 2 + ((v % p) - p / 2) ** 2 < (p / 4) ** 2).astype(np.float32)
        m = cv2.GaussianBlur(m.astype(np.float32), (0, 0), 1.0)[..., None]
        img = c1 * (1 - m) + c2 * m
        label = "pattern"
    return np.clip(img, 0, 1).astype(np.float32), label


# ----------------------------------------------------------------------------- geometry

def card_quad(rng, cx, cy, height, aspect, rot_deg, tilt) -> np.ndarray:
    """Corners [TL, TR, BR, BL] of a card of the given size, rotated and tilted.

    Tilt moves each corner by up to `tilt * height` pixels, a mild perspective (camera
    not straight above the table, card slightly bent)."""
    w = height * aspect
    pts = np.array([[-w / 2, -height / 2], [w / 2, -height / 2],
                    [w / 2, height / 2], [-w / 2, height / 2]], np.float32)
    t = np.deg2rad(rot_deg)
    r = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]], np.float32)
    pts = pts @ r.T
    # A perspective: shrink one side (a trapezoid), then jitter corners.
    if tilt > 0:
        side = rng.integers(4)
        k = rng.uniform(0, tilt)
        a, b = side, (side + 1) % 4
        mid = (pts[a] + pts[b]) / 2
        pts[a] = pts[a] + (mid - pts[a]) * k
        pts[b] = pts[b] + (mid - pts[b]) * k
        pts += rng.uniform(-1, 1, (4, 2)).astype(np.float32) * tilt * 0.3 * height
    return pts + np.array([cx, cy], np.float32)


def _quad_homography(src_w, src_h, quad) -> np.ndarray:
    src = np.array([[0, 0], [src_w, 0], [src_w, src_h], [0, src_h]], np.float32)
    return cv2.getPerspectiveTransform(src, quad.astype(np.float32))


def paste_rgba(img, rgba, quad, rng, shadow=True) -> None:
    """Warps an RGBA image onto the quad of `img` (in place), with a drop shadow."""
    h, w = img.shape[:2]
    m = _quad_homography(rgba.shape[1], rgba.shape[0], quad)
    warped = cv2.warpPerspective(rgba, m, (w, h), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    a = warped[:, :, 3:4]
    if shadow:
        dx, dy = rng.uniform(-6, 6, 2)
        sm = np.float32([[1, 0, dx], [0, 1, dy]])
        sh = cv2.warpAffine(warped[:, :, 3], sm, (w, h))
        sh = cv2.GaussianBlur(sh, (0, 0), rng.uniform(2, 7))
        img *= 1 - sh[..., None] * rng.uniform(0.15, 0.45)
    img *= 1 - a
    img += warped[:, :, :3] * a


def _fill_poly(mask, poly, value=1.0):
    cv2.fillPoly(mask, [np.round(poly * 4).astype(np.int32)], value, lineType=cv2.LINE_AA, shift=2)


def _rot_rect(cx, cy, w, h, ang) -> np.ndarray:
    pts = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]], np.float32)
    t = np.deg2rad(ang)
    r = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]], np.float32)
    return pts @ r.T + np.array([cx, cy], np.float32)


def _rounded_rect_mask(h, w, quad, radius_frac, blur=0.8) -> np.ndarray:
    """Anti-aliased mask of a rounded rectangle drawn through `quad`."""
    s = 200
    hh = int(s * np.linalg.norm(quad[3] - quad[0]) / max(1e-3, np.linalg.norm(quad[1] - quad[0])))
    hh = max(20, min(hh, 800))
    tile = np.zeros((hh, s), np.float32)
    r = int(radius_frac * s)
    cv2.rectangle(tile, (r, 0), (s - r, hh), 1, -1)
    cv2.rectangle(tile, (0, r), (s, hh - r), 1, -1)
    for cx, cy in [(r, r), (s - r, r), (s - r, hh - r), (r, hh - r)]:
        cv2.circle(tile, (cx, cy), r, 1, -1, lineType=cv2.LINE_AA)
    m = _quad_homography(s, hh, quad)
    out = cv2.warpPerspective(tile, m, (w, h))
    return cv2.GaussianBlur(out, (0, 0), blur) if blur else out


# ----------------------------------------------------------------------------- distractors

DISTRACTOR_KINDS = ["phone", "coaster", "hand", "note"]


def add_distractor(img, rng, kind, cx, cy, size) -> dict:
    """Draws a distractor centred at (cx, cy), about `size` pixels long; returns its
    sidecar entry (kind and outline polygon)."""
    h, w = img.shape[:2]
    ang = rng.uniform(0, 180)
    if kind == "phone":
        quad = _rot_rect(cx, cy, size * 0.48, size, ang)
        body = _rounded_rect_mask(h, w, quad, 0.12)
        col = rng.uniform(0.02, 0.15) * np.ones(3, np.float32)
        sh = cv2.GaussianBlur(body, (0, 0), 4)
        img *= 1 - 0.35 * sh[..., None]
        img[:] = img * (1 - body[..., None]) + col * body[..., None]
        screen_q = _rot_rect(cx, cy, size * 0.42, size * 0.86, ang)
        screen = _rounded_rect_mask(h, w, screen_q, 0.05)
        if rng.random() < 0.5:  # screen on: a colourful blurry wallpaper
            wall = np.clip(0.3 + _smooth_noise(rng, h, w, size / 3, 3) * 0.5, 0, 1)
        else:
            wall = np.full((h, w, 3), rng.uniform(0.0, 0.08), np.float32)
        img[:] = img * (1 - screen[..., None]) + wall * screen[..., None]
        poly = quad
    elif kind == "coaster":
        r = size / 2
        mask = np.zeros((h, w), np.float32)
        cv2.circle(mask, (int(cx), int(cy)), int(r), 1, -1, lineType=cv2.LINE_AA)
        col = rng.uniform(0.1, 0.9, 3).astype(np.float32)
        sh = cv2.GaussianBlur(mask, (0, 0), 5)
        img *= 1 - 0.3 * sh[..., None]
        img[:] = img * (1 - mask[..., None]) + col * mask[..., None]
        ring = np.zeros((h, w), np.float32)
        cv2.circle(ring, (int(cx), int(cy)), int(r * 0.8), 1, max(1, int(r * 0.06)), lineType=cv2.LINE_AA)
        img[:] = img * (1 - ring[..., None]) + (col * 0.5) * ring[..., None]
        t = np.linspace(0, 2 * np.pi, 16, endpoint=False)
        poly = np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], 1)
    elif kind == "hand":
        skin = np.array([rng.uniform(0.45, 0.95), rng.uniform(0.3, 0.7), rng.uniform(0.2, 0.55)],
                        np.float32)
        skin[1] = min(skin[1], skin[0] * 0.85)
        skin[2] = min(skin[2], skin[1] * 0.9)
        mask = np.zeros((h, w), np.float32)
        t = np.deg2rad(ang)
        d = np.array([np.cos(t), np.sin(t)])
        n = np.array([-d[1], d[0]])
        c = np.array([cx, cy])
        cv2.ellipse(mask, (int(cx), int(cy)), (int(size * 0.32), int(size * 0.26)), ang, 0, 360, 1, -1)
        for i in range(4):  # fingers
            base = c + d * size * 0.25 + n * (i - 1.5) * size * 0.13
            tip = base + d * size * rng.uniform(0.25, 0.4)
            cv2.line(mask, tuple(int(v) for v in base), tuple(int(v) for v in tip), 1,
                     max(2, int(size * 0.1)))
        thumb = c - n * size * 0.28
        cv2.line(mask, tuple(int(v) for v in (c - n * size * 0.1)),
                 tuple(int(v) for v in (thumb + d * size * 0.15)), 1, max(2, int(size * 0.11)))
        arm = c - d * size * 0.7
        cv2.line(mask, (int(cx), int(cy)), (int(arm[0]), int(arm[1])), 1, int(size * 0.45))
        mask = cv2.GaussianBlur(mask, (0, 0), 1.5)
        shade = 1 + 0.12 * _smooth_noise(rng, h, w, size / 4)
        sh = cv2.GaussianBlur(mask, (0, 0), 10)
        img *= 1 - 0.35 * sh[..., None]
        img[:] = img * (1 - mask[..., None]) + (skin * shade) * mask[..., None]
        ys, xs = np.nonzero(mask > 0.5)
        if len(xs):
            poly = np.array([[xs.min(), ys.min()], [xs.max(), ys.min()],
                             [xs.max(), ys.max()], [xs.min(), ys.max()]], np.float32)
        else:
            poly = _rot_rect(cx, cy, size, size, 0)
    else:  # note: a sheet of paper with handwriting-like text
        quad = _rot_rect(cx, cy, size * 0.75, size, ang)
        paper = rng.uniform(0.85, 1.0) * np.array([1, 1, rng.uniform(0.7, 1.0)], np.float32)
        s = 300
        tile = (np.ones((int(s / 0.75), s, 3), np.float32) * paper * 255).astype(np.uint8)
        words = ["total", "round 3", "Ann 12", "Bob 7", "rule?", "odd/even", "Eve 21",
                 "prophet", "J Q K", "7 of", "call 2", "notes", "score", "x4"]
        ink = np.array([0.1, 0.1, rng.uniform(0.1, 0.6)], np.float32)
        y = 40
        while y < tile.shape[0] - 20:
            txt = " ".join(rng.choice(words, rng.integers(1, 4)))
            cv2.putText(tile, txt, (int(rng.integers(10, 40)), y), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
                        rng.uniform(0.8, 1.3), (ink * 255).tolist(), 2, cv2.LINE_AA)
            y += int(rng.integers(35, 55))
        rgba = np.dstack([tile.astype(np.float32) / 255, np.ones(tile.shape[:2], np.float32)])
        paste_rgba(img, rgba, quad, rng)
        poly = quad
    return {"kind": kind, "polygon": np.round(np.asarray(poly, np.float64), 1).tolist()}


# ----------------------------------------------------------------------------- camera

def camera(img, rng, strength=1.0, glare=None, jpeg=True, pixel_scale=1.0) -> np.ndarray:
    """Lighting, glare, cast shadows, blur, noise and JPEG; returns uint8 RGB.

    `glare` forces the number of glare spots, or their centres when a list (random
    when None); `jpeg=False` skips
    the JPEG round trip (for images that are saved as JPEG afterwards);
    `pixel_scale` scales the blurs (in pixels) for frames of more pixels than a
    1280 x 720 one (1.5 for 1920 x 1080: the same lens and the same shake)."""
    h, w = img.shape[:2]
    s = strength
    # Lighting: exposure, white balance, smooth gradient and vignette.
    yy, xx = _grid(h, w)
    ang = rng.uniform(0, 2 * np.pi)
    grad = ((xx - w / 2) * float(np.cos(ang)) + (yy - h / 2) * float(np.sin(ang))) / max(h, w)
    gain = rng.uniform(0.65, 1.2) * (1 + grad * rng.uniform(0, 0.7) * s)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / (max(h, w) / 2) ** 2
    gain *= 1 - rng.uniform(0, 0.3) * s * r2
    img = img * gain[..., None]
    img *= np.array([rng.uniform(0.9, 1.1), 1.0, rng.uniform(0.85, 1.1)], np.float32)
    # Cast shadow (a head, an arm or a lamp post) over part of the frame.
    if rng.random() < 0.35 * s:
        m = np.zeros((h, w), np.float32)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        cv2.ellipse(m, (int(cx), int(cy)), (int(rng.uniform(0.1, 0.5) * w), int(rng.uniform(0.1, 0.5) * h)),
                    rng.uniform(0, 180), 0, 360, 1, -1)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(10, 40) * pixel_scale)
        img *= 1 - rng.uniform(0.2, 0.5) * m[..., None]
    # Glare: bright soft spots of a lamp reflected by glossy cards.
    if glare is None:
        glare = rng.poisson(0.9 * s)
    centres = glare if isinstance(glare, list) else [None] * int(glare)
    for centre in centres:
        m = np.zeros((h, w), np.float32)
        cx, cy = centre if centre is not None else (rng.uniform(0, w), rng.uniform(0, h))
        ax = rng.uniform(0.02, 0.15) * max(h, w)
        cv2.ellipse(m, (int(cx), int(cy)), (int(ax), int(ax * rng.uniform(0.3, 1))), rng.uniform(0, 180),
                    0, 360, 1, -1)
        m = cv2.GaussianBlur(m, (0, 0), ax * rng.uniform(0.2, 0.6))
        k = rng.uniform(0.3, 0.95)
        img = img + (1.05 - img) * (m * k)[..., None]
    img = np.clip(img, 0, 1)
    # Optics: defocus or motion blur.
    if rng.random() < 0.7:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.4 * s + 0.3) * pixel_scale)
    if rng.random() < 0.15 * s:
        k = max(3, round(int(rng.integers(3, 8)) * pixel_scale))
        ker = np.zeros((k, k), np.float32)
        ker[k // 2, :] = 1 / k
        rm = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        ker = cv2.warpAffine(ker, rm, (k, k))
        ker /= max(ker.sum(), 1e-6)
        img = cv2.filter2D(img, -1, ker)
    # Sensor noise (brighter pixels noisier), then JPEG.
    sigma = rng.uniform(0.003, 0.03 * s + 0.004)
    img = img + rng.standard_normal(img.shape, dtype=np.float32) * np.float32(sigma) * (0.5 + img)
    out = (np.clip(img, 0, 1) * 255 + 0.5).astype(np.uint8)
    if not jpeg:
        return out
    q = int(rng.integers(55, 96))
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(out, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, q])
    if not ok:
        raise RuntimeError("jpeg encode failed")
    return cv2.cvtColor(cv2.imdecode(buf, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


# ----------------------------------------------------------------------------- contract

def rectify(img_u8: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Perspective-warps the quad [TL, TR, BR, BL] to a 160 x 224 (w x h) card image."""
    dst = np.array([[0, 0], [RECT_W, 0], [RECT_W, RECT_H], [0, RECT_H]], np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    return cv2.warpPerspective(img_u8, m, (RECT_W, RECT_H), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def index_crops(rect: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two index crops of a rectified card: top-left x in [0,40), y in [0,72), and
    the same box of the card turned by 180 degrees (the bottom-right index, upright)."""
    tl = rect[0:CROP_H, 0:CROP_W]
    br = rect[::-1, ::-1][0:CROP_H, 0:CROP_W]
    return np.ascontiguousarray(tl), np.ascontiguousarray(br)


def whole_card(rect: np.ndarray) -> np.ndarray:
    """The whole rectified card shrunk to 40 x 56 (w x h, area-averaged): the card
    reader's input. Pips and court art are large where the index is a few pixels tall."""
    return cv2.resize(rect, (CARD_W, CARD_H), interpolation=cv2.INTER_AREA)


def jitter_quad(rng, quad: np.ndarray, frac: float) -> np.ndarray:
    """Ground-truth corners moved by up to `frac` of the card height each, simulating
    localisation error (a few pixels at webcam scale)."""
    hgt = np.linalg.norm(quad[3] - quad[0])
    return quad + rng.uniform(-1, 1, (4, 2)).astype(np.float32) * frac * hgt


def order_for_reading(quad: np.ndarray, rng) -> np.ndarray:
    """Either portrait ordering (0 or 180 degrees) is valid by the contract."""
    return np.roll(quad, 2, axis=0) if rng.random() < 0.5 else quad


# ----------------------------------------------------------------------------- scenes

def normalise_corners(quad: np.ndarray) -> np.ndarray:
    """Of the two equivalent portrait orderings (0 and 180 degrees), the one whose first
    corner is nearest the image's top-left: deterministic labels for localisation tests."""
    alt = np.roll(quad, 2, axis=0)
    return alt if alt[0].sum() < quad[0].sum() else quad


def _poly_mask(shape, poly, margin) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    cv2.fillPoly(m, [np.round(poly).astype(np.int32)], 1)
    if margin > 0:
        k = int(2 * margin + 1)
        m = cv2.dilate(m, np.ones((k, k), np.uint8))
    return m


@dataclass
class Layout:
    """What a scene shows: `kind` is single, sequence, spread or distractors."""

    kind: str
    n_cards: int = 1
    card_h: tuple[float, float] = (150, 260)
    n_distractors: int = 0
    cloth: str | None = None
    glare: int | None = None
    tilt: float = 0.12
    max_rot: float = 12.0
    flip_p: float = 0.25


def compose_scene(rng, design: Design, layout: Layout, w=1280, h=720, strength=1.0,
                  jpeg=True):
    """Renders one table frame; returns (uint8 RGB image, sidecar dict)."""
    img, cloth_name = cloth(rng, h, w, layout.cloth)
    occ = np.zeros((h, w), np.uint8)
    placed = []
    ch = rng.uniform(*layout.card_h)
    keys = [str(k) for k in rng.choice(CARDS, layout.n_cards)]

    def try_place(quad, margin):
        if quad[:, 0].min() < 4 or quad[:, 1].min() < 4 or quad[:, 0].max() > w - 4 or \
                quad[:, 1].max() > h - 4:
            return False
        m = _poly_mask((h, w), quad, margin)
        if (m & occ).any():
            return False
        occ[:] |= _poly_mask((h, w), quad, 0)
        return True

    def rot():
        r = rng.uniform(-layout.max_rot, layout.max_rot)
        return r + (180 if rng.random() < layout.flip_p else 0)

    if layout.kind == "sequence":
        for _ in range(200):
            occ[:] = 0
            placed = []
            gap = rng.uniform(0.12, 0.5)
            aspect = design.faces[keys[0]].shape[1] / design.faces[keys[0]].shape[0]
            step = ch * aspect * (1 + gap)
            total = step * (layout.n_cards - 1)
            x0 = rng.uniform(ch, w - ch - total) if w - 2 * ch - total > 0 else w / 2 - total / 2
            y0 = rng.uniform(ch * 0.7, h - ch * 0.7)
            base = rng.uniform(-5, 5)
            ok = True
            for i, k in enumerate(keys):
                f = design.faces[k]
                q = card_quad(rng, x0 + i * step, y0 + rng.uniform(-0.08, 0.08) * ch, ch,
                              f.shape[1] / f.shape[0], base + rot(), layout.tilt)
                if not try_place(q, 3):
                    ok = False
                    break
                placed.append((k, q))
            if ok:
                break
        else:
            raise RuntimeError("could not lay out the sequence")
    elif layout.kind in ("single", "spread"):
        for k in keys:
            f = design.faces[k]
            for _ in range(400):
                q = card_quad(rng, rng.uniform(0, w), rng.uniform(0, h), ch * rng.uniform(0.95, 1.05),
                              f.shape[1] / f.shape[0], rot(), layout.tilt)
                if try_place(q, 4):
                    placed.append((k, q))
                    break
    # Distractors go where no card is.
    distractors = []
    kinds = list(rng.permutation(DISTRACTOR_KINDS))
    for i in range(layout.n_distractors):
        kind = kinds[i % len(kinds)]
        for _ in range(200):
            size = rng.uniform(140, 300)
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            reach = 2.3 if kind == "hand" else 1.1  # a hand has a wrist and fingers around it
            box = _rot_rect(cx, cy, size * reach, size * reach, 0)
            m = _poly_mask((h, w), cv2.convexHull(box.astype(np.float32)).reshape(-1, 2), 0)
            if not (m & occ).any():
                occ[:] |= m
                distractors.append((kind, cx, cy, size))
                break
    dist_entries = [add_distractor(img, rng, kind, cx, cy, size) for kind, cx, cy, size in distractors]
    for k, q in placed:
        paste_rgba(img, design.faces[k], q, rng)
    glare = layout.glare
    if glare and placed:  # put the lamp's reflection on cards
        glare = [tuple(placed[int(rng.integers(len(placed)))][1].mean(0) +
                       rng.uniform(-0.3, 0.3, 2) * ch) for _ in range(glare)]
    out = camera(img, rng, strength, glare=glare, jpeg=jpeg)
    cards = [{"card": k, "corners": np.round(normalise_corners(q).astype(np.float64), 1).tolist()}
             for k, q in sorted(placed, key=lambda kq: float(kq[1][:, 0].mean()))]
    meta = {"design": design.name, "cloth": cloth_name, "layout": layout.kind, "size": [w, h]}
    return out, {"cards": cards, "distractors": dist_entries, "meta": meta}
