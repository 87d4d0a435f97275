//! Fans of cards: each card read from the corner the next one leaves uncovered,
//! along the arc of corners the localiser found.

use super::outlines::{scaled, shifted};
use super::spreads::{cut_covered_at, cut_middle, plausible, MIDDLE_CUT, SPREAD_SHIFTS};
use super::{sure, Recognizer};
use crate::cards::Card;
use crate::vision::classify::{ClassRead, ModelError};
use crate::vision::fan::FanCard;
use crate::vision::geometry::{Point, Quad};
use image::RgbImage;

impl Recognizer {
    /// Reads the cards of fans ([`crate::vision::fan`]): each covered card from its one
    /// index corner ([`SPREAD_SHIFTS`] cuts, as a covered card of a row), the top
    /// card whole. Only reads of a card are kept, a covered one above even odds
    /// ([`plausible`]). A corner on or inside the outline of a card already read
    /// (a whole card or a row's) is that card's, or hidden under it, and is not
    /// read: cards laid apart make hulls with arcs of corners too, and each of
    /// those corners is a card already read. But an outline read unsure, or as a
    /// row's strip, that holds a fan's corner away from its own corners may be
    /// no card at all: a card's shape pieced together from fanned cards' art and
    /// edges. Such an outline hides none of the fan's corners, and when a taken
    /// fan reads new cards from corners within it, it is dropped from `best` or
    /// `spread`, unless the fan reads its card again near it, which confirms it.
    /// A sure whole card hides the corners within it, as before.
    pub(super) fn read_fans(
        &self,
        frame: &RgbImage,
        fans: &[Vec<FanCard>],
        best: &mut [Option<(Quad, ClassRead)>],
        spread: &mut Vec<(Quad, ClassRead, bool)>,
        threshold: f32,
    ) -> Result<Vec<(Quad, ClassRead, bool)>, ModelError> {
        // The cards already read (a whole card or a row's): their outlines, what
        // they read as, where they are (a slot of `best`, or of `spread` after
        // `best.len()`), and whether they are sure whole cards.
        let earlier: Vec<(Quad, Card, usize, bool)> = best
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.as_ref().map(|(q, r)| (i, q, r, sure(r, threshold))))
            .chain(
                spread
                    .iter()
                    .enumerate()
                    .map(|(j, (q, r, _))| (best.len() + j, q, r, false)),
            )
            .filter_map(|(i, q, r, whole)| Some((*q, r.card?, i, whole)))
            .collect();
        let read: Vec<Quad> = earlier
            .iter()
            .map(|(q, _, _, _)| scaled(q, FAN_READ_MARGIN))
            .collect();
        // Whether a point lies within an outline (`grown`: the outline grown),
        // away from the outline's own corners.
        let holds_apart = |grown: &Quad, q: &Quad, p: Point| {
            let near = FAN_OWN_CORNER * q.longest_side();
            grown.contains(p) && q.0.iter().all(|c| c.dist(p) > near)
        };
        // Per earlier read: whether it is doubtful, an unsure read or a strip's
        // that holds a corner the simplified hull kept, away from its own corners.
        let doubtful: Vec<bool> = read
            .iter()
            .zip(&earlier)
            .map(|(grown, (q, _, _, sure_whole))| {
                let holds = |c: &FanCard| c.kept && holds_apart(grown, q, c.quad.0[0]);
                !sure_whole && fans.iter().flatten().any(holds)
            })
            .collect();
        let known = |p: Point| read.iter().zip(&doubtful).any(|(q, d)| !d && q.contains(p));
        let looks = SPREAD_SHIFTS.len();
        // Each covered card's middle cut, and per such card its fan and outline.
        let middle = MIDDLE_CUT;
        let mut screen = Vec::new();
        // Per covered card: its fan, its place in the fan, its outline.
        let mut candidates: Vec<(usize, usize, Quad)> = Vec::new();
        let mut later: Vec<(usize, usize, Quad)> = Vec::new();
        let mut tops: Vec<(usize, Quad)> = Vec::new();
        for (f, fan) in fans.iter().enumerate() {
            let (start, cut, cut_later) = (screen.len(), candidates.len(), later.len());
            let mut top = None;
            for (k, card) in fan.iter().enumerate().filter(|(_, c)| !known(c.quad.0[0])) {
                if card.on_top {
                    top = Some((f, card.quad));
                } else if !card.kept {
                    later.push((f, k, card.quad));
                } else if cut_middle(frame, &card.quad, &mut screen) {
                    candidates.push((f, k, card.quad));
                }
            }
            // A fan with too few covered cards left to read can never be taken
            // (below): reading it would only cost time (a tract batch or two on
            // frames of cards laid apart, whose blobs make short arcs).
            if candidates.len() - cut + later.len() - cut_later < FAN_MIN_COVERED {
                screen.truncate(start);
                candidates.truncate(cut);
                later.truncate(cut_later);
            } else {
                tops.extend(top);
            }
        }
        // A light or speckled cloth makes many blobs whose hulls hold short arcs
        // of corners, each a "fan" of a few cards, and cutting and reading every
        // cut of all of them cost a 3-card frame on such a cloth a quarter of a
        // second. Each covered card is first read from its middle cut alone (one
        // crop); only the fans with enough of them read as any card are cut and
        // read in every cut, as a row's covered cards are. The screen reads first
        // only the corners the simplified hull kept (a cloth's "fans" gain more
        // corners from the whole hull, and none of them is ever taken); the other
        // corners' middle cuts are read only of fans with a card among those.
        let screened = self
            .classifier
            .read_one_corner(&screen, candidates.len(), 1)?;
        let mut any = vec![false; fans.len()];
        for ((f, _, _), read) in candidates.iter().zip(&screened) {
            any[*f] |= read.card.is_some();
        }
        let mut more = Vec::new();
        let mut added = Vec::new();
        for &(f, k, quad) in later.iter().filter(|(f, _, _)| any[*f]) {
            if cut_middle(frame, &quad, &mut more) {
                added.push((f, k, quad));
            }
        }
        let mut reads = screened;
        reads.extend(self.classifier.read_one_corner(&more, added.len(), 1)?);
        candidates.extend(added);
        let worth = fans_worth_reading(fans.len(), candidates.iter().map(|(f, _, _)| *f), &reads);
        let mut candidates: Vec<_> = candidates
            .into_iter()
            .zip(reads)
            .filter(|((f, _, _), _)| worth[*f])
            .collect();
        // Each fan's cards in their order along the arc, as one screen read them.
        candidates.sort_by_key(|((f, k, _), _)| (*f, *k));
        // The middle cut's read is one of the looks: the other cuts are added.
        let mut corners = Vec::new();
        let mut covered: Vec<(usize, Quad)> = Vec::new();
        let mut middle_reads = Vec::new();
        for ((f, _, quad), read) in candidates {
            let at = corners.len();
            let mut others = SPREAD_SHIFTS
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != middle);
            // A cut that cannot be made drops the card (its crops are taken back).
            let cut = fan_cut(&quad);
            if others.all(|(_, &du)| cut_covered_at(frame, &cut, FAN_VISIBLE, du, &mut corners)) {
                covered.push((f, quad));
                middle_reads.push(read);
            } else {
                corners.truncate(at);
            }
        }
        let covered_reads =
            self.classifier
                .read_one_corner_adding(&corners, looks, &middle_reads, middle)?;
        // The same card read again within a card's height or so of a card already
        // read is that card, read from another corner of the blob.
        let same = |q: &Quad, r: &ClassRead, e: &Quad, card: Card| {
            r.card == Some(card) && q.centre().dist(e.centre()) < FAN_SAME_CARD * e.longest_side()
        };
        let new =
            |q: &Quad, r: &ClassRead| !earlier.iter().any(|(e, card, _, _)| same(q, r, e, *card));
        let mut per_fan: Vec<Vec<(Quad, ClassRead, bool)>> = vec![Vec::new(); fans.len()];
        // A card already read that a fan reads again near it is a card of the
        // fan: the read counts for the fan as a new card would (a small fan may
        // show most of its cards whole enough to be read on their own outlines),
        // and a doubtful outline so confirmed is never dropped.
        let mut confirmed = vec![false; earlier.len()];
        let mut confirms = vec![0usize; fans.len()];
        for ((f, quad), read) in covered.iter().zip(covered_reads) {
            if read.card.is_none() || read.confidence < FAN_MIN_CONFIDENCE {
                continue;
            }
            let again = (0..earlier.len()).find(|&k| {
                let (e, card, _, _) = &earlier[k];
                !confirmed[k] && same(quad, &read, e, *card)
            });
            if let Some(k) = again {
                confirmed[k] = true;
                confirms[*f] += 1;
            }
            if new(quad, &read) {
                // Two corners of one card (its rounded corner seen as two, or a
                // corner next to it whose crop holds its index) read as that card
                // twice: the surer read is kept.
                let reads = &mut per_fan[*f];
                let twin = reads.iter().position(|(q, r, _)| {
                    r.card == read.card
                        && q.0[0].dist(quad.0[0]) < FAN_SAME_CORNER * quad.0[0].dist(quad.0[3])
                });
                match twin {
                    Some(k) if reads[k].1.confidence >= read.confidence => {}
                    Some(k) => reads[k] = (*quad, read, true),
                    None => reads.push((*quad, read, true)),
                }
            }
        }
        // A blob of cards laid apart or touching may show a corner or two that no
        // card holds, whose crop catches some card's art: a fan is taken only when
        // enough of its covered cards read as new cards (or read a card already
        // read again, in a fan with a new card).
        let taken: Vec<bool> = per_fan
            .iter()
            .zip(&confirms)
            .map(|(r, c)| !r.is_empty() && r.len() + c >= FAN_MIN_COVERED)
            .collect();
        // Only a taken fan's top card can be kept: no other is read.
        tops.retain(|(f, _)| taken[*f]);
        let top_quads: Vec<Quad> = tops.iter().map(|(_, q)| *q).collect();
        let top_reads = self.read_quads(frame, &top_quads)?;
        for ((f, quad), read) in tops.iter().zip(top_reads) {
            if let Some(read) = read.filter(|r| plausible(r, true) && new(quad, r)) {
                per_fan[*f].push((*quad, read, false));
            }
        }
        // A doubtful outline within which a taken fan read new cards, away from
        // its own corners, is no card.
        let read_within = |q: &Quad| {
            per_fan
                .iter()
                .zip(&taken)
                .filter(|(_, t)| **t)
                .flat_map(|(r, _)| r)
                .any(|(c, _, covered)| *covered && holds_apart(q, q, c.0[0]))
        };
        let dropped: Vec<usize> = earlier
            .iter()
            .zip(doubtful.iter().zip(&confirmed))
            .filter(|((q, _, _, _), (d, c))| **d && !**c && read_within(q))
            .map(|((_, _, i, _), _)| *i)
            .collect();
        drop_earlier_reads(best, spread, dropped);
        Ok(per_fan
            .into_iter()
            .zip(taken)
            .filter(|(_, t)| *t)
            .flat_map(|(r, _)| r)
            .map(|(q, r, covered)| (Quad::from_cyclic(q.0), r, covered))
            .collect())
    }
}

/// The share of a fan's covered card taken to show when its index corner is cut:
/// the crop is a quarter of a card wide, so nothing of it is painted over. The next
/// corner along a fan's arc may be another card's top-right corner poking out, not
/// the edge of the card above, so the chord to it does not say how much shows.
pub(super) const FAN_VISIBLE: f64 = 1.0;

/// Where a fan's covered card is cut for reading: its outline moved by these
/// fractions of its width (along its top edge) and of its height (down its left
/// side), into the card. The corner the fan's hull gives is the tip of the card's
/// rounded corner, a little right of and above its sharp corner, and past it where
/// blur or glare spread the card's mask onto the cloth; and the wedge that shows
/// narrows towards the card above, whose edge crosses a crop cut at the corner.
/// Chosen on fans of the validation designs (models/README.md, "Fans").
const FAN_CUT_SHIFT: (f64, f64) = (-0.05, 0.02);

/// The outline a fan's covered card is cut from ([`FAN_CUT_SHIFT`]); the card's
/// own outline stays where the hull puts it.
pub(super) fn fan_cut(quad: &Quad) -> Quad {
    shifted(quad, FAN_CUT_SHIFT.0, FAN_CUT_SHIFT.1)
}

/// A card already read holds a fan corner that lies within its outline grown by
/// this factor about its centre (a hull's corner is a pixel or two outside the
/// fitted outline, on the card's rounded corner).
const FAN_READ_MARGIN: f64 = 1.06;

/// Drops reads by their place in `best` and then `spread` (`best.len()` and on
/// are `spread`'s): a whole card's slot is emptied, a strip's read removed.
fn drop_earlier_reads(
    best: &mut [Option<(Quad, ClassRead)>],
    spread: &mut Vec<(Quad, ClassRead, bool)>,
    mut places: Vec<usize>,
) {
    places.sort_unstable();
    places.dedup();
    for &i in places.iter().rev() {
        match i.checked_sub(best.len()) {
            Some(j) => {
                spread.remove(j);
            }
            None => best[i] = None,
        }
    }
}

/// A fan corner within this many card heights of one of an outline's corners is
/// that corner: a card laid apart gives a blob's hull its own corners. Chosen on
/// the validation fans (models/README.md, "Fans").
const FAN_OWN_CORNER: f64 = 0.15;

/// The fewest covered cards of a fan that must read as cards for its reads to
/// be taken.
const FAN_MIN_COVERED: usize = 2;

/// Two reads of the same card whose centres are closer than this many card
/// heights are one card.
const FAN_SAME_CARD: f64 = 1.5;

/// Two reads of the same card from corners of one fan closer than this many card
/// heights are one card, read twice.
const FAN_SAME_CORNER: f64 = 0.16;

/// The least confidence at which a fan's covered card is taken as read (it still
/// asks God below the one-corner threshold). Chosen on fans of the validation
/// designs (models/README.md, "Fans"): on 210 of them, 0.85 names about four more
/// cards for each read of a card the fan does not hold, and such a read is put to
/// God, while a card not read is silently missing from the hand.
const FAN_MIN_CONFIDENCE: f32 = 0.85;

/// Per fan, whether it is worth reading in every cut: at least
/// [`FAN_MIN_COVERED`] of its covered cards (`fan_of` gives each card's fan, in
/// the order of `screened`) read from one cut as any card.
pub(super) fn fans_worth_reading(
    n_fans: usize,
    fan_of: impl Iterator<Item = usize>,
    screened: &[ClassRead],
) -> Vec<bool> {
    let mut cards = vec![0usize; n_fans];
    for (f, read) in fan_of.zip(screened) {
        cards[f] += usize::from(read.card.is_some());
    }
    cards.into_iter().map(|n| n >= FAN_MIN_COVERED).collect()
}
