//! Views of a card: how much of a card a rule may be looking at. A hint says the
//! verdict is the same for every two cards that look alike under a view (same rank,
//! same colour, …); the views are ordered from the coarsest to the finest.

use rand::Rng;

use crate::cards::{Card, Rank, Suit};

/// How much of the rank a view keeps, coarsest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum RankView {
    Ignored,
    Parity,
    Exact,
}

/// How much of the suit a view keeps, coarsest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum SuitView {
    Ignored,
    Colour,
    Exact,
}

/// What is kept of one card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct View {
    pub rank: RankView,
    pub suit: SuitView,
}

impl View {
    /// Keeps the whole card.
    pub const EXACT: View = View {
        rank: RankView::Exact,
        suit: SuitView::Exact,
    };

    /// Keeps everything but the rank, which is reduced to `rank`.
    pub fn rank(rank: RankView) -> View {
        View {
            rank,
            suit: SuitView::Exact,
        }
    }

    /// Keeps everything but the suit, which is reduced to `suit`.
    pub fn suit(suit: SuitView) -> View {
        View {
            rank: RankView::Exact,
            suit,
        }
    }

    /// A key below 52, equal for two cards exactly when they look alike.
    pub fn key(self, card: Card) -> usize {
        let rank = match self.rank {
            RankView::Ignored => 0,
            RankView::Parity => usize::from(card.value() % 2),
            RankView::Exact => usize::from(card.value() - 1),
        };
        let suit = match self.suit {
            SuitView::Ignored => 0,
            SuitView::Colour => card.colour() as usize,
            SuitView::Exact => card.suit.index(),
        };
        rank * 4 + suit
    }

    /// A random card that looks like `card` under this view.
    pub fn lookalike(self, card: Card, rng: &mut impl Rng) -> Card {
        let value = match self.rank {
            RankView::Ignored => rng.gen_range(1..=13),
            // Same parity: odd values 1..=13 (7 of them), even 2..=12 (6 of them).
            RankView::Parity if card.is_odd() => 2 * rng.gen_range(0..7) + 1,
            RankView::Parity => 2 * rng.gen_range(1..7),
            RankView::Exact => card.value(),
        };
        let suit = match self.suit {
            SuitView::Ignored => Suit::ALL[rng.gen_range(0..4)],
            SuitView::Colour => {
                let same: Vec<Suit> = Suit::ALL
                    .into_iter()
                    .filter(|s| s.colour() == card.colour())
                    .collect();
                same[rng.gen_range(0..same.len())]
            }
            SuitView::Exact => card.suit,
        };
        Rank::new(value).map_or(card, |rank| Card::new(rank, suit))
    }
}

/// A relabelling of the suits, applied to every card of a layout at once.
pub(super) type SuitMap = [Suit; 4];

/// Swaps spades and hearts: with the 4-cycle below it generates every relabelling.
pub(super) const SWAP_SPADES_HEARTS: SuitMap =
    [Suit::Hearts, Suit::Spades, Suit::Diamonds, Suit::Clubs];
/// Spades → hearts → diamonds → clubs → spades.
pub(super) const CYCLE_SUITS: SuitMap = [Suit::Hearts, Suit::Diamonds, Suit::Clubs, Suit::Spades];
/// Red ↔ black, pairing spades with hearts and clubs with diamonds.
pub(super) const FLIP_COLOURS_A: SuitMap =
    [Suit::Hearts, Suit::Spades, Suit::Clubs, Suit::Diamonds];
/// Red ↔ black, pairing spades with diamonds and clubs with hearts.
pub(super) const FLIP_COLOURS_B: SuitMap =
    [Suit::Diamonds, Suit::Clubs, Suit::Spades, Suit::Hearts];

/// The card with its suit relabelled.
pub(super) fn relabel(map: &SuitMap, card: Card) -> Card {
    Card::new(card.rank, map[card.suit.index()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn card(text: &str) -> Card {
        text.parse().expect("valid card")
    }

    #[test]
    fn keys_separate_exactly_what_the_view_keeps() {
        let colour = View::suit(SuitView::Colour);
        assert_eq!(colour.key(card("5H")), colour.key(card("5D")));
        assert_ne!(colour.key(card("5H")), colour.key(card("5S")));
        assert_ne!(colour.key(card("5H")), colour.key(card("6H")));
        let parity = View::rank(RankView::Parity);
        assert_eq!(parity.key(card("3C")), parity.key(card("KC")));
        assert_ne!(parity.key(card("3C")), parity.key(card("QC")));
        assert_ne!(parity.key(card("3C")), parity.key(card("3S")));
        let exact: std::collections::HashSet<usize> = Card::deck()
            .into_iter()
            .map(|c| View::EXACT.key(c))
            .collect();
        assert_eq!(exact.len(), 52);
        assert!(exact.iter().all(|&k| k < 52));
    }

    #[test]
    fn lookalikes_look_alike_and_vary() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let views = [
            View::rank(RankView::Ignored),
            View::rank(RankView::Parity),
            View::suit(SuitView::Ignored),
            View::suit(SuitView::Colour),
        ];
        for view in views {
            for c in Card::deck() {
                let mut seen = std::collections::HashSet::new();
                for _ in 0..60 {
                    let other = view.lookalike(c, &mut rng);
                    assert_eq!(view.key(other), view.key(c), "{view:?} {c} {other}");
                    seen.insert(other);
                }
                assert!(seen.len() > 1, "{view:?} never changed {c}");
            }
        }
    }

    #[test]
    fn colour_flips_swap_colours_and_relabellings_are_bijections() {
        for map in [FLIP_COLOURS_A, FLIP_COLOURS_B] {
            for s in Suit::ALL {
                assert_ne!(map[s.index()].colour(), s.colour());
            }
        }
        for map in [
            SWAP_SPADES_HEARTS,
            CYCLE_SUITS,
            FLIP_COLOURS_A,
            FLIP_COLOURS_B,
        ] {
            let image: std::collections::HashSet<Suit> = map.into_iter().collect();
            assert_eq!(image.len(), 4);
        }
    }
}
