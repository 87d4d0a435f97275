//! Plane geometry for card localisation: points, quadrilaterals in the contract's
//! corner order, homographies for rectification, convex hulls and line fits.
//!
//! Everything is in image pixels with `y` pointing down, so "clockwise" means
//! clockwise as a person looks at the picture.

use serde::{Deserialize, Serialize};

/// A point in image pixels (sub-pixel precision).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    pub const fn new(x: f64, y: f64) -> Point {
        Point { x, y }
    }

    /// Euclidean distance to `other`.
    pub fn dist(self, other: Point) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }

    /// The point halfway to `other`.
    pub fn midpoint(self, other: Point) -> Point {
        Point::new((self.x + other.x) / 2.0, (self.y + other.y) / 2.0)
    }

    /// The mean of `pts` (the origin for none): where fits centre their points
    /// for conditioning.
    pub fn mean(pts: &[Point]) -> Point {
        let n = pts.len() as f64;
        let (x, y) = pts
            .iter()
            .fold((0.0, 0.0), |(x, y), p| (x + p.x / n, y + p.y / n));
        Point::new(x, y)
    }

    fn sub(self, o: Point) -> Point {
        Point::new(self.x - o.x, self.y - o.y)
    }

    fn cross(self, o: Point) -> f64 {
        self.x * o.y - self.y * o.x
    }
}

/// Serialised as `[x, y]`, the sidecar and JSON-output form.
impl Serialize for Point {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // One decimal is well below the localisation error and keeps lines short.
        let round = |v: f64| (v * 10.0).round() / 10.0;
        [round(self.x), round(self.y)].serialize(s)
    }
}

impl<'de> Deserialize<'de> for Point {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Point, D::Error> {
        let [x, y] = <[f64; 2]>::deserialize(d)?;
        Ok(Point { x, y })
    }
}

/// Twice the signed area of triangle `a b c` (positive when clockwise on screen).
fn area2(a: Point, b: Point, c: Point) -> f64 {
    b.sub(a).cross(c.sub(a))
}

/// Signed area of a polygon (shoelace), positive when its vertices run clockwise on
/// screen (y down).
pub fn signed_area(poly: &[Point]) -> f64 {
    let n = poly.len();
    if n < 3 {
        return 0.0;
    }
    let mut s = 0.0;
    for i in 0..n {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        s += a.x * b.y - b.x * a.y;
    }
    s / 2.0
}

/// A card's outline: `[top-left, top-right, bottom-right, bottom-left]` of the card
/// turned portrait, clockwise on screen (the recognizer contract).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Quad(pub [Point; 4]);

impl Quad {
    /// Puts four corners given in cyclic order (either direction, any start) into
    /// the contract's order: clockwise, long side vertical, and of the two
    /// equivalent portrait orderings (0° and 180°) the one whose first corner is
    /// nearer the image's top-left (smaller `x + y`), like the scene sidecars.
    pub fn from_cyclic(mut pts: [Point; 4]) -> Quad {
        if signed_area(&pts) < 0.0 {
            pts.reverse();
        }
        let side = |i: usize| pts[i].dist(pts[(i + 1) % 4]);
        // Sides 0-1 and 2-3 must be the short ones (top and bottom).
        let start = if side(0) + side(2) <= side(1) + side(3) {
            0
        } else {
            1
        };
        let alt = start + 2;
        let key = |i: usize| pts[i % 4].x + pts[i % 4].y;
        let first = if key(start) <= key(alt) { start } else { alt };
        Quad(std::array::from_fn(|k| pts[(first + k) % 4]))
    }

    /// The centre of the quad (mean of its corners).
    pub fn centre(&self) -> Point {
        let (sx, sy) = self
            .0
            .iter()
            .fold((0.0, 0.0), |(sx, sy), p| (sx + p.x, sy + p.y));
        Point::new(sx / 4.0, sy / 4.0)
    }

    /// The quad with every coordinate multiplied by `factor`: the same outline in
    /// a frame `factor` times as large.
    pub fn scaled(&self, factor: f64) -> Quad {
        Quad(self.0.map(|p| Point::new(p.x * factor, p.y * factor)))
    }

    /// Area in square pixels.
    pub fn area(&self) -> f64 {
        signed_area(&self.0).abs()
    }

    /// Mean length of the short sides over mean length of the long sides (≈ 0.7 for
    /// a poker card seen from above).
    pub fn aspect(&self) -> f64 {
        let s = |i: usize| self.side_length(i);
        let (a, b) = (s(0) + s(2), s(1) + s(3));
        if a.max(b) <= 0.0 {
            return 0.0;
        }
        a.min(b) / a.max(b)
    }

    /// The length of side `i`, from corner `i` to the next (clockwise).
    pub fn side_length(&self, i: usize) -> f64 {
        self.0[i % 4].dist(self.0[(i + 1) % 4])
    }

    /// The length of the quad's shortest side.
    pub fn shortest_side(&self) -> f64 {
        (0..4)
            .map(|i| self.side_length(i))
            .fold(f64::INFINITY, f64::min)
    }

    /// The length of the quad's longest side.
    pub fn longest_side(&self) -> f64 {
        (0..4).map(|i| self.side_length(i)).fold(0.0, f64::max)
    }

    /// Whether the two outlines lie on each other: either one's centre lies inside
    /// the other. Outlines of one card found by different means do; neighbouring
    /// cards, even touching, do not.
    pub fn overlaps(&self, other: &Quad) -> bool {
        self.contains(other.centre()) || other.contains(self.centre())
    }

    /// Whether `p` lies inside the (convex) quad.
    pub fn contains(&self, p: Point) -> bool {
        let mut sign = 0.0f64;
        for i in 0..4 {
            let a = area2(self.0[i], self.0[(i + 1) % 4], p);
            if a != 0.0 {
                if sign != 0.0 && a.signum() != sign {
                    return false;
                }
                sign = a.signum();
            }
        }
        true
    }

    /// The largest distance between corresponding corners of two quads, taking the
    /// two portrait orderings (0° and 180°) as the same outline.
    pub fn corner_error(&self, other: &Quad) -> f64 {
        let err = |shift: usize| {
            (0..4)
                .map(|k| self.0[k].dist(other.0[(k + shift) % 4]))
                .fold(0.0, f64::max)
        };
        err(0).min(err(2))
    }

    /// The corner error ([`Quad::corner_error`]) of the better-placed long side
    /// alone: for a card partly covered in an overlapping row, of which one long
    /// side shows and the other is where a whole card would reach.
    pub fn side_error(&self, other: &Quad) -> f64 {
        let err = |shift: usize, side: [usize; 2]| {
            side.iter()
                .map(|&k| self.0[k].dist(other.0[(k + shift) % 4]))
                .fold(0.0, f64::max)
        };
        [0, 2]
            .iter()
            .flat_map(|&shift| [err(shift, [0, 3]), err(shift, [1, 2])])
            .fold(f64::INFINITY, f64::min)
    }

    /// The distance between the midpoints of the better-placed long sides of two
    /// quads (both portrait orderings taken as the same outline): like
    /// [`Quad::side_error`], but blind to how long the sides are.
    pub fn side_midpoint_error(&self, other: &Quad) -> f64 {
        let mid = |q: &Quad, a: usize, b: usize| q.0[a].midpoint(q.0[b]);
        [0, 2]
            .iter()
            .flat_map(|&shift| {
                [(0, 3), (1, 2)].map(|(a, b)| {
                    mid(self, a, b).dist(mid(other, (a + shift) % 4, (b + shift) % 4))
                })
            })
            .fold(f64::INFINITY, f64::min)
    }

    /// Interior angles in degrees.
    pub fn angles(&self) -> [f64; 4] {
        std::array::from_fn(|i| {
            let p = self.0[i];
            let a = self.0[(i + 3) % 4].sub(p);
            let b = self.0[(i + 1) % 4].sub(p);
            let dot = a.x * b.x + a.y * b.y;
            let n = (a.x.hypot(a.y) * b.x.hypot(b.y)).max(f64::MIN_POSITIVE);
            (dot / n).clamp(-1.0, 1.0).acos().to_degrees()
        })
    }
}

/// A projective map of the plane (3 × 3 matrix, row-major, `h[8]` normalised to 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Homography(pub [f64; 9]);

impl Homography {
    /// The homography sending each `from[i]` to `to[i]`; `None` when the points are
    /// degenerate (three of them on a line).
    pub fn from_points(from: [Point; 4], to: [Point; 4]) -> Option<Homography> {
        // Solve the 8 × 8 linear system for h0..h7 with h8 = 1.
        let mut a = [[0.0f64; 9]; 8];
        for i in 0..4 {
            let (x, y) = (from[i].x, from[i].y);
            let (u, v) = (to[i].x, to[i].y);
            a[2 * i] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
            a[2 * i + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
        }
        let h = solve8(a)?;
        Some(Homography([
            h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1.0,
        ]))
    }

    /// The homogeneous coordinate the image of `(x, y)` is divided by: affine in
    /// `(x, y)`, zero where the point goes to infinity.
    pub fn denominator(&self, x: f64, y: f64) -> f64 {
        let h = &self.0;
        h[6] * x + h[7] * y + h[8]
    }

    /// Maps a point; `None` at infinity.
    pub fn apply(&self, x: f64, y: f64) -> Option<Point> {
        let h = &self.0;
        let w = self.denominator(x, y);
        if w.abs() < 1e-12 {
            return None;
        }
        Some(Point::new(
            (h[0] * x + h[1] * y + h[2]) / w,
            (h[3] * x + h[4] * y + h[5]) / w,
        ))
    }
}

/// Gaussian elimination with partial pivoting on an augmented 8 × 9 system.
fn solve8(mut a: [[f64; 9]; 8]) -> Option<[f64; 8]> {
    for col in 0..8 {
        let pivot = (col..8).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-10 {
            return None;
        }
        a.swap(col, pivot);
        for row in 0..8 {
            if row != col {
                let f = a[row][col] / a[col][col];
                if f != 0.0 {
                    let pivot_row = a[col];
                    for (v, p) in a[row].iter_mut().zip(pivot_row).skip(col) {
                        *v -= f * p;
                    }
                }
            }
        }
    }
    Some(std::array::from_fn(|i| a[i][8] / a[i][i]))
}

/// The convex hull of a point set (Andrew's monotone chain), clockwise on screen,
/// without collinear points.
pub fn convex_hull(mut pts: Vec<Point>) -> Vec<Point> {
    pts.sort_unstable_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    convex_hull_of_sorted(pts)
}

/// [`convex_hull`] of points already sorted by x, then y: for callers that can
/// sort faster than a comparison sort (the localiser's blobs, whose points are
/// integers).
pub fn convex_hull_of_sorted(mut pts: Vec<Point>) -> Vec<Point> {
    debug_assert!(pts
        .windows(2)
        .all(|p| p[0].x < p[1].x || (p[0].x == p[1].x && p[0].y <= p[1].y)));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let mut hull: Vec<Point> = Vec::with_capacity(2 * pts.len());
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &Point>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for &p in iter {
            while hull.len() >= start + 2
                && area2(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

/// The quadrilateral of largest area with its corners on the vertices of a convex
/// polygon (given in cyclic order), as four vertex indices in that order; `None`
/// for fewer than four vertices. Rotating pointers make it O(n²).
pub fn max_area_quad(poly: &[Point]) -> Option<[usize; 4]> {
    let n = poly.len();
    if n < 4 {
        return None;
    }
    let tri = |a: usize, b: usize, c: usize| area2(poly[a % n], poly[b % n], poly[c % n]).abs();
    let mut best = (0.0, [0, 1, 2, 3]);
    for i in 0..n {
        let mut j = i + 1;
        let mut l = i + 3;
        for k in i + 2..i + n - 1 {
            // Best j in (i, k) and best l in (k, i + n) for the diagonal i–k; both
            // move forward as k does.
            if j <= i || j >= k {
                j = i + 1;
            }
            while j + 1 < k && tri(i, j + 1, k) >= tri(i, j, k) {
                j += 1;
            }
            if l <= k {
                l = k + 1;
            }
            while l + 1 < i + n && tri(k, l + 1, i) >= tri(k, l, i) {
                l += 1;
            }
            let area = tri(i, j, k) + tri(k, l, i);
            if area > best.0 {
                best = (area, [i % n, j % n, k % n, l % n]);
            }
        }
    }
    Some(best.1)
}

/// A straight segment, from one point to another.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    pub from: Point,
    pub to: Point,
}

impl Segment {
    /// The point a fraction `t` of the way along.
    pub fn at(&self, t: f64) -> Point {
        Point::new(
            self.from.x + (self.to.x - self.from.x) * t,
            self.from.y + (self.to.y - self.from.y) * t,
        )
    }

    /// The fraction of the way along of the foot of `p` on the segment's line, and
    /// `p`'s distance from that line; `None` for a segment of no length.
    pub fn project(&self, p: Point) -> Option<(f64, f64)> {
        let (dx, dy) = (self.to.x - self.from.x, self.to.y - self.from.y);
        let len2 = dx * dx + dy * dy;
        if len2 <= 0.0 {
            return None;
        }
        let (px, py) = (p.x - self.from.x, p.y - self.from.y);
        let t = (px * dx + py * dy) / len2;
        let off = (px * dy - py * dx).abs() / len2.sqrt();
        Some((t, off))
    }
}

/// A straight line `a x + b y = c` with `(a, b)` a unit normal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    pub a: f64,
    pub b: f64,
    pub c: f64,
}

impl Line {
    /// The total-least-squares line through the points; `None` for fewer than two
    /// distinct points.
    pub fn fit(pts: &[Point]) -> Option<Line> {
        if pts.len() < 2 {
            return None;
        }
        let Point { x: mx, y: my } = Point::mean(pts);
        let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
        for p in pts {
            let (dx, dy) = (p.x - mx, p.y - my);
            sxx += dx * dx;
            sxy += dx * dy;
            syy += dy * dy;
        }
        if sxx + syy <= 1e-12 {
            return None;
        }
        // The direction is the main eigenvector of the scatter matrix.
        let theta = 0.5 * (2.0 * sxy).atan2(sxx - syy);
        let (dx, dy) = (theta.cos(), theta.sin());
        let (a, b) = (-dy, dx);
        Some(Line {
            a,
            b,
            c: a * mx + b * my,
        })
    }

    /// The line through two points.
    pub fn through(p: Point, q: Point) -> Option<Line> {
        Line::fit(&[p, q])
    }

    /// Unsigned distance of a point to the line.
    pub fn distance(&self, p: Point) -> f64 {
        (self.a * p.x + self.b * p.y - self.c).abs()
    }

    /// The crossing point of two lines; `None` when (nearly) parallel.
    pub fn intersect(&self, o: &Line) -> Option<Point> {
        let det = self.a * o.b - self.b * o.a;
        if det.abs() < 1e-9 {
            return None;
        }
        Some(Point::new(
            (self.c * o.b - self.b * o.c) / det,
            (self.a * o.c - self.c * o.a) / det,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: f64, y: f64) -> Point {
        Point::new(x, y)
    }

    #[test]
    fn a_scaled_quad_keeps_its_shape() {
        let q = Quad([
            Point::new(10.0, 20.0),
            Point::new(40.0, 20.0),
            Point::new(40.0, 62.0),
            Point::new(10.0, 62.0),
        ]);
        let big = q.scaled(2.5);
        assert_eq!(big.0[2], Point::new(100.0, 155.0));
        assert!((big.area() - q.area() * 6.25).abs() < 1e-9);
        assert!((big.aspect() - q.aspect()).abs() < 1e-12);
    }

    #[test]
    fn a_segment_gives_the_foot_and_distance_of_a_point() {
        let s = Segment {
            from: p(10.0, 10.0),
            to: p(110.0, 10.0),
        };
        assert_eq!(s.at(0.25), p(35.0, 10.0));
        assert_eq!(s.project(p(60.0, 4.0)), Some((0.5, 6.0)));
        assert_eq!(s.project(p(-40.0, 13.0)), Some((-0.5, 3.0)));
        let dot = Segment {
            from: p(5.0, 5.0),
            to: p(5.0, 5.0),
        };
        assert_eq!(dot.project(p(6.0, 6.0)), None);
    }

    #[test]
    fn outlines_overlap_when_either_centre_lies_in_the_other() {
        let rect = |x0: f64, x1: f64| Quad([p(x0, 0.0), p(x1, 0.0), p(x1, 140.0), p(x0, 140.0)]);
        let card = rect(0.0, 100.0);
        assert!(card.overlaps(&rect(3.0, 104.0)));
        // A strip at the card's edge: its centre is in the card, not the card's in it.
        assert!(card.overlaps(&rect(80.0, 110.0)));
        assert!(!card.overlaps(&rect(100.0, 200.0)));
        assert_eq!(card.shortest_side(), 100.0);
        assert_eq!(card.longest_side(), 140.0);
    }

    #[test]
    fn quad_order_is_portrait_clockwise_and_starts_near_top_left() {
        // A landscape-lying card given counter-clockwise from an arbitrary corner.
        let q = Quad::from_cyclic([
            p(300.0, 100.0),
            p(100.0, 100.0),
            p(100.0, 240.0),
            p(300.0, 240.0),
        ]);
        // Portrait: the top side (0-1) is short.
        assert!(q.0[0].dist(q.0[1]) < q.0[1].dist(q.0[2]));
        assert!(signed_area(&q.0) > 0.0, "clockwise on screen");
        assert!(q.0[0].x + q.0[0].y <= q.0[2].x + q.0[2].y);
        assert_eq!(q.0[0], p(100.0, 240.0));
        assert_eq!(q.0[1], p(100.0, 100.0));
    }

    #[test]
    fn upright_card_keeps_its_natural_order() {
        let pts = [p(10.0, 10.0), p(80.0, 10.0), p(80.0, 110.0), p(10.0, 110.0)];
        for shift in 0..4 {
            let cyc: [Point; 4] = std::array::from_fn(|k| pts[(k + shift) % 4]);
            assert_eq!(Quad::from_cyclic(cyc).0, pts);
            let mut rev = cyc;
            rev.reverse();
            assert_eq!(Quad::from_cyclic(rev).0, pts);
        }
    }

    #[test]
    fn corner_error_treats_half_turn_as_equal() {
        let a = Quad([p(0.0, 0.0), p(10.0, 0.0), p(10.0, 14.0), p(0.0, 14.0)]);
        let b = Quad([p(10.0, 14.0), p(0.0, 14.0), p(0.0, 0.0), p(10.0, 1.0)]);
        assert!((a.corner_error(&b) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn homography_maps_corners_and_inverts() {
        let from = [p(0.0, 0.0), p(160.0, 0.0), p(160.0, 224.0), p(0.0, 224.0)];
        let to = [
            p(197.4, 203.7),
            p(298.1, 193.6),
            p(328.3, 342.2),
            p(210.9, 360.7),
        ];
        let h = Homography::from_points(from, to).unwrap();
        for i in 0..4 {
            let q = h.apply(from[i].x, from[i].y).unwrap();
            assert!(q.dist(to[i]) < 1e-6, "{q:?} vs {:?}", to[i]);
        }
        let back = Homography::from_points(to, from).unwrap();
        let m = h.apply(80.0, 112.0).unwrap();
        let r = back.apply(m.x, m.y).unwrap();
        assert!(r.dist(p(80.0, 112.0)) < 1e-6);
        assert!(Homography::from_points(
            from,
            [p(0.0, 0.0), p(1.0, 1.0), p(2.0, 2.0), p(3.0, 3.0)]
        )
        .is_none());
    }

    #[test]
    fn hull_and_max_quad_of_a_rounded_rectangle() {
        // A 100 × 140 rectangle with its corners cut by 5 px, plus interior points.
        let mut pts = vec![
            p(5.0, 0.0),
            p(95.0, 0.0),
            p(100.0, 5.0),
            p(100.0, 135.0),
            p(95.0, 140.0),
            p(5.0, 140.0),
            p(0.0, 135.0),
            p(0.0, 5.0),
            p(50.0, 70.0),
            p(20.0, 30.0),
        ];
        pts.push(p(50.0, 0.0)); // collinear: dropped from the hull
        let hull = convex_hull(pts);
        assert_eq!(hull.len(), 8);
        assert!(signed_area(&hull) > 0.0);
        let idx = max_area_quad(&hull).unwrap();
        let quad: Vec<Point> = idx.iter().map(|&i| hull[i]).collect();
        let area = signed_area(&quad).abs();
        // The best quad takes one end of each cut on alternate sides (checked by
        // brute force over all 70 choices of four vertices).
        assert!((area - 13_000.0).abs() < 1e-6, "{area}");
    }

    #[test]
    fn line_fit_and_intersection() {
        let l1 = Line::fit(&[p(0.0, 1.0), p(1.0, 2.0), p(2.0, 3.0)]).unwrap();
        assert!(l1.distance(p(5.0, 6.0)) < 1e-9);
        let l2 = Line::through(p(0.0, 5.0), p(10.0, 5.0)).unwrap();
        let x = l1.intersect(&l2).unwrap();
        assert!(x.dist(p(4.0, 5.0)) < 1e-9);
        assert!(l2
            .intersect(&Line::through(p(0.0, 6.0), p(1.0, 6.0)).unwrap())
            .is_none());
        assert!(Line::fit(&[p(1.0, 1.0)]).is_none());
    }

    #[test]
    fn contains_and_aspect() {
        let q = Quad([p(0.0, 0.0), p(70.0, 0.0), p(70.0, 100.0), p(0.0, 100.0)]);
        assert!(q.contains(p(35.0, 50.0)));
        assert!(!q.contains(p(75.0, 50.0)));
        assert!((q.aspect() - 0.7).abs() < 1e-9);
        assert!(q.angles().iter().all(|a| (a - 90.0).abs() < 1e-6));
    }
}
