//! Outlines of a card's shape on which no index could be read: a card in a
//! lamp's glare or a hard shadow, reported rather than dropped.

use super::{CardRead, ONE_CARD_ASPECT};
use crate::vision::geometry::Quad;
use crate::vision::warning::median_card_height;

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
        let sized = median.is_none_or(|m| UNREADABLE_SIZE.contains(&(quad.longest_side() / m)));
        let apart = !cards.iter().any(|c| c.corners.overlaps(quad));
        let new = !unreadable.iter().any(|u| u.overlaps(quad));
        if shaped && sized && apart && new {
            unreadable.push(*quad);
        }
    }
    unreadable
}
