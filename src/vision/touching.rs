//! The cards of a row of touching cards that no mask gives on their own.
//!
//! Cards laid side by side and touching make one outline in most masks, and the
//! recognizer cuts such an outline into cards ([`super::recognizer::touching_cards`]).
//! But where a mask also gives some of the row's cards on their own, the localiser
//! keeps those and drops the row's outline as separate cards merged through a gap.
//! A court card, whose art reaches its edge, or a card whose edge is faint on a
//! light cloth is often in no mask alone: it was in the row's outline only, and
//! is lost with it. The stretch of the row that its kept cards leave uncovered
//! tells where it lies: a stretch as long as a whole number of the row's cards
//! holds that many cards.

use super::geometry::{Quad, Segment};

/// How far a stretch's length may be from a whole number of card widths for it to
/// be filled with cards, as a fraction of a card's width. The gaps between cards
/// laid by hand and an outline that reaches a pixel or two past the row's end stay
/// well within it; the covered part of an overlapping hand spread out is any
/// length and mostly outside it.
const WHOLE_CARDS: f64 = 0.2;

/// How far a kept card's long side may be from the row's height (short side), as a
/// fraction of that height, for the card to be one of the row's.
const SAME_HEIGHT: f64 = 0.12;

/// How far a kept card's corners may lie from the row's long sides, as a fraction
/// of the row's height: the row's cards are laid along its sides.
const ALONG_SIDE: f64 = 0.1;

/// At most this many cards are put in one stretch (a play is two to four cards).
const MOST_IN_STRETCH: f64 = 3.0;

/// Where a card lies along one of a row's long sides (each running from the row's
/// first end to its other end): from and to which fraction of the way along.
/// The two of its corners nearest the side, projected onto it; `None` when those
/// corners are not on the side (or the side has no length).
fn span(side: &Segment, card: &Quad, limit: f64) -> Option<(f64, f64)> {
    let mut feet = Vec::with_capacity(4);
    for &p in &card.0 {
        feet.push(side.project(p)?);
    }
    feet.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (a, b) = (feet[0], feet[1]);
    (b.1 <= limit).then(|| (a.0.min(b.0), a.0.max(b.0)))
}

/// The cards that fill the uncovered stretches of the rows among `outlines` (any
/// outlines the localiser found, kept or not), given the `cards` it keeps. Only
/// cards whose centre lies in no kept card, and in no other card returned, are
/// returned.
pub fn fill_gaps(outlines: &[Quad], cards: &[Quad]) -> Vec<Quad> {
    let mut out: Vec<Quad> = Vec::new();
    for row in outlines {
        for q in fill_row(row, cards) {
            let taken = cards.iter().chain(&out).any(|c| c.overlaps(&q));
            if !taken {
                out.push(q);
            }
        }
    }
    out
}

/// The cards in the stretches of `row` that the kept `cards` lying in it leave
/// uncovered (see the module's doc). Nothing when no kept card lies along the row
/// as one of its cards would.
fn fill_row(row: &Quad, cards: &[Quad]) -> Vec<Quad> {
    let p = row.0;
    // The contract's order puts the short sides first and third: the long sides run
    // from corner 0 to 3 and from 1 to 2.
    let (a, b) = (
        Segment {
            from: p[0],
            to: p[3],
        },
        Segment {
            from: p[1],
            to: p[2],
        },
    );
    let height = (row.side_length(0) + row.side_length(2)) / 2.0;
    if height <= 0.0 {
        return Vec::new();
    }
    // Each of the row's cards: where it lies along side a and along side b.
    let mut spans: Vec<((f64, f64), (f64, f64))> = cards
        .iter()
        .filter(|c| row.contains(c.centre()) && row.corner_error(c) > 1.0)
        .filter(|c| (c.longest_side() - height).abs() <= SAME_HEIGHT * height)
        .filter_map(|c| {
            let limit = ALONG_SIDE * height;
            Some((span(&a, c, limit)?, span(&b, c, limit)?))
        })
        .collect();
    if spans.is_empty() {
        return Vec::new();
    }
    spans.sort_by(|x, y| (x.0 .0 + x.1 .0).total_cmp(&(y.0 .0 + y.1 .0)));
    let width = spans
        .iter()
        .map(|(sa, sb)| (sa.1 - sa.0) + (sb.1 - sb.0))
        .sum::<f64>()
        / (2 * spans.len()) as f64;
    if width <= 0.0 {
        return Vec::new();
    }
    // The uncovered stretches, from the row's first end to its other end.
    let mut stretches = Vec::new();
    let mut end = (0.0f64, 0.0f64);
    for (sa, sb) in &spans {
        stretches.push(((end.0, sa.0), (end.1, sb.0)));
        end = (end.0.max(sa.1), end.1.max(sb.1));
    }
    stretches.push(((end.0, 1.0), (end.1, 1.0)));
    let mut out = Vec::new();
    for ((a0, a1), (b0, b1)) in stretches {
        let cards = ((a1 - a0) + (b1 - b0)) / 2.0 / width;
        let n = cards.round();
        if !(1.0..=MOST_IN_STRETCH).contains(&n) || (cards - n).abs() > WHOLE_CARDS {
            continue;
        }
        for k in 0..n as usize {
            let (f0, f1) = (k as f64 / n, (k + 1) as f64 / n);
            let (ta0, ta1) = (a0 + (a1 - a0) * f0, a0 + (a1 - a0) * f1);
            let (tb0, tb1) = (b0 + (b1 - b0) * f0, b0 + (b1 - b0) * f1);
            out.push(Quad::from_cyclic([
                a.at(ta0),
                a.at(ta1),
                b.at(tb1),
                b.at(tb0),
            ]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::geometry::Point;

    /// A portrait card `w` wide and `h` tall at `(x, y)`, turned by `slope` (the
    /// rise of its top side per pixel across).
    fn card(x: f64, y: f64, w: f64, h: f64, slope: f64) -> Quad {
        let at = |dx: f64, dy: f64| Point::new(x + dx - dy * slope, y + dy + dx * slope);
        Quad::from_cyclic([at(0.0, 0.0), at(w, 0.0), at(w, h), at(0.0, h)])
    }

    /// A row of `n` such cards side by side, touching.
    fn row(x: f64, y: f64, w: f64, h: f64, slope: f64, n: f64) -> Quad {
        card(x, y, n * w, h, slope)
    }

    fn close(a: &Quad, b: &Quad) -> bool {
        a.corner_error(b) < 0.5
    }

    #[test]
    fn the_card_between_two_found_cards_of_a_row_fills_its_stretch() {
        // Three touching cards, turned a little; the masks gave the outer two (a
        // pixel short of the truth) and the whole row, but not the court card in
        // the middle.
        let (w, h, s) = (100.0, 140.0, 0.1);
        let whole = row(300.0, 200.0, w, h, s, 3.0);
        let left = card(300.0, 200.0, w - 1.0, h, s);
        let right = card(
            300.0 + 2.0 * w + 1.0,
            200.0 + 2.0 * w * s + 0.1,
            w - 1.0,
            h,
            s,
        );
        let found = fill_gaps(&[whole, left, right], &[left, right]);
        assert_eq!(found.len(), 1, "{found:?}");
        let middle = card(300.0 + w, 200.0 + w * s, w, h, s);
        assert!(
            found[0].corner_error(&middle) < 1.5,
            "{found:?} vs {middle:?}"
        );
    }

    #[test]
    fn the_card_at_a_rows_end_fills_the_stretch_before_the_found_ones() {
        // Four touching cards, the first one found in no mask: it is the stretch
        // from the row's end to the second card.
        let (w, h) = (90.0, 130.0);
        let whole = row(100.0, 100.0, w, h, 0.0, 4.0);
        let kept: Vec<Quad> = (1..4)
            .map(|i| card(100.0 + f64::from(i) * w, 100.0, w, h, 0.0))
            .collect();
        let found = fill_gaps(&[whole], &kept);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            close(&found[0], &card(100.0, 100.0, w, h, 0.0)),
            "{found:?}"
        );
        // The first and the last missing: one card at each end.
        let found = fill_gaps(&[whole], &kept[..2]);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(
            close(&found[0], &card(100.0, 100.0, w, h, 0.0)),
            "{found:?}"
        );
        assert!(
            close(&found[1], &card(100.0 + 3.0 * w, 100.0, w, h, 0.0)),
            "{found:?}"
        );
        // The two in the middle missing: their stretch holds two cards.
        let ends = [card(100.0, 100.0, w, h, 0.0), kept[2]];
        let found = fill_gaps(&[whole], &ends);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(close(&found[0], &kept[0]), "{found:?}");
        assert!(close(&found[1], &kept[1]), "{found:?}");
    }

    #[test]
    fn a_stretch_that_is_no_whole_number_of_cards_holds_none() {
        // The covered part of a hand spread out (half a card's width here), and a
        // row outline that reaches a few pixels past its last card: no card there.
        let (w, h) = (90.0, 130.0);
        let whole = row(100.0, 100.0, w, h, 0.0, 1.5);
        let top = card(100.0 + 0.5 * w, 100.0, w, h, 0.0);
        assert!(fill_gaps(&[whole], &[top]).is_empty());
        let long = row(100.0, 100.0, w, h, 0.0, 2.1);
        let two = [
            card(100.0, 100.0, w, h, 0.0),
            card(100.0 + w, 100.0, w, h, 0.0),
        ];
        assert!(fill_gaps(&[long], &two).is_empty());
    }

    #[test]
    fn only_cards_lying_along_the_row_as_its_cards_make_it_a_row() {
        let (w, h) = (90.0, 130.0);
        let whole = row(100.0, 100.0, w, h, 0.0, 3.0);
        // A card turned across the row (its long side along it), and a smaller card
        // inside the outline: neither is one of the row's cards.
        let across = Quad::from_cyclic([
            Point::new(100.0, 100.0),
            Point::new(100.0 + h, 100.0),
            Point::new(100.0 + h, 100.0 + 0.7 * h),
            Point::new(100.0, 100.0 + 0.7 * h),
        ]);
        assert!(fill_gaps(&[whole], &[across]).is_empty());
        let small = card(110.0, 110.0, 0.7 * w, 0.7 * h, 0.0);
        assert!(fill_gaps(&[whole], &[small]).is_empty());
        // A single card's own outline holds no row.
        let one = card(100.0, 100.0, w, h, 0.0);
        assert!(fill_gaps(&[one], &[one]).is_empty());
    }

    #[test]
    fn a_degenerate_outline_holds_no_cards() {
        // A row whose long sides have no length (all its corners at one point, or
        // on one line) is no row, and must not fill anything with NaN corners.
        let dot = Quad([Point::new(50.0, 50.0); 4]);
        let flat = Quad::from_cyclic([
            Point::new(0.0, 0.0),
            Point::new(300.0, 0.0),
            Point::new(300.0, 0.0),
            Point::new(0.0, 0.0),
        ]);
        let kept = [card(0.0, 0.0, 90.0, 130.0, 0.0)];
        assert!(fill_gaps(&[dot, flat], &kept).is_empty());
    }
}
