//! Reads from logits: temperature-scaled softmax per crop, the two crops'
//! log-probabilities summed and renormalised, blank corners, and looks averaged.

use super::{CLASSES, NOT_A_CARD};
use crate::cards::Card;

/// What the combined crops say about one quad.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClassRead {
    /// The best class: a card, or `None` for "not a card".
    pub card: Option<Card>,
    /// Calibrated probability of that class.
    pub confidence: f32,
    /// The per-class log-probabilities the read was taken from (each look's two
    /// crops' log-probabilities summed, averaged over the looks; not
    /// renormalised, the card reader's term included): a later look at the same
    /// card averages with it instead of cutting and reading those crops again.
    pub score: [f32; CLASSES],
    /// The card reader's weighted log-probabilities, part of `score` (zeros without
    /// a card reader): each later look at the card adds them as the first did.
    pub whole: [f32; CLASSES],
    /// Read from one index crop alone: a sure top-left crop
    /// ([`Classifier::read_sure_corner_first`](super::Classifier::read_sure_corner_first)) or a legible crop beside a corner
    /// blank in a lamp's glare ([`blank_corner_read`]). Held to the one-corner
    /// threshold like a covered card's corner, and neither read with the card
    /// reader nor looked at again: the blank corner's crops would only repeat
    /// that they show no index.
    pub one_corner: bool,
    /// Read from one crop because the other showed no index
    /// ([`blank_corner_read`]), not because the one was sure on its own: such a
    /// card's corner had nothing to agree with, and a small one asks God.
    pub blank_corner: bool,
}

impl ClassRead {
    /// The probability this read gives `card` (its score renormalised): what the
    /// index and card readers make of a card the pips propose instead of theirs.
    pub fn probability_of(&self, card: Card) -> f32 {
        self.log_probabilities()
            .get(card.index())
            .map_or(0.0, |lp| lp.exp())
    }

    /// Every class's log-probability (the score renormalised), in the order of
    /// [`Card::index`]: for weighing several cards against other evidence at once.
    pub fn log_probabilities(&self) -> Vec<f32> {
        log_softmax(&self.score, 1.0)
    }
}

pub(super) fn log_softmax(z: &[f32], temperature: f32) -> Vec<f32> {
    let scaled: Vec<f32> = z.iter().map(|v| v / temperature).collect();
    let max = scaled.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = scaled.iter().map(|v| (v - max).exp()).sum();
    let log_sum = max + sum.ln();
    scaled.iter().map(|v| v - log_sum).collect()
}

/// One look at a card: the log-softmaxes of its two crops at the temperature,
/// summed (a log-probability per class, not yet renormalised).
pub(super) fn look_score(top_left: &[f32], bottom_right: &[f32], temperature: f32) -> Vec<f32> {
    let a = log_softmax(top_left, temperature);
    let b = log_softmax(bottom_right, temperature);
    a.iter().zip(&b).map(|(x, y)| x + y).collect()
}

/// A score renormalised: the best class and its probability. `whole` is the card
/// reader's part of the score, kept for later looks.
pub(super) fn read_score(score: &[f32], whole: [f32; CLASSES]) -> ClassRead {
    let mut kept = [0.0f32; CLASSES];
    for (k, v) in kept.iter_mut().zip(score) {
        *k = *v;
    }
    let probs = log_softmax(score, 1.0);
    let (best, lp) =
        probs
            .iter()
            .enumerate()
            .fold((NOT_A_CARD, f32::NEG_INFINITY), |acc, (i, &v)| {
                if v > acc.1 {
                    (i, v)
                } else {
                    acc
                }
            });
    ClassRead {
        card: if best == NOT_A_CARD {
            None
        } else {
            Card::from_index(best)
        },
        confidence: if lp.is_finite() { lp.exp() } else { 0.0 },
        score: kept,
        whole,
        one_corner: false,
        blank_corner: false,
    }
}

/// One index crop's read on its own: its log-softmax at the temperature,
/// renormalised (no card reader term).
pub(super) fn crop_read(logits: &[f32], temperature: f32) -> ClassRead {
    read_score(&log_softmax(logits, temperature), [0.0; CLASSES])
}

/// What an outline to be read may hold, which decides how far its two index
/// crops may be read apart ([`Classifier::read_sure_corner_first`](super::Classifier::read_sure_corner_first)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Outline {
    /// Perhaps several cards (a piece of a row, touching cards, an outline of
    /// other proportions than a card's): one card's index may show in each
    /// corner, and only the two crops together tell.
    #[default]
    MaybeSeveral,
    /// One card, too small for one corner to be believed alone (its index a few
    /// pixels tall can be surely wrong): both crops are read together, but a
    /// corner washed out in glare gives way to a legible one
    /// ([`blank_corner_read`]).
    SmallCard,
    /// One card, big enough: a top-left crop sure on its own is the read, and a
    /// blank corner gives way to a legible one.
    Card,
}

/// How sure one crop must be of a card for a card whose other crop reads as no
/// card to be read from it ([`blank_corner_read`]). At this level none of the 292
/// "not a card" targets of the validation crops is read as a card by one crop
/// while the other says no card (4 are at 0.5); models/README.md, "Path-traced
/// photos".
pub const BLANK_CORNER_LEVEL: f32 = 0.9;

/// A card one of whose index corners shows no index: in a lamp's glare, mirrored
/// by a glossy coating, a corner can be washed out to blank paper, and its crop
/// then says "not a card" as surely as the other says which card it is; summed,
/// the blank corner outvotes the legible one and a card in plain view vanishes
/// from the read. When one crop reads as no card and the other as a card at
/// least [`BLANK_CORNER_LEVEL`] surely, the card is read from that crop alone, as
/// a covered card is (`one_corner`); `None` otherwise. Something that is not a
/// card shows no index in either corner. Only outlines that can be one card
/// alone are read so ([`Outline`]): a piece of
/// an overlapping row can show an index in one corner and a neighbour's plain
/// paper in the other.
pub fn blank_corner_read(
    top_left: &[f32],
    bottom_right: &[f32],
    temperature: f32,
) -> Option<ClassRead> {
    let [a, b] = [top_left, bottom_right].map(|z| crop_read(z, temperature));
    let card = match (a.card, b.card) {
        (Some(_), None) => a,
        (None, Some(_)) => b,
        _ => return None,
    };
    (card.confidence >= BLANK_CORNER_LEVEL).then_some(ClassRead {
        one_corner: true,
        blank_corner: true,
        ..card
    })
}

/// Combines the logits of a card's two crops per the contract: log-softmax of each
/// at the temperature, summed, renormalised; the best class and its probability.
pub fn combine(top_left: &[f32], bottom_right: &[f32], temperature: f32) -> ClassRead {
    read_score(
        &look_score(top_left, bottom_right, temperature),
        [0.0; CLASSES],
    )
}

/// The read of several looks at one card (its crops cut from slightly different
/// outlines): the looks' scores ([`look_score`], plus `whole`, the card reader's
/// term, in each) averaged, then renormalised. One look without a card reader
/// gives exactly [`combine`].
pub(super) fn mean_read(
    scores: impl Iterator<Item = Vec<f32>>,
    whole: [f32; CLASSES],
) -> ClassRead {
    let mut mean = vec![0.0f32; CLASSES];
    let mut n = 0usize;
    for score in scores {
        for (m, v) in mean.iter_mut().zip(score) {
            *m += v;
        }
        n += 1;
    }
    let n = n.max(1) as f32;
    mean.iter_mut().for_each(|m| *m /= n);
    read_score(&mean, whole)
}
