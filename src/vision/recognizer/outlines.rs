//! Outlines cut for reading: scaled, shifted or turned by a quarter, split into
//! touching cards, or narrowed to the part of a covered card left in view.

use crate::vision::geometry::{Point, Quad};
use crate::vision::rectify::{card_to_frame, CARD_H, CARD_W};

/// The whole card of which a portrait outline `p` is the uncovered strip, the card
/// reaching past the strip's right side to a poker card's width, and the share of
/// it that shows; `None` when the outline is not narrower than a card.
pub fn covered_card(p: &Quad) -> Option<(Quad, f64)> {
    let [tl, tr, br, bl] = p.0;
    let width = (tl.dist(tr) + bl.dist(br)) / 2.0;
    let height = (tl.dist(bl) + tr.dist(br)) / 2.0;
    let card = 0.71 * height;
    if width <= 0.0 || width >= 0.85 * card {
        return None;
    }
    let f = card / width;
    let reach = |a: Point, b: Point| Point::new(a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f);
    Some((Quad([tl, reach(tl, tr), reach(bl, br), bl]), width / card))
}

/// The outline scaled by `s` about its centre (the mean of its corners).
pub fn scaled(q: &Quad, s: f64) -> Quad {
    let c = q.centre();
    Quad(q.0.map(|p| Point::new(c.x + (p.x - c.x) * s, c.y + (p.y - c.y) * s)))
}

/// The outline moved by `du` of its top side (corner 0 to 1) and `dv` of its left
/// side (corner 0 to 3).
pub fn shifted(q: &Quad, du: f64, dv: f64) -> Quad {
    let [a, b, _, d] = q.0;
    let (dx, dy) = (
        du * (b.x - a.x) + dv * (d.x - a.x),
        du * (b.y - a.y) + dv * (d.y - a.y),
    );
    Quad(q.0.map(|p| Point::new(p.x + dx, p.y + dy)))
}

/// The same outline with the other pair of sides taken as the long ones, in the
/// contract's corner order (clockwise; of the two equivalent orderings, the one whose
/// first corner is nearer the image's top-left).
pub fn quarter_turn(q: &Quad) -> Quad {
    let p = q.0;
    let key = |c: Point| c.x + c.y;
    let first = if key(p[1]) <= key(p[3]) { 1 } else { 3 };
    Quad(std::array::from_fn(|k| p[(first + k) % 4]))
}

/// How many portrait cards lying side by side and touching an outline may hold,
/// from its short/long ratio: two cards of a 0.62–0.74 deck make 0.68–0.81 (the
/// proportions of one card turned, so the model decides), three make 0.45–0.54,
/// four 0.34–0.40.
pub fn touching_cards(q: &Quad) -> Option<usize> {
    let a = q.aspect();
    if (0.62..=0.84).contains(&a) {
        Some(2)
    } else if (0.43..=0.57).contains(&a) {
        Some(3)
    } else if (0.31..=0.42).contains(&a) {
        Some(4)
    } else {
        None
    }
}

/// The outline cut across its long sides into `k` equal cards (equal in the
/// outline's own perspective), each in the contract's corner order; `None` for a
/// degenerate outline.
pub fn split_row(q: &Quad, k: usize) -> Option<Vec<Quad>> {
    let h = card_to_frame(q)?;
    let (w, len) = (f64::from(CARD_W), f64::from(CARD_H));
    (0..k)
        .map(|i| {
            let y0 = len * i as f64 / k as f64;
            let y1 = len * (i + 1) as f64 / k as f64;
            let c = [(0.0, y0), (w, y0), (w, y1), (0.0, y1)];
            let mut pts = [Point::new(0.0, 0.0); 4];
            for (p, (x, y)) in pts.iter_mut().zip(c) {
                *p = h.apply(x, y)?;
            }
            // The part's first side (across the row) is its long one: turn it.
            Some(quarter_turn(&Quad(pts)))
        })
        .collect()
}
