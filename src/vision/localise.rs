//! Card localisation: finds every card lying face up in a frame and fits its four
//! corners.
//!
//! A card is a bright, unsaturated rounded rectangle. The cloth may be anything from
//! black felt to a white tablecloth lit unevenly, so no single threshold separates
//! cards from it. The frame is reduced to a "whiteness" map (bright and grey score
//! high; colours and dark score low) at a working scale of about 800 pixels across,
//! and the map is thresholded at a ladder of levels. At each level every connected
//! blob is a candidate; a candidate is a card when its convex hull is nearly the
//! largest quadrilateral inscribed in it (a rectangle seen in perspective), with a
//! card's proportions and a white margin along its edges. The same card is found at
//! several levels: the most complete outline (largest) wins, unless it swallows two
//! or more cards (neighbours merged through a bright gap). Finally each side is
//! re-fitted on the full-resolution frame (edge points across the side, straight
//! line fit, corners at the crossings), which also undoes the rounded corners.
//!
//! What is not a card but looks like one (a paper note of card shape) passes here;
//! the classifier's "not a card" class turns it away.

use image::RgbImage;

use super::geometry::{convex_hull, max_area_quad, Line, Point, Quad};

/// Tuning of the localiser. The defaults suit a 1280 × 720 webcam frame with cards
/// 80–300 pixels tall; the fields are public so tools can experiment.
#[derive(Debug, Clone)]
pub struct LocaliserConfig {
    /// The working image is at most this many pixels across (long side).
    pub work_long_side: u32,
    /// Whiteness levels tried, low to high.
    pub levels: Vec<i16>,
    /// Smallest card, as a fraction of the frame area.
    pub min_area_frac: f64,
    /// Largest card, as a fraction of the frame area.
    pub max_area_frac: f64,
    /// Accepted short/long side ratio (a poker card is 0.71, a bridge card 0.64;
    /// perspective stretches it either way).
    pub aspect: (f64, f64),
    /// Largest hull area over inscribed-quad area (rounded corners make it > 1).
    pub max_hull_excess: f64,
    /// Smallest fraction of the inner margin that must be white at the level.
    pub min_margin_white: f64,
    /// Interior angles must lie in 90° ± this.
    pub max_angle_skew: f64,
}

impl Default for LocaliserConfig {
    fn default() -> Self {
        LocaliserConfig {
            work_long_side: 800,
            levels: (0..14).map(|i| 40 + 15 * i).collect(),
            min_area_frac: 0.0015,
            max_area_frac: 0.3,
            aspect: (0.5, 0.9),
            max_hull_excess: 1.07,
            min_margin_white: 0.75,
            max_angle_skew: 35.0,
        }
    }
}

/// The whiteness map of a frame at the working scale.
struct WorkImage {
    w: usize,
    h: usize,
    /// Pixels of the full frame per working pixel, along each axis.
    scale: f64,
    data: Vec<i16>,
}

impl WorkImage {
    /// Box-downsamples the frame by an integer factor and scores each pixel:
    /// `min(r, g, b) − (max − min)`, high for white and light grey, low for dark or
    /// coloured pixels.
    fn new(frame: &RgbImage, long_side: u32) -> WorkImage {
        let (fw, fh) = frame.dimensions();
        let f = fw.max(fh).div_ceil(long_side.max(1)).max(1) as usize;
        let (w, h) = (fw as usize / f, fh as usize / f);
        let raw = frame.as_raw();
        let stride = fw as usize * 3;
        let mut data = vec![0i16; w * h];
        let n = (f * f) as u32;
        let mut acc = vec![[0u32; 3]; w];
        for y in 0..h {
            acc.iter_mut().for_each(|a| *a = [0; 3]);
            for dy in 0..f {
                let row = &raw[(y * f + dy) * stride..(y * f + dy) * stride + w * f * 3];
                for (x, a) in acc.iter_mut().enumerate() {
                    for px in row[x * f * 3..(x + 1) * f * 3].chunks_exact(3) {
                        a[0] += u32::from(px[0]);
                        a[1] += u32::from(px[1]);
                        a[2] += u32::from(px[2]);
                    }
                }
            }
            for (x, a) in acc.iter().enumerate() {
                let (r, g, b) = ((a[0] / n) as i16, (a[1] / n) as i16, (a[2] / n) as i16);
                let lo = r.min(g).min(b);
                let hi = r.max(g).max(b);
                data[y * w + x] = lo - (hi - lo);
            }
        }
        WorkImage {
            w,
            h,
            scale: f as f64,
            data,
        }
    }

    fn at(&self, x: f64, y: f64) -> Option<i16> {
        if x < 0.0 || y < 0.0 {
            return None;
        }
        let (xi, yi) = (x as usize, y as usize);
        (xi < self.w && yi < self.h).then(|| self.data[yi * self.w + xi])
    }
}

/// A horizontal run of mask pixels `[x0, x1)` on row `y`.
#[derive(Debug, Clone, Copy)]
struct Run {
    y: u32,
    x0: u32,
    x1: u32,
}

fn find(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let p = parent[i as usize];
        parent[i as usize] = parent[p as usize];
        i = p;
    }
    i
}

/// The blobs (8-connected) of pixels at or above `level`, as lists of runs.
fn blobs(work: &WorkImage, level: i16, min_px: u32, max_px: u32) -> Vec<Vec<Run>> {
    let mut runs: Vec<Run> = Vec::new();
    let mut parent: Vec<u32> = Vec::new();
    let mut prev = 0..0;
    for y in 0..work.h {
        let row = &work.data[y * work.w..(y + 1) * work.w];
        let start = runs.len();
        let mut x = 0;
        while x < work.w {
            if row[x] >= level {
                let x0 = x;
                while x < work.w && row[x] >= level {
                    x += 1;
                }
                runs.push(Run {
                    y: y as u32,
                    x0: x0 as u32,
                    x1: x as u32,
                });
                parent.push((runs.len() - 1) as u32);
            } else {
                x += 1;
            }
        }
        // Union with the overlapping runs of the previous row (8-connectivity).
        let mut j = prev.start;
        for i in start..runs.len() {
            let r = runs[i];
            while j < prev.end && runs[j].x1 < r.x0 {
                j += 1;
            }
            let mut k = j;
            while k < prev.end && runs[k].x0 <= r.x1 {
                let (a, b) = (find(&mut parent, i as u32), find(&mut parent, k as u32));
                if a != b {
                    parent[a.max(b) as usize] = a.min(b);
                }
                k += 1;
            }
        }
        prev = start..runs.len();
    }
    let mut size = vec![0u32; runs.len()];
    let mut roots = vec![0u32; runs.len()];
    for i in 0..runs.len() {
        let root = find(&mut parent, i as u32);
        roots[i] = root;
        size[root as usize] += runs[i].x1 - runs[i].x0;
    }
    let mut index = vec![u32::MAX; runs.len()];
    let mut out: Vec<Vec<Run>> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let root = roots[i] as usize;
        if size[root] < min_px || size[root] > max_px {
            continue;
        }
        if index[root] == u32::MAX {
            index[root] = out.len() as u32;
            out.push(Vec::new());
        }
        out[index[root] as usize].push(*run);
    }
    out
}

/// A blob that passed the card tests, in working-image pixels.
#[derive(Debug, Clone)]
struct Candidate {
    quad: Quad,
    area: f64,
}

/// Tests one blob; returns its quad when it looks like a card.
fn card_candidate(
    work: &WorkImage,
    level: i16,
    runs: &[Run],
    cfg: &LocaliserConfig,
) -> Option<Candidate> {
    let (w, h) = (work.w as u32, work.h as u32);
    let mut pts = Vec::with_capacity(runs.len() * 4);
    for r in runs {
        // A card cut by the frame's edge cannot be read reliably.
        if r.x0 == 0 || r.x1 >= w || r.y == 0 || r.y + 1 >= h {
            return None;
        }
        let (y0, y1) = (f64::from(r.y), f64::from(r.y) + 1.0);
        let (x0, x1) = (f64::from(r.x0), f64::from(r.x1));
        pts.extend([
            Point::new(x0, y0),
            Point::new(x1, y0),
            Point::new(x0, y1),
            Point::new(x1, y1),
        ]);
    }
    let hull = convex_hull(pts);
    let idx = max_area_quad(&hull)?;
    let quad = Quad::from_cyclic(idx.map(|i| hull[i]));
    let hull_area = super::geometry::signed_area(&hull).abs();
    let area = quad.area();
    let frame_area = (work.w * work.h) as f64;
    if area < cfg.min_area_frac * frame_area || area > cfg.max_area_frac * frame_area {
        return None;
    }
    if hull_area > cfg.max_hull_excess * area {
        return None;
    }
    let aspect = quad.aspect();
    if aspect < cfg.aspect.0 || aspect > cfg.aspect.1 {
        return None;
    }
    if quad
        .angles()
        .iter()
        .any(|a| (a - 90.0).abs() > cfg.max_angle_skew)
    {
        return None;
    }
    if margin_white(work, level, &quad) < cfg.min_margin_white {
        return None;
    }
    Some(Candidate { quad, area })
}

/// The fraction of points just inside the quad's edges that are at or above the
/// level: a card has a white margin all round; a blob whose hull happens to be
/// rectangular (a bright patch of cloth with a hole) does not.
fn margin_white(work: &WorkImage, level: i16, quad: &Quad) -> f64 {
    let c = quad.centre();
    let (mut hit, mut total) = (0u32, 0u32);
    for i in 0..4 {
        let (a, b) = (quad.0[i], quad.0[(i + 1) % 4]);
        for k in 0..16 {
            let t = 0.1 + 0.8 * f64::from(k) / 15.0;
            let e = Point::new(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
            // Move 2.5 working pixels toward the centre.
            let d = e.dist(c).max(1e-9);
            let p = Point::new(e.x + (c.x - e.x) * 2.5 / d, e.y + (c.y - e.y) * 2.5 / d);
            total += 1;
            if work.at(p.x, p.y).is_some_and(|v| v >= level) {
                hit += 1;
            }
        }
    }
    f64::from(hit) / f64::from(total.max(1))
}

/// Keeps one candidate per card: the largest outline that does not contain two or
/// more smaller cards.
fn choose(mut cands: Vec<Candidate>) -> Vec<Candidate> {
    cands.sort_by(|a, b| a.area.total_cmp(&b.area));
    let mut kept: Vec<Candidate> = Vec::new();
    for c in cands {
        let inside: Vec<usize> = kept
            .iter()
            .enumerate()
            .filter(|(_, k)| c.quad.contains(k.quad.centre()) || k.quad.contains(c.quad.centre()))
            .map(|(i, _)| i)
            .collect();
        match inside.as_slice() {
            [] => kept.push(c),
            [one] => kept[*one] = c,
            _ => {}
        }
    }
    kept
}

/// Finds the cards in a frame: their quads in full-frame pixels, in the contract's
/// corner order, sorted left to right by centre.
pub fn locate_cards(frame: &RgbImage, cfg: &LocaliserConfig) -> Vec<Quad> {
    if frame.width() < 8 || frame.height() < 8 {
        return Vec::new();
    }
    let work = WorkImage::new(frame, cfg.work_long_side);
    let frame_area = (work.w * work.h) as f64;
    let min_px = (cfg.min_area_frac * frame_area * 0.3) as u32;
    let max_px = (cfg.max_area_frac * frame_area * 1.1) as u32;
    let mut cands = Vec::new();
    for &level in &cfg.levels {
        for blob in blobs(&work, level, min_px, max_px) {
            if let Some(c) = card_candidate(&work, level, &blob, cfg) {
                cands.push(c);
            }
        }
    }
    let luma = Luma::new(frame);
    let mut quads: Vec<Quad> = choose(cands)
        .into_iter()
        .map(|c| {
            let s = work.scale;
            let coarse = Quad(c.quad.0.map(|p| Point::new(p.x * s, p.y * s)));
            refine(&luma, &coarse, s)
        })
        .collect();
    quads.sort_by(|a, b| a.centre().x.total_cmp(&b.centre().x));
    quads
}

/// Grey levels of the full frame, for edge search.
struct Luma {
    w: usize,
    h: usize,
    data: Vec<f32>,
}

impl Luma {
    fn new(frame: &RgbImage) -> Luma {
        let data = frame
            .pixels()
            .map(|p| 0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2]))
            .collect();
        Luma {
            w: frame.width() as usize,
            h: frame.height() as usize,
            data,
        }
    }

    /// Bilinear sample at pixel coordinates; `None` off the frame.
    fn sample(&self, x: f64, y: f64) -> Option<f32> {
        if x < 0.0 || y < 0.0 || x > (self.w - 1) as f64 || y > (self.h - 1) as f64 {
            return None;
        }
        let (x0, y0) = (x.floor() as usize, y.floor() as usize);
        let (x1, y1) = ((x0 + 1).min(self.w - 1), (y0 + 1).min(self.h - 1));
        let (fx, fy) = ((x - x0 as f64) as f32, (y - y0 as f64) as f32);
        let p = |xx: usize, yy: usize| self.data[yy * self.w + xx];
        let top = p(x0, y0) * (1.0 - fx) + p(x1, y0) * fx;
        let bot = p(x0, y1) * (1.0 - fx) + p(x1, y1) * fx;
        Some(top * (1.0 - fy) + bot * fy)
    }
}

/// Re-fits each side of a coarse quad on the full-resolution frame: along the side,
/// finds the strongest grey-level step across it, fits a straight line through those
/// points, and takes the corners where neighbouring lines cross. A side that cannot
/// be re-fitted keeps its coarse line; a corner that moves implausibly far keeps its
/// coarse position.
fn refine(luma: &Luma, coarse: &Quad, scale: f64) -> Quad {
    let reach = 2.5 * scale + 2.0;
    let step = 0.5;
    let q = &coarse.0;
    let mut lines: Vec<Option<Line>> = Vec::with_capacity(4);
    for i in 0..4 {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        let len = a.dist(b);
        if len < 4.0 {
            return *coarse;
        }
        let (dx, dy) = ((b.x - a.x) / len, (b.y - a.y) / len);
        // Outward normal of a clockwise-on-screen polygon.
        let (nx, ny) = (dy, -dx);
        let mut pts = Vec::with_capacity(24);
        for k in 0..24 {
            let t = 0.12 + 0.76 * f64::from(k) / 23.0;
            let (bx, by) = (a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
            if let Some(s) = edge_offset(luma, (bx, by), (nx, ny), reach, step) {
                pts.push(Point::new(bx + nx * s, by + ny * s));
            }
        }
        lines.push(robust_line(&pts).or_else(|| Line::through(a, b)));
    }
    let limit = 2.0 * scale + 4.0;
    let corners: [Point; 4] = std::array::from_fn(|i| {
        let before = &lines[(i + 3) % 4];
        let after = &lines[i];
        match (before, after) {
            (Some(l1), Some(l2)) => l1
                .intersect(l2)
                .filter(|p| p.dist(q[i]) <= limit)
                .unwrap_or(q[i]),
            _ => q[i],
        }
    });
    Quad::from_cyclic(corners)
}

/// The offset along the normal (from `-reach` to `reach`) of the strongest grey-level
/// step, with sub-sample precision.
fn edge_offset(
    luma: &Luma,
    base: (f64, f64),
    normal: (f64, f64),
    reach: f64,
    step: f64,
) -> Option<f64> {
    let n = (2.0 * reach / step) as usize + 1;
    let mut vals = Vec::with_capacity(n);
    for k in 0..n {
        let s = -reach + step * k as f64;
        vals.push(luma.sample(base.0 + normal.0 * s, base.1 + normal.1 * s)?);
    }
    // Central differences; the card is usually brighter inside (negative step going
    // out), but a card on a white cloth may show either sign: take the magnitude.
    let grad: Vec<f32> = (1..n - 1)
        .map(|k| (vals[k + 1] - vals[k - 1]).abs())
        .collect();
    let (best, &g) = grad.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1))?;
    if g < 12.0 {
        return None;
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
    Some(-reach + step * (pos + 1.0))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::geometry::Homography;
    use image::Rgb;

    /// Draws a white card with a black mark in its top-left corner onto `img`,
    /// through the homography from the 160 × 224 card to `quad`.
    fn draw_card(img: &mut RgbImage, quad: [Point; 4]) {
        let dst = [
            Point::new(0.0, 0.0),
            Point::new(160.0, 0.0),
            Point::new(160.0, 224.0),
            Point::new(0.0, 224.0),
        ];
        let inv = Homography::from_points(quad, dst).unwrap();
        for y in 0..img.height() {
            for x in 0..img.width() {
                let p = inv.apply(f64::from(x) + 0.5, f64::from(y) + 0.5).unwrap();
                if (0.0..160.0).contains(&p.x) && (0.0..224.0).contains(&p.y) {
                    let mark = p.x > 10.0 && p.x < 30.0 && p.y > 10.0 && p.y < 50.0;
                    let pip = (p.x - 80.0).hypot(p.y - 112.0) < 25.0;
                    let v = if mark || pip {
                        [20, 20, 20]
                    } else {
                        [245, 245, 240]
                    };
                    img.put_pixel(x, y, Rgb(v));
                }
            }
        }
    }

    fn cloth(w: u32, h: u32, rgb: [u8; 3]) -> RgbImage {
        RgbImage::from_fn(w, h, |x, y| {
            let n = ((x * 7 + y * 13) % 9) as u8;
            Rgb([rgb[0].saturating_add(n), rgb[1].saturating_add(n), rgb[2]])
        })
    }

    fn p(x: f64, y: f64) -> Point {
        Point::new(x, y)
    }

    #[test]
    fn finds_a_tilted_card_on_green_felt_within_a_pixel() {
        let mut img = cloth(640, 400, [30, 110, 50]);
        let truth = [
            p(200.0, 90.0),
            p(300.0, 110.0),
            p(272.0, 250.0),
            p(172.0, 230.0),
        ];
        draw_card(&mut img, truth);
        let found = locate_cards(&img, &LocaliserConfig::default());
        assert_eq!(found.len(), 1, "{found:?}");
        let err = found[0].corner_error(&Quad::from_cyclic(truth));
        assert!(err < 1.5, "corner error {err}: {:?}", found[0]);
    }

    #[test]
    fn orders_cards_left_to_right_and_ignores_a_round_coaster() {
        let mut img = cloth(800, 450, [120, 60, 30]);
        let a = [
            p(420.0, 100.0),
            p(520.0, 100.0),
            p(520.0, 240.0),
            p(420.0, 240.0),
        ];
        let b = [
            p(100.0, 120.0),
            p(200.0, 110.0),
            p(212.0, 250.0),
            p(112.0, 260.0),
        ];
        draw_card(&mut img, a);
        draw_card(&mut img, b);
        for y in 0..450u32 {
            for x in 0..800u32 {
                if (f64::from(x) - 680.0).hypot(f64::from(y) - 320.0) < 60.0 {
                    img.put_pixel(x, y, Rgb([235, 235, 235]));
                }
            }
        }
        let found = locate_cards(&img, &LocaliserConfig::default());
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].corner_error(&Quad::from_cyclic(b)) < 1.5);
        assert!(found[1].corner_error(&Quad::from_cyclic(a)) < 1.5);
    }

    #[test]
    fn a_card_cut_by_the_frame_edge_is_not_reported() {
        let mut img = cloth(400, 300, [30, 110, 50]);
        draw_card(
            &mut img,
            [
                p(-40.0, 50.0),
                p(60.0, 50.0),
                p(60.0, 190.0),
                p(-40.0, 190.0),
            ],
        );
        assert!(locate_cards(&img, &LocaliserConfig::default()).is_empty());
    }

    #[test]
    fn blank_and_tiny_frames_have_no_cards() {
        let cfg = LocaliserConfig::default();
        assert!(locate_cards(&RgbImage::new(1, 1), &cfg).is_empty());
        assert!(
            locate_cards(&RgbImage::from_pixel(300, 200, Rgb([250, 250, 250])), &cfg).is_empty()
        );
        assert!(locate_cards(&RgbImage::new(300, 200), &cfg).is_empty());
    }
}
