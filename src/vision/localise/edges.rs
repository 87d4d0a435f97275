//! Each outline's sides re-fitted on the full frame: edge points probed across
//! each side on whiteness (or on a colour axis from the cloth to the paper), a
//! robust straight line through them, corners where the lines cross.

use super::work::whiteness;
use crate::vision::geometry::{Line, Point, Quad};
use image::RgbImage;

/// A refined candidate in full-frame pixels with its edge support.
#[derive(Debug, Clone)]
pub(super) struct Refined {
    pub(super) quad: Quad,
    /// Fraction of the probes across the four sides that found a sharp edge on the
    /// fitted line: near 1 for a real card outline.
    pub(super) support: f64,
    /// Brightness just inside the outline over brightness just outside it: a card
    /// is never much darker than the cloth beside it, a phone or a dark coaster is.
    pub(super) inside_light: f64,
    /// The colour axis the sides were fitted on, where whiteness could not fit
    /// them ([`EdgeSignal::colour_axis`]); `None` for whiteness.
    pub(super) axis: Option<ColourAxis>,
}

/// The full frame's edge signal for the side search: whiteness, or a colour axis.
#[derive(Clone, Copy)]
pub(super) struct EdgeSignal<'a> {
    pub(super) frame: &'a RgbImage,
    /// Where set, the signal is the colour's position along the line from the
    /// cloth's colour to the paper's instead of whiteness.
    pub(super) towards_paper: Option<ColourAxis>,
}

/// A line in colour space from a cloth's colour toward a card's paper, as a
/// unit vector: a pixel's position along it is its distance from the cloth's
/// colour in the paper's direction (0 on the cloth, the two colours' distance
/// on the paper), signed like whiteness (higher inside the card).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct ColourAxis {
    pub(super) cloth: [f32; 3],
    unit: [f32; 3],
}

/// The smallest distance between paper and cloth colours (Euclidean, R, G, B)
/// worth a colour axis: below it the step drowns in a webcam's noise.
const MIN_AXIS_CONTRAST: f32 = 20.0;

impl<'a> EdgeSignal<'a> {
    pub(super) fn whiteness(frame: &'a RgbImage) -> EdgeSignal<'a> {
        EdgeSignal {
            frame,
            towards_paper: None,
        }
    }

    /// The edge signal of a coarse outline that whiteness does not set apart
    /// from its cloth (a cream card on a pale green cloth): the colour axis
    /// from the per-channel median colour `reach` outside its sides to that
    /// `reach` inside them. `None` when the two are too alike.
    pub(super) fn colour_axis(&self, coarse: &Quad, reach: f64) -> Option<EdgeSignal<'a>> {
        let (w, h) = self.frame.dimensions();
        let q = &coarse.0;
        let (mut inside, mut outside): (Vec<[u8; 3]>, Vec<[u8; 3]>) = (Vec::new(), Vec::new());
        for i in 0..4 {
            let (a, b) = (q[i], q[(i + 1) % 4]);
            let len = a.dist(b).max(1e-9);
            let (nx, ny) = ((b.y - a.y) / len, -(b.x - a.x) / len);
            for (bx, by) in side_probes(a, b) {
                for (sign, out) in [(-1.0, &mut inside), (1.0, &mut outside)] {
                    let (x, y) = (bx + sign * nx * reach, by + sign * ny * reach);
                    if x >= 0.0 && y >= 0.0 && x < f64::from(w) && y < f64::from(h) {
                        out.push(self.frame.get_pixel(x as u32, y as u32).0);
                    }
                }
            }
        }
        let median = |v: &[[u8; 3]]| -> Option<[f32; 3]> {
            if v.len() < 16 {
                return None;
            }
            let mid = v.len() / 2;
            Some(std::array::from_fn(|c| {
                let mut ch: Vec<u8> = v.iter().map(|p| p[c]).collect();
                f32::from(*ch.select_nth_unstable(mid).1)
            }))
        };
        let (paper, cloth) = (median(&inside)?, median(&outside)?);
        let d: [f32; 3] = std::array::from_fn(|c| paper[c] - cloth[c]);
        let norm = d.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm < MIN_AXIS_CONTRAST {
            return None;
        }
        Some(EdgeSignal {
            frame: self.frame,
            towards_paper: Some(ColourAxis {
                cloth,
                unit: d.map(|v| v / norm),
            }),
        })
    }

    /// The edge signal at a pixel: the localiser's whiteness score (`min − (max
    /// − min)` of R, G, B), in which a card's edge is a step on nearly any cloth,
    /// even one as bright as the card; or the position along the colour axis.
    fn value(&self, x: u32, y: u32) -> f32 {
        let at = (y as usize * self.frame.width() as usize + x as usize) * 3;
        let p = &self.frame.as_raw()[at..at + 3];
        match &self.towards_paper {
            None => f32::from(whiteness(p[0].into(), p[1].into(), p[2].into())),
            Some(axis) => (0..3)
                .map(|c| (f32::from(p[c]) - axis.cloth[c]) * axis.unit[c])
                .sum(),
        }
    }

    /// The brightest channel at a pixel (nearest), `None` off the frame.
    pub(super) fn brightness(&self, x: f64, y: f64) -> Option<f64> {
        let (w, h) = self.frame.dimensions();
        if x < 0.0 || y < 0.0 || x >= f64::from(w) || y >= f64::from(h) {
            return None;
        }
        let p = self.frame.get_pixel(x as u32, y as u32);
        Some(f64::from(p[0].max(p[1]).max(p[2])))
    }

    /// Bilinear sample at pixel coordinates; `None` off the frame.
    pub(super) fn sample(&self, x: f64, y: f64) -> Option<f32> {
        let (w, h) = self.frame.dimensions();
        if x < 0.0 || y < 0.0 || x > f64::from(w - 1) || y > f64::from(h - 1) {
            return None;
        }
        // Both are non-negative here, so truncation is the floor (and no libm call).
        let (x0, y0) = (x as u32, y as u32);
        let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
        let (fx, fy) = ((x - f64::from(x0)) as f32, (y - f64::from(y0)) as f32);
        let top = self.value(x0, y0) * (1.0 - fx) + self.value(x1, y0) * fx;
        let bot = self.value(x0, y1) * (1.0 - fx) + self.value(x1, y1) * fx;
        Some(top * (1.0 - fy) + bot * fy)
    }
}

/// Re-fits each side of a coarse quad on the full-resolution frame: along the side,
/// finds the strongest grey-level step across it, fits a straight line through those
/// points, and takes the corners where neighbouring lines cross. A side that cannot
/// be re-fitted keeps its coarse line; a corner that moves implausibly far keeps its
/// coarse position. The support is the fraction of probes on the fitted lines.
/// `slack` (full-frame pixels) widens the search inwards and the corners' leeway,
/// for a coarse quad known to lie outside the card by up to that much.
pub(super) fn refine(signal: &EdgeSignal<'_>, coarse: &Quad, scale: f64, slack: f64) -> Refined {
    let reach = edge_reach(scale, slack);
    // The slack says how far outside the card the coarse quad may lie: the edge
    // is searched for that much further in, never further out, where the border
    // of a card lying close beside it (a dark line with pale cloth beyond) is a
    // step of the card edge's sign.
    let outward = edge_reach(scale, 0.0);
    let step = 0.5;
    // Steps over two pixels (four half-pixel samples) in the wide first search,
    // over one in the narrow final one.
    let half_base = if scale > 1.0 { 2 } else { 1 };
    let q = &coarse.0;
    let mut lines: Vec<Option<Line>> = Vec::with_capacity(4);
    let mut on_line = 0usize;
    let (mut light_in, mut light_out) = (0.0f64, 0.0f64);
    for i in 0..4 {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        let len = a.dist(b);
        if len < 4.0 {
            return Refined {
                quad: *coarse,
                support: 0.0,
                inside_light: 0.0,
                axis: signal.towards_paper,
            };
        }
        let (dx, dy) = ((b.x - a.x) / len, (b.y - a.y) / len);
        // Outward normal of a clockwise-on-screen polygon.
        let (nx, ny) = (dy, -dx);
        let mut pts = Vec::with_capacity(PROBES);
        for (bx, by) in side_probes(a, b) {
            let found = edge_offset(
                signal,
                (bx, by),
                (nx, ny),
                (reach, outward),
                step,
                half_base,
                slack > 0.0,
            );
            if let Some(s) = found {
                pts.push(Point::new(bx + nx * s, by + ny * s));
            }
            let inner = signal.brightness(bx - nx * reach, by - ny * reach);
            let outer = signal.brightness(bx + nx * reach, by + ny * reach);
            if let (Some(i), Some(o)) = (inner, outer) {
                light_in += i;
                light_out += o;
            }
        }
        let line = robust_line(&pts);
        if let Some(l) = &line {
            on_line += pts.iter().filter(|p| l.distance(**p) <= 1.0).count();
        }
        lines.push(line.or_else(|| Line::through(a, b)));
    }
    let limit = 3.0 * scale + 4.0 + 1.5 * slack;
    let mut kept_coarse = 0;
    let corners: [Point; 4] = std::array::from_fn(|i| {
        let before = &lines[(i + 3) % 4];
        let after = &lines[i];
        let fine = match (before, after) {
            (Some(l1), Some(l2)) => l1.intersect(l2).filter(|p| p.dist(q[i]) <= limit),
            _ => None,
        };
        fine.unwrap_or_else(|| {
            kept_coarse += 1;
            q[i]
        })
    });
    // A corner that could not be re-fitted is a sign of a poor outline: such
    // candidates lose against a clean one of the same card.
    let support = on_line as f64 / (4 * PROBES) as f64 * 0.75f64.powi(kept_coarse);
    Refined {
        quad: Quad::from_cyclic(corners),
        support,
        inside_light: light_in / light_out.max(1.0),
        axis: signal.towards_paper,
    }
}

/// How many points along each side [`refine`] probes for its edge.
const PROBES: usize = 24;

/// The points along the side from `a` to `b` where its edge is probed: [`PROBES`]
/// of them, evenly spread over the side less its last 12 % at either end, where
/// a card's corner is rounded.
fn side_probes(a: Point, b: Point) -> impl Iterator<Item = (f64, f64)> {
    (0..PROBES).map(move |k| {
        let t = 0.12 + 0.76 * k as f64 / (PROBES - 1) as f64;
        (a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t)
    })
}

/// How far across a side [`refine`] searches for its edge (full-frame pixels):
/// a few working pixels, and the slack of an outline known to lie outside the
/// card.
pub(super) fn edge_reach(scale: f64, slack: f64) -> f64 {
    2.5 * scale + 2.0 + slack
}

/// The offset along the normal (from `-reach`, inside, to `outward`, outside) of the
/// strongest grey-level step, with sub-sample precision.
///
/// A cheap webcam's frame is noisy and often out of focus: each profile sample is
/// the mean of three taps spread along the edge (a pixel apart), and the step is
/// measured across `2 × half_base` samples: two pixels in the first, wide search,
/// so that a blurred card edge on a cloth nearly as light as the card still stands
/// out of the noise; one pixel in the final, narrow one, for precision.
fn edge_offset(
    signal: &EdgeSignal<'_>,
    base: (f64, f64),
    normal: (f64, f64),
    (reach, outward): (f64, f64),
    step: f64,
    half_base: usize,
    outermost: bool,
) -> Option<f64> {
    let n = ((reach + outward) / step) as usize + 1;
    if n < 2 * half_base + 3 {
        return None;
    }
    let (tx, ty) = (-normal.1, normal.0);
    let mut vals = Vec::with_capacity(n);
    for k in 0..n {
        let s = -reach + step * k as f64;
        let (x, y) = (base.0 + normal.0 * s, base.1 + normal.1 * s);
        let sum = signal.sample(x, y)?
            + signal.sample(x + tx, y + ty)?
            + signal.sample(x - tx, y - ty)?;
        vals.push(sum / 3.0);
    }
    // Central differences, sign flipped so that bright-inside/dark-outside is
    // positive: that is the card's edge. The far edge of its drop shadow has the
    // other sign and must not attract the line.
    let grad: Vec<f32> = (half_base..n - half_base)
        .map(|k| vals[k - half_base] - vals[k + half_base])
        .collect();
    let (mut best, mut g) = grad
        .iter()
        .copied()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    if g < 10.0 {
        return None;
    }
    if outermost {
        // A wide search reaches well inside the card, where the corner index's
        // inner side is a bright-to-dark step too: the card's edge is the
        // outermost strong step.
        let strong = 0.5 * g;
        if let Some(k) = (0..grad.len()).rev().find(|&k| {
            grad[k] >= strong
                && grad.get(k + 1).is_none_or(|&r| grad[k] >= r)
                && (k == 0 || grad[k] >= grad[k - 1])
        }) {
            (best, g) = (k, grad[k]);
        }
    }
    let mut pos = best as f64;
    if best > 0 && best + 1 < grad.len() {
        let (l, c, r) = (
            f64::from(grad[best - 1]),
            f64::from(g),
            f64::from(grad[best + 1]),
        );
        let den = l - 2.0 * c + r;
        if den.abs() > 1e-9 {
            pos += (0.5 * (l - r) / den).clamp(-0.5, 0.5);
        }
    }
    Some(-reach + step * (pos + half_base as f64))
}

/// A line fit that drops points far from a first fit and fits again.
fn robust_line(pts: &[Point]) -> Option<Line> {
    if pts.len() < 8 {
        return None;
    }
    let first = Line::fit(pts)?;
    let mut res: Vec<f64> = pts.iter().map(|p| first.distance(*p)).collect();
    res.sort_by(f64::total_cmp);
    let cut = (res[res.len() / 2] * 3.0).max(1.0);
    let kept: Vec<Point> = pts
        .iter()
        .copied()
        .filter(|p| first.distance(*p) <= cut)
        .collect();
    if kept.len() < 8 {
        return None;
    }
    Line::fit(&kept)
}
