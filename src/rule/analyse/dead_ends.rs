//! Dead ends: a main line the game can reach after which no card at all is
//! acceptable. Seed 001 forbids such rules ("chaque carte doit être supérieure à la
//! précédente" blocks after a king).
//!
//! For a rule that reads at most two cards back, the state of the game is the pair
//! `(main[-2], main[-1])`: a breadth-first search from every acceptable starter visits
//! every reachable state, so the answer is exact and the example is a shortest line.
//! Otherwise random walks play acceptable cards (at most two copies of each face, as
//! in the double deck) until nothing is acceptable or the deck has no acceptable card
//! left.

use std::collections::VecDeque;

use indicatif::ProgressBar;
use rand::seq::SliceRandom;
use rand::Rng;

use super::table::{Table, NONE, SLOT};
use super::{DeadEnds, Method};
use crate::cards::Card;
use crate::rule::{Context, Judge};

/// Examples kept in a report.
const EXAMPLES: usize = 3;

/// Exhaustive search over the reachable `(main[-2], main[-1])` states.
pub(super) fn exact(table: &Table) -> DeadEnds {
    let state = |prev: usize, last: usize| prev * 52 + last;
    // parent[s] = Some(previous state) for visited states; roots point to themselves.
    let mut parent: Vec<Option<usize>> = vec![None; SLOT * 52];
    let mut queue = VecDeque::new();
    for c in (0..52).filter(|&c| table.accepts(NONE, NONE, c)) {
        let s = state(NONE, c);
        parent[s] = Some(s);
        queue.push_back((NONE, c));
    }
    if queue.is_empty() {
        return DeadEnds {
            method: Method::Exact,
            searched: 0,
            found: 1,
            examples: vec![Vec::new()],
            deck_runs_out: Vec::new(),
        };
    }
    let mut searched = 0;
    let mut dead = Vec::new();
    while let Some((prev, last)) = queue.pop_front() {
        searched += 1;
        let from = state(prev, last);
        let mut any = false;
        for c in (0..52).filter(|&c| table.accepts(prev, last, c)) {
            any = true;
            let s = state(last, c);
            if parent[s].is_none() {
                parent[s] = Some(from);
                queue.push_back((last, c));
            }
        }
        if !any {
            dead.push(from);
        }
    }
    let line_to = |mut s: usize| {
        let mut line = Vec::new();
        loop {
            line.push(table.card(s % 52));
            match parent[s] {
                Some(p) if p != s => s = p,
                _ => break,
            }
        }
        line.reverse();
        line
    };
    DeadEnds {
        method: Method::Exact,
        searched,
        found: dead.len(),
        examples: dead.iter().take(EXAMPLES).map(|&s| line_to(s)).collect(),
        deck_runs_out: Vec::new(),
    }
}

/// Random walks through acceptable cards; at most `walks` of them. Besides dead
/// ends they find short lines after which the double deck has no acceptable card
/// left (both copies of every acceptable face already on the main line), which the
/// exact search, blind to copies, cannot see.
pub(super) fn sampled<J: Judge + ?Sized>(
    judge: &J,
    walks: usize,
    rng: &mut impl Rng,
    progress: &ProgressBar,
) -> DeadEnds {
    let deck = Card::deck();
    let mut examples: Vec<Vec<Card>> = Vec::new();
    let mut runs_out: Vec<Vec<Card>> = Vec::new();
    let mut found = 0;
    for _ in 0..walks {
        match walk(judge, &deck, rng) {
            (WalkEnd::DeadEnd, line) => {
                found += 1;
                examples.push(line);
            }
            (WalkEnd::DeckRunsOut, line) if line.len() < SHORT_LINE => runs_out.push(line),
            (WalkEnd::DeckRunsOut, _) => {}
        }
        progress.inc(1);
    }
    DeadEnds {
        method: Method::Sampled,
        searched: walks,
        found,
        examples: shortest(examples),
        deck_runs_out: shortest(runs_out),
    }
}

/// A main line shorter than this that uses up every acceptable card is reported: a
/// quarter of the double deck, far less than a round lays.
pub(super) const SHORT_LINE: usize = 26;

/// Up to [`EXAMPLES`] distinct lines, shortest first.
fn shortest(mut lines: Vec<Vec<Card>>) -> Vec<Vec<Card>> {
    lines.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    lines.dedup();
    lines.truncate(EXAMPLES);
    lines
}

/// Why a walk stopped.
enum WalkEnd {
    /// No face at all is acceptable.
    DeadEnd,
    /// Some face is acceptable, but both of its copies are on the main line.
    DeckRunsOut,
}

/// One walk: why it stopped and the main line it stopped on.
///
/// Each step tries the faces in a fresh random order and plays the first acceptable
/// one with a copy left: that is a uniform choice among the playable faces, and it
/// costs a few verdicts instead of 52. Only when no face is playable are the
/// exhausted faces judged, to tell a dead end from an empty deck.
fn walk<J: Judge + ?Sized>(judge: &J, deck: &[Card], rng: &mut impl Rng) -> (WalkEnd, Vec<Card>) {
    let mut copies = [2u8; 52];
    let mut main: Vec<Card> = Vec::new();
    let mut order: Vec<usize> = (0..deck.len()).collect();
    loop {
        let ctx = Context {
            main: &main,
            side: &[],
            wrong: &[],
        };
        order.shuffle(rng);
        let playable = order
            .iter()
            .copied()
            .find(|&i| copies[i] > 0 && judge.accepts(&ctx, deck[i]));
        let Some(i) = playable else {
            let exhausted_acceptable = order
                .iter()
                .any(|&i| copies[i] == 0 && judge.accepts(&ctx, deck[i]));
            return if exhausted_acceptable {
                (WalkEnd::DeckRunsOut, main)
            } else {
                (WalkEnd::DeadEnd, main)
            };
        };
        copies[i] -= 1;
        main.push(deck[i]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn higher(ctx: &Context<'_>, card: Card) -> bool {
        ctx.main.last().is_none_or(|l| card.value() > l.value())
    }

    fn same_suit_or_rank(ctx: &Context<'_>, card: Card) -> bool {
        ctx.main
            .last()
            .is_none_or(|l| card.suit == l.suit || card.rank == l.rank)
    }

    fn table(judge: &dyn Judge) -> Table {
        Table::build(judge, &ProgressBar::hidden())
    }

    #[test]
    fn higher_than_last_blocks_after_a_king() {
        let report = exact(&table(&higher));
        assert!(report.found > 0);
        assert_eq!(report.examples[0], vec!["KS".parse::<Card>().unwrap()]);
        assert!(report
            .examples
            .iter()
            .all(|line| line.last().is_some_and(|c| c.value() == 13)));
    }

    #[test]
    fn example_lines_are_legal_and_blocked() {
        // Needs two cards: after two equal colours, only a higher card is right.
        let judge = |ctx: &Context<'_>, card: Card| match ctx.main {
            [.., p, l] if p.colour() == l.colour() => card.value() > l.value(),
            _ => true,
        };
        let report = exact(&table(&judge));
        assert!(report.found > 0);
        for line in &report.examples {
            for i in 0..line.len() {
                let ctx = Context {
                    main: &line[..i],
                    ..Context::default()
                };
                assert!(judge(&ctx, line[i]), "{line:?} at {i}");
            }
            let ctx = Context {
                main: line,
                ..Context::default()
            };
            assert!(Card::deck().into_iter().all(|c| !judge(&ctx, c)));
        }
        assert_eq!(report.examples[0].len(), 2);
    }

    #[test]
    fn same_suit_or_rank_never_blocks() {
        let report = exact(&table(&same_suit_or_rank));
        assert_eq!(report.found, 0);
        assert!(report.examples.is_empty());
        // Every pair of cards sharing a suit or a rank is reachable (except a
        // card after itself, which needs two copies and is reachable too).
        assert!(report.searched > 52 * 16);
    }

    #[test]
    fn nothing_acceptable_is_a_dead_end_at_the_start() {
        let never = |_: &Context<'_>, _: Card| false;
        let report = exact(&table(&never));
        assert_eq!(report.examples, vec![Vec::<Card>::new()]);
    }

    #[test]
    fn examples_are_distinct_and_shortest_first() {
        let card = |s: &str| s.parse::<Card>().unwrap();
        let lines = vec![
            vec![card("4H"), card("4H")],
            vec![card("KS")],
            vec![card("AC"), card("AC")],
            vec![card("4H"), card("4H")],
            vec![card("QS")],
        ];
        let kept = shortest(lines);
        assert_eq!(
            kept,
            vec![
                vec![card("QS")],
                vec![card("KS")],
                vec![card("AC"), card("AC")]
            ]
        );
    }

    #[test]
    fn random_walks_find_the_king_block_and_not_a_false_one() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let report = sampled(&higher, 50, &mut rng, &ProgressBar::hidden());
        // Every walk on "higher than the last" ends on a king.
        assert_eq!(report.found, 50);
        assert!(report
            .examples
            .iter()
            .all(|l| l.last().is_some_and(|c| c.value() == 13)));
        let report = sampled(&same_suit_or_rank, 20, &mut rng, &ProgressBar::hidden());
        assert_eq!(report.found, 0);
        assert_eq!(report.method, Method::Sampled);
    }
}
