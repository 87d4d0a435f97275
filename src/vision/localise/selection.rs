//! One outline per card from the many the masks give: outlines that swallow
//! separate smaller ones go first, then the best supported of each overlapping
//! group; and the same choice for rows and fans.

use super::candidates::Candidate;
use super::edges::Refined;
use super::rows::ROW_WHOLE_ASPECT;
use crate::vision::fan::FanCard;
use crate::vision::geometry::Quad;

/// Keeps one outline per card. Outlines that swallow two or more smaller, separate
/// outlines that are at least as well supported (neighbouring cards merged through
/// a bright gap; `merged`, from [`swallowing`]) go first; then the best-supported
/// outline of each overlapping group wins (larger on a tie).
pub(super) fn choose(cands: &[Refined], merged: &[bool]) -> Vec<Quad> {
    let keep: Vec<&Refined> = cands
        .iter()
        .zip(merged)
        .filter(|(_, m)| !**m)
        .map(|(c, _)| c)
        .collect();
    best_of_each_overlap(keep)
}

/// Whether a card candidate (not a row) already lies within `reach` working pixels
/// of `quad` at every corner: a mask tried after the others finds most of their
/// cards again, and each re-fit costs time.
pub(super) fn found_already(cands: &[Candidate], quad: &Quad, reach: f64) -> bool {
    cands
        .iter()
        .any(|o| !o.row && o.quad.corner_error(quad) <= reach)
}

/// One outline of each group of overlapping ones: the best supported, then the
/// larger.
fn best_of_each_overlap(mut cands: Vec<&Refined>) -> Vec<Quad> {
    cands.sort_by(|a, b| {
        b.support
            .total_cmp(&a.support)
            .then(b.quad.area().total_cmp(&a.quad.area()))
    });
    let mut out: Vec<Quad> = Vec::new();
    for c in cands {
        if !out.iter().any(|q| q.overlaps(&c.quad)) {
            out.push(c.quad);
        }
    }
    out
}

/// An outline holding the centre of another counts it as a part of itself when
/// the other has less than this share of its area: two neighbours merged through a
/// gap each have about half of it.
const PART_SHARE: f64 = 0.7;

/// The card outlines [`choose`] dropped (`kept`: those it kept) that hold the centre
/// of a kept part ([`PART_SHARE`]), one of each overlapping group (the best
/// supported, then the larger); short rows (`merged` outlines of a row's
/// proportions) are read as rows and left out.
pub(super) fn enclosing(cands: &[Refined], merged: &[bool], kept: &[Quad]) -> Vec<Quad> {
    let dropped: Vec<&Refined> = cands
        .iter()
        .zip(merged)
        .filter(|(c, m)| {
            let short_row = **m && c.quad.aspect() < ROW_WHOLE_ASPECT;
            !short_row && !kept.contains(&c.quad)
        })
        .map(|(c, _)| c)
        .filter(|c| {
            kept.iter()
                .any(|k| k.area() < PART_SHARE * c.quad.area() && c.quad.contains(k.centre()))
        })
        .collect();
    best_of_each_overlap(dropped)
}

/// Which outlines swallow two or more smaller, separate outlines that are at least
/// as well supported: neighbouring cards merged through a bright gap, or a short
/// row of overlapping cards whose strips the masks also cut out.
pub(super) fn swallowing(cands: &[Refined]) -> Vec<bool> {
    cands
        .iter()
        .map(|c| {
            let inner: Vec<&Refined> = cands
                .iter()
                .filter(|o| {
                    o.quad.area() < PART_SHARE * c.quad.area()
                        && o.support >= 0.95 * c.support
                        && c.quad.contains(o.quad.centre())
                })
                .collect();
            inner
                .iter()
                .enumerate()
                .any(|(i, a)| inner[i + 1..].iter().any(|b| !a.quad.overlaps(&b.quad)))
        })
        .collect()
}

/// Keeps the row outlines: those [`choose`] keeps (a covered card's strip that the
/// masks cut out on its own is one), and besides them the largest outline of each
/// group that holds two or more smaller ones, which `choose` takes for separate
/// outlines merged: in a spread hand that is the whole row, its strips inside it.
pub(super) fn choose_rows(rows: Vec<Refined>) -> Vec<Quad> {
    let mut wholes: Vec<Quad> = rows
        .iter()
        .filter(|c| {
            rows.iter()
                .filter(|o| {
                    o.quad.area() < PART_SHARE * c.quad.area() && c.quad.contains(o.quad.centre())
                })
                .count()
                >= 2
        })
        .map(|c| c.quad)
        .collect();
    wholes.sort_by(|a, b| b.area().total_cmp(&a.area()));
    let merged = swallowing(&rows);
    let mut out = choose(&rows, &merged);
    let mut kept: Vec<Quad> = Vec::new();
    for q in wholes {
        if !kept.iter().any(|k| k.overlaps(&q)) {
            kept.push(q);
        }
    }
    for q in kept {
        if !out.iter().any(|o| o.corner_error(&q) < 4.0) {
            out.push(q);
        }
    }
    out
}

/// One fan per group of fans found in several masks: the one with the most cards
/// (a mask that cuts the fan short or adds its shadow finds fewer corners on one
/// circle), in full-frame pixels.
pub(super) fn choose_fans(mut fans: Vec<Vec<FanCard>>, scale: f64) -> Vec<Vec<FanCard>> {
    fans.sort_by_key(|f| std::cmp::Reverse(f.len()));
    let mut out: Vec<Vec<FanCard>> = Vec::new();
    for fan in fans {
        let fan: Vec<FanCard> = fan
            .into_iter()
            .map(|c| FanCard {
                quad: c.quad.scaled(scale),
                ..c
            })
            .collect();
        let same = |o: &Vec<FanCard>| {
            o.iter()
                .any(|c| fan.iter().any(|d| c.quad.overlaps(&d.quad)))
        };
        if !out.iter().any(same) {
            out.push(fan);
        }
    }
    out
}
