//! Hints God may announce, each established by checking that the verdict does not
//! change under a transformation of the cards:
//!
//! - swapping a card for a look-alike (same suit any rank, same parity, same colour,
//!   …), in every position at once or only the card played / the last card / the
//!   card before it;
//! - replacing the main line (everything, or everything but its last card);
//! - relabelling the suits throughout (all four suits alike, or red and black alike).
//!
//! For a rule that reads at most two cards back the checks run on the full verdict
//! table (every case, so the hint is proven); otherwise on layouts sampled from random
//! play, each with a few random cards, and the hint says how many layouts it held on.

use rand::Rng;

use super::simulate::Layout;
use super::table::{Table, CASES, NONE, SLOT};
use super::view::{
    relabel, RankView, SuitMap, SuitView, View, CYCLE_SUITS, FLIP_COLOURS_A, FLIP_COLOURS_B,
    SWAP_SPADES_HEARTS,
};
use super::{Hint, Method};
use crate::cards::Card;
use crate::rule::Judge;

/// Random cards judged on each sampled layout.
const CARDS_PER_LAYOUT: usize = 4;

/// A transformation under which a hint says the verdict is invariant.
#[derive(Debug, Clone, Copy)]
enum Query {
    /// Each card may be swapped for a look-alike under the view of its position:
    /// `main[-2]`, `main[-1]`, the card played, and every other card of the layout.
    LookAlike {
        prev: View,
        last: View,
        card: View,
        rest: View,
    },
    /// Everything but the last main-line card may be replaced.
    OnlyLastAndCard,
    /// The whole layout may be replaced.
    OnlyCard,
    /// The suits may be relabelled throughout.
    Relabel(SuitMap),
}

impl Query {
    fn everywhere(view: View) -> Query {
        Query::LookAlike {
            prev: view,
            last: view,
            card: view,
            rest: view,
        }
    }

    fn at(slot: Slot, view: View) -> Query {
        let mut query = Query::everywhere(View::EXACT);
        if let Query::LookAlike {
            prev, last, card, ..
        } = &mut query
        {
            *match slot {
                Slot::Card => card,
                Slot::Last => last,
                Slot::Prev => prev,
            } = view;
        }
        query
    }
}

/// The positions a per-position hint talks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Card,
    Last,
    Prev,
}

impl Slot {
    fn id(self) -> &'static str {
        match self {
            Slot::Card => "card",
            Slot::Last => "last",
            Slot::Prev => "prev",
        }
    }

    fn words(self) -> &'static str {
        match self {
            Slot::Card => "the card played",
            Slot::Last => "the last card",
            Slot::Prev => "the card before the last",
        }
    }
}

/// Something that can tell whether the verdict is invariant under a query.
trait Oracle {
    fn holds(&mut self, query: Query) -> bool;
    fn method(&self) -> Method;
    fn checked(&self) -> usize;
}

/// Proven hints from the full verdict table.
pub(super) fn exact(table: &Table) -> Vec<Hint> {
    let deck = Card::deck();
    let mut oracle = TableOracle {
        table,
        deck: &deck,
        seen: vec![0; SLOT * SLOT * 52],
    };
    findings(&mut oracle)
}

/// Hints that held on every sampled layout.
pub(super) fn sampled<J: Judge + ?Sized>(
    judge: &J,
    samples: &[Layout],
    rng: &mut impl Rng,
) -> Vec<Hint> {
    if samples.is_empty() {
        // Nothing to check on: no hint can be claimed.
        return Vec::new();
    }
    let deck = Card::deck();
    let cases = samples
        .iter()
        .enumerate()
        .flat_map(|(i, layout)| {
            (0..CARDS_PER_LAYOUT)
                .map(|_| deck[rng.gen_range(0..deck.len())])
                .map(move |card| (i, card, layout))
                .collect::<Vec<_>>()
        })
        .map(|(i, card, layout)| (i, card, judge.accepts(&layout.context(), card)))
        .collect();
    let mut oracle = SampleOracle {
        judge,
        samples,
        cases,
        rng,
    };
    findings(&mut oracle)
}

fn findings(oracle: &mut impl Oracle) -> Vec<Hint> {
    let mut hints = Vec::new();
    let (method, checked) = (oracle.method(), oracle.checked());
    let mut hint = |id: String, text: String| {
        hints.push(Hint {
            id,
            text,
            method,
            checked,
        })
    };

    let rank = coarsest_rank(oracle, Query::everywhere, RankView::Exact);
    let suit = coarsest_suit(oracle, Query::everywhere, SuitView::Exact);
    let only_card = oracle.holds(Query::OnlyCard);
    let only_last = only_card || oracle.holds(Query::OnlyLastAndCard);

    if only_card {
        hint(
            "card-only".into(),
            "the rule depends only on the card played (it ignores the main line)".into(),
        );
    } else if only_last {
        hint(
            "last-card-only".into(),
            "the rule depends only on the last card of the main line and the card played".into(),
        );
    }
    match rank {
        RankView::Ignored => hint("ignores-ranks".into(), "the rule ignores ranks".into()),
        RankView::Parity => hint(
            "rank-parity-only".into(),
            "of a rank, only its parity (odd or even) matters".into(),
        ),
        RankView::Exact => {}
    }
    match suit {
        SuitView::Ignored => hint(
            "ignores-suits".into(),
            "the rule ignores suits (and so colours)".into(),
        ),
        SuitView::Colour => hint(
            "suit-colour-only".into(),
            "of a suit, only its colour matters".into(),
        ),
        SuitView::Exact => {}
    }

    let slots: &[Slot] = match (only_card, only_last) {
        (true, _) => &[Slot::Card],
        (false, true) => &[Slot::Card, Slot::Last],
        (false, false) => &[Slot::Card, Slot::Last, Slot::Prev],
    };
    for &slot in slots {
        let at = |view| Query::at(slot, view);
        match coarsest_rank(oracle, at, rank) {
            RankView::Ignored if rank > RankView::Ignored => hint(
                format!("{}-ignores-rank", slot.id()),
                format!("the rule ignores the rank of {}", slot.words()),
            ),
            RankView::Parity if rank > RankView::Parity => hint(
                format!("{}-rank-parity-only", slot.id()),
                format!("of {}, only the parity of its rank matters", slot.words()),
            ),
            _ => {}
        }
        match coarsest_suit(oracle, at, suit) {
            SuitView::Ignored if suit > SuitView::Ignored => hint(
                format!("{}-ignores-suit", slot.id()),
                format!("the rule ignores the suit of {}", slot.words()),
            ),
            SuitView::Colour if suit > SuitView::Colour => hint(
                format!("{}-suit-colour-only", slot.id()),
                format!("of {}, only the colour of its suit matters", slot.words()),
            ),
            _ => {}
        }
    }

    if suit > SuitView::Ignored {
        let all_suits = [SWAP_SPADES_HEARTS, CYCLE_SUITS]
            .iter()
            .all(|&map| oracle.holds(Query::Relabel(map)));
        if all_suits {
            hint(
                "suits-symmetric".into(),
                "all four suits play the same role: relabelling the suits throughout never \
                 changes a verdict"
                    .into(),
            );
        } else if [FLIP_COLOURS_A, FLIP_COLOURS_B]
            .iter()
            .all(|&map| oracle.holds(Query::Relabel(map)))
        {
            hint(
                "colours-symmetric".into(),
                "red and black play the same role: swapping the colours throughout never \
                 changes a verdict"
                    .into(),
            );
        }
    }
    hints
}

/// The coarsest rank view (not finer than `bound`) under which the verdict holds.
fn coarsest_rank(
    oracle: &mut impl Oracle,
    query: impl Fn(View) -> Query,
    bound: RankView,
) -> RankView {
    [RankView::Ignored, RankView::Parity]
        .into_iter()
        .filter(|&v| v < bound)
        .find(|&v| oracle.holds(query(View::rank(v))))
        .unwrap_or(bound)
}

/// The coarsest suit view (not finer than `bound`) under which the verdict holds.
fn coarsest_suit(
    oracle: &mut impl Oracle,
    query: impl Fn(View) -> Query,
    bound: SuitView,
) -> SuitView {
    [SuitView::Ignored, SuitView::Colour]
        .into_iter()
        .filter(|&v| v < bound)
        .find(|&v| oracle.holds(query(View::suit(v))))
        .unwrap_or(bound)
}

/// Checks on the full table: the verdict must be constant on each class of cases that
/// the query says look alike.
struct TableOracle<'a> {
    table: &'a Table,
    deck: &'a [Card],
    /// Per class key: 0 unseen, 1 rejected, 2 accepted.
    seen: Vec<u8>,
}

impl TableOracle<'_> {
    /// Keys of a slot under a view; `NONE` stays apart from every card.
    fn keys(&self, view: View) -> [usize; SLOT] {
        let mut keys = [NONE; SLOT];
        for (key, &card) in keys.iter_mut().zip(self.deck) {
            *key = view.key(card);
        }
        keys
    }

    fn constant_on_classes(
        &mut self,
        prev: &[usize; SLOT],
        last: &[usize; SLOT],
        card: &[usize; SLOT],
    ) -> bool {
        self.seen.fill(0);
        for (p, l) in Table::lines() {
            for (c, &kc) in card.iter().enumerate().take(52) {
                let key = (prev[p] * SLOT + last[l]) * 52 + kc;
                let verdict = 1 + u8::from(self.table.accepts(p, l, c));
                match self.seen[key] {
                    0 => self.seen[key] = verdict,
                    v if v != verdict => return false,
                    _ => {}
                }
            }
        }
        true
    }
}

impl Oracle for TableOracle<'_> {
    fn holds(&mut self, query: Query) -> bool {
        let exact = self.keys(View::EXACT);
        match query {
            Query::LookAlike {
                prev, last, card, ..
            } => {
                let (prev, last, card) = (self.keys(prev), self.keys(last), self.keys(card));
                self.constant_on_classes(&prev, &last, &card)
            }
            Query::OnlyLastAndCard => self.constant_on_classes(&[0; SLOT], &exact, &exact),
            Query::OnlyCard => self.constant_on_classes(&[0; SLOT], &[0; SLOT], &exact),
            Query::Relabel(map) => {
                let mut image = [NONE; SLOT];
                for (i, &card) in self.deck.iter().enumerate() {
                    image[i] = relabel(&map, card).index();
                }
                Table::lines().all(|(p, l)| {
                    (0..52).all(|c| {
                        self.table.accepts(p, l, c)
                            == self.table.accepts(image[p], image[l], image[c])
                    })
                })
            }
        }
    }

    fn method(&self) -> Method {
        Method::Exact
    }

    fn checked(&self) -> usize {
        CASES
    }
}

/// Checks on sampled layouts: each case is judged again after the transformation.
struct SampleOracle<'a, J: ?Sized, R> {
    judge: &'a J,
    samples: &'a [Layout],
    /// (layout index, card, verdict)
    cases: Vec<(usize, Card, bool)>,
    rng: &'a mut R,
}

impl<J: Judge + ?Sized, R: Rng> SampleOracle<'_, J, R> {
    fn other_layout(&mut self) -> Layout {
        let i = self.rng.gen_range(0..self.samples.len());
        self.samples.get(i).cloned().unwrap_or_default()
    }

    fn transform(&mut self, query: Query, layout: &Layout, card: Card) -> (Layout, Card) {
        match query {
            Query::LookAlike {
                prev,
                last,
                card: view,
                rest,
            } => {
                let mut out = layout.clone();
                let n = out.main.len();
                for (i, c) in out.main.iter_mut().enumerate() {
                    let v = match n - i {
                        1 => last,
                        2 => prev,
                        _ => rest,
                    };
                    *c = v.lookalike(*c, self.rng);
                }
                for c in out.side.iter_mut().chain(out.wrong.iter_mut()) {
                    *c = rest.lookalike(*c, self.rng);
                }
                (out, view.lookalike(card, self.rng))
            }
            Query::OnlyLastAndCard => {
                let mut out = self.other_layout();
                match layout.main.last() {
                    None => out.main.clear(),
                    Some(&l) => match out.main.last_mut() {
                        Some(slot) => *slot = l,
                        None => out.main.push(l),
                    },
                }
                (out, card)
            }
            Query::OnlyCard => (self.other_layout(), card),
            Query::Relabel(map) => {
                let mut out = layout.clone();
                for c in out.cards_mut() {
                    *c = relabel(&map, *c);
                }
                (out, relabel(&map, card))
            }
        }
    }
}

impl<J: Judge + ?Sized, R: Rng> Oracle for SampleOracle<'_, J, R> {
    fn holds(&mut self, query: Query) -> bool {
        for k in 0..self.cases.len() {
            let (i, card, verdict) = self.cases[k];
            let Some(layout) = self.samples.get(i) else {
                continue;
            };
            let (layout, card) = self.transform(query, layout, card);
            if self.judge.accepts(&layout.context(), card) != verdict {
                return false;
            }
        }
        true
    }

    fn method(&self) -> Method {
        Method::Sampled
    }

    fn checked(&self) -> usize {
        self.samples.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::Context;
    use indicatif::ProgressBar;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn ids(hints: &[Hint]) -> Vec<&str> {
        hints.iter().map(|h| h.id.as_str()).collect()
    }

    fn exact_ids(judge: &dyn Judge) -> Vec<String> {
        let table = Table::build(judge, &ProgressBar::hidden());
        let hints = exact(&table);
        assert!(hints
            .iter()
            .all(|h| h.method == Method::Exact && h.checked == CASES));
        ids(&hints).into_iter().map(String::from).collect()
    }

    fn last(ctx: &Context<'_>) -> Option<Card> {
        ctx.main.last().copied()
    }

    #[test]
    fn odd_then_black_else_red() {
        // 000, rule 1: only colours of the card and parity of the last card matter.
        let rule = |ctx: &Context<'_>, card: Card| {
            last(ctx).is_none_or(|l| {
                if l.is_odd() {
                    card.is_black()
                } else {
                    card.is_red()
                }
            })
        };
        let ids = exact_ids(&rule);
        assert_eq!(
            ids,
            [
                "last-card-only",
                "rank-parity-only",
                "suit-colour-only",
                "card-ignores-rank",
                "last-ignores-suit"
            ]
        );
    }

    #[test]
    fn same_suit_or_rank_treats_suits_alike() {
        let rule = |ctx: &Context<'_>, card: Card| {
            last(ctx).is_none_or(|l| card.suit == l.suit || card.rank == l.rank)
        };
        assert_eq!(exact_ids(&rule), ["last-card-only", "suits-symmetric"]);
    }

    #[test]
    fn alternating_colours_treat_colours_alike() {
        let rule =
            |ctx: &Context<'_>, card: Card| last(ctx).is_none_or(|l| card.colour() != l.colour());
        assert_eq!(
            exact_ids(&rule),
            [
                "last-card-only",
                "ignores-ranks",
                "suit-colour-only",
                "colours-symmetric"
            ]
        );
    }

    #[test]
    fn suit_cycle_depends_on_exact_suits() {
        // 002: spades -> diamonds -> clubs -> hearts -> spades.
        let rule = |ctx: &Context<'_>, card: Card| {
            last(ctx).is_none_or(|l| {
                let next = match l.suit.letter() {
                    'S' => 'D',
                    'D' => 'C',
                    'C' => 'H',
                    _ => 'S',
                };
                card.suit.letter() == next
            })
        };
        assert_eq!(exact_ids(&rule), ["last-card-only", "ignores-ranks"]);
    }

    #[test]
    fn card_only_and_constant_rules() {
        let red = |_: &Context<'_>, card: Card| card.is_red();
        assert_eq!(
            exact_ids(&red),
            ["card-only", "ignores-ranks", "suit-colour-only"]
        );
        let never = |_: &Context<'_>, _: Card| false;
        assert_eq!(
            exact_ids(&never),
            ["card-only", "ignores-ranks", "ignores-suits"]
        );
    }

    #[test]
    fn two_odd_two_even_reads_only_the_card_before_the_last() {
        // 004: alternate two odd and two even.
        let rule = |ctx: &Context<'_>, card: Card| match ctx.main {
            [.., p, l] => {
                if p.is_odd() == l.is_odd() {
                    card.is_odd() != l.is_odd()
                } else {
                    card.is_odd() == l.is_odd()
                }
            }
            _ => true,
        };
        // The checker finds that this rule is "the parity must differ from the card
        // before the last": the last card's rank never matters.
        assert_eq!(
            exact_ids(&rule),
            ["rank-parity-only", "ignores-suits", "last-ignores-rank"]
        );
    }

    fn sampled_ids(judge: &dyn Judge, samples: usize) -> Vec<String> {
        let options = super::super::CheckOptions {
            seed: 11,
            trials: 200,
            walks: 0,
            samples,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let sim = super::super::simulate::play(judge, &options, &mut rng, &ProgressBar::hidden());
        let hints = sampled(judge, &sim.samples, &mut rng);
        assert!(hints
            .iter()
            .all(|h| h.method == Method::Sampled && h.checked == samples));
        ids(&hints).into_iter().map(String::from).collect()
    }

    #[test]
    fn sampling_agrees_with_enumeration_on_a_window_rule() {
        let rule = |ctx: &Context<'_>, card: Card| {
            last(ctx).is_none_or(|l| {
                if l.is_odd() {
                    card.is_black()
                } else {
                    card.is_red()
                }
            })
        };
        assert_eq!(sampled_ids(&rule, 1000), exact_ids(&rule));
    }

    #[test]
    fn sampling_sees_that_position_rules_read_the_whole_line() {
        // Red on even positions, black on odd ones: the length matters, no card does.
        let rule = |ctx: &Context<'_>, card: Card| {
            if ctx.main.len().is_multiple_of(2) {
                card.is_red()
            } else {
                card.is_black()
            }
        };
        assert_eq!(
            sampled_ids(&rule, 1000),
            [
                "ignores-ranks",
                "suit-colour-only",
                "last-ignores-suit",
                "prev-ignores-suit"
            ]
        );
    }

    #[test]
    fn sampled_hints_hold_only_on_reachable_lines() {
        // Under random play the red count stays 0 (only black cards follow an even
        // count), so on every reachable line the rule reads only the card played.
        let rule = |ctx: &Context<'_>, card: Card| {
            let reds = ctx.main.iter().filter(|c| c.is_red()).count();
            if reds % 2 == 0 {
                card.is_black()
            } else {
                card.is_red()
            }
        };
        assert_eq!(
            sampled_ids(&rule, 500),
            ["card-only", "ignores-ranks", "suit-colour-only"]
        );
    }
}
