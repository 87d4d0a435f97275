//! Overlapping rows: a hand spread out on the table in one row, each card lying on
//! its neighbour so that only a strip of it shows — the strip with its index.
//!
//! A player showing a "no play" hand of fifteen cards does not lay them apart; they
//! spread them. Cards are printed for that: with the row read so that each card's
//! uncovered strip is on its left, the strip's top-left corner holds an index,
//! whichever way up the card lies (a card's two indices sit at opposite corners, so
//! turning it by 180° puts the other one there).
//!
//! The localiser finds the row's outline (`Located::rows`: longer and thinner than
//! a card). Here the row is warped to a strip [`ROW_H`] pixels high and searched for
//! the edges between cards: an edge is a step or a thin dark line of whiteness that
//! runs across the row's whole height, so it is scored in two bands near the top and
//! the bottom of the row, where no card's art or pips reach (a court card's framed
//! picture makes a long vertical line too, but stops short of the card's ends), and
//! in the band between them, which the strokes of a card's index (reaching into the
//! end bands) do not cross. Each edge starts a card whose width is that of the
//! last, whole card. Which way round the row is read cannot be told from the
//! outline — with the row turned by 180° the uncovered strips are on the left — so
//! [`readings`] gives both, and the recognizer keeps the one the model reads best.

use image::RgbImage;

use super::geometry::{Homography, Point, Quad};
use super::rectify::{Sampler, CARD_W, CROP_H, CROP_LEN, CROP_W};

/// Height of the row image in which the edges between cards are searched (pixels).
pub const ROW_H: usize = 112;
/// A card's width over its height (a poker card) when the row does not show it.
const CARD_ASPECT: f64 = 0.71;
/// The narrowest width of a whole card the row may show, over its height (a bridge
/// card is 0.64).
const MIN_CARD_ASPECT: f64 = 0.6;
/// The widest, over its height.
const MAX_CARD_ASPECT: f64 = 0.8;
/// The narrowest strip of a card that still shows its index, as a fraction of a
/// card's width (the index box of the contract is a quarter of it).
pub const MIN_STRIP: f64 = 0.18;
/// The widest strip of a covered card, as a fraction of a card's width.
pub const MAX_STRIP: f64 = 0.9;
/// The bands of the row's height (fractions from its top) in which an edge must
/// show, and every how many rows of a band are scored: near the cards' ends, above
/// and below any art (a court card's framed picture makes a vertical line too, but
/// stops short of them), and between them, where a card's index and the strokes of
/// its rank, which reach into the end bands, do not (a card's edge runs across
/// the whole height; pips interrupt it for a minority of the rows). The middle
/// band is scored on every fourth row only.
const BANDS: [(f64, f64, usize); 3] = [(0.03, 0.14, 1), (0.14, 0.86, 4), (0.86, 0.97, 1)];
/// The smallest edge score: the whiteness step (or dip, for a thin dark line) across
/// four pixels of the row image, median over a band's rows, the weakest band.
const MIN_EDGE: f32 = 10.0;
/// Peaks of the score closer than this (row pixels) are one edge: a card's edge
/// and its drop shadow on the card below.
const MERGE: usize = 8;

/// One way of reading an outline as an overlapping row (`[TL, TR, BR, BL]`, the
/// long side first, each card's uncovered strip on its left), split at the edges
/// found.
#[derive(Debug, Clone, PartialEq)]
pub struct Spread {
    /// The cards left to right in this reading; all but the last are partly covered.
    pub cards: Vec<SpreadCard>,
}

/// One card of a split row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpreadCard {
    /// The whole card's outline `[TL, TR, BR, BL]`, its top-left corner the one
    /// whose index shows; where the card is covered, its corners are where a whole
    /// card of the row's last card's width reaches.
    pub quad: Quad,
    /// The share of the card's width that shows (1 for the card on top).
    pub visible: f64,
}

/// The outline with its corners moved round by `k` places (`k` quarter turns of
/// its reading, clockwise order kept).
fn turned(q: &Quad, k: usize) -> Quad {
    Quad(std::array::from_fn(|i| q.0[(i + k) % 4]))
}

/// The ways of reading an outline as an overlapping row: along its long side,
/// either way round; with `both_directions` (an outline of a card's or a square's
/// proportions, which a short row of two or three cards has) along its short side
/// too.
pub fn readings(q: &Quad, both_directions: bool) -> Vec<Quad> {
    let side = |i: usize| q.side_length(i);
    let along = if side(0) + side(2) >= side(1) + side(3) {
        *q
    } else {
        turned(q, 1)
    };
    let mut out = vec![along, turned(&along, 2)];
    if both_directions {
        out.extend([turned(&along, 1), turned(&along, 3)]);
    }
    out
}

/// The localiser's whiteness score (`min − (max − min)` of R, G, B).
fn whiteness(p: [f32; 3]) -> f32 {
    let lo = p[0].min(p[1]).min(p[2]);
    let hi = p[0].max(p[1]).max(p[2]);
    2.0 * lo - hi
}

/// The edge score of each column of the row image (see [`MIN_EDGE`]).
fn edge_scores(sampler: &Sampler<'_>, to_frame: &Homography, len: usize) -> Option<Vec<f32>> {
    let mut bands = Vec::with_capacity(BANDS.len());
    for (from, to, every) in BANDS {
        let rows: Vec<usize> = ((from * ROW_H as f64) as usize..(to * ROW_H as f64) as usize)
            .step_by(every)
            .collect();
        // Per row: the step or dip at each column, then the largest of three
        // neighbouring columns (an edge a pixel off straight).
        let mut per_row: Vec<Vec<f32>> = Vec::with_capacity(rows.len());
        for &y in &rows {
            let mut g = Vec::with_capacity(len);
            for x in 0..len {
                let p = to_frame.apply(x as f64 + 0.5, y as f64 + 0.5)?;
                g.push(whiteness(sampler.sample(p.x, p.y)));
            }
            let mut e = vec![0.0f32; len];
            for x in 2..len.saturating_sub(2) {
                let (a, b) = (g[x - 2], g[x + 2]);
                e[x] = (b - a).abs().max(a.min(b) - g[x]);
            }
            let widened: Vec<f32> = (0..len)
                .map(|x| {
                    e[x.saturating_sub(1)..(x + 2).min(len)]
                        .iter()
                        .copied()
                        .fold(0.0, f32::max)
                })
                .collect();
            per_row.push(widened);
        }
        let mut band = vec![0.0f32; len];
        let mut column = vec![0.0f32; rows.len()];
        for (x, b) in band.iter_mut().enumerate() {
            for (c, r) in column.iter_mut().zip(&per_row) {
                *c = r[x];
            }
            let mid = column.len() / 2;
            column.select_nth_unstable_by(mid, f32::total_cmp);
            *b = column[mid];
        }
        bands.push(band);
    }
    Some(
        (0..len)
            .map(|x| bands.iter().map(|b| b[x]).fold(f32::INFINITY, f32::min))
            .collect(),
    )
}

/// The edges between cards in a row of `len` columns: peaks of the score at least
/// [`MIN_EDGE`], merged within [`MERGE`] pixels (the strongest kept), at least a
/// [`MIN_STRIP`] of a card from the row's left end and from each other, and leaving
/// room for a whole card after the last.
fn find_edges(score: &[f32]) -> Vec<f64> {
    let len = score.len();
    let w0 = CARD_ASPECT * ROW_H as f64;
    let min_strip = (MIN_STRIP * w0).round() as usize;
    let last = len as f64 - MIN_CARD_ASPECT * ROW_H as f64;
    let mut peaks: Vec<usize> = Vec::new();
    for x in min_strip..len {
        if x as f64 > last {
            break;
        }
        let s = score[x];
        let around = &score[x.saturating_sub(2)..(x + 3).min(len)];
        if s >= MIN_EDGE && around.iter().all(|&v| v <= s) {
            match peaks.last_mut() {
                Some(p) if x - *p <= MERGE => {
                    if s > score[*p] {
                        *p = x;
                    }
                }
                _ => peaks.push(x),
            }
        }
    }
    // Strips too narrow to show an index: the weaker edge goes.
    let mut edges: Vec<usize> = Vec::with_capacity(peaks.len());
    for x in peaks {
        match edges.last_mut() {
            Some(p) if x - *p < min_strip => {
                if score[x] > score[*p] {
                    *p = x;
                }
            }
            _ => edges.push(x),
        }
    }
    // A thin line scores as much on its two sides (a step each) as on itself (a
    // dip): the edge is the middle of the run of columns near the peak's score.
    edges
        .into_iter()
        .map(|x| {
            let near = 0.8 * score[x];
            let mut lo = x;
            while lo > 0 && x - lo < MERGE / 2 && score[lo - 1] >= near {
                lo -= 1;
            }
            let mut hi = x;
            while hi + 1 < len && hi - x < MERGE / 2 && score[hi + 1] >= near {
                hi += 1;
            }
            (lo + hi) as f64 / 2.0
        })
        .collect()
}

/// Splits one reading of an outline ([`readings`]) at the edges between its cards;
/// `None` when the outline is degenerate, too short for two cards, or shows no edge.
pub fn split(frame: &RgbImage, row: &Quad) -> Option<Spread> {
    if frame.width() == 0 || frame.height() == 0 {
        return None;
    }
    let q = &row.0;
    let long = (q[0].dist(q[1]) + q[3].dist(q[2])) / 2.0;
    let short = (q[0].dist(q[3]) + q[1].dist(q[2])) / 2.0;
    if short < 8.0 {
        return None;
    }
    let len = (ROW_H as f64 * long / short).round();
    let h = ROW_H as f64;
    // Two cards, the first showing a minimal strip.
    if len < (1.0 + MIN_STRIP) * MIN_CARD_ASPECT * h || len > 64.0 * h {
        return None;
    }
    let len_px = len as usize;
    let to_frame = Homography::from_points(
        [
            Point::new(0.0, 0.0),
            Point::new(len, 0.0),
            Point::new(len, h),
            Point::new(0.0, h),
        ],
        row.0,
    )?;
    let sampler = Sampler::new(frame);
    let score = edge_scores(&sampler, &to_frame, len_px)?;
    let edges = find_edges(&score);
    let &last = edges.last()?;
    let measured = len - last;
    let w = if measured <= MAX_CARD_ASPECT * h {
        measured
    } else {
        CARD_ASPECT * h
    };
    let starts: Vec<f64> = std::iter::once(0.0).chain(edges.iter().copied()).collect();
    let mut cards = Vec::with_capacity(starts.len());
    for (i, &x0) in starts.iter().enumerate() {
        let (x1, visible) = match starts.get(i + 1) {
            // A strip nearly a card wide is a card beside the next, not under it:
            // not an overlapping row (touching cards are cut elsewhere).
            Some(&next) if next - x0 > MAX_STRIP * w => return None,
            Some(&next) => (x0 + w, (next - x0) / w),
            None => (len, 1.0),
        };
        let corners = [(x0, 0.0), (x1, 0.0), (x1, h), (x0, h)];
        let mut pts = [Point::default(); 4];
        for (p, (x, y)) in pts.iter_mut().zip(corners) {
            *p = to_frame.apply(x, y)?;
        }
        cards.push(SpreadCard {
            quad: Quad(pts),
            visible,
        });
    }
    Some(Spread { cards })
}

/// Paints over the part of a top-left index crop (`[3, 72, 40]`, values in [0, 1])
/// that lies beyond the card's uncovered strip (`visible` of its width, less the
/// edge's two pixels) with the strip's paper colour, so that the model sees an
/// index on a clean card corner, as it was trained, not the next card's edge and
/// index.
pub fn cover_beyond(crop: &mut [f32], visible: f64) {
    let plane = CROP_H * CROP_W;
    if crop.len() < CROP_LEN {
        return;
    }
    let from = (visible * f64::from(CARD_W)).floor() as i64 - 2;
    if from >= CROP_W as i64 || from < 4 {
        return;
    }
    let from = from as usize;
    let paper = paper_colour(crop, from);
    for y in 0..CROP_H {
        for x in from..CROP_W {
            for (c, v) in paper.iter().enumerate() {
                crop[c * plane + y * CROP_W + x] = *v;
            }
        }
    }
}

/// The paper colour of an index crop's first `columns` columns: the mean colour of
/// their brightest third.
fn paper_colour(crop: &[f32], columns: usize) -> [f32; 3] {
    let plane = CROP_H * CROP_W;
    let mut luma: Vec<(f32, usize)> = (0..CROP_H)
        .flat_map(|y| (0..columns).map(move |x| y * CROP_W + x))
        .map(|i| (crop[i] + crop[plane + i] + crop[2 * plane + i], i))
        .collect();
    if luma.is_empty() {
        return [1.0; 3];
    }
    let cut = luma.len() * 2 / 3;
    luma.select_nth_unstable_by(cut, |a, b| a.0.total_cmp(&b.0));
    let bright = &luma[cut..];
    let n = bright.len().max(1) as f32;
    std::array::from_fn(|c| {
        bright
            .iter()
            .map(|&(_, i)| crop[c * plane + i])
            .sum::<f32>()
            / n
    })
}

/// How far (in any colour channel, values in [0, 1]) a pixel must stand from an
/// index crop's paper colour to count as ink, and the least share of the crop's
/// pixels that must ([`shows_ink`]).
const INK: f32 = 0.08;
const INK_SHARE: f32 = 0.10;

/// Whether an index crop (`[3, 72, 40]`, values in [0, 1]) shows anything printed
/// on its paper: at least `INK_SHARE` of its pixels `INK` or more from the paper
/// colour in some channel. A crop of bare cloth or paper does not, and cannot hold an
/// index: the recognizer does not spend a model read on it. Measured on every
/// evaluation set's fan corners (9 689 crops): every crop the model read as a card
/// had at least a tenth of its pixels 0.147 or more from its paper (a faint yellow
/// index too), and more than half of those it read as no card fewer than 0.08.
pub fn shows_ink(crop: &[f32]) -> bool {
    if crop.len() < CROP_LEN {
        return false;
    }
    let plane = CROP_H * CROP_W;
    let paper = paper_colour(crop, CROP_W);
    let inked = (0..plane)
        .filter(|&i| (0..3).any(|c| (crop[c * plane + i] - paper[c]).abs() >= INK))
        .count();
    inked as f32 >= INK_SHARE * plane as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    /// A row of `n` white cards, each `w` × `h` pixels with a 2-pixel grey border,
    /// starting at `x0`, `y0`, each `step` pixels right of the last and lying on it,
    /// on a green cloth.
    fn spread(n: usize, w: u32, h: u32, step: u32) -> (RgbImage, Quad) {
        let (x0, y0) = (60u32, 80u32);
        let mut img = RgbImage::from_pixel(
            x0 * 2 + w + step * (n as u32 - 1),
            y0 * 2 + h,
            Rgb([30, 110, 50]),
        );
        for k in 0..n as u32 {
            let left = x0 + k * step;
            for y in y0..y0 + h {
                for x in left..left + w {
                    let border = x < left + 2 || x >= left + w - 2 || y < y0 + 2 || y >= y0 + h - 2;
                    img.put_pixel(
                        x,
                        y,
                        if border {
                            Rgb([120, 120, 120])
                        } else {
                            Rgb([240, 240, 236])
                        },
                    );
                }
            }
        }
        let right = f64::from(x0 + w + step * (n as u32 - 1));
        let (l, t, b) = (f64::from(x0), f64::from(y0), f64::from(y0 + h));
        let q = Quad([
            Point::new(l, t),
            Point::new(right, t),
            Point::new(right, b),
            Point::new(l, b),
        ]);
        (img, q)
    }

    #[test]
    fn finds_each_cards_edge_in_a_drawn_spread() {
        let (img, row) = spread(5, 142, 200, 50);
        let s = split(&img, &row).expect("a spread of five");
        assert_eq!(s.cards.len(), 5);
        for (k, c) in s.cards.iter().enumerate() {
            let left = 60.0 + 50.0 * k as f64;
            assert!(
                (c.quad.0[0].x - left).abs() <= 3.0,
                "card {k} starts at {:?}",
                c.quad.0[0]
            );
            assert!(
                (c.quad.0[1].x - (left + 142.0)).abs() <= 4.0,
                "card {k} ends at {:?}",
                c.quad.0[1]
            );
        }
        assert!((s.cards[0].visible - 50.0 / 142.0).abs() < 0.05);
        assert_eq!(s.cards[4].visible, 1.0);
    }

    #[test]
    fn an_index_stroke_near_the_cards_ends_is_no_edge() {
        // Each covered card's strip shows a dark vertical stroke (a rank's "1", a
        // suit's stem) in its top and bottom corners, inside the end bands: only
        // the card's edges cross the row's middle.
        let (mut img, row) = spread(5, 142, 200, 70);
        for k in 0..4u32 {
            let x = 60 + 70 * k + 35;
            for y in (86..108).chain(252..274) {
                for dx in 0..3 {
                    img.put_pixel(x + dx, y, Rgb([20, 20, 20]));
                }
            }
        }
        let s = split(&img, &row).expect("a spread of five");
        let starts: Vec<f64> = s.cards.iter().map(|c| c.quad.0[0].x.round()).collect();
        assert_eq!(s.cards.len(), 5, "cards start at {starts:?}");
        for (k, x) in starts.iter().enumerate() {
            assert!((x - (60.0 + 70.0 * k as f64)).abs() <= 3.0, "{starts:?}");
        }
    }

    #[test]
    fn a_single_card_has_no_edges_to_split_at() {
        let (img, row) = spread(1, 142, 200, 0);
        // Read along its short side too: still no edge across the card.
        for r in readings(&row, true) {
            assert!(split(&img, &r).is_none());
        }
    }

    #[test]
    fn readings_put_the_long_side_first_both_ways_round() {
        let q = Quad([
            Point::new(0.0, 0.0),
            Point::new(10.0, 0.0),
            Point::new(10.0, 40.0),
            Point::new(0.0, 40.0),
        ]);
        let r = readings(&q, false);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].0[0], Point::new(10.0, 0.0));
        assert_eq!(r[1].0[0], Point::new(0.0, 40.0));
        assert_eq!(readings(&q, true).len(), 4);
    }

    #[test]
    fn covering_paints_past_the_strip_with_the_paper() {
        let plane = CROP_H * CROP_W;
        let mut crop = vec![0.9f32; CROP_LEN];
        // Ink at the strip's left, the next card's index past it.
        for y in 10..20 {
            crop[y * CROP_W + 5] = 0.1;
            crop[y * CROP_W + 35] = 0.1;
            crop[plane + y * CROP_W + 35] = 0.1;
        }
        cover_beyond(&mut crop, 0.2);
        assert!(
            (crop[15 * CROP_W + 5] - 0.1).abs() < 1e-6,
            "the strip's own index stays"
        );
        assert!((crop[15 * CROP_W + 35] - 0.9).abs() < 1e-3);
        assert!((crop[plane + 15 * CROP_W + 35] - 0.9).abs() < 1e-3);
        // A strip wider than the crop is left alone.
        let mut wide = vec![0.5f32; CROP_LEN];
        wide[CROP_W - 1] = 0.0;
        cover_beyond(&mut wide, 0.5);
        assert_eq!(wide[CROP_W - 1], 0.0);
    }

    #[test]
    fn bare_paper_or_cloth_shows_no_ink_and_an_index_does() {
        let plane = CROP_H * CROP_W;
        // A speckled pale cloth: every pixel within 0.05 of the rest.
        let cloth: Vec<f32> = (0..CROP_LEN)
            .map(|i| 0.85 + 0.05 * ((i * 7919 % 13) as f32 / 12.0))
            .collect();
        assert!(!shows_ink(&cloth));
        // A black rank and suit sign, a block of 12 × 30 of the crop's 40 × 72.
        let mut index = vec![0.92f32; CROP_LEN];
        for y in 6..36 {
            for x in 4..16 {
                for c in 0..3 {
                    index[c * plane + y * CROP_W + x] = 0.1;
                }
            }
        }
        assert!(shows_ink(&index));
        // The same index printed faint yellow on white: it stands out in the blue
        // channel alone, by 0.15.
        let mut faint = vec![0.92f32; CROP_LEN];
        for y in 6..36 {
            for x in 4..16 {
                faint[2 * plane + y * CROP_W + x] = 0.77;
            }
        }
        assert!(shows_ink(&faint));
        // A stroke too small to be an index (a speck of dirt, a corner of the cloth).
        let mut speck = vec![0.92f32; CROP_LEN];
        for y in 6..16 {
            for x in 4..10 {
                speck[y * CROP_W + x] = 0.1;
            }
        }
        assert!(!shows_ink(&speck));
        assert!(!shows_ink(&speck[..CROP_LEN - 1]));
    }
}
