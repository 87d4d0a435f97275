//! Pips: a number card's suit signs in the middle of the card, found without a
//! model and cut into patches for the pip reader.
//!
//! At a webcam's resolution the suit sign of an index is a few pixels wide, and a
//! club can look like a spade there, or a faint four-colour club like a diamond,
//! surely enough that the index model's read does not ask God. The pips of a number
//! card are the same suit drawn four to ten times larger. [`find_pips`] finds them
//! on the rectified card and cuts each into a 24 × 24 patch of ink strength —
//! colour left out on purpose, so that a green club is read as the club it is drawn
//! as — exactly as `models/pips.py` does for training; the pip reader
//! (`models/pips.onnx`, [`super::classify::Classifier::read_pips`]) reads them,
//! and the recognizer asks God to confirm a number card whose pips deny its suit.
//!
//! All sizes below are the rectified card's pixels (160 × 224).

use image::{GrayImage, Luma, RgbImage};
use imageproc::region_labelling::{connected_components, Connectivity};

use super::rectify::{CARD_H, CARD_W};
use crate::cards::Suit;

/// Side of a pip patch.
pub const PATCH: usize = 24;
/// Floats in one patch `[1, 24, 24]`.
pub const PATCH_LEN: usize = PATCH * PATCH;
/// The search box `x0, x1, y0, y1` (ends excluded): the card less a thin margin,
/// where its edge and the cloth beyond it could pass for ink.
const BOX: (usize, usize, usize, usize) = (6, 153, 6, 217);
/// The paper colour is measured this far in from every edge.
const PAPER_INSET: usize = 8;
/// A corner zone: the outer fraction of the width and of the height at each
/// corner, where the indices are; a blob centred there is not a pip.
const ZONE_X: f64 = 0.2;
const ZONE_Y: f64 = 0.4;

/// Whether a point of the card, `x` and `y` as fractions of its width and height,
/// lies in one of the four corner zones.
fn in_corner_zone(x: f64, y: f64) -> bool {
    !(ZONE_X..=1.0 - ZONE_X).contains(&x) && !(ZONE_Y..=1.0 - ZONE_Y).contains(&y)
}
/// The least area of a pip, in pixels: specks of noise and print are smaller.
const MIN_AREA: usize = 12;
/// The least share of its bounding box a pip fills, and the most it is longer
/// than wide: frame lines and court art's strokes are thinner.
const MIN_FILL: f64 = 0.3;
const MAX_ASPECT: f64 = 2.5;
/// Ink is at least this far from paper (colour distance, 0..441), and at least
/// half the 99th percentile distance in the box.
const INK_FLOOR: f32 = 40.0;
/// A pip's area lies between these multiples of the median blob's.
const SIMILAR: (f64, f64) = (0.4, 2.5);
/// A patch spans this many times a pip's longer side.
const PATCH_SPAN: f64 = 1.3;

/// The median of `v` as numpy's `median` computes it (the mean of the two middle
/// values of an even count); `v` is reordered. `None` when empty.
fn median(v: &mut [f32]) -> Option<f32> {
    let n = v.len();
    if n == 0 {
        return None;
    }
    let mid = n / 2;
    let (low, m, _) = v.select_nth_unstable_by(mid, f32::total_cmp);
    let hi = *m;
    if n % 2 == 1 {
        return Some(hi);
    }
    let lo = low.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    Some((lo + hi) / 2.0)
}

/// The `q`-th percentile (0..100) of `v` with linear interpolation, as numpy's
/// `percentile`; `v` is reordered. `None` when empty.
fn percentile(v: &mut [f32], q: f64) -> Option<f32> {
    let n = v.len();
    if n == 0 {
        return None;
    }
    let pos = (n - 1) as f64 * q / 100.0;
    let lo = pos.floor() as usize;
    let frac = (pos - lo as f64) as f32;
    let (_, a, rest) = v.select_nth_unstable_by(lo, f32::total_cmp);
    let a = *a;
    if lo + 1 >= n || frac == 0.0 {
        return Some(a);
    }
    let b = rest.iter().copied().fold(f32::INFINITY, f32::min);
    Some(a + (b - a) * frac)
}

/// Every pixel's colour distance from the card's paper: the per-channel median of
/// the brighter half of the pixels [`PAPER_INSET`] in from the edges (by the sum
/// of their channels), so that pips, index and art do not shift it.
fn ink_distance(card: &RgbImage) -> Vec<f32> {
    let (w, h) = (card.width() as usize, card.height() as usize);
    let raw = card.as_raw();
    let inner: Vec<[f32; 3]> = (PAPER_INSET..h - PAPER_INSET)
        .flat_map(|y| (PAPER_INSET..w - PAPER_INSET).map(move |x| (y, x)))
        .map(|(y, x)| {
            let i = 3 * (y * w + x);
            [raw[i], raw[i + 1], raw[i + 2]].map(f32::from)
        })
        .collect();
    let mut lum: Vec<f32> = inner.iter().map(|p| p[0] + p[1] + p[2]).collect();
    let cut = median(&mut lum).unwrap_or(0.0);
    let bright: Vec<&[f32; 3]> = inner.iter().filter(|p| p[0] + p[1] + p[2] >= cut).collect();
    let paper = [0, 1, 2].map(|c| {
        let mut ch: Vec<f32> = bright.iter().map(|p| p[c]).collect();
        median(&mut ch).unwrap_or(255.0)
    });
    raw.chunks_exact(3)
        .map(|p| {
            let d: f32 = (0..3).map(|c| (f32::from(p[c]) - paper[c]).powi(2)).sum();
            d.sqrt()
        })
        .collect()
}

/// One 8-connected blob of ink: its area, bounding box and centroid (card pixels).
#[derive(Debug, Clone, Copy)]
struct Blob {
    area: usize,
    left: usize,
    top: usize,
    right: usize,
    bottom: usize,
    sum_x: f64,
    sum_y: f64,
}

impl Blob {
    fn width(&self) -> usize {
        self.right - self.left + 1
    }
    fn height(&self) -> usize {
        self.bottom - self.top + 1
    }
    fn centre(&self) -> (f64, f64) {
        (self.sum_x / self.area as f64, self.sum_y / self.area as f64)
    }

    /// Shaped like a pip: large enough, compact, clear of the box's edge and of
    /// the corner zones (`bw`, `bh`: the box's size; coordinates are the box's).
    fn pip_shaped(&self, bw: usize, bh: usize) -> bool {
        let (w, h) = (self.width(), self.height());
        if self.area < MIN_AREA || (self.area as f64) < MIN_FILL * (w * h) as f64 {
            return false;
        }
        if w.max(h) as f64 > MAX_ASPECT * w.min(h) as f64 {
            return false;
        }
        if self.left == 0 || self.top == 0 || self.right + 1 >= bw || self.bottom + 1 >= bh {
            return false;
        }
        let (cx, cy) = self.centre();
        let x = (cx + BOX.0 as f64) / f64::from(CARD_W);
        let y = (cy + BOX.2 as f64) / f64::from(CARD_H);
        !in_corner_zone(x, y)
    }
}

/// Samples `img` (`w` wide) bilinearly at pixel-index coordinates, 0 outside.
fn bilinear(img: &[f32], w: usize, h: usize, x: f64, y: f64) -> f32 {
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = ((x - x0) as f32, (y - y0) as f32);
    let at = |yy: f64, xx: f64| {
        if xx < 0.0 || yy < 0.0 || xx >= w as f64 || yy >= h as f64 {
            0.0
        } else {
            img[yy as usize * w + xx as usize]
        }
    };
    (1.0 - fy) * ((1.0 - fx) * at(y0, x0) + fx * at(y0, x0 + 1.0))
        + fy * ((1.0 - fx) * at(y0 + 1.0, x0) + fx * at(y0 + 1.0, x0 + 1.0))
}

/// The 99th percentile of the search box's ink distances, and the ink threshold
/// drawn from it: max([`INK_FLOOR`], half of it).
fn ink_threshold(dist: &[f32]) -> (f32, f32) {
    let w = CARD_W as usize;
    let (x0, x1, y0, y1) = BOX;
    let mut in_box: Vec<f32> = (y0..y1)
        .flat_map(|y| dist[y * w + x0..y * w + x1].iter().copied())
        .collect();
    let hi = percentile(&mut in_box, 99.0).unwrap_or(0.0);
    (hi, INK_FLOOR.max(0.5 * hi))
}

/// The colour family a card's ink belongs to, where it can be told: red ink is a
/// heart or a diamond, black ink a spade or a club, in a two-colour deck and in a
/// four-colour one alike (whose blue, green or yellow suits are neither).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InkFamily {
    Red,
    Black,
}

impl InkFamily {
    /// Whether a card of `suit` can be printed in ink of this family.
    pub fn allows(self, suit: Suit) -> bool {
        match self {
            InkFamily::Red => matches!(suit, Suit::Hearts | Suit::Diamonds),
            InkFamily::Black => matches!(suit, Suit::Spades | Suit::Clubs),
        }
    }
}

/// The fewest ink pixels whose colour says anything.
const MIN_INK_PIXELS: usize = 20;
/// Red ink: saturation at least this, hue within this many degrees of red.
const RED_SATURATION: f64 = 0.45;
const RED_HUE: f64 = 20.0;
/// Black ink: saturation and value (0..1) below these.
const BLACK_SATURATION: f64 = 0.35;
const BLACK_VALUE: f64 = 0.5;

/// The colour family of the ink in the middle of a rectified card (the pips'
/// ink: the search box's ink pixels outside the index corners, averaged), or
/// `None` when it is neither clearly red nor clearly black: a four-colour suit,
/// ink washed out by glare, too little ink. A blur can turn a diamond's pips
/// into round smudges the pip reader takes for clubs; their colour cannot.
/// The bounds leave a margin on every rendered validation design's inks (red:
/// saturation 0.48 and more, hue within 15° of red; black: saturation 0.41 and
/// less, value 0.45 and less).
pub fn ink_family(card: &RgbImage) -> Option<InkFamily> {
    CardInk::of(card).and_then(|ink| family_of(card, &ink))
}

fn family_of(card: &RgbImage, card_ink: &CardInk) -> Option<InkFamily> {
    let w = CARD_W as usize;
    let (dist, t) = (&card_ink.dist, card_ink.threshold);
    let (x0, x1, y0, y1) = BOX;
    let mut sum = [0.0f64; 3];
    let mut n = 0usize;
    for y in y0..y1 {
        let cy = y as f64 / f64::from(CARD_H);
        for x in x0..x1 {
            let cx = x as f64 / f64::from(CARD_W);
            if in_corner_zone(cx, cy) || dist[y * w + x] <= t {
                continue;
            }
            let p = card.get_pixel(x as u32, y as u32);
            for (s, v) in sum.iter_mut().zip(p.0) {
                *s += f64::from(v);
            }
            n += 1;
        }
    }
    if n < MIN_INK_PIXELS {
        return None;
    }
    let [r, g, b] = sum.map(|s| s / n as f64 / 255.0);
    let (hue, saturation, value) = hsv(r, g, b);
    if saturation >= RED_SATURATION && hue.abs() <= RED_HUE {
        Some(InkFamily::Red)
    } else if saturation < BLACK_SATURATION && value < BLACK_VALUE {
        Some(InkFamily::Black)
    } else {
        None
    }
}

/// Hue in degrees (-180..180, red at 0), saturation and value of an RGB colour
/// in 0..1, as Python's `colorsys.rgb_to_hsv` (which `models/pips.py` uses).
fn hsv(r: f64, g: f64, b: f64) -> (f64, f64, f64) {
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    if max <= 0.0 {
        return (0.0, 0.0, 0.0);
    }
    let saturation = (max - min) / max;
    if max == min {
        return (0.0, saturation, max);
    }
    let (rc, gc, bc) = (
        (max - r) / (max - min),
        (max - g) / (max - min),
        (max - b) / (max - min),
    );
    let h = if r == max {
        bc - gc
    } else if g == max {
        2.0 + rc - bc
    } else {
        4.0 + gc - rc
    };
    let degrees = (h / 6.0).rem_euclid(1.0) * 360.0;
    let hue = if degrees > 180.0 {
        degrees - 360.0
    } else {
        degrees
    };
    (hue, saturation, max)
}

/// The pip patches of a rectified 160 × 224 card, one after another
/// (`n × [1, 24, 24]`, ink strength in 0..1), and their number. A court card, an
/// ace or a card too blurred to show separate pips gives few or none; what they
/// give the pip reader calls "not a pip" or reads unsurely.
pub fn find_pips(card: &RgbImage) -> (Vec<f32>, usize) {
    match CardInk::of(card) {
        Some(ink) => pips_of(&ink),
        None => (Vec::new(), 0),
    }
}

/// [`find_pips`] and [`ink_family`] of one card, its ink measured once: what the
/// recognizer's pip check needs.
pub fn pips_and_ink_family(card: &RgbImage) -> (Vec<f32>, usize, Option<InkFamily>) {
    match CardInk::of(card) {
        Some(ink) => {
            let (patches, n) = pips_of(&ink);
            (patches, n, family_of(card, &ink))
        }
        None => (Vec::new(), 0, None),
    }
}

/// A rectified card's ink: every pixel's colour distance from its paper, the
/// search box's 99th percentile of it, and the ink threshold drawn from that.
struct CardInk {
    dist: Vec<f32>,
    hi: f32,
    threshold: f32,
}

impl CardInk {
    /// `None` for an image that is not a rectified card (160 × 224).
    fn of(card: &RgbImage) -> Option<CardInk> {
        if card.width() != CARD_W || card.height() != CARD_H {
            return None;
        }
        let dist = ink_distance(card);
        let (hi, threshold) = ink_threshold(&dist);
        Some(CardInk {
            dist,
            hi,
            threshold,
        })
    }
}

fn pips_of(card_ink: &CardInk) -> (Vec<f32>, usize) {
    let (w, h) = (CARD_W as usize, CARD_H as usize);
    let dist = &card_ink.dist;
    let (x0, x1, y0, y1) = BOX;
    let (bw, bh) = (x1 - x0, y1 - y0);
    let (hi, t) = (card_ink.hi, card_ink.threshold);
    let ink = GrayImage::from_fn(bw as u32, bh as u32, |x, y| {
        Luma([u8::from(dist[(y as usize + y0) * w + x as usize + x0] > t)])
    });
    let labels = connected_components(&ink, Connectivity::Eight, Luma([0u8]));
    let mut blobs: Vec<Option<Blob>> = Vec::new();
    for (x, y, l) in labels.enumerate_pixels() {
        let l = l[0] as usize;
        if l == 0 {
            continue;
        }
        if blobs.len() < l {
            blobs.resize(l, None);
        }
        let (x, y) = (x as usize, y as usize);
        let b = blobs[l - 1].get_or_insert(Blob {
            area: 0,
            left: x,
            top: y,
            right: x,
            bottom: y,
            sum_x: 0.0,
            sum_y: 0.0,
        });
        b.area += 1;
        b.left = b.left.min(x);
        b.right = b.right.max(x);
        b.top = b.top.min(y);
        b.bottom = b.bottom.max(y);
        b.sum_x += x as f64;
        b.sum_y += y as f64;
    }
    let shaped: Vec<Blob> = blobs
        .into_iter()
        .flatten()
        .filter(|b| b.pip_shaped(bw, bh))
        .collect();
    let mut areas: Vec<f32> = shaped.iter().map(|b| b.area as f32).collect();
    let Some(med) = median(&mut areas) else {
        return (Vec::new(), 0);
    };
    let med = f64::from(med);
    let norm: Vec<f32> = dist
        .iter()
        .map(|d| (d / hi.max(1.0)).clamp(0.0, 1.0))
        .collect();
    let mut out = Vec::new();
    let mut n = 0;
    for b in shaped {
        let area = b.area as f64;
        if area < SIMILAR.0 * med || area > SIMILAR.1 * med {
            continue;
        }
        let (cx, cy) = b.centre();
        let (cx, cy) = (cx + x0 as f64, cy + y0 as f64);
        let step = PATCH_SPAN * b.width().max(b.height()) as f64 / PATCH as f64;
        let half = PATCH as f64 / 2.0;
        for i in 0..PATCH {
            let y = cy + (i as f64 + 0.5 - half) * step;
            for j in 0..PATCH {
                let x = cx + (j as f64 + 0.5 - half) * step;
                out.push(bilinear(&norm, w, h, x, y));
            }
        }
        n += 1;
    }
    (out, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    /// A white card with `pips` black discs of radius 9 at the given centres.
    fn card_with_discs(centres: &[(f64, f64)]) -> RgbImage {
        card_with_discs_of(centres, Rgb([20, 20, 20]))
    }

    /// The centres of a five's pips.
    const FIVE: [(f64, f64); 5] = [
        (50.0, 60.0),
        (110.0, 60.0),
        (80.0, 112.0),
        (50.0, 164.0),
        (110.0, 164.0),
    ];

    /// A cream card with discs of radius 9 in ink `colour`.
    fn card_with_discs_of(centres: &[(f64, f64)], colour: Rgb<u8>) -> RgbImage {
        RgbImage::from_fn(CARD_W, CARD_H, |x, y| {
            let ink = centres
                .iter()
                .any(|&(cx, cy)| (f64::from(x) - cx).powi(2) + (f64::from(y) - cy).powi(2) <= 81.0);
            if ink {
                colour
            } else {
                Rgb([245, 240, 235])
            }
        })
    }

    #[test]
    fn the_ink_of_the_pips_tells_red_suits_from_black_and_no_more() {
        let family = |colour: [u8; 3]| ink_family(&card_with_discs_of(&FIVE, Rgb(colour)));
        assert_eq!(family([20, 20, 20]), Some(InkFamily::Black));
        assert_eq!(family([200, 30, 40]), Some(InkFamily::Red));
        // A blurred red, pink on the paper: still red.
        assert_eq!(family([225, 110, 115]), Some(InkFamily::Red));
        // Four-colour suits are neither: green clubs, blue or yellow diamonds.
        assert_eq!(family([20, 130, 40]), None);
        assert_eq!(family([20, 70, 200]), None);
        assert_eq!(family([230, 190, 20]), None);
        // No ink at all says nothing; nor does a card of the wrong size.
        assert_eq!(ink_family(&card_with_discs(&[])), None);
        assert_eq!(ink_family(&RgbImage::new(10, 10)), None);
        // Red ink is a heart or a diamond, black a spade or a club.
        assert!(InkFamily::Red.allows(Suit::Diamonds) && !InkFamily::Red.allows(Suit::Clubs));
        assert!(InkFamily::Black.allows(Suit::Spades) && !InkFamily::Black.allows(Suit::Hearts));
    }

    #[test]
    fn pips_and_ink_family_together_are_each_alone() {
        let card = card_with_discs_of(&FIVE, Rgb([200, 30, 40]));
        let (patches, n, family) = pips_and_ink_family(&card);
        assert_eq!((patches, n), find_pips(&card));
        assert_eq!(n, 5);
        assert_eq!(family, ink_family(&card));
        assert_eq!(
            pips_and_ink_family(&RgbImage::new(3, 3)),
            (Vec::new(), 0, None)
        );
    }

    #[test]
    fn hue_saturation_and_value_are_colorsys() {
        // Values from Python's colorsys.rgb_to_hsv, hue in degrees from -180 to 180.
        let close = |a: (f64, f64, f64), b: (f64, f64, f64)| {
            (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9 && (a.2 - b.2).abs() < 1e-9
        };
        assert!(close(
            hsv(0.8, 0.1, 0.2),
            (-360.0 / 6.0 * (0.1 / 0.7), 0.875, 0.8)
        ));
        assert!(close(
            hsv(0.2, 0.6, 0.1),
            (360.0 * (2.0 + 0.4 / 0.5 - 1.0) / 6.0, 5.0 / 6.0, 0.6)
        ));
        assert!(close(hsv(0.5, 0.5, 0.5), (0.0, 0.0, 0.5)));
        assert!(close(hsv(0.0, 0.0, 0.0), (0.0, 0.0, 0.0)));
    }

    #[test]
    fn the_pips_of_a_five_are_five_patches_centred_on_them() {
        let five = [
            (55.0, 50.0),
            (105.0, 50.0),
            (80.0, 112.0),
            (55.0, 174.0),
            (105.0, 174.0),
        ];
        let (patches, n) = find_pips(&card_with_discs(&five));
        assert_eq!(n, 5);
        assert_eq!(patches.len(), 5 * PATCH_LEN);
        for p in patches.chunks_exact(PATCH_LEN) {
            // Ink at the centre, paper at the corners of the patch.
            assert!(p[12 * PATCH + 12] > 0.9, "centre {}", p[12 * PATCH + 12]);
            assert!(p[0] < 0.1 && p[PATCH_LEN - 1] < 0.1);
        }
    }

    #[test]
    fn blobs_in_the_index_corners_and_thin_lines_are_not_pips() {
        // Two pips, an index-sized blob in each index corner, and a frame line.
        let mut card =
            card_with_discs(&[(80.0, 60.0), (80.0, 164.0), (14.0, 30.0), (146.0, 194.0)]);
        for y in 40..180 {
            card.put_pixel(30, y, Rgb([20, 20, 20]));
            card.put_pixel(31, y, Rgb([20, 20, 20]));
        }
        let (_, n) = find_pips(&card);
        assert_eq!(n, 2);
    }

    #[test]
    fn a_blank_card_or_a_wrong_size_has_no_pips() {
        assert_eq!(find_pips(&card_with_discs(&[])).1, 0);
        assert_eq!(find_pips(&RgbImage::new(40, 56)).1, 0);
    }

    #[test]
    fn median_and_percentile_are_numpys() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&mut []), None);
        let mut v: Vec<f32> = (0..101).map(|i| i as f32).collect();
        assert_eq!(percentile(&mut v, 99.0), Some(99.0));
        let mut v = vec![0.0, 10.0];
        assert_eq!(percentile(&mut v, 99.0), Some(9.9));
    }
}
