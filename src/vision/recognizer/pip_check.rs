//! The pip check: a number card's pips, or an ace's one pip, read from the
//! middle of the card, deny or correct the suit and rank its index was read as.

use super::{CardRead, Recognizer};
use crate::cards::{Card, Rank, Suit};
use crate::vision::classify::{ClassRead, CountHistogram, ModelError, PipRead, PIP_SUITS};
use crate::vision::pips::{pips_and_ink_family, InkFamily};
use crate::vision::rectify::rectify;
use image::RgbImage;

impl Recognizer {
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
    /// the rank their count weighs in for ([`pips_weighed_rank`]). Aces are
    /// checked by their one pip ([`Recognizer::check_ace`]); covered cards and
    /// court cards (no pips to speak of) are not checked. A table whose court
    /// cards carry other letters ([`Recognizer::confirm_courts`]) has every number
    /// card and ace checked, whatever its height: a German jack's B reads as an
    /// 8 as surely as a court letter reads as another, and its art shows none of
    /// an eight's pips.
    pub(super) fn check_pips(
        &self,
        frame: &RgbImage,
        cards: &mut [CardRead],
        confirm_courts: bool,
    ) -> Result<(), ModelError> {
        if !self.classifier.reads_pips() {
            return Ok(());
        }
        for card in cards.iter_mut() {
            let number = (2..=10).contains(&card.card.rank.value());
            let ace = card.card.rank.value() == 1 && self.classifier.reads_ace_pips();
            let small = card.corners.longest_side() < PIP_CHECK_BELOW;
            let checked = small || card.needs_confirmation || confirm_courts;
            if card.overlapped || !(number || ace) || !checked {
                continue;
            }
            let Some(rectified) = rectify(frame, &card.corners) else {
                continue;
            };
            let (patches, n, family) = pips_and_ink_family(&rectified);
            if ace {
                self.check_ace(card, &patches, n, family)?;
                continue;
            }
            let Some(read) = self.classifier.read_pips(&patches, n, card.card.suit)? else {
                continue;
            };
            // Pips the reader takes for a suit their ink's colour rules out (a
            // blurred red diamond's round smudges read as clubs) deny nothing.
            let mut read = PipRead {
                denies: read.denies.filter(|s| family.is_none_or(|f| f.allows(*s))),
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
                offer(card, proposed);
            }
        }
        Ok(())
    }
}

impl Recognizer {
    /// [`Recognizer::check_pips`] for a read ace: its one big pip denies its suit
    /// ([`Classifier::read_ace_pip`]), or, when the read asks God anyway, weighs
    /// in for the suit it is offered with ([`pips_weighed_suit`]). An ace's index
    /// shows a spade as a club as readily as a number card's does, but its pip
    /// is the largest suit sign on any card. Only a card showing exactly one
    /// pip-sized blob is checked.
    fn check_ace(
        &self,
        card: &mut CardRead,
        patches: &[f32],
        n: usize,
        family: Option<InkFamily>,
    ) -> Result<(), ModelError> {
        // An ace shows one pip; more blobs of a pip's size are an ornate ace's art
        // or, on an outline that strays over a spread hand, a neighbour's pips.
        if n != 1 {
            return Ok(());
        }
        let Some(read) = self.classifier.read_ace_pip(patches, n, card.card.suit)? else {
            return Ok(());
        };
        let denied = read.denies.filter(|s| family.is_none_or(|f| f.allows(*s)));
        let offered = denied.or_else(|| {
            if !card.needs_confirmation {
                return None;
            }
            let (sum, class) = (read.suit_sum?, card.class_read.as_ref()?);
            pips_weighed_suit(class, card.card.rank, &sum, family)
        });
        let Some(suit) = offered.filter(|s| *s != card.card.suit) else {
            return Ok(());
        };
        card.pips_say = Some(suit);
        offer(card, Card::new(card.card.rank, suit));
        Ok(())
    }
}

/// Puts the card the pips show in place of the readers' `card`, asking God: the
/// readers' read is kept in `index_read`, and `confidence` becomes what they give
/// the card offered, so that it always means the readers' probability of `card`.
fn offer(card: &mut CardRead, proposed: Card) {
    card.index_read = Some(card.card);
    card.card = proposed;
    card.confidence = card.class_read.map_or(0.0, |r| r.probability_of(proposed));
    card.needs_confirmation = true;
}

/// Cards at least this tall in the frame (their outline's longest side, in the
/// pixels read) are not checked against their pips unless their read asks God
/// anyway (then for the card to offer, [`pips_weighed_suit`]) or the table has
/// every card checked ([`Recognizer::confirm_courts`]): on 5 868 held-out reads of
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
        .filter(|(suit, _)| family.is_none_or(|f| f.allows(**suit)))
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
