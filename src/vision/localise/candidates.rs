//! A blob's card test: its convex hull, the largest quadrilateral inscribed in
//! it, a card's proportions, angles and white margin; the search of mask after
//! mask for such blobs (and for fans).

use super::masks::{blobs, Mask, Run};
use super::LocaliserConfig;
use crate::vision::fan::{self, FanCard};
use crate::vision::geometry::{
    convex_hull_of_sorted, max_area_quad, signed_area, Line, Point, Quad,
};

/// A blob that passed the card tests, in working-image pixels.
#[derive(Debug, Clone)]
pub(super) struct Candidate {
    pub(super) quad: Quad,
    /// How far, in working pixels, the card's edge may lie inside the quad (0 but
    /// for enclosed outlines, whose blob holds the drop shadow too).
    pub(super) slack: f64,
    /// Longer and thinner than a card: an overlapping row of cards, perhaps.
    pub(super) row: bool,
}

/// The quad of a convex hull's four straight sides: the hull is split at the
/// corners of its largest inscribed quad, a line is fitted to the middle of each
/// part (points every pixel along its edges, rounded corners left out), and
/// neighbouring lines cross at the corners. This lands on the corners of the card's
/// bounding rectangle, not on its rounded corners. `None` when a part is not
/// straight (a disc, a blob).
fn fit_sides(hull: &[Point]) -> Option<[Point; 4]> {
    let n = hull.len();
    let idx = max_area_quad(hull)?;
    let mut lines = Vec::with_capacity(4);
    for k in 0..4 {
        let (s, e) = (idx[k], idx[(k + 1) % 4]);
        let (a, b) = (hull[s], hull[e]);
        let chord = a.dist(b);
        if chord < 4.0 {
            return None;
        }
        let (ux, uy) = ((b.x - a.x) / chord, (b.y - a.y) / chord);
        let mut pts = Vec::new();
        let mut i = s;
        while i != e {
            let (p, q) = (hull[i], hull[(i + 1) % n]);
            let steps = p.dist(q).ceil().max(1.0) as usize;
            for j in 0..steps {
                let f = j as f64 / steps as f64;
                let pt = Point::new(p.x + (q.x - p.x) * f, p.y + (q.y - p.y) * f);
                let t = ((pt.x - a.x) * ux + (pt.y - a.y) * uy) / chord;
                if (0.12..=0.88).contains(&t) {
                    pts.push(pt);
                }
            }
            i = (i + 1) % n;
        }
        let line = Line::fit(&pts)?;
        let worst = pts.iter().map(|p| line.distance(*p)).fold(0.0, f64::max);
        // A faint card on a light cloth leaves a mask whose edges are a pixel or two
        // ragged; a disc's arc bulges far more (and fails the hull fill anyway).
        if worst > (0.03 * chord).max(2.5) {
            return None;
        }
        lines.push(line);
    }
    let mut corners = [Point::default(); 4];
    for k in 0..4 {
        let c = lines[(k + 3) % 4].intersect(&lines[k])?;
        let near = hull[idx[k]];
        let side = hull[idx[k]].dist(hull[idx[(k + 1) % 4]]);
        if c.dist(near) > 0.25 * side {
            return None;
        }
        corners[k] = c;
    }
    Some(corners)
}

/// The convex hull of a blob, in working pixels; `None` when the blob touches the
/// frame's edge (a card cut by it cannot be read reliably).
fn blob_hull<F: Fn(usize) -> bool>(mask: &Mask<F>, runs: &[Run]) -> Option<Vec<Point>> {
    let (w, h) = (mask.w as u32, mask.h as u32);
    // The hull only needs each row's outermost run ends (runs come row by row).
    let mut rows: Vec<(u32, u32, u32)> = Vec::with_capacity(runs.len());
    for r in runs {
        // A card cut by the frame's edge cannot be read reliably.
        if r.x0 == 0 || r.x1 >= w || r.y == 0 || r.y + 1 >= h {
            return None;
        }
        match rows.last_mut() {
            Some((y, x0, x1)) if *y == r.y => {
                *x0 = (*x0).min(r.x0);
                *x1 = (*x1).max(r.x1);
            }
            _ => rows.push((r.y, r.x0, r.x1)),
        }
    }
    // Each row's four corner points, sorted by x then y for the hull by a counting
    // sort on x: rows come in order of y, and the sort is stable.
    let mut next = vec![0usize; mask.w + 2];
    for &(_, x0, x1) in &rows {
        next[x0 as usize + 1] += 2;
        next[x1 as usize + 1] += 2;
    }
    for x in 1..next.len() {
        next[x] += next[x - 1];
    }
    let mut pts = vec![Point::default(); rows.len() * 4];
    for &(y, x0, x1) in &rows {
        for x in [x0, x1] {
            let at = &mut next[x as usize];
            pts[*at] = Point::new(f64::from(x), f64::from(y));
            pts[*at + 1] = Point::new(f64::from(x), f64::from(y) + 1.0);
            *at += 2;
        }
    }
    Some(convex_hull_of_sorted(pts))
}

/// Tests one blob by its convex hull; returns its quad when it looks like a card.
fn card_candidate<F: Fn(usize) -> bool>(
    mask: &Mask<F>,
    hull: &[Point],
    cfg: &LocaliserConfig,
) -> Option<Candidate> {
    let quad = Quad::from_cyclic(fit_sides(hull)?);
    let hull_area = signed_area(hull).abs();
    let area = quad.area();
    let frame_area = (mask.w * mask.h) as f64;
    if area < cfg.min_area_frac * frame_area || area > cfg.max_area_frac * frame_area {
        return None;
    }
    let fill = hull_area / area;
    if fill < cfg.hull_fill.0 || fill > cfg.hull_fill.1 {
        return None;
    }
    let aspect = quad.aspect();
    let row = cfg.min_row_aspect > 0.0 && aspect < cfg.aspect.0 && aspect >= cfg.min_row_aspect;
    if (aspect < cfg.aspect.0 && !row) || aspect > cfg.aspect.1 {
        return None;
    }
    if !card_angles(&quad, cfg) {
        return None;
    }
    if margin_white(mask, &quad) < cfg.min_margin_white {
        return None;
    }
    Some(Candidate {
        quad,
        slack: 0.0,
        row,
    })
}

/// Whether a quad's corners could be a card's: near right angles, or a card seen
/// sheared (a parallelogram, opposite angles alike) a little further from them.
pub(super) fn card_angles(quad: &Quad, cfg: &LocaliserConfig) -> bool {
    let a = quad.angles();
    let skew = a.iter().map(|a| (a - 90.0).abs()).fold(0.0, f64::max);
    if skew <= cfg.max_angle_skew {
        return true;
    }
    skew <= cfg.max_sheared_skew
        && (a[0] - a[2]).abs() <= cfg.parallelogram_tolerance
        && (a[1] - a[3]).abs() <= cfg.parallelogram_tolerance
}

/// The fraction of points just inside the quad's edges that are in the mask: a
/// card has a white margin all round; a blob whose hull happens to be rectangular
/// (a bright patch of cloth with a hole) does not.
fn margin_white<F: Fn(usize) -> bool>(mask: &Mask<F>, quad: &Quad) -> f64 {
    let c = quad.centre();
    let (mut hit, mut total) = (0u32, 0u32);
    for i in 0..4 {
        let (a, b) = (quad.0[i], quad.0[(i + 1) % 4]);
        for k in 0..16 {
            let t = 0.1 + 0.8 * f64::from(k) / 15.0;
            let e = Point::new(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
            // Move 2 working pixels toward the centre.
            let d = e.dist(c).max(1e-9);
            let p = Point::new(e.x + (c.x - e.x) * 2.0 / d, e.y + (c.y - e.y) * 2.0 / d);
            total += 1;
            if mask.at(p.x, p.y) {
                hit += 1;
            }
        }
    }
    f64::from(hit) / f64::from(total.max(1))
}

/// The search of mask after mask for blobs: the bounds every mask shares, and the
/// fans found so far (card outlines go where each mask's caller says: some masks'
/// outlines are adjusted or filtered before they are kept).
pub(super) struct BlobSearch<'a> {
    pub(super) cfg: &'a LocaliserConfig,
    /// The fewest and most pixels of a blob worth testing.
    pub(super) sizes: (u32, u32),
    pub(super) fans: Vec<Vec<FanCard>>,
}

impl BlobSearch<'_> {
    /// Adds the card-like blobs of one mask to `out`, and to the fans those that
    /// are neither a card nor too small and whose hull holds an arc of corners.
    pub(super) fn candidates<F: Fn(usize) -> bool>(
        &mut self,
        mask: &Mask<F>,
        out: &mut Vec<Candidate>,
    ) {
        self.candidates_with(mask, out, true);
    }

    /// [`BlobSearch::candidates`], adding fans only when `fans_too`.
    pub(super) fn candidates_with<F: Fn(usize) -> bool>(
        &mut self,
        mask: &Mask<F>,
        out: &mut Vec<Candidate>,
        fans_too: bool,
    ) {
        let cfg = self.cfg;
        let frame_area = (mask.w * mask.h) as f64;
        for blob in blobs(mask, self.sizes.0, self.sizes.1) {
            let Some(hull) = blob_hull(mask, &blob) else {
                continue;
            };
            if let Some(c) = card_candidate(mask, &hull, cfg) {
                out.push(c);
            } else if fans_too
                && signed_area(&hull).abs() >= FAN_MIN_CARDS * cfg.min_area_frac * frame_area
            {
                let fan = fan::fan_cards(&hull, cfg.min_area_frac * frame_area);
                if !fan.is_empty() {
                    self.fans.push(fan);
                }
            }
        }
    }
}

/// A blob is tried as a fan when its hull is at least this many of the smallest
/// cards large.
const FAN_MIN_CARDS: f64 = 2.0;
