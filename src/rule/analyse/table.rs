//! The full verdict table of a rule that reads at most `main[-2]`, `main[-1]` and the
//! card played (and no position, no sideline). Every layout of a round looks, to such
//! a rule, like one of three kinds: an empty main line, a line of one card, or a line
//! ending in two given cards. Judging all of them once (52 + 52² + 52³ cases) lets
//! the checker prove its answers instead of sampling.

use indicatif::ProgressBar;

use crate::cards::Card;
use crate::rule::{Context, Judge};

/// Slot value meaning "no card here" (the line is shorter).
pub(super) const NONE: usize = 52;
/// Values a slot takes: the 52 faces and [`NONE`].
pub(super) const SLOT: usize = 53;
/// Every case: empty line, one-card lines, and lines ending in two given cards.
pub(super) const CASES: usize = 52 + 52 * 52 + 52 * 52 * 52;

/// Verdicts indexed by `(main[-2], main[-1], card)`, faces by [`Card::index`].
pub(super) struct Table {
    verdicts: Vec<bool>,
    deck: Vec<Card>,
}

impl Table {
    /// Judges every case once.
    pub fn build<J: Judge + ?Sized>(judge: &J, progress: &ProgressBar) -> Table {
        let deck = Card::deck();
        let mut verdicts = vec![false; SLOT * SLOT * 52];
        let mut judge_line = |main: &[Card], prev: usize, last: usize| {
            let ctx = Context {
                main,
                side: &[],
                wrong: &[],
            };
            for (c, &card) in deck.iter().enumerate() {
                verdicts[index(prev, last, c)] = judge.accepts(&ctx, card);
            }
            progress.inc(52);
        };
        judge_line(&[], NONE, NONE);
        for (last, &l) in deck.iter().enumerate() {
            judge_line(&[l], NONE, last);
        }
        for (prev, &p) in deck.iter().enumerate() {
            for (last, &l) in deck.iter().enumerate() {
                judge_line(&[p, l], prev, last);
            }
        }
        Table { verdicts, deck }
    }

    /// The verdict for a case; `prev`/`last` may be [`NONE`].
    pub fn accepts(&self, prev: usize, last: usize, card: usize) -> bool {
        self.verdicts[index(prev, last, card)]
    }

    /// Every `(main[-2], main[-1])` pair a layout can end with: both absent, only the
    /// last present, or both present.
    pub fn lines() -> impl Iterator<Item = (usize, usize)> {
        std::iter::once((NONE, NONE))
            .chain((0..52).map(|last| (NONE, last)))
            .chain((0..52).flat_map(|prev| (0..52).map(move |last| (prev, last))))
    }

    /// The face with this index.
    pub fn card(&self, index: usize) -> Card {
        self.deck[index]
    }
}

fn index(prev: usize, last: usize, card: usize) -> usize {
    (prev * SLOT + last) * 52 + card
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_is_judged_with_the_right_line() {
        // A rule that accepts a card exactly when it is one above the last card's
        // index, and accepts anything on lines shorter than two.
        let judge = |ctx: &Context<'_>, card: Card| match ctx.main {
            [.., p, l] => card.index() == (l.index() + 1) % 52 && p.index() != l.index(),
            _ => true,
        };
        let table = Table::build(&judge, &ProgressBar::hidden());
        assert_eq!(Table::lines().count() * 52, CASES);
        for (prev, last) in Table::lines() {
            for c in 0..52 {
                let expected = if prev == NONE {
                    true
                } else {
                    c == (last + 1) % 52 && prev != last
                };
                assert_eq!(table.accepts(prev, last, c), expected, "{prev} {last} {c}");
            }
        }
    }
}
