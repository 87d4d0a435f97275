//! Overlapping rows (a hand spread out): each covered card read from the strip
//! its neighbour leaves uncovered, the card on top whole.

use super::fans::{fan_cut, FAN_VISIBLE};
use super::outlines::{covered_card, shifted};
use super::{better, sure, CardRead, Recognizer};
use crate::vision::classify::{ClassRead, ModelError};
use crate::vision::geometry::{Point, Quad};
use crate::vision::localise::Located;
use crate::vision::rectify::{top_left_crop, CROP_LEN};
use crate::vision::spread::{cover_beyond, readings, shows_ink, split, Spread};
use image::RgbImage;

impl Recognizer {
    /// Overlapping rows: each row outline of the localiser that does not read as a
    /// covered card's strip ([`Recognizer::read_strips`]), and each card outline
    /// whose read is unsure, is split at the edges between its cards ([`split`]),
    /// every way it can be read ([`readings`]); each partly covered card is read
    /// from its uncovered top-left index alone ([`cut_covered`], log-probabilities
    /// of the cuts averaged), a card showing whole from both its indices. Of an
    /// outline's readings the one with the most parts kept as cards wins (then the
    /// most sure, then the highest summed confidence); whether it is taken is
    /// [`Reading::judge`]'s. A taken row's parts read as "not a card" are dropped,
    /// and card outlines inside it (its top card found on its own) give way to it.
    ///
    /// Then the strips: row outlines read as strips and unsure card outlines that
    /// no taken row or sure card holds, read as covered cards; an unsure outline
    /// holding such a strip is the row, not a card; and the card past the last
    /// strip is read whole. Returns the cards with `true` where partly covered.
    pub(super) fn read_spreads(
        &self,
        frame: &RgbImage,
        rows: &[Quad],
        quads: &[Quad],
        best: &mut [Option<(Quad, ClassRead)>],
        threshold: f32,
    ) -> Result<Vec<(Quad, ClassRead, bool)>, ModelError> {
        let one_corner = self.classifier.settings().one_corner_threshold();
        // A row outline that reads surely as a covered card's strip is one (the masks
        // cut it out): it is not split. Most rows of a spread are such strips, and
        // reading one costs 6 crops where splitting it costs dozens.
        let row_strips = self.read_strips(frame, rows)?;
        // (outline, index of its card outline when it is one)
        let mut outlines: Vec<(Quad, Option<usize>)> = rows
            .iter()
            .zip(&row_strips)
            .filter(|(_, strip)| strip.is_none())
            .map(|(r, _)| (*r, None))
            .collect();
        for (i, q) in quads.iter().enumerate() {
            if best[i].as_ref().is_some_and(|(_, r)| !sure(r, threshold)) {
                outlines.push((*q, Some(i)));
            }
        }
        let spreads: Vec<(usize, Spread)> = outlines
            .iter()
            .enumerate()
            .flat_map(|(k, (q, card))| {
                readings(q, card.is_some())
                    .into_iter()
                    .filter_map(move |r| split(frame, &r).map(|s| (k, s)))
            })
            .collect();
        // One batch for the covered cards' corners, one for the whole cards.
        let looks = SPREAD_SHIFTS.len();
        let mut corners = Vec::new();
        let mut wholes = Vec::new();
        let mut usable = Vec::new();
        for (_, s) in &spreads {
            let mut ok = true;
            for c in &s.cards {
                if c.visible >= 1.0 {
                    wholes.push(c.quad);
                    continue;
                }
                ok &= cut_covered(frame, &c.quad, c.visible, &mut corners);
            }
            usable.push(ok);
        }
        let n_covered = corners.len() / (looks * CROP_LEN);
        let mut corner_reads = self
            .classifier
            .read_one_corner(&corners, n_covered, looks)?
            .into_iter();
        let mut whole_reads = self.read_quads(frame, &wholes)?.into_iter();
        // The best reading of each outline, and whether it is taken.
        let mut chosen: Vec<Option<Reading>> = vec![None; outlines.len()];
        for (j, (k, s)) in spreads.iter().enumerate() {
            let reads: Vec<(Option<ClassRead>, bool)> = s
                .cards
                .iter()
                .map(|c| {
                    if c.visible >= 1.0 {
                        (whole_reads.next().flatten(), false)
                    } else {
                        (corner_reads.next(), true)
                    }
                })
                .collect();
            if !usable[j] {
                continue;
            }
            let reading = Reading::judge(j, reads, outlines[*k].1.is_some(), threshold, one_corner);
            if beats(&reading, chosen[*k].as_ref()) {
                chosen[*k] = Some(reading);
            }
        }
        let mut out = Vec::new();
        let mut taken_outlines: Vec<Quad> = Vec::new();
        for (k, reading) in chosen.into_iter().enumerate() {
            let Some(Reading {
                spread: j,
                reads,
                taken: true,
                ..
            }) = reading
            else {
                continue;
            };
            match outlines[k].1 {
                Some(i) => best[i] = None,
                None => {
                    let row = &outlines[k].0;
                    for slot in best.iter_mut() {
                        if slot.as_ref().is_some_and(|(q, _)| row.contains(q.centre())) {
                            *slot = None;
                        }
                    }
                }
            }
            let spread = &spreads[j].1;
            taken_outlines.push(outlines[k].0);
            for (c, (read, _)) in spread.cards.iter().zip(reads) {
                if let Some(read) = read.filter(|r| plausible(r, c.visible >= 1.0)) {
                    out.push((Quad::from_cyclic(c.quad.0), read, c.visible < 1.0));
                }
            }
        }
        // What no taken row holds may be a covered card's uncovered strip, which
        // the masks cut out on their own: a row outline, or a card outline
        // narrower than a card whose read is unsure. A strip inside a card read
        // surely is a part of that card.
        let held: Vec<Quad> = best
            .iter()
            .flatten()
            .filter(|(_, r)| sure(r, threshold))
            .map(|(q, _)| *q)
            .chain(taken_outlines)
            .collect();
        let free = |q: &Quad| !held.iter().any(|t| t.contains(q.centre()));
        let mut strips: Vec<(Quad, Option<usize>)> = Vec::new();
        let mut reads: Vec<Option<StripRead>> = Vec::new();
        for (r, read) in rows.iter().zip(row_strips) {
            if read.is_some() && free(r) {
                strips.push((*r, None));
                reads.push(read);
            }
        }
        let cards: Vec<(Quad, usize)> = best
            .iter()
            .enumerate()
            .filter_map(|(i, slot)| slot.as_ref().map(|(q, r)| (*q, r, i)))
            .filter(|(q, r, _)| !sure(r, threshold) && free(q))
            .map(|(q, _, i)| (q, i))
            .collect();
        let card_quads: Vec<Quad> = cards.iter().map(|(q, _)| *q).collect();
        reads.extend(self.read_strips(frame, &card_quads)?);
        strips.extend(cards.iter().map(|(q, i)| (*q, Some(*i))));
        let mut taken: Vec<(Quad, Quad, f64)> = Vec::new();
        for ((strip, card), read) in strips.iter().zip(reads) {
            if let Some((quad, visible, read)) = read {
                if let Some(i) = card {
                    best[*i] = None;
                }
                out.push((Quad::from_cyclic(quad.0), read, true));
                taken.push((*strip, quad, visible));
            }
        }
        if taken.is_empty() {
            return Ok(out);
        }
        // An unsure card outline holding a strip is the row itself, not a card.
        for slot in best.iter_mut() {
            if slot.as_ref().is_some_and(|(q, r)| {
                !sure(r, threshold) && taken.iter().any(|(s, _, _)| q.contains(s.centre()))
            }) {
                *slot = None;
            }
        }
        // The card on top lies just past the last strip, where no other strip is;
        // read it whole, unless a card already read lies there.
        let seen: Vec<Point> = best
            .iter()
            .flatten()
            .map(|(q, _)| q.centre())
            .chain(
                out.iter()
                    .filter(|(_, _, o)| !o)
                    .map(|(q, _, _)| q.centre()),
            )
            .collect();
        let tops: Vec<Quad> = taken
            .iter()
            .map(|(_, q, visible)| shifted(q, *visible, 0.0))
            .filter(|next| {
                !taken.iter().any(|(s, _, _)| next.contains(s.centre()))
                    && !seen.iter().any(|c| next.contains(*c))
            })
            .collect();
        for (quad, read) in tops.iter().zip(self.read_quads(frame, &tops)?) {
            if let Some(read) = read.filter(|r| sure(r, threshold)) {
                out.push((Quad::from_cyclic(quad.0), read, false));
            }
        }
        Ok(out)
    }

    /// Reads outlines as the uncovered strips of covered cards: the card reaches
    /// past the strip's right side (its index at the strip's top-left) or, turned,
    /// past its left side; both are read from the index corner alone
    /// ([`SPREAD_SHIFTS`] cuts, what lies past the strip painted over) and the
    /// better read kept. Only a read of at least [`STRIP_MIN_CONFIDENCE`] is taken
    /// (a thin pale outline may be anything); per outline, the whole card (its
    /// index corner first), the share of it that shows, and its read, or `None`.
    fn read_strips(
        &self,
        frame: &RgbImage,
        strips: &[Quad],
    ) -> Result<Vec<Option<StripRead>>, ModelError> {
        // Per strip, its two ways (when it is narrower than a card).
        let ways: Vec<Vec<(Quad, f64)>> = strips
            .iter()
            .map(|s| {
                let p = Quad::from_cyclic(s.0);
                [p, Quad([p.0[2], p.0[3], p.0[0], p.0[1]])]
                    .iter()
                    .filter_map(covered_card)
                    .collect()
            })
            .collect();
        let looks = SPREAD_SHIFTS.len();
        let mut crops = Vec::new();
        let mut cut: Vec<bool> = Vec::with_capacity(strips.len());
        for way in &ways {
            // Both ways or none: a strip as wide as a card is no strip.
            let mut all = Vec::with_capacity(2 * looks * CROP_LEN);
            let ok = way.len() == 2
                && way.iter().fold(true, |ok, (quad, visible)| {
                    cut_covered(frame, quad, *visible, &mut all) && ok
                });
            if ok {
                crops.extend(all);
            }
            cut.push(ok);
        }
        let n = cut.iter().filter(|c| **c).count();
        let mut reads = self
            .classifier
            .read_one_corner(&crops, 2 * n, looks)?
            .into_iter();
        Ok(ways
            .iter()
            .zip(cut)
            .map(|(way, ok)| {
                if !ok {
                    return None;
                }
                let (a, b) = (reads.next()?, reads.next()?);
                let (k, r) = if better(&b, &a) { (1, b) } else { (0, a) };
                (r.card.is_some() && r.confidence >= STRIP_MIN_CONFIDENCE)
                    .then_some((way[k].0, way[k].1, r))
            })
            .collect())
    }
}

/// The cuts of a partly covered card of an overlapping row, moved along the row by
/// these fractions of the card's width (about two pixels of the row image each
/// way): the edge found between two cards may be its shadow's, a little off.
pub const SPREAD_SHIFTS: [f64; 3] = [-0.025, 0.0, 0.025];

/// The unmoved one of the [`SPREAD_SHIFTS`] cuts: the one a fan's covered cards are
/// screened on.
pub(super) const MIDDLE_CUT: usize = SPREAD_SHIFTS.len() / 2;

/// Appends to `out` the top-left index crops of a covered card (`visible` of its
/// width showing) in the [`SPREAD_SHIFTS`] cuts, what lies past its strip painted
/// over ([`cover_beyond`]); `false` when a cut's crop cannot be made (its place in
/// `out` is filled all the same, so that batches stay aligned).
fn cut_covered(frame: &RgbImage, quad: &Quad, visible: f64, out: &mut Vec<f32>) -> bool {
    let mut ok = true;
    for du in SPREAD_SHIFTS {
        ok &= cut_covered_at(frame, quad, visible, du, out);
    }
    ok
}

/// Cuts a fan's covered card's middle cut (its index corner, one crop) onto
/// `out`; false, with nothing added, when it cannot be cut or shows no ink
/// ([`shows_ink`]): most corners of a light cloth's blobs are bare cloth, and
/// reading them was most of such a frame's time.
pub(super) fn cut_middle(frame: &RgbImage, quad: &Quad, out: &mut Vec<f32>) -> bool {
    let at = out.len();
    let cut = cut_covered_at(
        frame,
        &fan_cut(quad),
        FAN_VISIBLE,
        SPREAD_SHIFTS[MIDDLE_CUT],
        out,
    ) && shows_ink(&out[at..]);
    if !cut {
        out.truncate(at);
    }
    cut
}

/// Appends to `out` one cut of [`cut_covered`], moved by `du` of the card's width;
/// `false` when its crop cannot be made (its place in `out` is filled all the same).
pub(super) fn cut_covered_at(
    frame: &RgbImage,
    quad: &Quad,
    visible: f64,
    du: f64,
    out: &mut Vec<f32>,
) -> bool {
    let mut crop = vec![0.0f32; CROP_LEN];
    let ok = top_left_crop(frame, &shifted(quad, du, 0.0), &mut crop);
    cover_beyond(&mut crop, visible - du);
    out.extend(crop);
    ok
}

/// Drops the less confident of two reads of one card: a covered card can be found
/// both in its row and as a strip of its own (or with its neighbour's strip), and
/// its reads then share the long side that shows. Two reads of the same card need
/// only share that side's place, not its length: a row's outline and a strip's
/// can differ in height by a few pixels. Other pairs are one card only when
/// they read the same card on the same outline: a card on top of a row is read
/// whole both from its own outline and from the row's, while distinct whole
/// cards never lie so close.
pub(super) fn drop_duplicates(cards: &mut Vec<CardRead>) {
    let mut gone = vec![false; cards.len()];
    for i in 0..cards.len() {
        for j in i + 1..cards.len() {
            let (a, b) = (&cards[i], &cards[j]);
            if gone[i] || gone[j] {
                continue;
            }
            let q = &a.corners.0;
            let height = (q[0].dist(q[3]) + q[1].dist(q[2])) / 2.0;
            let limit = SAME_CARD * height;
            let same = if a.overlapped || b.overlapped {
                a.corners.side_error(&b.corners) < limit
                    || (a.card == b.card && a.corners.side_midpoint_error(&b.corners) < limit)
            } else {
                a.card == b.card && a.corners.corner_error(&b.corners) < limit
            };
            if same {
                gone[if b.confidence > a.confidence { i } else { j }] = true;
            }
        }
    }
    let mut k = 0;
    cards.retain(|_| {
        k += 1;
        !gone[k - 1]
    });
}

/// Two reads whose outlines share a long side to within this fraction of the
/// card's height are one card (distinct cards of a row are at least a strip,
/// [`crate::vision::spread::MIN_STRIP`] of a card's width, apart).
const SAME_CARD: f64 = 0.06;

/// A covered card read from its strip: the whole card (its index corner first),
/// the share of it that shows, and the read.
type StripRead = (Quad, f64, ClassRead);

/// One reading of an outline as an overlapping row ([`Spread`]), read.
#[derive(Debug, Clone)]
pub(super) struct Reading {
    /// Which spread of the batch.
    pub(super) spread: usize,
    /// Its parts' reads, left to right, each with whether the part is covered
    /// (read from one corner).
    pub(super) reads: Vec<(Option<ClassRead>, bool)>,
    /// Parts read as cards at their own threshold.
    pub(super) sure: usize,
    /// Parts kept as cards ([`plausible`]).
    pub(super) kept: usize,
    /// Summed confidence of the parts read as cards.
    total: f32,
    /// Whether the reading is taken: a row's when at least two of its parts and
    /// at least half are kept and one is sure; a card outline's (it may be one
    /// card whose pips made an edge) when one part is sure and either every part
    /// is sure, a covered one at the model's one-corner threshold, or at least
    /// three and half of its parts are kept.
    pub(super) taken: bool,
}

impl Reading {
    fn judge(
        spread: usize,
        reads: Vec<(Option<ClassRead>, bool)>,
        card_outline: bool,
        threshold: f32,
        one_corner: f32,
    ) -> Reading {
        let n = reads.len();
        let count = |f: &dyn Fn(&ClassRead, bool) -> bool| {
            reads
                .iter()
                .filter(|(r, covered)| r.as_ref().is_some_and(|r| f(r, *covered)))
                .count()
        };
        let kept = count(&|r, covered| plausible(r, !covered));
        let sure_parts = count(&|r, covered| sure(r, if covered { one_corner } else { threshold }));
        let total = reads
            .iter()
            .filter_map(|(r, _)| r.as_ref())
            .filter(|r| r.card.is_some())
            .map(|r| r.confidence)
            .sum();
        let taken = sure_parts >= 1
            && kept >= 2
            && if card_outline {
                sure_parts == n || (kept >= 3 && 2 * kept >= n)
            } else {
                2 * kept >= n
            };
        Reading {
            spread,
            reads,
            sure: sure_parts,
            kept,
            total,
            taken,
        }
    }
}

/// Whether a new reading of an outline beats the one held: more parts kept, then
/// more sure, then a higher summed confidence.
pub(super) fn beats(new: &Reading, held: Option<&Reading>) -> bool {
    held.is_none_or(|held| {
        (new.kept, new.sure)
            .cmp(&(held.kept, held.sure))
            .then(new.total.total_cmp(&held.total))
            .is_gt()
    })
}

/// A part of an overlapping row is kept as a card when read as one, a covered
/// part only above even odds: a covered part read as a card at even odds or less is
/// more likely an edge found inside a card than a card.
pub(super) fn plausible(read: &ClassRead, on_top: bool) -> bool {
    read.card.is_some() && (on_top || read.confidence > 0.5)
}

/// The localiser's row outlines, and those of its short rows
/// ([`crate::vision::localise::Located::short_rows`]) that are not separate cards merged
/// through the gaps between them: a short row holding two or more outlines read
/// as cards (on their own, or cut from touching cards), however surely, is such
/// cards. In a spread only the card on top reads as a card on its own outline;
/// the masks' groups of strips read as "not a card" (their two index corners
/// belong to different cards).
pub(super) fn spread_rows(
    located: &Located,
    best: &[Option<(Quad, ClassRead)>],
    parts: &[(Quad, ClassRead)],
) -> Vec<Quad> {
    let cards: Vec<Point> = best
        .iter()
        .flatten()
        .chain(parts)
        .filter(|(_, read)| read.card.is_some())
        .map(|(q, _)| q.centre())
        .collect();
    let short_rows = located
        .short_rows
        .iter()
        .filter(|r| cards.iter().filter(|c| r.contains(**c)).count() < 2);
    located.rows.iter().chain(short_rows).copied().collect()
}

/// A lone uncovered strip is taken as a card only when read this surely: a thin
/// pale outline may be anything (a covered card's strip still asks God below the
/// one-corner threshold).
pub const STRIP_MIN_CONFIDENCE: f32 = 0.99;
