//! What a card's pips say about its suit (and, counted, its rank): the pip
//! reader's logits summed into a verdict that can deny a read's suit.

use super::read::log_softmax;
use crate::cards::Suit;

/// The pip reader's classes: the four suits in this order, then "not a pip".
pub const PIP_CLASSES: usize = 5;
/// The pip reader's suits, in the order of its outputs.
pub const PIP_SUITS: [Suit; 4] = [Suit::Spades, Suit::Hearts, Suit::Diamonds, Suit::Clubs];

/// What the pip patches' logits (`n × 5`) say, before any read is judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct PipSuits {
    /// Patches read as a suit (their best class is not "not a pip").
    pub(super) pips: usize,
    /// Those patches by their best suit, in the order of [`PIP_SUITS`].
    pub(super) by_suit: [usize; 4],
    /// Of those, the ones read at least `min_confidence` sure: the evidence.
    pub(super) sure: usize,
    /// The sure pips' suit log-probabilities, each renormalised over the four
    /// suits, summed.
    pub(super) sum: [f32; 4],
}

pub(super) fn pip_suits(logits: &[f32], min_confidence: f32) -> PipSuits {
    let mut out = PipSuits {
        pips: 0,
        by_suit: [0; 4],
        sure: 0,
        sum: [0.0; 4],
    };
    for z in logits.chunks_exact(PIP_CLASSES) {
        let all = log_softmax(z, 1.0);
        let best = (0..PIP_CLASSES).max_by(|&a, &b| all[a].total_cmp(&all[b]));
        let Some(best) = best.filter(|&b| b != PIP_CLASSES - 1) else {
            continue;
        };
        out.pips += 1;
        out.by_suit[best] += 1;
        if all[best].exp() >= min_confidence {
            let suits = log_softmax(&z[..4], 1.0);
            out.sum.iter_mut().zip(&suits).for_each(|(s, v)| *s += v);
            out.sure += 1;
        }
    }
    out
}

/// A card's suit log-probabilities from its pips ([`pip_suits`]), normalised;
/// `None` with fewer than `min_pips` pips (or none).
pub(super) fn pip_suit_sum(pips: usize, sum: &[f32; 4], min_pips: usize) -> Option<[f32; 4]> {
    if pips < min_pips.max(1) {
        return None;
    }
    let norm = log_softmax(sum, 1.0);
    Some([norm[0], norm[1], norm[2], norm[3]])
}

/// What a card's pips say ([`Classifier::read_pips`](super::Classifier::read_pips)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipRead {
    /// The suit the pips favour, when they deny the read's.
    pub denies: Option<Suit>,
    /// How many of the patches the pip reader read as a suit: a number card
    /// shows as many pips as its rank, or fewer when blur merges some or one
    /// lies beside an index; more pips than the read's rank deny the rank.
    pub pips: usize,
    /// Those pips by the suit each reads as best, in the order of [`PIP_SUITS`]:
    /// a card's own pips are of one suit, where an outline that takes in part of
    /// a neighbour mixes two.
    pub by_suit: [usize; 4],
    /// The suits' log-probabilities from the pips sure enough to be evidence,
    /// normalised, in the order of [`PIP_SUITS`]; `None` with fewer of them than
    /// the settings' `min_pips`. A read that asks God weighs its suit with them
    /// (`recognizer::pips_weighed_suit`).
    pub suit_sum: Option<[f32; 4]>,
}

impl PipRead {
    /// How many of the pips read as `suit`.
    pub fn of_suit(&self, suit: Suit) -> usize {
        PIP_SUITS
            .iter()
            .position(|s| *s == suit)
            .map_or(0, |i| self.by_suit[i])
    }
}

/// What pips whose logits are `logits` (`n × 5`) say about a read of suit
/// `suit`: counted, summed from at least `min_pips` pips `min_confidence` sure,
/// and denying `suit` when it is left less likely than `deny_below`.
pub(super) fn pip_read(
    logits: &[f32],
    suit: Suit,
    min_confidence: f32,
    min_pips: usize,
    deny_below: f32,
) -> PipRead {
    let read = pip_suits(logits, min_confidence);
    let suit_sum = pip_suit_sum(read.sure, &read.sum, min_pips);
    PipRead {
        denies: suit_sum.and_then(|sum| denied_suit(&sum, suit, deny_below)),
        pips: read.pips,
        by_suit: read.by_suit,
        suit_sum,
    }
}

/// The suit a card's pips favour when they leave `suit` less likely than
/// `deny_below` (`sum`: their suit log-probabilities, normalised); `None` when
/// they do not deny it, or still favour `suit` itself (a threshold above a
/// quarter allows that: an ace's).
pub(super) fn denied_suit(sum: &[f32; 4], suit: Suit, deny_below: f32) -> Option<Suit> {
    let read = PIP_SUITS.iter().position(|s| *s == suit)?;
    if sum[read].exp() >= deny_below {
        return None;
    }
    let favoured = (0..4).max_by(|&a, &b| sum[a].total_cmp(&sum[b]))?;
    (favoured != read).then_some(PIP_SUITS[favoured])
}
