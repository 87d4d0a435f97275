"""Step 1b, font decks: procedural card faces drawn with the system's fonts, added to the
training designs only.

Twelve real training designs teach few ways of printing an index; a club's deck may
use any typeface, index size, placement and suit colours. Each procedural deck draws
rank and suit with its own font, size, weight, squeeze, position, colours (two- or
four-colour), border and centre decoration, and repeats the index upside down at the
bottom-right. Validation and held-out designs stay real artwork only.

Fonts come from Debian packages; `train.sh` installs them. Decks font-00..55 draw
from the first nine (fonts-dejavu-core, fonts-dejavu-extra, fonts-freefont-ttf,
fonts-liberation, fonts-liberation2, fonts-urw-base35, fonts-linuxlibertine, fonts-crosextra-caladea,
fonts-crosextra-carlito), so they stay what they were before more fonts were added.
Decks font-56..95 ("wide" decks) draw their rank from all the packages train.sh
installs (the font folders in WIDE_PACKAGES), one package picked first so that no
family with hundreds of files dominates, and their suit signs from one of the
distinct suit-sign designs of those packages, symbol and mathematical fonts included
(fonts-symbola, fonts-noto-core, fonts-opensymbol, fonts-stix, fonts-texgyre,
fonts-texgyre-math, ...): suit signs drawn by type designers, not by a program.

    font_decks.py --count 56      # font-00..39 ordinary, font-40..55 big indices
    font_decks.py --count 96      # and font-56..95 wide (an experiment, model card)
"""
from __future__ import annotations

import argparse
import glob
import os
import time

import numpy as np
from PIL import Image, ImageDraw, ImageFont

import synth

FONT_DIRS = ["/usr/share/fonts/truetype", "/usr/share/fonts/opentype"]
# The wide decks also find the TeX Gyre fonts where Debian puts them.
WIDE_DIRS = FONT_DIRS + ["/usr/share/texmf/fonts/opentype/public"]
# The packages (font folders) the first 56 decks draw from.
FIRST_PACKAGES = ("crosextra", "dejavu", "freefont", "liberation", "liberation2",
                  "linux-libertine", "urw-base35")
# The font folders the wide decks draw from (what train.sh installs), named so that
# other fonts on a machine do not change the decks.
WIDE_PACKAGES = FIRST_PACKAGES + (
    "ancient-scripts", "andika", "asana-math", "cantarell", "charis", "cmu", "ebgaramond",
    "fonts-oldstandard", "gentium", "hack", "junicode", "lato", "libreoffice", "noto",
    "open-sans", "stix", "stix-word", "tex-gyre", "tex-gyre-math")
# Not for a rank: symbol, math and decorative fonts, and faces too thin to print.
NOT_FOR_RANKS = ("Math", "math", "Symbol", "D050000L", "Z003", "Mono-Oblique", "ExtraLight",
                 "Thin", "Hairline", "opens___", "Symbola", "unifont")
SUIT_CHARS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
H = 336


def _all_files(dirs: list[str]) -> list[str]:
    files = []
    for d in dirs:
        files += glob.glob(os.path.join(d, "**", "*.ttf"), recursive=True)
        files += glob.glob(os.path.join(d, "**", "*.otf"), recursive=True)
    return sorted(files)


def _package(path: str, dirs: list[str]) -> str:
    """The font folder a file sits in (Debian installs one package per folder)."""
    for d in dirs:
        if path.startswith(d + "/"):
            return path[len(d) + 1:].split("/")[0]
    return ""


def font_files() -> list[str]:
    """Rank and suit fonts of the first 56 decks: the first nine packages only."""
    bad = ("Math", "Symbol", "D050000L", "Z003", "Mono-Oblique", "ExtraLight")
    return [f for f in _all_files(FONT_DIRS)
            if _package(f, FONT_DIRS) in FIRST_PACKAGES and not any(b in os.path.basename(f) for b in bad)]


def wide_fonts() -> tuple[list[list[str]], list[list[str]]]:
    """Rank fonts of the wide decks, and one font for each distinct suit-sign design
    (fonts that draw the same signs, as a family's weights often do, count once), both
    grouped by package."""
    files = [f for f in _all_files(WIDE_DIRS) if _package(f, WIDE_DIRS) in WIDE_PACKAGES]
    by_package: dict[str, list[str]] = {}
    for f in files:
        if any(b in os.path.basename(f) for b in NOT_FOR_RANKS):
            continue
        if all(has_glyph(f, c) for c in "Q10"):
            by_package.setdefault(_package(f, WIDE_DIRS), []).append(f)
    designs: dict[bytes, str] = {}
    for f in files:
        if all(has_glyph(f, c) for c in SUIT_CHARS.values()):
            signs = glyph(f, "".join(SUIT_CHARS.values()), 24, squeeze=1.0).resize((64, 16))
            designs.setdefault((np.asarray(signs) > 128).tobytes(), f)
    signs_by_package: dict[str, list[str]] = {}
    for f in sorted(designs.values()):
        signs_by_package.setdefault(_package(f, WIDE_DIRS), []).append(f)
    return ([by_package[k] for k in sorted(by_package)],
            [signs_by_package[k] for k in sorted(signs_by_package)])


def _ink_bbox(font: ImageFont.FreeTypeFont, text: str):
    img = Image.new("L", (font.size * 4, font.size * 3))
    ImageDraw.Draw(img).text((font.size, font.size // 2), text, font=font, fill=255)
    a = np.asarray(img)
    ys, xs = np.nonzero(a > 40)
    if len(xs) == 0:
        return None
    return img.crop((xs.min(), ys.min(), xs.max() + 1, ys.max() + 1))


def has_glyph(path: str, ch: str) -> bool:
    """True when the font draws `ch` as something other than its missing-glyph box."""
    try:
        f = ImageFont.truetype(path, 60)
    except OSError:
        return False
    g = _ink_bbox(f, ch)
    box = _ink_bbox(f, "\uffff")
    if g is None:
        return False
    return box is None or np.asarray(g).shape != np.asarray(box).shape or \
        not np.array_equal(np.asarray(g), np.asarray(box))


def glyph(path: str, text: str, height: int, max_width: int | None = None, squeeze: float = 1.0):
    """The glyphs' ink as an L image `height` pixels tall (width scaled by `squeeze`,
    and narrowed to `max_width`)."""
    f = ImageFont.truetype(path, max(8, int(height * 2.2)))
    g = _ink_bbox(f, text)
    if g is None:
        raise ValueError(f"{path} draws nothing for {text!r}")
    w = max(1, int(g.width * height / g.height * squeeze))
    if max_width and w > max_width:
        w = max_width
    return g.resize((w, height), Image.LANCZOS)


def make_deck(rng, rank_fonts, suit_fonts, out_dir: str, big_index: bool = False) -> None:
    """Draws one deck; `big_index` decks print a large index that fills most of the
    crop box (as some real designs do) and may run past its edge."""
    aspect = rng.uniform(0.64, 0.72)
    W = int(H * aspect)
    paper = tuple(int(255 * v) for v in rng.uniform(0.9, 1.0, 3))
    rfont = str(rng.choice(rank_fonts))
    sfont = str(rng.choice(suit_fonts))
    red = (int(rng.uniform(170, 235)), int(rng.uniform(0, 40)), int(rng.uniform(0, 50)))
    black = tuple(int(v) for v in rng.uniform(0, 50, 3))
    colours = {"S": black, "C": black, "H": red, "D": red}
    if rng.random() < 0.3:  # four-colour deck
        colours["D"] = [(20, 70, 200), (240, 150, 0), (230, 190, 20)][int(rng.integers(3))]
        colours["C"] = (20, int(rng.uniform(110, 160)), 40)
        if rng.random() < 0.5:
            colours["S"] = (20, 40, 140) if colours["D"][2] < 100 else black
    rank_h = int(H * rng.uniform(0.07, 0.13))
    suit_h = int(rank_h * rng.uniform(0.6, 0.95))
    squeeze = rng.uniform(0.75, 1.2)
    cx = W * rng.uniform(0.075, 0.12)
    y0 = int(H * rng.uniform(0.02, 0.05))
    gap = int(H * rng.uniform(0.0, 0.015))
    radius = int(W * rng.uniform(0.03, 0.09))
    border = rng.random() < 0.5
    border_col = tuple(int(v) for v in rng.uniform(0, 160, 3))
    border_in = int(rng.uniform(0, 8))
    pip_h = int(H * rng.uniform(0.09, 0.15))
    court_col = tuple(int(v) for v in rng.uniform(30, 230, 3))
    max_w = int(W * 0.2)
    if big_index:
        rank_h = int(H * rng.uniform(0.13, 0.2))
        suit_h = int(rank_h * rng.uniform(0.5, 0.9))
        cx = W * rng.uniform(0.09, 0.14)
        max_w = int(W * 0.24)
    os.makedirs(out_dir, exist_ok=True)
    for key in synth.CARDS:
        rank, suit = key[:-1], key[-1]
        col = colours[suit]
        face = Image.new("RGBA", (W, H), (0, 0, 0, 0))
        mask = Image.new("L", (W, H), 0)
        ImageDraw.Draw(mask).rounded_rectangle((0, 0, W - 1, H - 1), radius, fill=255)
        face.paste(Image.new("RGBA", (W, H), paper + (255,)), (0, 0), mask)
        d = ImageDraw.Draw(face)
        if border:
            d.rounded_rectangle((border_in, border_in, W - 1 - border_in, H - 1 - border_in),
                                max(1, radius - border_in), outline=border_col, width=1)
        # Centre: pips, a big ace pip, or a court panel.
        ink = Image.new("RGBA", (W, H), col + (0,))
        alpha = Image.new("L", (W, H), 0)
        if rank in ("J", "Q", "K"):
            x0, x1 = int(W * 0.22), int(W * 0.78)
            yy0, yy1 = int(H * 0.15), int(H * 0.85)
            d.rectangle((x0, yy0, x1, yy1), outline=col, width=2)
            for _ in range(6):
                c = tuple(int(v) for v in rng.uniform(20, 240, 3))
                bx, by = rng.uniform(x0, x1), rng.uniform(yy0, yy1)
                r = rng.uniform(5, 25)
                d.ellipse((bx - r, by - r, bx + r, by + r), fill=c)
            d.rectangle((x0 + 4, int(H * 0.45), x1 - 4, int(H * 0.55)), fill=court_col)
            big = glyph(rfont, rank, int(H * 0.14))
            alpha.paste(big, (W // 2 - big.width // 2, int(H * 0.2)))
        else:
            n = 1 if rank == "A" else int(rank)
            ph = int(H * 0.3) if n == 1 else pip_h
            pip = glyph(sfont, SUIT_CHARS[suit], ph)
            cols = [0.5] if n <= 3 else [0.32, 0.68]
            per_col = int(np.ceil(n / len(cols)))
            k = 0
            for ci, xc in enumerate(cols):
                m = min(per_col, n - k)
                for j in range(m):
                    yc = 0.5 if m == 1 else 0.22 + 0.56 * j / (m - 1)
                    p = pip if yc <= 0.5 else pip.rotate(180)
                    alpha.paste(p, (int(W * xc - p.width / 2), int(H * yc - p.height / 2)))
                    k += 1
        # The index, top-left, and the same turned by 180 degrees at the bottom-right.
        r_img = glyph(rfont, rank, rank_h, max_width=max_w, squeeze=squeeze)
        s_img = glyph(sfont, SUIT_CHARS[suit], suit_h)
        idx = Image.new("L", (W, H), 0)
        idx.paste(r_img, (int(cx - r_img.width / 2), y0))
        idx.paste(s_img, (int(cx - s_img.width / 2), y0 + rank_h + gap))
        idx_arr = np.maximum(np.asarray(idx), np.asarray(idx)[::-1, ::-1])
        alpha = Image.fromarray(np.maximum(np.asarray(alpha), idx_arr))
        ink.putalpha(alpha)
        face = Image.alpha_composite(face, ink)
        face.putalpha(Image.fromarray(np.minimum(np.asarray(face)[:, :, 3], np.asarray(mask))))
        face.save(os.path.join(out_dir, f"{key}.png"))
    # A back for the "not a card" class.
    back = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    bc = tuple(int(v) for v in rng.uniform(20, 200, 3))
    bd = ImageDraw.Draw(back)
    bd.rounded_rectangle((0, 0, W - 1, H - 1), radius, fill=paper + (255,))
    bd.rounded_rectangle((8, 8, W - 9, H - 9), radius, fill=bc + (255,))
    step = int(rng.uniform(8, 20))
    for i in range(-H, W + H, step):
        bd.line((i, 8, i + H, H - 8), fill=paper + (255,), width=1)
    back.save(os.path.join(out_dir, "back.png"))


def deck_names(count: int) -> list[str]:
    return [f"font-{i:02d}" for i in range(count)]


# Decks from this number on have big indices; from WIDE_FROM on, ordinary indices in
# the wide font choice.
BIG_FROM = 40
WIDE_FROM = 56


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=56, help="96 also draws the wide decks")
    ap.add_argument("--first", type=int, default=0, help="skip decks below this number")
    ap.add_argument("--seed", type=int, default=5)
    a = ap.parse_args()
    t0 = time.time()
    fonts = font_files()
    suit_fonts = [f for f in fonts if all(has_glyph(f, c) for c in SUIT_CHARS.values())]
    rank_fonts = [f for f in fonts if has_glyph(f, "Q")]
    if not suit_fonts or not rank_fonts:
        raise SystemExit("font_decks: no usable fonts (install the font packages listed above)")
    print(f"font_decks: {len(rank_fonts)} rank fonts, {len(suit_fonts)} suit fonts")
    wide_ranks, wide_suits = wide_fonts() if a.count > WIDE_FROM else ([], [])
    if a.count > WIDE_FROM:
        print(f"font_decks, wide decks: rank fonts of {len(wide_ranks)} packages, "
              f"{sum(map(len, wide_suits))} suit-sign designs of {len(wide_suits)} packages")
    for i, name in enumerate(deck_names(a.count)):
        if i < a.first:
            continue
        rng = np.random.default_rng([a.seed, i])
        if i < WIDE_FROM:
            make_deck(rng, rank_fonts, suit_fonts, os.path.join(synth.FACES, name),
                      big_index=i >= BIG_FROM)
        else:
            ranks = wide_ranks[int(rng.integers(len(wide_ranks)))]
            signs = wide_suits[int(rng.integers(len(wide_suits)))]
            make_deck(rng, ranks, signs, os.path.join(synth.FACES, name))
    print(f"font_decks: {a.count} decks in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
