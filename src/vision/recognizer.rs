//! The whole pipeline on one frame: localise, crop, classify in one batch, and drop
//! the quads the model calls "not a card".

use std::borrow::Cow;

use image::RgbImage;
use serde::Serialize;

use super::classify::{
    ClassRead, Classifier, CountHistogram, ModelError, Outline, PipRead, PIP_SUITS,
};
use super::exposure::exposure_warnings;
use super::fan::FanCard;
use super::geometry::{Point, Quad};
use super::localise::{locate, LocaliserConfig, Located};
use super::pips::{pips_and_ink_family, InkFamily};
use super::rectify::{
    bottom_right_crop, card_to_frame, crops_cuttable, index_crops, rectify, top_left_crop,
    whole_card, CARD_H, CARD_W, CROP_LEN, WHOLE_LEN,
};
use super::spread::{cover_beyond, readings, shows_ink, split, Spread};
use super::warning::{median_card_height, small_cards_warning, FrameWarning};
use crate::cards::{Card, Rank, Suit};

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
}

/// How an unreadable outline's longest side may compare with the median of the
/// frame's whole cards read ([`unreadable_cards`]): a card of the same deck, give or
/// take the slant of the camera across the table.
pub const UNREADABLE_SIZE: std::ops::RangeInclusive<f64> = 0.8..=1.25;

/// The outlines turned away as no card (`rejected`) that look like a card whose
/// index could not be read: a card's proportions ([`ONE_CARD_ASPECT`]), apart
/// from every card read (neither holds the other's centre: not a piece of a read
/// card's art, not an outline around read cards), and, when whole cards were
/// read, of their size ([`UNREADABLE_SIZE`]). A lamp's glare can wash a card's
/// indices out to white, a hard shadow can hide them: the localiser still finds
/// the card, the model rightly reads no index, and without this the card would
/// vanish from the play. A coaster or a hand rarely has a card's proportions, a
/// phone seldom; a note or a business card of a card's shape is reported too,
/// which costs God one look (README, "Unreadable outlines").
/// Overlapping outlines of one thing count once, in the order turned away.
pub fn unreadable_cards(cards: &[CardRead], rejected: &[Quad]) -> Vec<Quad> {
    let median = median_card_height(cards.iter().filter(|c| !c.overlapped).map(|c| &c.corners));
    let mut unreadable: Vec<Quad> = Vec::new();
    for quad in rejected {
        let shaped = ONE_CARD_ASPECT.contains(&quad.aspect());
        let sized = median.map_or(true, |m| {
            UNREADABLE_SIZE.contains(&(quad.longest_side() / m))
        });
        let apart = !cards.iter().any(|c| c.corners.overlaps(quad));
        let new = !unreadable.iter().any(|u| u.overlaps(quad));
        if shaped && sized && apart && new {
            unreadable.push(*quad);
        }
    }
    unreadable
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
    let back = f64::from(w) / f64::from(small.width());
    (Cow::Owned(small), back)
}

/// Cards at least this tall in the frame (their outline's longest side, in the
/// pixels read) are not checked against their pips unless their read asks God
/// anyway (then for the card to offer, [`pips_weighed_suit`]): on 5 868 held-out reads of
/// cards 145–250 px tall the index model read none wrong surely enough to pass its
/// threshold (models/README.md, "By card height"), and the check costs about 2 ms
/// a card (README, "Measured performance"). Under it, a small index is where a
/// club turns into a spade.
pub const PIP_CHECK_BELOW: f64 = 145.0;

/// Reads of this rank or more whose card shows [`FEW_PIPS_AT_MOST`] pips or fewer
/// are doubted ([`pips_deny_rank`]).
pub const FEW_PIPS_FROM_RANK: u8 = 6;

/// See [`FEW_PIPS_FROM_RANK`]: the pip reader counts two pips or fewer on 429 of
/// 432 held-out renders of court cards (their art), and on 6 of 720 of sixes to
/// tens (models/README.md, "Pips").
pub const FEW_PIPS_AT_MOST: usize = 2;

/// Whether `pips` pips read as a suit on a card deny a read of rank `rank` (2 to
/// 10): more pips than the rank (blur merges pips, it never adds them), or
/// [`FEW_PIPS_AT_MOST`] or fewer on a six to ten, which a court card's art shows
/// and a six to ten does not: a small king read from its index as a ten.
pub fn pips_deny_rank(rank: u8, pips: usize) -> bool {
    pips > usize::from(rank) || (rank >= FEW_PIPS_FROM_RANK && pips <= FEW_PIPS_AT_MOST)
}

/// The card a number card's pips propose in place of the index's read `card`,
/// when they deny it: the suit they favour when they deny its suit, and their
/// number when they outnumber its rank (blur merges pips, so a count may fall
/// short of the card's rank but not pass it). The count stands only when at
/// least three in four of the pips read as that suit: a card's own pips are of
/// one suit, the odd one misread, while a loose outline that takes in part of a
/// neighbour mixes two. `None`: the pips leave the read as it is, or deny it
/// without naming another card (too few pips for a six to ten: a court card,
/// but which one the pips cannot say).
pub fn pips_correction(card: Card, pips: &PipRead) -> Option<Card> {
    let suit = pips.denies.unwrap_or(card.suit);
    let one_suit = 4 * pips.of_suit(suit) >= 3 * pips.pips;
    let counted = u8::try_from(pips.pips).ok().and_then(Rank::new);
    let rank = match counted {
        Some(r) if one_suit && r.value() > card.rank.value() && r.value() <= 10 => r,
        _ => card.rank,
    };
    let proposed = Card::new(rank, suit);
    (proposed != card).then_some(proposed)
}

/// The suit a read that asks God is offered with once its card's pips weigh in:
/// of the suits its ink's colour `family` allows, the one whose card of the
/// read's rank the index and card readers (`read`) and the pips (`suit_sum`,
/// [`PipRead::suit_sum`]) together make likeliest, the two taken as independent
/// evidence (their probabilities multiplied). The pips deny a suit only when they
/// all but rule it out, which leaves a plastic deck's nine of clubs, read 0.55 a
/// spade by an index whose club and spade differ by a few pixels, offered as a
/// spade although its pips lean to clubs; when God is asked anyway, the
/// card offered should be the one all the evidence favours.
pub fn pips_weighed_suit(
    read: &ClassRead,
    rank: Rank,
    suit_sum: &[f32; 4],
    family: Option<InkFamily>,
) -> Option<Suit> {
    let options = PIP_SUITS
        .iter()
        .zip(suit_sum)
        .filter(|(suit, _)| family.map_or(true, |f| f.allows(**suit)))
        .map(|(suit, from_pips)| (*suit, Card::new(rank, *suit), *from_pips));
    likeliest(read, options)
}

/// The rank an unsure read of suit `suit` is offered with once its card's pip
/// count weighs in: of the ranks counted in `counts`, the one whose card of that
/// suit the readers (`read`) and the count together make likeliest, the count's
/// likelihood taken from the validation designs' counts
/// ([`CountHistogram::likelihood`]). A blurred four read as a six shows three
/// or four pips, which a six shows almost never; a ten showing no pips is most
/// likely a court card, and the index says which. `None`: no rank has any likelihood.
pub fn pips_weighed_rank(
    read: &ClassRead,
    suit: Suit,
    count: usize,
    counts: &CountHistogram,
) -> Option<Rank> {
    let options = counts.ranks().map(|rank| {
        let from_count = counts.likelihood(rank, count).max(1e-30).ln();
        (rank, Card::new(rank, suit), from_count)
    });
    likeliest(read, options)
}

/// Of `options` (a choice, the card it stands for, and the log-likelihood the
/// pips give it), the choice whose card the readers (`read`) and the pips make
/// likeliest together, the two taken as independent evidence (log-probabilities
/// added; a card the readers rule out counts as 10⁻³⁰, not as impossible).
fn likeliest<T>(read: &ClassRead, options: impl Iterator<Item = (T, Card, f32)>) -> Option<T> {
    let readers = read.log_probabilities();
    options
        .map(|(choice, card, from_pips)| {
            let p = readers.get(card.index()).map_or(0.0, |lp| lp.exp());
            (choice, p.max(1e-30).ln() + from_pips)
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(choice, _)| choice)
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
        }
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
        let mut out = self.recognise_as_is(&read_frame)?;
        if back != 1.0 {
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

    /// [`Recognizer::recognise`] on a frame of a size the localiser reads as it is.
    fn recognise_as_is(&self, frame: &RgbImage) -> Result<FrameRead, ModelError> {
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
                        || small_lone_corner,
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
        self.check_pips(frame, &mut out.cards)?;
        order_left_to_right(&mut out.cards, |c| &c.corners);
        out.unreadable = unreadable_cards(&out.cards, &out.rejected);
        out.warnings
            .extend(small_cards_warning(out.cards.iter().map(|c| &c.corners)));
        Ok(out)
    }

    /// Checks each read of a whole number card (2 to 10) shorter than
    /// [`PIP_CHECK_BELOW`], or asking God at any height, against its pips:
    /// one whose pips deny its suit ([`Classifier::read_pips`]) asks God, with the
    /// suit the pips favour in `pips_say`, and so does one whose pips deny its
    /// read rank ([`pips_deny_rank`]), with their number in `pips_counted`. The
    /// index of a small card may show a club as a spade, a faint four-colour club
    /// as a diamond, a blurred 7 as a 3 or a king as a 10, as surely as it shows
    /// anything; its pips are the suit drawn several times larger, as many as its
    /// rank (fewer, when blur merges some), and a court card has next to none.
    /// Reads that ask God already are checked too, for what the pips can put in
    /// their place: the suit they weigh in for ([`pips_weighed_suit`]), their
    /// number when it passes the read's rank ([`pips_correction`]) and otherwise
    /// the rank their count weighs in for ([`pips_weighed_rank`]); covered cards
    /// and court cards and aces (no pips to speak of) are not checked.
    fn check_pips(&self, frame: &RgbImage, cards: &mut [CardRead]) -> Result<(), ModelError> {
        if !self.classifier.reads_pips() {
            return Ok(());
        }
        for card in cards.iter_mut() {
            let number = (2..=10).contains(&card.card.rank.value());
            let small = card.corners.longest_side() < PIP_CHECK_BELOW;
            if card.overlapped || !number || !(small || card.needs_confirmation) {
                continue;
            }
            let Some(rectified) = rectify(frame, &card.corners) else {
                continue;
            };
            let (patches, n, family) = pips_and_ink_family(&rectified);
            let Some(read) = self.classifier.read_pips(&patches, n, card.card.suit)? else {
                continue;
            };
            // Pips the reader takes for a suit their ink's colour rules out (a
            // blurred red diamond's round smudges read as clubs) deny nothing.
            let mut read = PipRead {
                denies: read
                    .denies
                    .filter(|s| family.map_or(true, |f| f.allows(*s))),
                ..read
            };
            // A read that asks God anyway is offered with the suit the pips and
            // the readers favour together, a denial in all but name.
            let deny_rank = pips_deny_rank(card.card.rank.value(), read.pips);
            let asks = card.needs_confirmation || deny_rank;
            if asks && read.denies.is_none() {
                read.denies = match (read.suit_sum, card.class_read) {
                    (Some(sum), Some(class)) => {
                        pips_weighed_suit(&class, card.card.rank, &sum, family)
                            .filter(|s| *s != card.card.suit)
                    }
                    _ => None,
                };
            }
            if let Some(suit) = read.denies {
                card.needs_confirmation = true;
                card.pips_say = Some(suit);
            }
            if deny_rank {
                card.needs_confirmation = true;
                card.pips_counted = Some(read.pips);
            }
            let proposed = pips_correction(card.card, &read).or_else(|| {
                // Neither suit nor count denied: a read asking God anyway is
                // offered the rank its count and its readers favour together.
                let counts = self.classifier.pip_counts()?;
                if !asks || read.pips > 10 {
                    return None;
                }
                let rank = pips_weighed_rank(
                    card.class_read.as_ref()?,
                    card.card.suit,
                    read.pips,
                    counts,
                )?;
                (rank != card.card.rank).then(|| Card::new(rank, card.card.suit))
            });
            if let Some(proposed) = proposed {
                if proposed.rank != card.card.rank {
                    card.pips_counted = Some(read.pips);
                }
                card.index_read = Some(card.card);
                card.card = proposed;
                card.confidence = card.class_read.map_or(0.0, |r| r.probability_of(proposed));
                card.needs_confirmation = true;
            }
        }
        Ok(())
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
                .all(|&i| best[i].as_ref().map_or(true, |(_, r)| r.card.is_none()));
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
    fn read_spreads(
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

    /// Reads the cards of fans ([`super::fan`]): each covered card from its one
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
    fn read_fans(
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

    /// The last look: each card read below the threshold is read again from seven
    /// cuts of its outline ([`second_look_cuts`]: as located, shrunk and grown
    /// about its centre, moved a little along its sides) and the seven looks'
    /// log-probabilities averaged
    /// ([`Classifier::read_looks`]), in one batch for all
    /// such cards (usually none; the first look's log-probabilities are kept from
    /// its read, so 12 crops per card). The localiser's outline is a few pixels off at
    /// worst, and a crop that cuts an index's edge or catches the card's border is
    /// what most unsure reads are; the cuts disagree on those pixels and agree on
    /// the index. The new read replaces the first (its outline stays) unless it
    /// says "not a card", and is held to the same threshold. On validation-design
    /// scenes it reads a third of the misread cards right and leaves fewer right
    /// reads asking God, with no confident misread added (models/README.md,
    /// "Second look").
    fn second_look(
        &self,
        frame: &RgbImage,
        best: &mut [Option<(Quad, ClassRead)>],
        threshold: f32,
    ) -> Result<(), ModelError> {
        let unsure: Vec<usize> = (0..best.len())
            .filter(|&i| {
                best[i].as_ref().is_some_and(|(_, r)| {
                    r.card.is_some() && r.confidence < threshold && !r.one_corner
                })
            })
            .collect();
        if unsure.is_empty() {
            return Ok(());
        }
        // The first look is the read already held; only the other cuts are read.
        let looks = SECOND_LOOK_SCALE.len() + SECOND_LOOK_SHIFT.len();
        let mut crops = vec![0.0f32; unsure.len() * looks * 2 * CROP_LEN];
        let mut cut = Vec::with_capacity(unsure.len());
        let mut firsts = Vec::with_capacity(unsure.len());
        let mut filled = 0;
        for &i in &unsure {
            let Some((quad, first)) = &best[i] else {
                continue;
            };
            let cuts = &second_look_cuts(quad)[1..];
            let slot = &mut crops[filled * looks * 2 * CROP_LEN..][..looks * 2 * CROP_LEN];
            let ok = cuts
                .iter()
                .zip(slot.chunks_exact_mut(2 * CROP_LEN))
                .all(|(q, out)| index_crops(frame, q, out));
            if ok {
                cut.push(i);
                firsts.push(*first);
                filled += 1;
            }
        }
        crops.truncate(filled * looks * 2 * CROP_LEN);
        let reads = self.classifier.read_looks(&crops, filled, looks, &firsts)?;
        for (i, read) in cut.into_iter().zip(reads) {
            // An outline the first look read as a card stays a card: a second look
            // saying "not a card" would make it vanish from the read, where asking
            // God about the first read keeps it in front of the table.
            if let (Some((_, held)), true) = (&mut best[i], read.card.is_some()) {
                *held = read;
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

/// The second look's cuts of an unsure card's outline besides the outline itself:
/// shrunk and grown by these factors about its centre (4 % of the rectified card's
/// 224 rows is 9 pixels at the crops' scale)...
pub const SECOND_LOOK_SCALE: [f64; 2] = [0.96, 1.04];
/// ...and moved along its own sides by these fractions of the top side and of the
/// left side, diagonally each way. The seven cuts were chosen on validation-design
/// scenes over the scaled cuts alone, the moved ones alone, and five cuts
/// (models/README.md, "Second look").
pub const SECOND_LOOK_SHIFT: [(f64, f64); 4] =
    [(-0.02, -0.02), (0.02, 0.02), (0.02, -0.02), (-0.02, 0.02)];

/// The cuts of a partly covered card of an overlapping row, moved along the row by
/// these fractions of the card's width (about two pixels of the row image each
/// way): the edge found between two cards may be its shadow's, a little off.
pub const SPREAD_SHIFTS: [f64; 3] = [-0.025, 0.0, 0.025];

/// The unmoved one of the [`SPREAD_SHIFTS`] cuts: the one a fan's covered cards are
/// screened on.
const MIDDLE_CUT: usize = SPREAD_SHIFTS.len() / 2;

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
fn cut_middle(frame: &RgbImage, quad: &Quad, out: &mut Vec<f32>) -> bool {
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
fn cut_covered_at(
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

/// The share of a fan's covered card taken to show when its index corner is cut:
/// the crop is a quarter of a card wide, so nothing of it is painted over. The next
/// corner along a fan's arc may be another card's top-right corner poking out, not
/// the edge of the card above, so the chord to it does not say how much shows.
const FAN_VISIBLE: f64 = 1.0;

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
fn fan_cut(quad: &Quad) -> Quad {
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

/// Drops the less confident of two reads of one card: a covered card can be found
/// both in its row and as a strip of its own (or with its neighbour's strip), and
/// its reads then share the long side that shows. Two reads of the same card need
/// only share that side's place, not its length: a row's outline and a strip's
/// can differ in height by a few pixels. Other pairs are one card only when
/// they read the same card on the same outline: a card on top of a row is read
/// whole both from its own outline and from the row's, while distinct whole
/// cards never lie so close.
fn drop_duplicates(cards: &mut Vec<CardRead>) {
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
/// [`super::spread::MIN_STRIP`] of a card's width, apart).
const SAME_CARD: f64 = 0.06;

/// A covered card read from its strip: the whole card (its index corner first),
/// the share of it that shows, and the read.
type StripRead = (Quad, f64, ClassRead);

/// One reading of an outline as an overlapping row ([`Spread`]), read.
#[derive(Debug, Clone)]
struct Reading {
    /// Which spread of the batch.
    spread: usize,
    /// Its parts' reads, left to right, each with whether the part is covered
    /// (read from one corner).
    reads: Vec<(Option<ClassRead>, bool)>,
    /// Parts read as cards at their own threshold.
    sure: usize,
    /// Parts kept as cards ([`plausible`]).
    kept: usize,
    /// Summed confidence of the parts read as cards.
    total: f32,
    /// Whether the reading is taken: a row's when at least two of its parts and
    /// at least half are kept and one is sure; a card outline's (it may be one
    /// card whose pips made an edge) when one part is sure and either every part
    /// is sure, a covered one at the model's one-corner threshold, or at least
    /// three and half of its parts are kept.
    taken: bool,
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
fn beats(new: &Reading, held: Option<&Reading>) -> bool {
    held.map_or(true, |held| {
        (new.kept, new.sure)
            .cmp(&(held.kept, held.sure))
            .then(new.total.total_cmp(&held.total))
            .is_gt()
    })
}

/// Per fan, whether it is worth reading in every cut: at least
/// [`FAN_MIN_COVERED`] of its covered cards (`fan_of` gives each card's fan, in
/// the order of `screened`) read from one cut as any card.
fn fans_worth_reading(
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

/// A part of an overlapping row is kept as a card when read as one, a covered
/// part only above even odds: a covered part read as a card at even odds or less is
/// more likely an edge found inside a card than a card.
fn plausible(read: &ClassRead, on_top: bool) -> bool {
    read.card.is_some() && (on_top || read.confidence > 0.5)
}

/// The localiser's row outlines, and those of its short rows
/// ([`super::localise::Located::short_rows`]) that are not separate cards merged
/// through the gaps between them: a short row holding two or more outlines read
/// as cards (on their own, or cut from touching cards), however surely, is such
/// cards. In a spread only the card on top reads as a card on its own outline;
/// the masks' groups of strips read as "not a card" (their two index corners
/// belong to different cards).
fn spread_rows(
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

/// The proportions (short sides over long sides, [`Quad::aspect`]) of an outline
/// that can only be one card: a bridge card is 0.64 and a poker card 0.71 seen from
/// above, a little more or less at a slant. Two cards overlapping by all but a
/// tenth of a card's width make 0.78 and more, three barely overlapping about 0.5.
/// Only such an outline may be read from one sure corner
/// (`Recognizer::read_quads_sure_corner_first`).
pub const ONE_CARD_ASPECT: std::ops::RangeInclusive<f64> = 0.56..=0.78;

/// A lone uncovered strip is taken as a card only when read this surely: a thin
/// pale outline may be anything (a covered card's strip still asks God below the
/// one-corner threshold).
pub const STRIP_MIN_CONFIDENCE: f32 = 0.99;

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

/// Every cut of the second look, the outline itself first.
pub fn second_look_cuts(q: &Quad) -> Vec<Quad> {
    std::iter::once(*q)
        .chain(SECOND_LOOK_SCALE.map(|s| scaled(q, s)))
        .chain(SECOND_LOOK_SHIFT.map(|(du, dv)| shifted(q, du, dv)))
        .collect()
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
mod tests {
    use super::super::classify::CLASSES;
    use super::*;

    #[test]
    fn only_a_single_cards_proportions_may_be_read_from_one_corner() {
        // Poker (63 × 88 mm) and bridge (57 × 89 mm) cards seen from above.
        assert!(ONE_CARD_ASPECT.contains(&(63.0 / 88.0)));
        assert!(ONE_CARD_ASPECT.contains(&(57.0 / 89.0)));
        // Two poker cards overlapping by all but a tenth of a card's width, and
        // three barely overlapping (a short row the localiser may not mark).
        assert!(!ONE_CARD_ASPECT.contains(&(63.0 * 1.1 / 88.0)));
        assert!(!ONE_CARD_ASPECT.contains(&(88.0 / (63.0 * 2.9))));
    }

    /// A read of `card` (`None`: not a card) at `confidence`, with no scores.
    fn class_read(card: Option<&str>, confidence: f32) -> ClassRead {
        ClassRead {
            card: card.map(|c| c.parse().unwrap()),
            confidence,
            score: [0.0; CLASSES],
            whole: [0.0; CLASSES],
            one_corner: false,
            blank_corner: false,
        }
    }

    /// A read whose classes have these probabilities (the rest share what is left).
    fn read_of(probs: &[(&str, f32)]) -> ClassRead {
        let rest = (1.0 - probs.iter().map(|p| p.1).sum::<f32>()) / (CLASSES - probs.len()) as f32;
        let mut score = [rest.ln(); CLASSES];
        for (card, p) in probs {
            score[card.parse::<Card>().unwrap().index()] = p.ln();
        }
        let best = probs.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        ClassRead {
            card: Some(best.0.parse().unwrap()),
            confidence: best.1,
            score,
            whole: [0.0; CLASSES],
            one_corner: false,
            blank_corner: false,
        }
    }

    #[test]
    fn pips_weigh_in_on_the_suit_of_an_unsure_read_within_its_ink_colour() {
        let read = read_of(&[("9D", 0.69), ("9C", 0.3)]);
        let nine = Rank::new(9).unwrap();
        // Suits S H D C: nine pips that lean hard to clubs outweigh 0.69 to 0.3.
        let clubs = [0.05f32, 0.01, 0.04, 0.9].map(f32::ln);
        assert_eq!(
            pips_weighed_suit(&read, nine, &clubs, None),
            Some(Suit::Clubs)
        );
        // Red ink rules clubs out, whatever the pips say.
        let red = Some(InkFamily::Red);
        assert_eq!(
            pips_weighed_suit(&read, nine, &clubs, red),
            Some(Suit::Diamonds)
        );
        // Pips that barely lean leave the readers' suit.
        let lean = [0.2f32, 0.2, 0.25, 0.35].map(f32::ln);
        assert_eq!(
            pips_weighed_suit(&read, nine, &lean, None),
            Some(Suit::Diamonds)
        );
        // A suit the readers all but rule out is not offered on the pips' word
        // (short of their denial, which is the check's, not this weighing's).
        let spades = [0.97f32, 0.01, 0.01, 0.01].map(f32::ln);
        assert_eq!(
            pips_weighed_suit(&read, nine, &spades, None),
            Some(Suit::Diamonds)
        );
    }

    #[test]
    fn a_pip_count_weighs_in_on_the_rank_of_an_unsure_read() {
        let counts: CountHistogram = serde_json::from_str(
            r#"{"4": [0, 0, 5, 20, 75], "6": [0, 0, 0, 0, 0, 10, 90],
                "10": [1, 0, 0, 0, 0, 0, 1, 2, 10, 10, 76], "K": [80, 10, 10]}"#,
        )
        .unwrap();
        let spades = Suit::Spades;
        // A six shows four pips almost never, a four mostly: 0.7 to 0.3 is outweighed.
        let read = read_of(&[("6S", 0.7), ("4S", 0.29)]);
        assert_eq!(pips_weighed_rank(&read, spades, 4, &counts), Rank::new(4));
        // Six pips rule the four out (blur never adds pips), whatever the index says.
        let read = read_of(&[("4S", 0.9), ("6S", 0.09)]);
        assert_eq!(pips_weighed_rank(&read, spades, 6, &counts), Rank::new(6));
        // No pips on a ten: a king, which the index gives some weight to.
        let read = read_of(&[("10S", 0.8), ("KS", 0.19)]);
        assert_eq!(
            pips_weighed_rank(&read, spades, 0, &counts),
            Some(Rank::KING)
        );
        // A count that fits the read leaves it.
        let read = read_of(&[("10S", 0.8), ("KS", 0.19)]);
        assert_eq!(pips_weighed_rank(&read, spades, 10, &counts), Rank::new(10));
    }

    #[test]
    fn pips_deny_a_rank_they_outnumber_and_a_high_rank_they_leave_bare() {
        // More pips than the rank: a seven read as a three.
        assert!(pips_deny_rank(3, 7));
        assert!(!pips_deny_rank(3, 3));
        // Blur merges pips: fewer than the rank is no denial, down to three on a ten.
        assert!(!pips_deny_rank(10, 3));
        assert!(!pips_deny_rank(6, 3));
        // Next to none on a six to ten: a court card's art, read as a ten.
        assert!(pips_deny_rank(10, 0));
        assert!(pips_deny_rank(6, 2));
        // Low ranks show few pips anyway.
        assert!(!pips_deny_rank(5, 2));
        assert!(!pips_deny_rank(2, 0));
    }

    /// What the pips say: `denies`, and the pips read as each suit (S, H, D, C).
    fn pips(denies: Option<Suit>, by_suit: [usize; 4]) -> PipRead {
        PipRead {
            suit_sum: None,
            denies,
            pips: by_suit.iter().sum(),
            by_suit,
        }
    }

    #[test]
    fn pips_propose_their_suit_and_their_count_in_place_of_the_index_read() {
        let card = |c: &str| c.parse::<Card>().unwrap();
        // Three clubs deny a spade: the three of clubs.
        let clubs = pips(Some(Suit::Clubs), [0, 0, 0, 3]);
        assert_eq!(pips_correction(card("3S"), &clubs), Some(card("3C")));
        // Seven diamonds, one of them misread as a heart, on a read of 3D: 7D.
        let seven = pips(None, [0, 1, 6, 0]);
        assert_eq!(pips_correction(card("3D"), &seven), Some(card("7D")));
        // Two clubs and two hearts: a neighbour's pips in a loose outline; the
        // count says nothing.
        let mixed = pips(None, [0, 2, 0, 2]);
        assert_eq!(pips_correction(card("2C"), &mixed), None);
        // Both at once: seven clubs on a read of 3S.
        let both = pips(Some(Suit::Clubs), [0, 0, 0, 7]);
        assert_eq!(pips_correction(card("3S"), &both), Some(card("7C")));
        // Fewer pips than the rank (merged by blur), or as many: the read stands.
        assert_eq!(pips_correction(card("9H"), &pips(None, [0, 6, 0, 0])), None);
        assert_eq!(pips_correction(card("4H"), &pips(None, [0, 4, 0, 0])), None);
        // No card shows eleven pips: the suit may change, the rank stays.
        let eleven = pips(Some(Suit::Hearts), [0, 11, 0, 0]);
        assert_eq!(pips_correction(card("9D"), &eleven), Some(card("9H")));
        // Next to no pips on a ten: a court card, but the pips cannot say which.
        assert_eq!(
            pips_correction(card("10H"), &pips(None, [0, 0, 0, 0])),
            None
        );
    }

    #[test]
    fn only_fans_with_two_covered_cards_read_as_cards_are_read_in_every_cut() {
        let as_read = |card: Option<&str>| class_read(card, 0.6);
        // Fan 0: two cards and a blank; fan 1: one card; fan 2: no covered card.
        let fan_of = [0, 1, 0, 0, 1];
        let screened = [
            as_read(Some("QH")),
            as_read(None),
            as_read(None),
            as_read(Some("3C")),
            as_read(Some("9S")),
        ];
        assert_eq!(
            fans_worth_reading(3, fan_of.into_iter(), &screened),
            [true, false, false]
        );
    }

    fn quad(pts: [(f64, f64); 4]) -> Quad {
        Quad(pts.map(|(x, y)| Point::new(x, y)))
    }

    fn read(card: &str, confidence: f32, left: f64, width: f64, overlapped: bool) -> CardRead {
        CardRead {
            card: card.parse().unwrap(),
            confidence,
            corners: quad([
                (left, 0.0),
                (left + width, 0.0),
                (left + width, 140.0),
                (left, 140.0),
            ]),
            needs_confirmation: false,
            overlapped,
            pips_say: None,
            pips_counted: None,
            index_read: None,
            class_read: None,
        }
    }

    /// The reads `drop_duplicates` keeps, each as `card@left`.
    fn kept(mut cards: Vec<CardRead>) -> Vec<String> {
        drop_duplicates(&mut cards);
        cards
            .iter()
            .map(|c| format!("{}@{}", c.card, c.corners.0[0].x))
            .collect()
    }

    #[test]
    fn outlines_turned_away_that_look_like_a_card_are_unreadable() {
        let at = |left: f64, w: f64, h: f64| {
            quad([(left, 0.0), (left + w, 0.0), (left + w, h), (left, h)])
        };
        // Whole cards 100 × 140 read at x = 0 and 200, and two covered strips of
        // a row of bigger cards, whose size does not count (with them, the
        // median would be 300).
        let strip = |card: &str, left: f64| CardRead {
            corners: at(left, 40.0, 300.0),
            ..read(card, 1.0, left, 40.0, true)
        };
        let cards = vec![
            read("2S", 1.0, 0.0, 100.0, false),
            read("3S", 1.0, 200.0, 100.0, false),
            strip("4S", 2000.0),
            strip("5S", 2040.0),
        ];
        let rejected = [
            // A card of the same size in glare: unreadable.
            at(400.0, 100.0, 140.0),
            // Another outline of that same thing counts once.
            at(405.0, 95.0, 135.0),
            // An outline of a read card's size and shape on it (another cut of
            // that card), and one a little off holding its centre.
            at(2.0, 100.0, 140.0),
            at(-45.0, 100.0, 140.0),
            // A phone (too narrow), a coaster (square), a card-shaped thing
            // twice the cards' size or half of it.
            at(800.0, 70.0, 150.0),
            at(900.0, 120.0, 120.0),
            at(1100.0, 200.0, 280.0),
            at(1400.0, 50.0, 70.0),
            // Turned landscape, the same card.
            at(1600.0, 140.0, 100.0),
        ];
        let unreadable = unreadable_cards(&cards, &rejected);
        assert_eq!(unreadable, [rejected[0], rejected[8]]);
        // With no card read, any outline of a card's proportions is one.
        assert_eq!(
            unreadable_cards(&[], &rejected[4..8]),
            [rejected[6], rejected[7]]
        );
        assert!(unreadable_cards(&cards, &[]).is_empty());
    }

    #[test]
    fn frames_larger_than_the_read_size_are_shrunk_and_others_kept() {
        let photo = RgbImage::new(4032, 3024);
        let (read, back) = reading_frame(&photo);
        assert_eq!(read.dimensions(), (1920, 1440));
        assert!((back - 2.1).abs() < 1e-9, "{back}");
        let portrait = RgbImage::new(1000, 2500);
        let (read, back) = reading_frame(&portrait);
        assert_eq!(read.dimensions(), (768, 1920));
        assert!((back * 768.0 - 1000.0).abs() < 1e-9, "{back}");
        let webcam = RgbImage::new(1920, 1080);
        let (read, back) = reading_frame(&webcam);
        assert!(matches!(read, Cow::Borrowed(_)));
        assert_eq!(back, 1.0);
    }

    #[test]
    fn a_covered_card_found_twice_is_reported_once_and_its_neighbours_stay() {
        let cards = vec![
            read("8C", 0.9999, 100.0, 100.0, true),
            // The same strip with its neighbour's: the card's visible side agrees.
            read("8C", 0.99, 102.0, 90.0, true),
            // The next card of the row, a strip further on.
            read("8H", 1.0, 130.0, 100.0, true),
            // Whole cards side by side and touching are never merged.
            read("2S", 0.9, 400.0, 100.0, false),
            read("2S", 0.8, 500.0, 100.0, false),
        ];
        assert_eq!(kept(cards), ["8C@100", "8H@130", "2S@400", "2S@500"]);
    }

    #[test]
    fn one_card_read_from_outlines_of_different_heights_is_reported_once() {
        // The row's cut of a covered 2D and the strip's cut of it: the same left
        // side, but the strip's outline 12 pixels taller (more than the side
        // error allows), and a second 2D of the other deck a strip further on.
        let taller = |card: &str, left: f64| CardRead {
            corners: quad([
                (left, 0.0),
                (left + 100.0, 0.0),
                (left + 100.0, 152.0),
                (left, 152.0),
            ]),
            ..read(card, 0.99, left, 100.0, true)
        };
        let cards = vec![
            read("2D", 0.9999, 100.0, 100.0, true),
            taller("2D", 101.0),
            taller("2D", 125.0),
            // Another card at that place is not the same card.
            taller("9H", 100.0),
        ];
        assert_eq!(kept(cards), ["2D@100", "2D@125", "9H@100"]);
    }

    #[test]
    fn a_whole_card_read_from_its_outline_and_its_rows_is_reported_once() {
        let cards = vec![
            // The card on top of a row, read from the row's split...
            read("AD", 0.999, 300.0, 100.0, false),
            // ...and from its own outline, a few pixels off.
            read("AD", 0.9999, 303.0, 100.0, false),
            // The other deck's AD beside it, and another card at its place.
            read("AD", 0.99, 400.0, 100.0, false),
            read("9C", 0.98, 301.0, 100.0, false),
        ];
        assert_eq!(kept(cards), ["AD@303", "AD@400", "9C@301"]);
    }

    #[test]
    fn a_strip_narrower_than_a_card_stands_for_a_card_reaching_past_it() {
        // A strip 30 wide and 140 tall: a card 0.71 × 140 = 99.4 wide.
        let strip = quad([(10.0, 0.0), (40.0, 0.0), (40.0, 140.0), (10.0, 140.0)]);
        let (card, visible) = covered_card(&strip).unwrap();
        assert!((card.0[1].x - (10.0 + 99.4)).abs() < 1e-6, "{card:?}");
        assert_eq!(card.0[0], strip.0[0]);
        assert_eq!(card.0[3], strip.0[3]);
        assert!((visible - 30.0 / 99.4).abs() < 1e-9);
        // A whole card is no strip.
        let whole = quad([(0.0, 0.0), (100.0, 0.0), (100.0, 140.0), (0.0, 140.0)]);
        assert!(covered_card(&whole).is_none());
    }

    #[test]
    fn a_quarter_turn_swaps_the_long_sides_and_keeps_the_contract_order() {
        // A card seen with its long side foreshortened: 100 wide, 90 tall.
        let q = quad([(0.0, 0.0), (100.0, 0.0), (100.0, 90.0), (0.0, 90.0)]);
        let t = quarter_turn(&q);
        // Clockwise, first corner nearest the top-left of the two portrait orderings
        // of the turned card: (100, 0) → (100, 90) → (0, 90) → (0, 0) or its 180°
        // twin starting at (0, 90); x + y is 100 vs 90, so (0, 90) comes first.
        assert_eq!(
            t,
            quad([(0.0, 90.0), (0.0, 0.0), (100.0, 0.0), (100.0, 90.0)])
        );
        // Its "top" side (corner 0 to 1) is now one of the 90-long sides.
        assert!((t.0[0].dist(t.0[1]) - 90.0).abs() < 1e-9);
        // Turning twice gives the original outline back (as one of its orderings).
        assert!(quarter_turn(&t).corner_error(&q) < 1e-9);
    }

    #[test]
    fn a_row_of_touching_cards_is_cut_into_portrait_cards() {
        // Three 60 × 84 cards side by side: one 180 × 84 outline, located in portrait
        // order (its first side is a short one).
        let row = quad([(180.0, 0.0), (180.0, 84.0), (0.0, 84.0), (0.0, 0.0)]);
        assert_eq!(touching_cards(&row), Some(3));
        let parts = split_row(&row, 3).unwrap();
        assert_eq!(parts.len(), 3);
        let mut xs: Vec<f64> = parts.iter().map(|p| p.centre().x).collect();
        xs.sort_by(f64::total_cmp);
        for (x, want) in xs.iter().zip([30.0, 90.0, 150.0]) {
            assert!((x - want).abs() < 1e-6, "{xs:?}");
        }
        for p in &parts {
            // Each part is a portrait card: its first side is the 60-long one.
            assert!((p.0[0].dist(p.0[1]) - 60.0).abs() < 1e-6, "{p:?}");
            assert!((p.0[1].dist(p.0[2]) - 84.0).abs() < 1e-6, "{p:?}");
            assert!((p.aspect() - 60.0 / 84.0).abs() < 1e-9);
        }
        // Two touching cards look like one card turned; a single card lying in
        // the frame has the same proportions, so the model decides.
        let pair = quad([(120.0, 0.0), (120.0, 84.0), (0.0, 84.0), (0.0, 0.0)]);
        assert_eq!(touching_cards(&pair), Some(2));
        let four = quad([(240.0, 0.0), (240.0, 84.0), (0.0, 84.0), (0.0, 0.0)]);
        assert_eq!(touching_cards(&four), Some(4));
        // Near-square outlines and longer rows are not cut.
        let square = quad([(0.0, 0.0), (90.0, 0.0), (90.0, 100.0), (0.0, 100.0)]);
        assert_eq!(touching_cards(&square), None);
        let five = quad([(300.0, 0.0), (300.0, 84.0), (0.0, 84.0), (0.0, 0.0)]);
        assert_eq!(touching_cards(&five), None);
    }

    #[test]
    fn second_look_cuts_scale_about_the_centre_and_move_along_the_sides() {
        let q = quad([(10.0, 20.0), (110.0, 30.0), (100.0, 170.0), (0.0, 160.0)]);
        let s = scaled(&q, 1.04);
        let c = q.centre();
        assert!(s.centre().dist(c) < 1e-9);
        for (p, o) in s.0.iter().zip(q.0) {
            assert!((p.dist(c) - 1.04 * o.dist(c)).abs() < 1e-9);
        }
        assert!((scaled(&q, 0.96).area() - 0.96 * 0.96 * q.area()).abs() < 1e-6);
        // Moved by 10 % of the top side (100, 10) and 10 % of the left side
        // (-10, 140): every corner by (9, 15), and the cuts start with the outline.
        let m = shifted(&q, 0.1, 0.1);
        for (p, o) in m.0.iter().zip(q.0) {
            assert!((p.x - o.x - 9.0).abs() < 1e-9 && (p.y - o.y - 15.0).abs() < 1e-9);
        }
        let cuts = second_look_cuts(&q);
        assert_eq!(cuts.len(), 7);
        assert_eq!(cuts[0], q);
    }

    #[test]
    fn a_card_read_beats_not_a_card_and_confidence_decides_between_cards() {
        let card = |c: &str, p: f32| class_read(Some(c), p);
        let none = class_read(None, 0.99);
        assert!(better(&card("QH", 0.4), &none));
        assert!(!better(&none, &card("QH", 0.4)));
        assert!(better(&card("QH", 0.9), &card("KH", 0.6)));
        assert!(!better(&card("QH", 0.5), &card("KH", 0.6)));
    }

    #[test]
    fn a_short_row_holding_two_cards_is_those_cards_not_a_spread() {
        let read = class_read;
        let rect = |x0: f64, x1: f64| quad([(x0, 0.0), (x1, 0.0), (x1, 140.0), (x0, 140.0)]);
        let long_row = quad([(0.0, 0.0), (400.0, 0.0), (400.0, 60.0), (0.0, 60.0)]);
        // A short spread: a group of its strips (its two index corners those of
        // different cards) reads as no card, the card on top as one.
        let spread = rect(500.0, 800.0);
        // Two cards laid apart, merged through the gap between them: one read
        // unsure on its own outline, the other cut from touching cards.
        let merged = rect(900.0, 1200.0);
        let located = Located {
            cards: Vec::new(),
            rows: vec![long_row],
            short_rows: vec![spread, merged],
            fans: Vec::new(),
            enclosing: Vec::new(),
        };
        let best = vec![
            Some((rect(500.0, 600.0), read(None, 0.99))),
            Some((rect(700.0, 800.0), read(Some("3C"), 1.0))),
            Some((rect(900.0, 1000.0), read(Some("JS"), 0.94))),
            None,
        ];
        let parts = vec![(rect(1100.0, 1200.0), read(Some("9H"), 1.0))];
        assert_eq!(spread_rows(&located, &best, &parts), vec![long_row, spread]);
        // With one card in it, the merged outline may be a short spread.
        assert_eq!(
            spread_rows(&located, &best, &[]),
            vec![long_row, spread, merged]
        );
    }
}
