"""Pips: the suit signs in the middle of a number card, found without a model.

A number card's pips are its suit drawn large: at a webcam's resolution a pip is
four to ten times the size of the suit sign in the index, so its shape says club or
spade where the index no longer can, and it says it in the shape alone, whatever
colour the deck prints its suits in. This module finds the pips of a rectified card
(the contract's 160 x 224 upright card image) and cuts each into a 24 x 24 patch of
ink strength; `src/vision/pips.rs` does exactly the same in the service, and the
pip reader (`train_pips.py`) reads the patches.

Finding pips (all sizes in the rectified card's pixels):

1. paper: the per-channel median of the brighter half of the card's inner pixels
   (8 px in from each edge);
2. ink: a pixel's colour distance from paper, in the search box 6..153 x 6..217,
   above max(40, half the box's 99th percentile distance);
3. blobs: 8-connected ink components of 12 px or more, compact (filling 30 % of
   their bounding box or more, no more than 2.5 times as long as wide), not touching
   the search box's edge (a frame line, a clipped index), and not centred in a
   corner zone (the outer 20 % of the width and 40 % of the height at each corner,
   where the indices are);
4. pips: of those, the blobs whose area is 0.4 to 2.5 times their median area;
5. patches: each pip's ink strength (distance over the 99th percentile, clipped to
   0..1) sampled bilinearly on a 24 x 24 grid centred on its centroid, 1.3 times its
   longer side wide.
"""
from __future__ import annotations

import colorsys

import numpy as np
import cv2

CARD_W, CARD_H = 160, 224
PATCH = 24
SUITS = "SHDC"
NOT_A_PIP = 4
BOX = (6, 153, 6, 217)  # x0, x1, y0, y1 (exclusive ends)
ZONE_X, ZONE_Y = 0.2, 0.4
MIN_AREA = 12
MIN_FILL = 0.3
MAX_ASPECT = 2.5
SIMILAR = (0.4, 2.5)
INK_FLOOR = 40.0
PATCH_SPAN = 1.3


def in_corner_zone(cx, cy):
    """Whether points of the card (`cx`, `cy`: fractions of its width and height,
    numbers or arrays) lie in one of the four corner zones."""
    return ((cx < ZONE_X) | (cx > 1 - ZONE_X)) & ((cy < ZONE_Y) | (cy > 1 - ZONE_Y))


def ink_distance(card: np.ndarray) -> np.ndarray:
    """Colour distance of every pixel of a 224 x 160 x 3 card from its paper colour."""
    f = card.astype(np.float32)
    inner = f[8:-8, 8:-8].reshape(-1, 3)
    lum = inner.sum(1)
    bright = inner[lum >= np.median(lum)]
    paper = np.median(bright, 0)
    return np.sqrt(((f - paper) ** 2).sum(2))


def _ink(card: np.ndarray) -> tuple[np.ndarray, float, float]:
    """A card's ink distances, the search box's 99th percentile of them, and the ink
    threshold drawn from it: max(INK_FLOOR, half of it)."""
    dist = ink_distance(card)
    x0, x1, y0, y1 = BOX
    hi = float(np.percentile(dist[y0:y1, x0:x1], 99))
    return dist, hi, max(INK_FLOOR, 0.5 * hi)


def _bilinear(img: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Samples img at float pixel-index coordinates; 0 outside."""
    h, w = img.shape
    x0 = np.floor(x).astype(np.int64)
    y0 = np.floor(y).astype(np.int64)
    fx = x - x0
    fy = y - y0

    def at(yy, xx):
        ok = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
        v = np.zeros(xx.shape, np.float32)
        v[ok] = img[yy[ok], xx[ok]]
        return v

    return ((1 - fy) * ((1 - fx) * at(y0, x0) + fx * at(y0, x0 + 1))
            + fy * ((1 - fx) * at(y0 + 1, x0) + fx * at(y0 + 1, x0 + 1)))


# The colour family of the pips' ink (`ink_family`): red at least this saturated
# and within this many degrees of red; black less saturated and darker than these.
MIN_INK_PIXELS = 20
RED_SATURATION, RED_HUE = 0.45, 20.0
BLACK_SATURATION, BLACK_VALUE = 0.35, 0.5


def ink_family(card: np.ndarray) -> str | None:
    """"red" (a heart or a diamond), "black" (a spade or a club) or None (neither
    clearly: a four-colour suit, washed-out ink, too little ink): the mean colour of
    the search box's ink pixels outside the corner zones. `src/vision/pips.rs`,
    `ink_family`, does the same."""
    return _family(card, *_ink(card))


def pips_and_ink_family(card: np.ndarray) -> tuple[np.ndarray, str | None]:
    """`find_pips` and `ink_family` of one card, its ink measured once (as
    `src/vision/pips.rs`, `pips_and_ink_family`)."""
    ink = _ink(card)
    return _pips(*ink), _family(card, *ink)


def suit_sum(lp: np.ndarray, min_confidence: float, min_pips: int) -> np.ndarray | None:
    """A card's suit log-probabilities from its pips' log-probabilities `lp` (n x 5),
    as the service sums them (`src/vision/classify/`, `read_pips`): patches read
    as "not a pip", or read less than `min_confidence` sure, are left out, the
    others' suit probabilities renormalised and their logs summed, then normalised;
    None with fewer than `min_pips` (at least one) such patches."""
    if not len(lp):
        return None
    lp = lp[(lp.argmax(1) != NOT_A_PIP) & (np.exp(lp.max(1)) >= min_confidence)]
    if len(lp) < max(1, min_pips):
        return None
    s = (lp[:, :4] - np.logaddexp.reduce(lp[:, :4], axis=1, keepdims=True)).sum(0)
    return s - np.logaddexp.reduce(s)


def _family(card: np.ndarray, dist: np.ndarray, hi: float, t: float) -> str | None:
    x0, x1, y0, y1 = BOX
    box = dist[y0:y1, x0:x1]
    ys, xs = np.mgrid[y0:y1, x0:x1]
    cx, cy = xs / CARD_W, ys / CARD_H
    corner = in_corner_zone(cx, cy)
    m = (box > t) & ~corner
    if m.sum() < MIN_INK_PIXELS:
        return None
    r, g, b = card[y0:y1, x0:x1][m].astype(np.float64).mean(0) / 255.0
    h, s, v = colorsys.rgb_to_hsv(r, g, b)
    hue = h * 360 - 360 if h * 360 > 180 else h * 360
    if s >= RED_SATURATION and abs(hue) <= RED_HUE:
        return "red"
    if s < BLACK_SATURATION and v < BLACK_VALUE:
        return "black"
    return None


def find_pips(card: np.ndarray) -> np.ndarray:
    """The pip patches of a rectified card: an (n, 24, 24) float32 array (n may be 0)."""
    return _pips(*_ink(card))


def _pips(dist: np.ndarray, hi: float, t: float) -> np.ndarray:
    x0, x1, y0, y1 = BOX
    box = dist[y0:y1, x0:x1]
    ink = (box > t).astype(np.uint8)
    n, _, st, cen = cv2.connectedComponentsWithStats(ink, connectivity=8)
    keep = []
    bh_, bw_ = ink.shape
    for i in range(1, n):
        left, top, w, h, area = (int(v) for v in st[i])
        if area < MIN_AREA or area < MIN_FILL * w * h or max(w, h) > MAX_ASPECT * min(w, h):
            continue
        if left == 0 or top == 0 or left + w >= bw_ or top + h >= bh_:
            continue
        cx = (cen[i][0] + x0) / CARD_W
        cy = (cen[i][1] + y0) / CARD_H
        if in_corner_zone(cx, cy):
            continue
        keep.append((area, cen[i][0] + x0, cen[i][1] + y0, max(w, h)))
    if not keep:
        return np.zeros((0, PATCH, PATCH), np.float32)
    med = float(np.median([k[0] for k in keep]))
    norm = np.clip(dist / max(hi, 1.0), 0.0, 1.0).astype(np.float32)
    grid = (np.arange(PATCH, dtype=np.float64) + 0.5 - PATCH / 2)
    out = []
    for area, cx, cy, side in keep:
        if not SIMILAR[0] * med <= area <= SIMILAR[1] * med:
            continue
        step = PATCH_SPAN * side / PATCH
        xs = cx + grid[None, :] * step + np.zeros((PATCH, 1))
        ys = cy + grid[:, None] * step + np.zeros((1, PATCH))
        out.append(_bilinear(norm, xs, ys))
    if not out:
        return np.zeros((0, PATCH, PATCH), np.float32)
    return np.stack(out).astype(np.float32)
