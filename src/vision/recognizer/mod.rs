//! The whole pipeline on one frame: localise, crop, classify in one batch, and drop
//! the quads the model calls "not a card".
//!
//! The frame's ordinary cards are read here; the submodules read what needs more:
//! `spreads` (overlapping rows), `fans`, `second_look` (unsure reads cut again),
//! `pip_check` (a number card's pips against its index), `unreadable` (card
//! outlines no index could be read on), with the outline cuts they share in
//! `outlines`.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};

use image::RgbImage;
use serde::Serialize;

use super::classify::{ClassRead, Classifier, ModelError, Outline};
use super::exposure::exposure_warnings;
use super::geometry::Quad;
use super::localise::{locate, LocaliserConfig, Located};
use super::rectify::{
    bottom_right_crop, crops_cuttable, index_crops, top_left_crop, whole_card, CROP_LEN, WHOLE_LEN,
};
use super::warning::{small_cards_warning, FrameWarning};
use crate::cards::{Card, Suit};

mod fans;
mod outlines;
mod pip_check;
mod second_look;
mod spreads;
mod unreadable;

pub use outlines::{covered_card, quarter_turn, scaled, shifted, split_row, touching_cards};
pub use pip_check::{
    pips_correction, pips_deny_rank, pips_weighed_rank, pips_weighed_suit, FEW_PIPS_AT_MOST,
    FEW_PIPS_FROM_RANK, PIP_CHECK_BELOW,
};
pub use second_look::{second_look_cuts, SECOND_LOOK_SCALE, SECOND_LOOK_SHIFT};
pub use spreads::{SPREAD_SHIFTS, STRIP_MIN_CONFIDENCE};
pub use unreadable::{unreadable_cards, UNREADABLE_SIZE};

use spreads::{drop_duplicates, spread_rows};

/// One card read from a frame.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CardRead {
    pub card: Card,
    /// Calibrated probability that the read is right.
    pub confidence: f32,
    /// The outline `[TL, TR, BR, BL]` of the portrait card, in frame pixels.
    pub corners: Quad,
    /// True when the confidence is below the model's confirmation threshold, or
    /// the card is too small in the frame for its confidence to mean anything
    /// (`ModelSettings::confirm_below_height`): the referee asks God to confirm
    /// the card.
    pub needs_confirmation: bool,
    /// True for a card read from its one uncovered index in an overlapping row
    /// (`vision::spread`): its corners past the strip that shows are where a whole
    /// card reaches, and its confidence is held to the model's one-corner threshold.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub overlapped: bool,
    /// The suit the card's pips read as, when they deny the read's suit
    /// ([`Classifier::read_pips`], in the recognizer's last step), or outweigh it
    /// on a read that asks God anyway ([`pips_weighed_suit`]): the read then
    /// asks God, whatever its confidence. Absent when they agree, or could not be
    /// read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pips_say: Option<Suit>,
    /// How many pips the card shows, when that denies the read's rank
    /// ([`pips_deny_rank`]): more than the rank (a seven whose small index was
    /// read as a three), or next to none for a rank of six or more (a king read
    /// as a ten), or when, on a read that asks God anyway, the count puts
    /// another rank in its place ([`pips_weighed_rank`]). The read then asks God.
    /// Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pips_counted: Option<usize>,
    /// What the index (and card) readers read, when the pips put another card in
    /// its place ([`pips_correction`], [`pips_weighed_suit`],
    /// [`pips_weighed_rank`]): `card` is then the pips' proposal, its
    /// `confidence` what the readers give that card, and the read asks God.
    /// Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_read: Option<Card>,
    /// The readers' probabilities behind `confidence`, kept for a card the pips
    /// correct; not reported.
    #[serde(skip)]
    pub class_read: Option<ClassRead>,
}

/// Everything read from one frame.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrameRead {
    pub width: u32,
    pub height: u32,
    /// Cards left to right (by the centre of their outline).
    pub cards: Vec<CardRead>,
    /// Card-shaped things the model turned away as "not a card".
    #[serde(skip)]
    pub rejected: Vec<Quad>,
    /// The rejected outlines that look like a card no index could be read on
    /// ([`unreadable_cards`]): a card washed out by a lamp's glare or lost in a
    /// shadow, which would otherwise vanish from a play without a word.
    #[serde(skip)]
    pub unreadable: Vec<Quad>,
    /// What about the frame may have cost cards: its exposure, cards too small to
    /// read (empty when fine).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<FrameWarning>,
    /// Whether every court card asked God on this read
    /// ([`Recognizer::confirm_courts`]): the setting as the frame was read, which
    /// God may have changed since.
    #[serde(skip)]
    pub confirm_courts: bool,
}

/// Puts cards in the order a play is read: left to right across the frame, by the
/// x of their outline's centre (a stable sort: cards at the same x keep their
/// order). The recognizer orders its reads this way, and `--check` orders labelled
/// outlines of a turned frame the same way, so that the two sequences compare
/// like for like whatever the camera's turn.
pub fn order_left_to_right<T>(cards: &mut [T], outline: impl Fn(&T) -> &Quad) {
    cards.sort_by(|a, b| outline(a).centre().x.total_cmp(&outline(b).centre().x));
}

/// Frames whose long side is over this many pixels are read shrunk to it. The
/// localiser's settings were chosen on 1280 × 720 frames and hold at 1920 × 1080;
/// a phone photo of 4032 × 3024 shows the same cards with twice the pixels again,
/// and a soft edge spread over more pixels than the edge search reaches: of 122
/// held-out cards in such photos, 110 were found at full size and 119 when read at
/// 1920 × 1440 (README, "Camera resolution"). Cards that big lose nothing legible.
pub const MAX_READ_SIDE: u32 = 1920;

/// How many times larger a frame of this size is than the recognizer reads it: its
/// long side over [`MAX_READ_SIDE`], and 1 for a frame read as it is.
pub fn read_factor(width: u32, height: u32) -> f64 {
    (f64::from(width.max(height)) / f64::from(MAX_READ_SIDE)).max(1.0)
}

/// The frame as the recognizer reads it — box-averaged down by its
/// [`read_factor`] to a long side of [`MAX_READ_SIDE`] when it is larger — and the
/// factor that takes its pixels back to the frame's (1 when it is read as it is).
pub fn reading_frame(frame: &RgbImage) -> (Cow<'_, RgbImage>, f64) {
    let (w, h) = frame.dimensions();
    let factor = read_factor(w, h);
    if factor == 1.0 {
        return (Cow::Borrowed(frame), 1.0);
    }
    let side = |v: u32| ((f64::from(v) / factor).round() as u32).max(1);
    let small = image::imageops::thumbnail(frame, side(w), side(h));
    // Along the longer side: a side a few pixels long is rounded to 1 and says
    // nothing of the factor (a 1 × 5000 strip is read as 1 × 1920).
    let back = if w >= h {
        f64::from(w) / f64::from(small.width())
    } else {
        f64::from(h) / f64::from(small.height())
    };
    (Cow::Owned(small), back)
}

/// The card recognizer: localiser settings plus the loaded model. Build it once and
/// reuse it for every frame (loading the model is the slow part).
#[derive(Debug)]
pub struct Recognizer {
    pub classifier: Classifier,
    pub localiser: LocaliserConfig,
    /// A stricter confirmation threshold set by the table for its own deck
    /// ([`Recognizer::set_table_threshold`]); `None`: the model's.
    table_threshold: Option<f32>,
    /// Whether every jack, queen and king asks God ([`Recognizer::confirm_courts`]):
    /// atomic, so that God can switch it at the console while the service shares
    /// the recognizer among its workers.
    confirm_courts: AtomicBool,
}

/// Why a table's confirmation threshold was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TableThresholdError {
    /// Not a number between 0 and 1 (excluded): a confidence can reach neither.
    #[error("{0} is not a confidence: give a number between 0 and 1, such as 0.999998")]
    NotAConfidence(f32),
    /// Below the model's own: a table may only ask God more often, since the
    /// model's threshold is the least its calibration vouches for.
    #[error(
        "{given} is below the model's own confirmation threshold {model}: a table's \
         threshold can only be stricter (reads under the model's own always ask God)"
    )]
    BelowModel { given: f32, model: f32 },
}

impl Recognizer {
    /// A recognizer with the default localiser settings.
    pub fn new(classifier: Classifier) -> Recognizer {
        Recognizer {
            classifier,
            localiser: LocaliserConfig::default(),
            table_threshold: None,
            confirm_courts: AtomicBool::new(false),
        }
    }

    /// Has God asked about every card read as a jack, queen or king, however sure:
    /// for a deck whose court cards are not indexed J, Q and K (a French deck's V,
    /// D and R, a German deck's B, D and K). The model learnt English indices; on
    /// such decks it reads number cards and aces as on any other, but a court
    /// card's letter is one it never saw, and it reads some of them as another
    /// court, or a B as an 8, surely enough to pass any threshold that spares
    /// the number cards (model card, "Decks with other court letters"). Every
    /// number card is then checked against its pips too, at any height
    /// (`Recognizer::check_pips`): a court card shows next to none.
    ///
    /// It takes `&self`: a table that finds out mid-game that its deck letters
    /// its courts otherwise switches it on at the God console, for the frames
    /// read after (a frame being read keeps the setting it started with).
    pub fn confirm_courts(&self, confirm: bool) {
        self.confirm_courts.store(confirm, Ordering::Relaxed);
    }

    /// Whether every court card asks God ([`Recognizer::confirm_courts`]).
    pub fn confirms_courts(&self) -> bool {
        self.confirm_courts.load(Ordering::Relaxed)
    }

    /// Holds every read to `threshold` as well as to the model's own: a club whose
    /// deck the model misreads surely (jumbo indices, say: model card, "Check on
    /// Kennard's cards") checks it with `eleusis recognize --check` and names
    /// sidecars, and runs with the threshold that check suggests, so that God is
    /// asked about reads as sure as the misreads it saw. Only what is marked as
    /// needing confirmation changes: the reading itself (which outlines are read
    /// again, cut or split) stays the model's.
    pub fn set_table_threshold(&mut self, threshold: f32) -> Result<(), TableThresholdError> {
        if !(threshold > 0.0 && threshold < 1.0) {
            return Err(TableThresholdError::NotAConfidence(threshold));
        }
        let model = self.classifier.settings().confirm_threshold;
        if threshold < model {
            return Err(TableThresholdError::BelowModel {
                given: threshold,
                model,
            });
        }
        self.table_threshold = Some(threshold);
        Ok(())
    }

    /// The confirmation threshold reads of whole cards are held to: the model's,
    /// or the table's when it set a stricter one.
    pub fn confirm_threshold(&self) -> f32 {
        let model = self.classifier.settings().confirm_threshold;
        self.table_threshold.map_or(model, |t| t.max(model))
    }

    /// Reads every card in the frame. Each outline is read as located; one whose
    /// read is "not a card" or asks for confirmation is read again turned by a
    /// quarter, in a second batch, and the better read kept: a card seen at a slant
    /// with its long side pointing away from the camera looks square or even wider
    /// than tall, and its outline alone cannot say which sides are the long ones.
    /// A sure read as located needs no second: the same card turned shows its
    /// indices sideways, which reads as no card or an unsure one. (Reading every
    /// near-square outline both ways in the first batch read every labelled set
    /// the same, for twice the crops on a slanted view.)
    ///
    /// Cards laid side by side and touching, in a deck with no printed border, merge
    /// into one outline that reads as no card or as an unsure one. An outline with
    /// the proportions of two to four touching cards ([`touching_cards`]) whose read
    /// is not a confident card is cut into that many cards and read again (a third,
    /// usually empty batch); the cut replaces the outline only when every part reads
    /// as a card above the confirmation threshold.
    ///
    /// A hand spread out in an overlapping row makes an outline longer than any
    /// card (the localiser's rows), or, for two or three cards, one of a card's
    /// proportions that reads unsure; these are split at the edges between the
    /// cards and each card read from its one uncovered index
    /// (`Recognizer::read_spreads`).
    ///
    /// Last, a card whose read is still unsure gets a second look
    /// (`Recognizer::second_look`).
    ///
    /// A frame larger than [`MAX_READ_SIDE`] is read shrunk ([`reading_frame`]);
    /// the corners come back in the frame's own pixels, and the card sizes that
    /// decide confirmations and warnings are those read.
    pub fn recognise(&self, frame: &RgbImage) -> Result<FrameRead, ModelError> {
        let (read_frame, back) = reading_frame(frame);
        let mut out = self.recognise_as_is(&read_frame, self.confirms_courts())?;
        if read_frame.dimensions() != frame.dimensions() {
            out.width = frame.width();
            out.height = frame.height();
            for card in &mut out.cards {
                card.corners = card.corners.scaled(back);
            }
            for quad in out.rejected.iter_mut().chain(&mut out.unreadable) {
                *quad = quad.scaled(back);
            }
        }
        Ok(out)
    }

    /// [`Recognizer::recognise`] on a frame of a size the localiser reads as it is,
    /// with every court card asking God when `confirm_courts`.
    fn recognise_as_is(
        &self,
        frame: &RgbImage,
        confirm_courts: bool,
    ) -> Result<FrameRead, ModelError> {
        let located = locate(frame, &self.localiser);
        let mut quads = located.cards.clone();
        let threshold = self.classifier.settings().confirm_threshold;
        // What each outline may hold. An outline of other proportions than a
        // card's, or within a row the localiser found, may be several overlapping
        // or touching cards, whose two corners show two cards' indices: read from
        // both corners at once. A card's outline may be read from one sure corner
        // (`Recognizer::read_quads_sure_corner_first`), but on a card under
        // `PIP_CHECK_BELOW` the index is a few pixels tall and one corner can be
        // surely wrong: such a card is read from both, and from one only where
        // the other is blank in glare (asking God, below).
        let outlines: Vec<Outline> = quads
            .iter()
            .map(|q| {
                let c = q.centre();
                let card = ONE_CARD_ASPECT.contains(&q.aspect())
                    && !located
                        .rows
                        .iter()
                        .chain(&located.short_rows)
                        .any(|r| r.contains(c));
                match (card, q.longest_side() >= PIP_CHECK_BELOW) {
                    (false, _) => Outline::MaybeSeveral,
                    (true, false) => Outline::SmallCard,
                    (true, true) => Outline::Card,
                }
            })
            .collect();
        let mut best = self.read_both_ways(frame, &quads, &outlines, threshold)?;
        let parts = self.cut_touching(frame, &quads, &mut best, threshold)?;
        self.read_enclosing(frame, &located, &mut quads, &mut best, &parts, threshold)?;
        let rows = spread_rows(&located, &best, &parts);
        let mut spread = self.read_spreads(frame, &rows, &quads, &mut best, threshold)?;
        let fans = self.read_fans(frame, &located.fans, &mut best, &mut spread, threshold)?;
        spread.extend(fans);
        self.second_look(frame, &mut best, threshold)?;
        let mut out = FrameRead {
            width: frame.width(),
            height: frame.height(),
            cards: Vec::new(),
            rejected: Vec::new(),
            unreadable: Vec::new(),
            warnings: exposure_warnings(frame),
            confirm_courts,
        };
        let whole = best.into_iter().flatten().chain(parts);
        let too_small = self.classifier.settings().confirm_below_height();
        for (quad, read, overlapped) in whole.map(|(q, r)| (q, r, false)).chain(spread) {
            let needed = if overlapped || read.one_corner {
                self.classifier.settings().one_corner_threshold()
            } else {
                threshold
            }
            .max(self.table_threshold.unwrap_or(0.0));
            // A card under `PIP_CHECK_BELOW` read from one corner because the
            // other is blank in glare: its small index had no second corner to
            // agree with, and asks God however sure it is.
            let small_lone_corner = read.blank_corner && quad.longest_side() < PIP_CHECK_BELOW;
            match read.card {
                Some(card) => out.cards.push(CardRead {
                    card,
                    confidence: read.confidence,
                    corners: quad,
                    needs_confirmation: read.confidence < needed
                        || quad.longest_side() < too_small
                        || small_lone_corner
                        || (confirm_courts && card.is_face()),
                    overlapped,
                    pips_say: None,
                    pips_counted: None,
                    index_read: None,
                    class_read: Some(read),
                }),
                None => out.rejected.push(quad),
            }
        }
        drop_duplicates(&mut out.cards);
        self.check_pips(frame, &mut out.cards, confirm_courts)?;
        order_left_to_right(&mut out.cards, |c| &c.corners);
        out.unreadable = unreadable_cards(&out.cards, &out.rejected);
        out.warnings
            .extend(small_cards_warning(out.cards.iter().map(|c| &c.corners)));
        Ok(out)
    }

    /// The best read of each outline, with the outline it was read as: first as
    /// located, then, in a second batch, turned by a quarter, for the outlines
    /// whose first read is unsure (a near-square outline's long sides are a guess).
    /// `outlines` says per outline what it may hold, and so whether it may be
    /// read from one corner alone ([`Outline`]).
    fn read_both_ways(
        &self,
        frame: &RgbImage,
        quads: &[Quad],
        outlines: &[Outline],
        threshold: f32,
    ) -> Result<Vec<Option<(Quad, ClassRead)>>, ModelError> {
        let mut best: Vec<Option<(Quad, ClassRead)>> = vec![None; quads.len()];
        for ((slot, q), read) in best
            .iter_mut()
            .zip(quads)
            .zip(self.read_quads_sure_corner_first(frame, quads, outlines)?)
        {
            keep_better(slot, *q, read);
        }
        let retry: Vec<usize> = (0..quads.len())
            .filter(|&i| best[i].as_ref().is_some_and(|(_, r)| !sure(r, threshold)))
            .collect();
        if !retry.is_empty() {
            let turned: Vec<Quad> = retry.iter().map(|&i| quarter_turn(&quads[i])).collect();
            let again = self.read_quads(frame, &turned)?;
            for ((&i, quad), read) in retry.iter().zip(turned).zip(again) {
                keep_better(&mut best[i], quad, read);
            }
        }
        Ok(best)
    }

    /// The third look: outlines with the proportions of touching cards whose best
    /// read is unsure, cut into cards and read in one batch. A cut whose every part
    /// is a sure card replaces its outline (the outline's slot in `best` is
    /// emptied); the parts and their reads are returned.
    fn cut_touching(
        &self,
        frame: &RgbImage,
        quads: &[Quad],
        best: &mut [Option<(Quad, ClassRead)>],
        threshold: f32,
    ) -> Result<Vec<(Quad, ClassRead)>, ModelError> {
        let cuts: Vec<(usize, Vec<Quad>)> = (0..quads.len())
            .filter(|&i| !best[i].as_ref().is_some_and(|(_, r)| sure(r, threshold)))
            .filter_map(|i| Some((i, split_row(&quads[i], touching_cards(&quads[i])?)?)))
            .collect();
        let mut parts = Vec::new();
        if cuts.is_empty() {
            return Ok(parts);
        }
        let all: Vec<Quad> = cuts.iter().flat_map(|(_, p)| p.iter().copied()).collect();
        let mut reads = self.read_quads(frame, &all)?.into_iter();
        for (i, cut) in cuts {
            let read: Vec<Option<ClassRead>> = reads.by_ref().take(cut.len()).collect();
            if read.iter().all(|r| r.is_some_and(|r| sure(&r, threshold))) {
                best[i] = None;
                parts.extend(cut.into_iter().zip(read.into_iter().flatten()));
            }
        }
        Ok(parts)
    }

    /// The outlines the localiser dropped for smaller ones inside them
    /// ([`Located::enclosing`]) where nothing inside reads as a card: every card
    /// outline whose centre lies in one read as no card, and no cut of touching
    /// cards lies there. Those are pieces of a court card's art that the masks cut
    /// out in a card's shape, and the enclosing outline is read instead (turned too
    /// when unsure, as any card); when it reads as a card it takes the first piece's place
    /// in `quads` and `best`, and is looked at again like any other card. Where
    /// the pieces read as cards (neighbours merged through a gap, a card on a
    /// sheet of paper) it is never read; nor where a row outline overlaps it: in
    /// a spread hand the pieces are strips, read as the row's covered cards. A
    /// short row ([`Located::short_rows`]) does not count: on a pale cloth the
    /// outline around a few cards laid close together is one, and it must not
    /// hide a court card among them.
    fn read_enclosing(
        &self,
        frame: &RgbImage,
        located: &Located,
        quads: &mut [Quad],
        best: &mut [Option<(Quad, ClassRead)>],
        parts: &[(Quad, ClassRead)],
        threshold: f32,
    ) -> Result<(), ModelError> {
        let in_row = |outer: &Quad| located.rows.iter().any(|r| r.overlaps(outer));
        let mut places = Vec::new();
        let mut outlines = Vec::new();
        for outer in located.enclosing.iter().filter(|o| !in_row(o)) {
            let inside: Vec<usize> = (0..quads.len())
                .filter(|&i| outer.contains(quads[i].centre()))
                .collect();
            let no_card = inside
                .iter()
                .all(|&i| best[i].as_ref().is_none_or(|(_, r)| r.card.is_none()));
            let no_part = !parts.iter().any(|(q, _)| outer.contains(q.centre()));
            if let (Some(&first), true, true) = (inside.first(), no_card, no_part) {
                places.push(first);
                outlines.push(*outer);
            }
        }
        if outlines.is_empty() {
            return Ok(());
        }
        let reads = self.read_both_ways(frame, &outlines, &[], threshold)?;
        for ((i, outer), read) in places.into_iter().zip(outlines).zip(reads) {
            if let Some((quad, read)) = read.filter(|(_, r)| r.card.is_some()) {
                quads[i] = outer;
                best[i] = Some((quad, read));
            }
        }
        Ok(())
    }

    /// Reads the cards the corners alone leave unsure once more with the card
    /// reader (`Classifier::wants_whole_card`), in one batch: `reads[i]` is the
    /// read of `quads[i]`.
    fn add_whole_cards(
        &self,
        frame: &RgbImage,
        quads: &[Quad],
        reads: &mut [ClassRead],
    ) -> Result<(), ModelError> {
        let picked: Vec<usize> = (0..reads.len())
            .filter(|&i| self.classifier.wants_whole_card(&reads[i]))
            .collect();
        if picked.is_empty() {
            return Ok(());
        }
        let mut wholes = vec![0.0f32; picked.len() * WHOLE_LEN];
        let mut taken = Vec::with_capacity(picked.len());
        let mut filled = 0;
        for &i in &picked {
            let slot = &mut wholes[filled * WHOLE_LEN..][..WHOLE_LEN];
            if whole_card(frame, &quads[i], slot) {
                taken.push(i);
                filled += 1;
            }
        }
        wholes.truncate(filled * WHOLE_LEN);
        let mut again: Vec<ClassRead> = taken.iter().map(|&i| reads[i]).collect();
        self.classifier.add_whole_cards(&mut again, &wholes)?;
        for (i, read) in taken.into_iter().zip(again) {
            reads[i] = read;
        }
        Ok(())
    }

    /// Reads outlines in one model batch; `None` for an outline whose crops cannot
    /// be cut (degenerate corners). Cards the corners leave unsure are read with the
    /// card reader too ([`Recognizer::add_whole_cards`]).
    fn read_quads(
        &self,
        frame: &RgbImage,
        quads: &[Quad],
    ) -> Result<Vec<Option<ClassRead>>, ModelError> {
        self.read_quads_sure_corner_first(frame, quads, &[])
    }

    /// [`Recognizer::read_quads`], but an outline marked [`Outline::Card`] in
    /// `outlines` (a card's outline, big enough) whose top-left crop alone reads
    /// as a card surely enough is read from that crop
    /// ([`Classifier::read_sure_corner_first`](super::classify::Classifier::read_sure_corner_first)):
    /// on a frame of well-seen cards this halves the index model's work. Outlines
    /// beyond `outlines` may be several cards, read from both corners.
    fn read_quads_sure_corner_first(
        &self,
        frame: &RgbImage,
        quads: &[Quad],
        outlines: &[Outline],
    ) -> Result<Vec<Option<ClassRead>>, ModelError> {
        let mut kinds = Vec::with_capacity(quads.len());
        let mut crops = vec![0.0f32; quads.len() * 2 * CROP_LEN];
        let mut usable = Vec::with_capacity(quads.len());
        let mut cut = Vec::with_capacity(quads.len());
        let mut filled = 0;
        // A big card's outline's bottom-right crop is cut only if its top-left one
        // alone does not read it: where its outline is sure to be cuttable
        // throughout, the top-left crop is cut alone first.
        let mut later = Vec::with_capacity(quads.len());
        for (i, q) in quads.iter().enumerate() {
            let slot = &mut crops[filled * 2 * CROP_LEN..(filled + 1) * 2 * CROP_LEN];
            let outline = outlines.get(i).copied().unwrap_or_default();
            let lazy = outline == Outline::Card && crops_cuttable(q);
            let ok = if lazy {
                top_left_crop(frame, q, slot)
            } else {
                index_crops(frame, q, slot)
            };
            usable.push(ok);
            if ok {
                cut.push(*q);
                kinds.push(outline);
                later.push(lazy);
            }
            filled += usize::from(ok);
        }
        crops.truncate(filled * 2 * CROP_LEN);
        let mut reads =
            self.classifier
                .read_sure_corner_first_cutting(&crops, filled, &kinds, |k, rest| {
                    if later[k] {
                        let from = rest.len();
                        rest.resize(from + CROP_LEN, 0.0);
                        bottom_right_crop(frame, &cut[k], &mut rest[from..])
                    } else {
                        let pair = &crops[k * 2 * CROP_LEN..(k + 1) * 2 * CROP_LEN];
                        rest.extend_from_slice(&pair[CROP_LEN..]);
                        true
                    }
                })?;
        self.add_whole_cards(frame, &cut, &mut reads)?;
        let mut reads = reads.into_iter();
        Ok(usable
            .into_iter()
            .map(|ok| if ok { reads.next() } else { None })
            .collect())
    }
}

/// The proportions (short sides over long sides, [`Quad::aspect`]) of an outline
/// that can only be one card: a bridge card is 0.64 and a poker card 0.71 seen from
/// above, a little more or less at a slant. Two cards overlapping by all but a
/// tenth of a card's width make 0.78 and more, three barely overlapping about 0.5.
/// Only such an outline may be read from one sure corner
/// (`Recognizer::read_quads_sure_corner_first`).
pub const ONE_CARD_ASPECT: std::ops::RangeInclusive<f64> = 0.56..=0.78;

/// A card read at or above the confirmation threshold.
fn sure(read: &ClassRead, threshold: f32) -> bool {
    read.card.is_some() && read.confidence >= threshold
}

/// Puts `read` of outline `quad` in `slot` when the slot is empty or holds a worse
/// read of the same card outline.
fn keep_better(slot: &mut Option<(Quad, ClassRead)>, quad: Quad, read: Option<ClassRead>) {
    let Some(read) = read else { return };
    let wins = match slot {
        Some((_, held)) => better(&read, held),
        None => true,
    };
    if wins {
        *slot = Some((quad, read));
    }
}

/// Whether read `a` beats read `b` of the same outline: any card over "not a card",
/// then the higher confidence.
fn better(a: &ClassRead, b: &ClassRead) -> bool {
    match (a.card.is_some(), b.card.is_some()) {
        (true, false) => true,
        (false, true) => false,
        _ => a.confidence > b.confidence,
    }
}

#[cfg(test)]
mod tests;
