//! Fans: a hand fanned out on the table, each card turned about one point below the
//! cards a little further than the card it lies on, so that a wedge of each covered
//! card shows its top-left index.
//!
//! A fan's outline is neither a card nor a row, but its convex hull says where the
//! cards are. Every card's two top corners lie on one circle about the point the
//! cards turn on, and no card reaches past that circle anywhere else (a card's top
//! edge is a chord of it), so every top corner, covered card or not, is a vertex of
//! the hull: the hull's top is an arc of corners. Walked clockwise on screen, the
//! arc starts at the bottom card's top-left corner, where its index is, and ends at
//! the top card's top-right corner; between them lie the other cards' top-left
//! corners and the top-right corners poking out past the cards above them. The
//! simplified hull keeps only some of these corners when the cards are many and
//! their wedges narrow, so between the arc's ends they are taken from the whole
//! hull, each cluster of points near the circle one corner. Each
//! corner of the arc is taken as a card's top-left corner: the card's top edge is
//! the chord of one card's width that starts there, its side a card's height long
//! and square to it. A top-right corner taken that way puts an index crop on the
//! cards above it, which read as no card (or, where another card's index lies
//! under it, as that card, which the recognizer's duplicate merge drops); the
//! recognizer keeps only what reads as a card.
//!
//! The card's height is the longer of the card sides beside the arc's two ends
//! (the bottom card's left side, the top card's right side: `side_length`), its
//! width the arc's last chord (the top card's top edge), or a poker card's share of
//! the height where that chord is not a card's width.

use super::geometry::{signed_area, Point, Quad};

/// A card's width over its height, where the fan shows no whole top edge to
/// measure it (a poker card; a bridge card is 0.64).
const CARD_ASPECT: f64 = 0.71;
/// The narrowest and widest card the top card's top edge may show, over its
/// height (a bridge card is 0.64, a poker card 0.71).
const MIN_ASPECT: f64 = 0.6;
const MAX_ASPECT: f64 = 0.8;
/// The hull is simplified to within this fraction of the square root of its area
/// (merging the points of each rounded corner into one vertex).
const SIMPLIFY: f64 = 0.012;
/// A vertex lies on the arc when its distance from the circle is within this
/// fraction of the square root of the hull's area.
const ON_ARC: f64 = 0.02;
/// The fewest corners the arc must hold: two cards' top-left corners and the top
/// card's top-right corner, and one more, so that three points do not make an arc
/// of any three corners of a lone blob.
const MIN_ARC: usize = 4;
/// The widest a fan may open (degrees) from the bottom card's top-left corner to
/// the top card's top-right corner, seen from the point the cards turn on.
const MAX_OPEN: f64 = 200.0;
/// The shortest and longest the arc's radius may be, over the cards' height. A
/// hand is fanned about a point at or below the cards' bottom indices: the top
/// corners then lie about a card's height or more from it (0.92 of it with the
/// point at the bottom index, 1.06 at the bottom edge, 1.54 half a card's height
/// below, 2.5 about one and a half below), and the fans of `render_spread.py
/// --fan` (turned about a point 0.05–0.35 card heights below) measure 1.0–2.0. A
/// light or speckled cloth makes
/// many blobs whose hulls hold short arcs of corners, most of them on circles far
/// smaller or far larger than the height their sides give; each would cost the
/// recognizer a crop read per corner.
const MIN_RADIUS: f64 = 0.85;
const MAX_RADIUS: f64 = 2.5;

/// One card of a fan, as it lies in the frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FanCard {
    /// The whole card's outline `[TL, TR, BR, BL]`, clockwise on screen, its top-left
    /// corner the arc's corner whose index shows.
    pub quad: Quad,
    /// Whether this is the top card, the one card of the fan that shows whole. How
    /// much of a covered card shows is not known: the arc's next corner may be the
    /// next card's top-left corner or another card's top-right corner poking out.
    pub on_top: bool,
    /// Whether the simplified hull kept this card's corner, as against a corner
    /// found only on the whole hull. A cloth's speckles make blobs whose hulls hold
    /// short arcs too; the recognizer screens each fan on these corners first and
    /// reads the others only of fans that pass.
    pub kept: bool,
}

/// The cards of a fan whose convex hull (any orientation) is `hull`, from the bottom
/// card to the top one; empty when the hull has no arc of corners, or its cards
/// would be smaller than `min_card_area` (square pixels: the smallest card the
/// localiser looks for) or turn about a point no hand is fanned about
/// (`MIN_RADIUS` to `MAX_RADIUS` card heights).
pub fn fan_cards(hull: &[Point], min_card_area: f64) -> Vec<FanCard> {
    let mut hull = hull.to_vec();
    if signed_area(&hull) < 0.0 {
        hull.reverse();
    }
    let area = signed_area(&hull);
    if area <= 0.0 {
        return Vec::new();
    }
    let size = area.sqrt();
    let poly = simplify_closed(&hull, SIMPLIFY * size);
    let n = poly.len();
    // Four corners of the arc and at least two other sides (the outer sides).
    if n < MIN_ARC + 2 {
        return Vec::new();
    }
    let Some(chain) = arc_chain(&poly, ON_ARC * size) else {
        return Vec::new();
    };
    let arc: Vec<Point> = chain.iter().map(|&i| poly[i]).collect();
    let Some((centre, radius)) = fit_circle(&arc) else {
        return Vec::new();
    };
    let first = chain[0];
    let last = chain[chain.len() - 1];
    let min_side = SIDE_MIN * size;
    let height = side_length(&poly, first, false, centre, min_side)
        .max(side_length(&poly, last, true, centre, min_side));
    if height <= 0.0
        || CARD_ASPECT * height * height < min_card_area
        || !hand_fanned(radius, height)
    {
        return Vec::new();
    }
    let corners = arc_corners(&hull, &arc, centre, radius, ON_ARC * size, height);
    // The top card's whole top edge is the last chord.
    let top_edge = corners[corners.len() - 2]
        .0
        .dist(corners[corners.len() - 1].0);
    let width = if (MIN_ASPECT * height..=MAX_ASPECT * height).contains(&top_edge) {
        top_edge
    } else {
        CARD_ASPECT * height
    };
    if width >= 1.9 * radius {
        return Vec::new();
    }
    let angle = |p: Point| (p.y - centre.y).atan2(p.x - centre.x);
    // The hull runs clockwise on screen, and so does the arc along it: the angle
    // about the centre grows from the bottom card's corner to the top card's.
    let mut open = 0.0;
    for w in arc.windows(2) {
        let mut d = angle(w[1]) - angle(w[0]);
        while d < 0.0 {
            d += std::f64::consts::TAU;
        }
        open += d;
    }
    if open.to_degrees() > MAX_OPEN {
        return Vec::new();
    }
    // A chord of one card's width spans this angle of the circle.
    let span = 2.0 * (width / (2.0 * radius)).min(1.0).asin();
    let mut cards = Vec::with_capacity(corners.len() - 1);
    for (i, pair) in corners.windows(2).enumerate() {
        let (tl, kept) = pair[0];
        let a = angle(tl) + span;
        let tr = if i + 2 == corners.len() {
            // The top card's top edge is the arc's last chord.
            pair[1].0
        } else {
            Point::new(centre.x + radius * a.cos(), centre.y + radius * a.sin())
        };
        let along = tl.dist(tr);
        if along <= 0.0 {
            return Vec::new();
        }
        let (ux, uy) = ((tr.x - tl.x) / along, (tr.y - tl.y) / along);
        // Square to the top edge, towards the centre (clockwise on screen).
        let (nx, ny) = (-uy, ux);
        let down = |p: Point| Point::new(p.x + nx * height, p.y + ny * height);
        cards.push(FanCard {
            quad: Quad([tl, tr, down(tr), down(tl)]),
            on_top: i + 2 == corners.len(),
            kept,
        });
    }
    cards
}

/// Whether cards `height` tall whose top corners lie on a circle of `radius` turn
/// about a point a hand is fanned about ([`MIN_RADIUS`], [`MAX_RADIUS`]).
fn hand_fanned(radius: f64, height: f64) -> bool {
    (MIN_RADIUS * height..=MAX_RADIUS * height).contains(&radius)
}

/// Hull points on the arc closer together than this fraction of the card's height
/// (along the circle) to the first of them are one corner: the points of a
/// rounded corner, or a card's top-left corner and the top-right corner of a card
/// below poking out beside it.
const CLUSTER: f64 = 0.07;

/// The corners of the arc, from the bottom card's top-left corner to the top
/// card's top-right one, its ends `arc`'s. In a fan of many cards the corners lie
/// so close to one circle that the simplified hull keeps only some of them, so
/// they are taken from the whole hull: every point within `tol` of the circle is
/// gathered into clusters (`CLUSTER`), and each cluster's point farthest from the
/// centre is a corner. The top card's top-left corner is the simplified arc's
/// last but one vertex (its last chord is the top card's top edge), and the
/// corners are gathered up to it. Each corner comes with whether the simplified
/// arc has it (its own vertex, or a cluster holding one).
fn arc_corners(
    hull: &[Point],
    arc: &[Point],
    centre: Point,
    radius: f64,
    tol: f64,
    height: f64,
) -> Vec<(Point, bool)> {
    let (first, last) = (arc[0], arc[arc.len() - 1]);
    let angle = |p: Point| (p.y - centre.y).atan2(p.x - centre.x);
    // Clockwise angle from the arc's start.
    let from_start = |p: Point| (angle(p) - angle(first)).rem_euclid(std::f64::consts::TAU);
    let gap = CLUSTER * height / radius;
    // The top card's top-left corner, as the simplified hull keeps it.
    let top_left = arc[arc.len() - 2];
    let top_at = from_start(top_left);
    let mut on: Vec<(f64, Point)> = hull
        .iter()
        .filter(|p| (p.dist(centre) - radius).abs() <= tol)
        .map(|&p| (from_start(p), p))
        .filter(|(a, _)| *a > gap && *a < top_at - gap)
        .collect();
    on.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut corners = vec![(first, true)];
    corners.extend(clusters(&on, gap, centre, &arc[1..arc.len() - 2]));
    corners.push((top_left, true));
    corners.push((last, true));
    corners
}

/// The corners among `on` (points with their angle along the arc, in order): each
/// run of points within `gap` of its first point is one corner, the point farthest
/// from `centre` (a rounded corner's tip), with whether the run holds one of
/// `kept` (the simplified arc's vertices).
fn clusters(on: &[(f64, Point)], gap: f64, centre: Point, kept: &[Point]) -> Vec<(Point, bool)> {
    let mut corners = Vec::new();
    let mut start = 0;
    for k in 1..=on.len() {
        if k == on.len() || on[k].0 - on[start].0 > gap {
            let run = &on[start..k];
            if let Some(&(_, tip)) = run
                .iter()
                .max_by(|a, b| a.1.dist(centre).total_cmp(&b.1.dist(centre)))
            {
                corners.push((tip, run.iter().any(|(_, p)| kept.contains(p))));
            }
            start = k;
        }
    }
    corners
}

/// How far the polygon's side runs from the arc's end `end` (a vertex index),
/// walking away from the arc (`forward`: to the following vertices, else to the
/// preceding ones): a card's side from its top corner towards the point the cards
/// turn on (`centre`). The simplified hull may leave a vertex or two on the card's
/// rounded corner before the side, so the side is the first of the next few sides
/// at least `min_len` long that heads towards the centre (within 45°), and the
/// length is the distance from the end to its far vertex.
fn side_length(poly: &[Point], end: usize, forward: bool, centre: Point, min_len: f64) -> f64 {
    let n = poly.len();
    let at = |k: usize| {
        let i = if forward {
            (end + k) % n
        } else {
            (end + n - k) % n
        };
        poly[i]
    };
    let e = at(0);
    let (cx, cy) = (centre.x - e.x, centre.y - e.y);
    let inward = |a: Point, b: Point| {
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        let len = (dx * dx + dy * dy).sqrt() * (cx * cx + cy * cy).sqrt();
        len > 0.0 && (dx * cx + dy * cy) / len >= std::f64::consts::FRAC_1_SQRT_2
    };
    (1..=SIDE_STEPS.min(n - 1))
        .find(|&k| at(k - 1).dist(at(k)) >= min_len && inward(at(k - 1), at(k)))
        .map_or(0.0, |k| e.dist(at(k)))
}

/// How many sides beyond each end of the arc are searched for the card's side.
const SIDE_STEPS: usize = 3;
/// The shortest a card's side may be, over the square root of the hull's area
/// (a rounded corner's sides are much shorter).
const SIDE_MIN: f64 = 0.25;

/// The longest run of consecutive vertices of a closed polygon that lie on one
/// circle (within `tol`), as vertex indices in order; `None` when no run holds
/// [`MIN_ARC`] vertices. Each vertex's circle through its two neighbours is grown
/// both ways while the next vertex lies on it.
fn arc_chain(poly: &[Point], tol: f64) -> Option<Vec<usize>> {
    let n = poly.len();
    let mut best: Option<Vec<usize>> = None;
    for i in 0..n {
        let (prev, next) = ((i + n - 1) % n, (i + 1) % n);
        let Some((c, r)) = circle_through(poly[prev], poly[i], poly[next]) else {
            continue;
        };
        let on = |k: usize| (poly[k].dist(c) - r).abs() <= tol;
        let mut run = std::collections::VecDeque::from([prev, i, next]);
        while run.len() < n {
            let k = (run[run.len() - 1] + 1) % n;
            if !on(k) {
                break;
            }
            run.push_back(k);
        }
        while run.len() < n {
            let k = (run[0] + n - 1) % n;
            if !on(k) {
                break;
            }
            run.push_front(k);
        }
        if best.as_ref().is_none_or(|b| run.len() > b.len()) {
            best = Some(run.into());
        }
    }
    // A whole polygon on one circle is a disc (a coaster), not a fan.
    best.filter(|b| b.len() >= MIN_ARC && b.len() < n)
}

/// The circle through three points; `None` when they lie on a line.
fn circle_through(a: Point, b: Point, c: Point) -> Option<(Point, f64)> {
    let d = 2.0 * (a.x * (b.y - c.y) + b.x * (c.y - a.y) + c.x * (a.y - b.y));
    if d.abs() < 1e-9 {
        return None;
    }
    let sq = |p: Point| p.x * p.x + p.y * p.y;
    let x = (sq(a) * (b.y - c.y) + sq(b) * (c.y - a.y) + sq(c) * (a.y - b.y)) / d;
    let y = (sq(a) * (c.x - b.x) + sq(b) * (a.x - c.x) + sq(c) * (b.x - a.x)) / d;
    let centre = Point::new(x, y);
    Some((centre, centre.dist(a)))
}

/// The least-squares circle through points (Kåsa's fit: linear in the centre and
/// `r² − |c|²`); `None` for fewer than three points or points on a line.
fn fit_circle(pts: &[Point]) -> Option<(Point, f64)> {
    if pts.len() < 3 {
        return None;
    }
    // Centred on the points' mean for conditioning.
    let Point { x: mx, y: my } = Point::mean(pts);
    // Normal equations of [2x 2y 1] · [cx cy e] = x² + y².
    let mut m = [[0.0f64; 4]; 3];
    for p in pts {
        let (x, y) = (p.x - mx, p.y - my);
        let row = [2.0 * x, 2.0 * y, 1.0];
        let rhs = x * x + y * y;
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] += row[i] * row[j];
            }
            m[i][3] += row[i] * rhs;
        }
    }
    let [cx, cy, e] = solve3(m)?;
    let r2 = e + cx * cx + cy * cy;
    (r2 > 0.0).then(|| (Point::new(cx + mx, cy + my), r2.sqrt()))
}

/// Solves a 3 × 3 system given as its augmented matrix (Gaussian elimination with
/// partial pivoting); `None` when it is singular.
fn solve3(mut m: [[f64; 4]; 3]) -> Option<[f64; 3]> {
    for col in 0..3 {
        let pivot = (col..3).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[pivot][col].abs() < 1e-12 {
            return None;
        }
        m.swap(col, pivot);
        let lead = m[col];
        for (r, row) in m.iter_mut().enumerate() {
            if r != col {
                let f = row[col] / lead[col];
                for (x, l) in row.iter_mut().zip(lead).skip(col) {
                    *x -= f * l;
                }
            }
        }
    }
    Some([m[0][3] / m[0][0], m[1][3] / m[1][1], m[2][3] / m[2][2]])
}

/// A closed polygon simplified to within `tol` (Douglas and Peucker's algorithm),
/// split at its first vertex and the vertex farthest from it.
fn simplify_closed(poly: &[Point], tol: f64) -> Vec<Point> {
    let n = poly.len();
    if n < 4 {
        return poly.to_vec();
    }
    let far = (1..n)
        .max_by(|&a, &b| poly[0].dist(poly[a]).total_cmp(&poly[0].dist(poly[b])))
        .unwrap_or(1);
    let mut keep = vec![false; n];
    keep[0] = true;
    keep[far] = true;
    let ring: Vec<usize> = (0..=n).map(|i| i % n).collect();
    douglas_peucker(poly, &ring[..=far], tol, &mut keep);
    douglas_peucker(poly, &ring[far..], tol, &mut keep);
    (0..n).filter(|&i| keep[i]).map(|i| poly[i]).collect()
}

/// Marks in `keep` the vertices of the open chain `idx` (indices into `poly`) that
/// its simplification to within `tol` keeps, its ends aside.
fn douglas_peucker(poly: &[Point], idx: &[usize], tol: f64, keep: &mut [bool]) {
    let mut stack = vec![(0usize, idx.len() - 1)];
    while let Some((s, e)) = stack.pop() {
        if e <= s + 1 {
            continue;
        }
        let (a, b) = (poly[idx[s]], poly[idx[e]]);
        let len = a.dist(b);
        let dist = |p: Point| {
            if len < 1e-9 {
                p.dist(a)
            } else {
                ((b.x - a.x) * (a.y - p.y) - (a.x - p.x) * (b.y - a.y)).abs() / len
            }
        };
        let (k, d) = (s + 1..e)
            .map(|k| (k, dist(poly[idx[k]])))
            .fold((s, -1.0), |best, x| if x.1 > best.1 { x } else { best });
        if d > tol {
            keep[idx[k]] = true;
            stack.push((s, k));
            stack.push((k, e));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::geometry::convex_hull;

    /// The corners of a fan as `render_spread.py --fan` lays it out: `n` cards of
    /// height `h` turned by `step` radians each about a point `drop` card heights
    /// below them, centred on `at`; the bottom card first.
    fn fan(n: usize, h: f64, step: f64, drop: f64, at: Point) -> Vec<[Point; 4]> {
        let w = CARD_ASPECT * h;
        let base = [
            (-w / 2.0, -h - drop * h),
            (w / 2.0, -h - drop * h),
            (w / 2.0, -drop * h),
            (-w / 2.0, -drop * h),
        ];
        (0..n)
            .map(|i| {
                let a = (i as f64 - (n as f64 - 1.0) / 2.0) * step;
                let (s, c) = a.sin_cos();
                base.map(|(x, y)| Point::new(at.x + x * c - y * s, at.y + x * s + y * c))
            })
            .collect()
    }

    fn hull_of(cards: &[[Point; 4]]) -> Vec<Point> {
        convex_hull(cards.iter().flatten().copied().collect())
    }

    /// Checks what `fan_cards` found on the hull of `cards`: every card it offers
    /// starts at a top corner of the fan; those at a card's top-left corner have
    /// that card's whole outline; at least `min` cards are found that way;
    /// returns how many.
    fn check(cards: &[[Point; 4]], min: usize) -> usize {
        let found = fan_cards(&hull_of(cards), 0.0);
        let top_corner = |p: Point| {
            cards
                .iter()
                .any(|c| c[0].dist(p) < 2.0 || c[1].dist(p) < 2.0)
        };
        assert!(found.iter().all(|f| top_corner(f.quad.0[0])), "{found:?}");
        let mut hits = 0;
        for (i, card) in cards.iter().enumerate() {
            let Some(f) = found.iter().find(|f| f.quad.0[0].dist(card[0]) < 2.0) else {
                continue;
            };
            hits += 1;
            for (k, corner) in card.iter().enumerate() {
                assert!(
                    f.quad.0[k].dist(*corner) < 4.0,
                    "card {i} corner {k}: {:?} vs {:?}",
                    f.quad.0[k],
                    corner
                );
            }
            assert!(
                !f.on_top || i + 1 == cards.len(),
                "card {i} is not the top card"
            );
        }
        let tops: Vec<&FanCard> = found.iter().filter(|f| f.on_top).collect();
        assert_eq!(tops.len(), 1, "one top card: {found:?}");
        // The top card's outline starts at its top-left corner; or, where a covered
        // card's top-right corner pokes out past the top card's edge far enough for
        // the simplified hull to keep it, at that corner, within a card's width of
        // the top card's top-right corner (the top card's own index corner, within
        // a corner's gap of it, is then lost).
        let top_card = cards[cards.len() - 1];
        let at = tops[0].quad.0[0];
        if at.dist(top_card[0]) >= 2.0 {
            assert!(
                cards.iter().any(|c| c[1].dist(at) < 2.0)
                    && at.dist(top_card[1]) < top_card[0].dist(top_card[1]),
                "the top card starts at {at:?}"
            );
        }
        assert!(hits >= min, "{hits} of {} cards found", cards.len());
        hits
    }

    #[test]
    fn the_cards_of_a_fan_get_their_index_corners() {
        // Wide wedges.
        let wide = fan(4, 180.0, 0.3, 0.1, Point::new(640.0, 600.0));
        check(&wide, 2);
        // Narrow wedges: the simplified hull keeps some of their corners.
        check(&fan(12, 180.0, 0.12, 0.2, Point::new(640.0, 600.0)), 3);
    }

    #[test]
    fn a_bent_side_does_not_shorten_the_cards() {
        // A blob's outer sides are rarely straight (a lens bends them, a shadow or
        // a blurred corner bulges them): the simplified hull may keep a vertex a
        // little way down a side, and the side beside the arc's end is then only a
        // piece of the card's side.
        let (h, n) = (180.0, 5);
        let cards = fan(n, h, 0.3, 0.1, Point::new(640.0, 600.0));
        let mut points: Vec<Point> = cards.iter().flatten().copied().collect();
        for (top, bottom) in [
            (cards[0][0], cards[0][3]),
            (cards[n - 1][1], cards[n - 1][2]),
        ] {
            let (dx, dy) = ((bottom.x - top.x) / h, (bottom.y - top.y) / h);
            // A fifth of the way down, 4 px out (the outward normal of a side
            // walked downwards on the left is (-dy, dx); on the right, (dy, -dx)).
            let out = if top == cards[0][0] {
                (-dy, dx)
            } else {
                (dy, -dx)
            };
            points.push(Point::new(
                top.x + 0.2 * h * dx + 4.0 * out.0,
                top.y + 0.2 * h * dy + 4.0 * out.1,
            ));
        }
        let found = fan_cards(&convex_hull(points), 0.0);
        assert!(found.len() >= n, "{found:?}");
        for f in &found {
            let side = f.quad.0[0].dist(f.quad.0[3]);
            assert!(
                (side - h).abs() < 0.05 * h,
                "a card {side:.1} px tall, not {h}"
            );
        }
    }

    #[test]
    fn corners_the_simplified_hull_drops_are_found_on_the_whole_hull() {
        // Twenty narrow wedges, each card's corners rounded as a real card's are
        // (a radius of 4 % of its height, drawn as a few hull points): the corners
        // lie so close to one circle that simplifying the hull keeps only some of
        // them, and each rounded corner is several hull points, one corner.
        let (h, n) = (180.0, 20);
        let cards = fan(n, h, 0.07, 0.2, Point::new(640.0, 600.0));
        let r = 0.04 * h;
        let rounded: Vec<Point> = cards
            .iter()
            .flat_map(|c| {
                (0..4).flat_map(move |k| {
                    // The corner's arc: from the side before it to the side after.
                    let (p, prev, next) = (c[k], c[(k + 3) % 4], c[(k + 1) % 4]);
                    let unit = |a: Point, b: Point| {
                        let d = a.dist(b);
                        ((b.x - a.x) / d, (b.y - a.y) / d)
                    };
                    let (u, v) = (unit(p, prev), unit(p, next));
                    let centre = Point::new(p.x + r * (u.0 + v.0), p.y + r * (u.1 + v.1));
                    (0..=4).map(move |j| {
                        let t = f64::from(j) / 4.0 * std::f64::consts::FRAC_PI_2;
                        // From the point on the side before to the one on the side after.
                        let (a, b) = (t.cos(), t.sin());
                        Point::new(
                            centre.x - r * (a * v.0 + b * u.0),
                            centre.y - r * (a * v.1 + b * u.1),
                        )
                    })
                })
            })
            .collect();
        let found = fan_cards(&convex_hull(rounded), 0.0);
        // Each card's index corner, found once: a corner within the rounding of it.
        let hits = cards
            .iter()
            .filter(|c| {
                found
                    .iter()
                    .filter(|f| f.quad.0[0].dist(c[0]) < 1.5 * r)
                    .count()
                    == 1
            })
            .count();
        // 19 are; the simplified hull alone gives 6, and clusters chained from
        // point to point (each within the gap of the one before) 7.
        assert!(hits >= 17, "{hits} of {n} index corners found: {found:?}");
        // Those the simplified hull keeps are marked so (the recognizer screens a
        // fan on them first), the rest not: 8 of the 24 corners here.
        let kept = found.iter().filter(|f| f.kept).count();
        assert!(
            (3..=found.len() - 10).contains(&kept),
            "{kept} of {} corners marked as kept",
            found.len()
        );
        for f in &found {
            let side = f.quad.0[0].dist(f.quad.0[3]);
            assert!((side - h).abs() < 0.05 * h, "a card {side:.1} px tall");
        }
    }

    #[test]
    fn a_fan_turned_upside_down_reads_the_same_way_round() {
        // Seen from across the table: the same fan turned by 180°.
        let cards: Vec<[Point; 4]> = fan(4, 150.0, 0.3, 0.1, Point::new(0.0, 0.0))
            .into_iter()
            .map(|q| q.map(|p| Point::new(700.0 - p.x, 200.0 - p.y)))
            .collect();
        check(&cards, 2);
    }

    #[test]
    fn arcs_no_hand_is_fanned_about_and_cards_too_small_are_not_fans() {
        let at = Point::new(640.0, 600.0);
        // The same four cards, fanned about a point a tenth of a card below them.
        let hull = hull_of(&fan(4, 180.0, 0.3, 0.1, at));
        assert!(!fan_cards(&hull, 0.0).is_empty());
        // Smaller than the smallest card the localiser looks for.
        let card_area = CARD_ASPECT * 180.0 * 180.0;
        assert!(!fan_cards(&hull, 0.9 * card_area).is_empty());
        assert!(fan_cards(&hull, 1.1 * card_area).is_empty());
        // Turned about a point two card heights below them (radius 3.0 card
        // heights); half a card's height below them (radius 1.54) is a fan.
        assert!(fan_cards(&hull_of(&fan(4, 100.0, 0.12, 2.0, at)), 0.0).is_empty());
        assert!(!fan_cards(&hull_of(&fan(4, 100.0, 0.2, 0.5, at)), 0.0).is_empty());
        // About a point inside the cards above their bottom indices (radius under
        // 0.85 card heights): the hulls of such fans hold other corners on the arc
        // too, so the bound is checked on its own.
        assert!(!hand_fanned(0.8 * 180.0, 180.0));
        assert!(hand_fanned(0.92 * 180.0, 180.0));
        assert!(hand_fanned(2.4 * 180.0, 180.0));
        assert!(!hand_fanned(2.6 * 180.0, 180.0));
    }

    #[test]
    fn a_card_a_row_and_a_disc_are_not_fans() {
        let card = [
            Point::new(100.0, 100.0),
            Point::new(228.0, 100.0),
            Point::new(228.0, 280.0),
            Point::new(100.0, 280.0),
        ];
        assert!(fan_cards(&card, 0.0).is_empty());
        let row = [
            Point::new(100.0, 100.0),
            Point::new(700.0, 100.0),
            Point::new(700.0, 280.0),
            Point::new(100.0, 280.0),
        ];
        assert!(fan_cards(&row, 0.0).is_empty());
        let disc: Vec<Point> = (0..64)
            .map(|k| {
                let a = f64::from(k) * std::f64::consts::TAU / 64.0;
                Point::new(300.0 + 80.0 * a.cos(), 300.0 + 80.0 * a.sin())
            })
            .collect();
        assert!(fan_cards(&disc, 0.0).is_empty());
    }
}
