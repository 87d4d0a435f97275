"""Step 1, fetch: download pinned deck artwork from the package registries and render
every card face (and the card backs) to PNG under models/.cache/faces/<design>/.

Sources (pinned; licences in models/README.md):
  Debian gnome-cards-data (aisleriot themes, 13 x 5 svgz sheets)
  Debian kdegames-card-data-kf5 (KDE card decks, one svgz per deck, one element per card)
  npm cardsJS@1.1.1, @younestouati/playing-cards-standard-deck@3.0.0, svg-cards@4.0.2,
      @heruka_urgyen/react-playing-cards@0.5.0 (Adrian Kennard's cards, four variants)

Faces are written as RGBA PNGs named in the project's notation (QH.png, 10S.png),
plus back*.png and joker*.png where the design has them (used as "not a card").
"""
from __future__ import annotations

import argparse
import glob
import gzip
import io
import os
import shutil
import subprocess
import sys
import tarfile
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, ".cache")
SRC = os.path.join(CACHE, "src")
FACES = os.path.join(CACHE, "faces")

DEBIAN_PACKAGE = "gnome-cards-data"
DEBIAN_VERSION = "1:3.22.23-1"
KDE_PACKAGE = "kdegames-card-data-kf5"
KDE_VERSION = "4:22.12.3-1"
# KDE decks used, as design name -> deck folder under usr/share/carddecks. Left out:
# svg-dondorf, svg-gm-paris, svg-nicu-ornamental, svg-nicu-white and
# svg-tigullio-international (the art of aisleriot themes already split: dondorf,
# paris, ornamental, tigullio), svg-xskat-french (German indices) and
# svg-xskat-german (German suits: rendered as a check only, OTHER_SUIT_DECKS), svg-oxygen (white index on black cards), svg-oxygen-air and
# svg-oxygen-white (the rank sits in the top-right corner), svg-ancient-egyptians (its
# bottom-right index is printed upright, not turned: turned by the reader, a 6 there
# would teach "9"), svg-future (not a playing-card face), svg-konqi-modern (its
# licence covers members of the KDE project only).
KDE_DECKS = {
    "jolly_royal": "svg-jolly-royal",
    "penguins": "svg-penguins",
    "kde_standard": "svg-standard",
}
NPM_PACKAGES = {
    "cardsJS": "cardsJS@1.1.1",
    "younestouati": "@younestouati/playing-cards-standard-deck@3.0.0",
    "svg-cards": "svg-cards@4.0.2",
    "kennard": "@heruka_urgyen/react-playing-cards@0.5.0",
}
# Adrian Kennard's cards (CC0) as that package ships them: design name -> folder under
# package/src/images. One art in four variants: two or four suit colours, and every
# card with the usual index or a big, jumbo one ("bf", big faces). They share their
# art, so they stay on one side of the split (synth.SPLITS["check_kennard"]).
KENNARD_VARIANTS = {
    "kennard": "2color",
    "kennard_4_color": "4color",
    "kennard_big": "2color-bf",
    "kennard_big_4_color": "4color-bf",
}
AISLERIOT_THEMES = [
    "anglo", "anglo_bitmap", "gnomangelo", "gnomangelo_bitmap", "anglo_modern",
    "anglo_modern_4_color", "anglo_poker", "atlasnye", "bellot", "paris", "dondorf",
    "guyenne-classic", "neoclassical", "neoclassical_4_color", "orell", "ornamental",
    "plastic", "simplistic", "tango", "tango_nuevo", "tigullio",
]
# Decks whose court cards carry other letters than J, Q, K (French V, D, R and an
# ace "1"; German B, D, K): never trained on (the classes are English indices),
# read only to measure what `--confirm-courts` is for (model card, "Decks with
# other court letters"; synth.SPLITS["check_letters"]).
OTHER_LETTER_THEMES = ["ancient_french", "berlin", "lattmann", "rheinland"]
# A deck with German suit signs (hearts, leaves, bells, acorns; ranks D, 7 … 10, U,
# O, K), its cards named as Skat maps them (leaves as spades, bells as diamonds,
# acorns as clubs): read only to measure what the model makes of other suits
# (model card, "Decks with other court letters"; synth.SPLITS["check_suits"]).
OTHER_SUIT_DECKS = {"xskat_german": "svg-xskat-german"}
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["S", "H", "D", "C"]
# Aisleriot sheet rows: clubs, diamonds, hearts, spades, then jokers and back.
SHEET_ROWS = ["C", "D", "H", "S"]
CELL_W = 240  # rendered width of one sheet cell in pixels
FACE_H = 336  # faces are stored at this height (aspect ratio of the design kept)


def run(cmd: list[str], cwd: str | None = None) -> None:
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)


def fetch_deb(package: str, version: str, out_dir: str, marker: str) -> None:
    """Downloads one pinned Debian package and unpacks it into `out_dir` (once)."""
    if os.path.isdir(os.path.join(out_dir, marker)):
        return
    spec = f"{package}={version}"
    try:
        run(["apt-get", "download", spec], cwd=SRC)
    except subprocess.CalledProcessError:
        # A fresh machine has no package lists yet.
        run(["apt-get", "update", "-qq"])
        run(["apt-get", "download", spec], cwd=SRC)
    debs = glob.glob(os.path.join(SRC, f"{package}_*.deb"))
    if not debs:
        sys.exit(f"fetch: apt-get download {spec} produced no .deb")
    run(["dpkg-deb", "-x", debs[0], out_dir])


def fetch_sources() -> None:
    os.makedirs(SRC, exist_ok=True)
    fetch_deb(DEBIAN_PACKAGE, DEBIAN_VERSION, os.path.join(SRC, "deb"), "usr/share/aisleriot/cards")
    fetch_deb(KDE_PACKAGE, KDE_VERSION, os.path.join(SRC, "kde"), "usr/share/carddecks")
    for name, spec in NPM_PACKAGES.items():
        out = os.path.join(SRC, name)
        if os.path.isdir(os.path.join(out, "package")):
            continue
        before = set(os.listdir(SRC))
        run(["npm", "pack", "--silent", spec], cwd=SRC)
        tgz = [f for f in set(os.listdir(SRC)) - before if f.endswith(".tgz")]
        if not tgz:
            tgz = [f for f in os.listdir(SRC) if f.endswith(".tgz") and name.lower() in f.lower()]
        os.makedirs(out, exist_ok=True)
        with tarfile.open(os.path.join(SRC, tgz[0])) as tf:
            tf.extractall(out, filter="data")


def rsvg(svg_path: str, png_path: str, width: int | None = None, height: int | None = None) -> None:
    cmd = ["rsvg-convert", "-f", "png", "-o", png_path]
    if width:
        cmd += ["-w", str(width)]
    if height:
        cmd += ["-h", str(height)]
    run(cmd + [svg_path])


def trim_and_save(img: Image.Image, path: str) -> None:
    """Crops to the opaque card and scales it to FACE_H high."""
    img = img.convert("RGBA")
    a = np.asarray(img)[:, :, 3]
    ys, xs = np.nonzero(a > 128)
    if len(xs) == 0:
        raise ValueError(f"empty card image for {path}")
    img = img.crop((xs.min(), ys.min(), xs.max() + 1, ys.max() + 1))
    w = max(1, round(img.width * FACE_H / img.height))
    img = img.resize((w, FACE_H), Image.LANCZOS)
    img.save(path)


def render_aisleriot(theme: str) -> None:
    out = os.path.join(FACES, theme)
    if os.path.exists(os.path.join(out, "KS.png")):
        return
    os.makedirs(out, exist_ok=True)
    svgz = os.path.join(SRC, "deb/usr/share/aisleriot/cards", f"{theme}.svgz")
    svg = os.path.join(CACHE, f"sheet-{theme}.svg")
    with gzip.open(svgz, "rb") as f, open(svg, "wb") as g:
        shutil.copyfileobj(f, g)
    png = os.path.join(CACHE, f"sheet-{theme}.png")
    rsvg(svg, png, width=13 * CELL_W)
    sheet = Image.open(png).convert("RGBA")
    cw, ch = sheet.width / 13, sheet.height / 5
    for r in range(5):
        for c in range(13):
            cell = sheet.crop((round(c * cw), round(r * ch), round((c + 1) * cw), round((r + 1) * ch)))
            if r < 4:
                name = RANKS[c] + SHEET_ROWS[r]
            elif c < 2:
                name = f"joker{c}"
            elif c == 2:
                name = "back"
            else:
                continue
            try:
                trim_and_save(cell, os.path.join(out, f"{name}.png"))
            except ValueError:
                if r < 4:
                    raise
    os.remove(svg)
    os.remove(png)


def render_kde(design: str, deck: str) -> None:
    """One KDE deck: each card is an SVG element named like `king_club` or `1_heart`;
    rsvg renders that element alone, and the opaque card is cut from the result."""
    out = os.path.join(FACES, design)
    if os.path.exists(os.path.join(out, "KS.png")):
        return
    os.makedirs(out, exist_ok=True)
    folder = os.path.join(SRC, "kde/usr/share/carddecks", deck)
    svgz = glob.glob(os.path.join(folder, "*.svgz"))
    if len(svgz) != 1:
        sys.exit(f"fetch: expected one .svgz in {folder}, found {len(svgz)}")
    with gzip.open(svgz[0], "rb") as f:
        svg = f.read()
    ids = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
    suits = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
    names = {r + s: f"{ids.get(r, r)}_{suits[s]}" for r in RANKS for s in SUITS}
    names.update({"back": "back", "joker0": "red_joker", "joker1": "black_joker"})
    for name, element in names.items():
        if name.startswith(("back", "joker")) and f'id="{element}"'.encode() not in svg:
            continue
        trim_and_save(element_png(svg, element, 2 * FACE_H), os.path.join(out, f"{name}.png"))


def element_png(svg: bytes, element: str, height: int) -> Image.Image:
    """One element of an SVG document rendered alone by rsvg-convert, about `height`
    pixels tall. rsvg draws the element where it sits in the document, on a page
    reaching from the document's origin to it: found first at zoom 1, the element is
    then drawn zoomed on a page of its own size."""
    def rsvg_element(*options: str) -> Image.Image:
        p = subprocess.run(["rsvg-convert", "-f", "png", "-i", element, *options],
                           input=svg, capture_output=True, check=False)
        if p.returncode != 0:
            raise RuntimeError(f"rsvg-convert -i {element}: {p.stderr.decode(errors='replace').strip()}")
        return Image.open(io.BytesIO(p.stdout)).convert("RGBA")

    alpha = np.asarray(rsvg_element("-z", "1"))[:, :, 3]
    ys, xs = np.nonzero(alpha > 0)
    if len(xs) == 0:
        raise ValueError(f"element {element} draws nothing")
    zoom = height / (ys.max() - ys.min() + 1)
    pad = 4
    left, top = xs.min() * zoom - pad, ys.min() * zoom - pad
    width = (xs.max() - xs.min() + 1) * zoom + 2 * pad
    tall = (ys.max() - ys.min() + 1) * zoom + 2 * pad
    return rsvg_element("-z", f"{zoom:.5f}", f"--left={-left:.1f}", f"--top={-top:.1f}",
                        f"--page-width={width:.0f}", f"--page-height={tall:.0f}")


def render_files(design: str, files: dict[str, str]) -> None:
    out = os.path.join(FACES, design)
    if os.path.exists(os.path.join(out, "KS.png")):
        return
    # Faces go to a folder of their own first, moved into place whole: a run stopped
    # half-way (a file missing from a package) leaves no design that looks complete.
    part = out + ".part"
    shutil.rmtree(part, ignore_errors=True)
    os.makedirs(part)
    tmp = os.path.join(CACHE, f"tmp-{design}")
    os.makedirs(tmp, exist_ok=True)
    for name, path in files.items():
        p = os.path.join(tmp, name + ".png")
        if path.endswith(".svg"):
            rsvg(path, p, height=FACE_H * 2)
            img = Image.open(p)
        else:
            img = Image.open(path)
        trim_and_save(img, os.path.join(part, f"{name}.png"))
    shutil.rmtree(tmp)
    shutil.rmtree(out, ignore_errors=True)
    os.replace(part, out)


def npm_jobs() -> list[tuple[str, dict[str, str]]]:
    jobs = []
    d = os.path.join(SRC, "cardsJS/package/cards")
    files = {r + s: os.path.join(d, f"{r}{s}.svg") for r in RANKS for s in SUITS}
    files["back"] = os.path.join(d, "Blue_Back.svg")
    files["back1"] = os.path.join(d, "Red_Back.svg")
    jobs.append(("cardsJS", files))
    d = os.path.join(SRC, "younestouati/package/cards")
    files = {r + s: os.path.join(d, f"{i + 1}{s.lower()}.svg") for i, r in enumerate(RANKS) for s in SUITS}
    files["back"] = os.path.join(d, "back.svg")
    files["joker0"] = os.path.join(d, "joker.svg")
    jobs.append(("younestouati", files))
    # svg-cards ships ready PNGs (same art as aisleriot "bellot"); its many backs are
    # useful "not a card" samples.
    d = os.path.join(SRC, "svg-cards/package/png/2x")
    names = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
    suits = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
    files = {}
    for r in RANKS:
        for s in SUITS:
            files[r + s] = os.path.join(d, f"{suits[s]}_{names.get(r, r)}.png")
    for i, b in enumerate(sorted(glob.glob(os.path.join(d, "back*.png")))):
        files[f"back{i}"] = b
    jobs.append(("svg-cards", files))
    # Kennard's files are named like QH.svg, with T for ten; 2J is the joker.
    d = os.path.join(SRC, "kennard/package/src/images")
    for design, folder in KENNARD_VARIANTS.items():
        files = {r + s: os.path.join(d, folder, f"{'T' if r == '10' else r}{s}.svg")
                 for r in RANKS for s in SUITS}
        files["back"] = os.path.join(d, "back.svg")
        files["joker0"] = os.path.join(d, folder, "2J.svg")
        jobs.append((design, files))
    return jobs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.parse_args()
    t0 = time.time()
    if shutil.which("rsvg-convert") is None:
        sys.exit("fetch: rsvg-convert is missing (apt-get install librsvg2-bin)")
    fetch_sources()
    os.makedirs(FACES, exist_ok=True)
    with ThreadPoolExecutor(max_workers=2) as ex:
        futs = [ex.submit(render_aisleriot, t) for t in AISLERIOT_THEMES + OTHER_LETTER_THEMES]
        futs += [ex.submit(render_files, d, f) for d, f in npm_jobs()]
        futs += [ex.submit(render_kde, d, k) for d, k in (KDE_DECKS | OTHER_SUIT_DECKS).items()]
        for f in futs:
            f.result()
    print(f"fetch: {len(os.listdir(FACES))} designs in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
