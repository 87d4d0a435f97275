//! Rows of overlapping cards pieced together from outlines that share a side,
//! and rows that are really separate cards merged through a gap.

use crate::vision::geometry::{Quad, Segment};

/// Outlines joined where they share a side ([`join`]), each as far as it goes:
/// the masks cut a spread row at the edges between its cards, and where no mask
/// gives the whole row, its pieces (each strip, or a few together, and the card
/// on top) lie side by side, each one's side against the next one's along an
/// edge. Only joins of two or more pieces are returned.
pub(super) fn joined_rows(pieces: &[Quad]) -> Vec<Quad> {
    let mut used = vec![false; pieces.len()];
    let mut out = Vec::new();
    for start in 0..pieces.len() {
        if used[start] {
            continue;
        }
        let mut whole = pieces[start];
        let mut joined = false;
        while let Some((j, q)) = (0..pieces.len())
            .filter(|&j| j != start && !used[j])
            .find_map(|j| join(&whole, &pieces[j]).map(|q| (j, q)))
        {
            used[j] = true;
            whole = q;
            joined = true;
        }
        if joined {
            used[start] = true;
            out.push(whole);
        }
    }
    out
}

/// Two sides shared by neighbouring pieces are as long as each other within this
/// fraction...
const JOIN_LENGTH: f64 = 0.15;
/// ...their midpoints lie within this fraction of their length or within
/// [`JOIN_GAP_PX`], whichever is more (the dark line of the edge between them
/// lies between the pieces)...
const JOIN_GAP: f64 = 0.05;
/// ...or within this many pixels, for short pieces...
const JOIN_GAP_PX: f64 = 6.0;
/// ...and they are parallel within this many degrees.
const JOIN_ANGLE: f64 = 5.0;

/// The outline of two pieces side by side that share a side (the same length
/// within [`JOIN_LENGTH`], midpoints within [`JOIN_GAP`] of it or within
/// [`JOIN_GAP_PX`], parallel within [`JOIN_ANGLE`]): their other four corners.
/// `None` when they share no side, or when the joined outline is smaller than
/// either (the pieces overlap rather than lie side by side).
pub(super) fn join(a: &Quad, b: &Quad) -> Option<Quad> {
    for i in 0..4 {
        let (a0, a1) = (a.0[i], a.0[(i + 1) % 4]);
        let la = a.side_length(i);
        if la < 1.0 {
            continue;
        }
        for j in 0..4 {
            let (b0, b1) = (b.0[j], b.0[(j + 1) % 4]);
            let lb = b.side_length(j);
            if (la - lb).abs() > JOIN_LENGTH * la
                || a0.midpoint(a1).dist(b0.midpoint(b1)) > (JOIN_GAP * la).max(JOIN_GAP_PX)
            {
                continue;
            }
            // Both outlines run clockwise: a shared side is walked in opposite
            // directions.
            let cos = ((a1.x - a0.x) * (b1.x - b0.x) + (a1.y - a0.y) * (b1.y - b0.y)) / (la * lb);
            if cos > -JOIN_ANGLE.to_radians().cos() {
                continue;
            }
            // Round the joined outline: a's two corners off the shared side, then
            // b's.
            let q = Quad::from_cyclic([
                a.0[(i + 2) % 4],
                a.0[(i + 3) % 4],
                b.0[(j + 2) % 4],
                b.0[(j + 3) % 4],
            ]);
            if q.area() < a.area().max(b.area()) {
                continue;
            }
            return Some(q);
        }
    }
    None
}

/// Whether a row outline is separate cards merged through the gaps between them
/// rather than a spread hand: it holds the centres of two or more card outlines of
/// a whole card's proportions ([`ROW_WHOLE_ASPECT`]), and together they span at
/// least [`MERGED_CARDS_SHARE`] of its length. In a spread hand the masks also cut
/// out groups of a few strips, which can have a card's proportions too; they span
/// only parts of the row (on the spread validation rows, 22–77 % of it).
pub(super) fn merged_cards(row: &Quad, cards: &[Quad]) -> bool {
    let whole: Vec<&Quad> = cards
        .iter()
        .filter(|c| c.aspect() >= ROW_WHOLE_ASPECT && row.contains(c.centre()))
        .collect();
    whole.len() >= 2 && covered_share(row, &whole) >= MERGED_CARDS_SHARE
}

/// The share of a row's length that separate cards merged into it span at least:
/// cards laid side by side leave only their gaps uncovered.
const MERGED_CARDS_SHARE: f64 = 0.8;

/// The share of a row's length that the given outlines span, measured along the
/// row's long axis (their corners projected on it, the spans joined).
pub(super) fn covered_share(row: &Quad, outlines: &[&Quad]) -> f64 {
    let [a, b, c, d] = row.0;
    let s = |i: usize| row.side_length(i);
    let axis = if s(0) + s(2) >= s(1) + s(3) {
        Segment {
            from: d.midpoint(a),
            to: b.midpoint(c),
        }
    } else {
        Segment {
            from: a.midpoint(b),
            to: c.midpoint(d),
        }
    };
    let mut spans: Vec<(f64, f64)> = Vec::with_capacity(outlines.len());
    for q in outlines {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for p in q.0 {
            // A row of no length has nothing to cover.
            let Some((t, _)) = axis.project(p) else {
                return 0.0;
            };
            (lo, hi) = (lo.min(t), hi.max(t));
        }
        spans.push((lo.clamp(0.0, 1.0), hi.clamp(0.0, 1.0)));
    }
    spans.sort_by(|x, y| x.0.total_cmp(&y.0));
    let (mut total, mut end) = (0.0, 0.0f64);
    for (lo, hi) in spans {
        if hi > end {
            total += hi - lo.max(end);
            end = hi;
        }
    }
    total
}

/// A card outline at least this square (short over long side) may be a whole card
/// ([`merged_cards`]); a spread hand's strips are thinner, though a few of them
/// together may not be.
pub(super) const ROW_WHOLE_ASPECT: f64 = 0.6;
