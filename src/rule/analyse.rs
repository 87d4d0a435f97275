//! The rule checker: what God needs to know before sealing a rule.
//!
//! A rule that accepts almost everything, one that can block the game (seed 001
//! forbids "each card must be higher than the last"), or a hint that turns out to be
//! false ruins a round, and nobody finds out until the table is dealt. The checker
//! answers those questions up front:
//!
//! - how often a random card is accepted under random play (Monte Carlo over
//!   double-deck shuffles, seeded and reproducible; seed 001 advises 25–40 %);
//! - whether a reachable main line can leave no acceptable card at all (a dead end),
//!   with an example line;
//! - which cards may start the main line;
//! - what the rule reads (from its footprint) and which **hints** God may announce.
//!
//! Hints are never guessed from the rule's text: each one is the statement that the
//! verdict does not change under a transformation of the cards (forget the suits,
//! keep only colours, forget the main line, …), checked on every case when the rule
//! reads at most the last two cards of the main line, and on a large sample of
//! reachable layouts otherwise — the report says which.
//!
//! The checker only needs a [`Judge`] and the rule's [`Reads`], so it works on a
//! parsed rule as well as on a closure in tests.

mod dead_ends;
mod hints;
mod render;
mod simulate;
mod table;
mod view;

use indicatif::ProgressBar;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::cards::Card;
use crate::rule::{Footprint, Judge};

pub use render::render_text;

/// What a rule reads: its [`Footprint`]. The checker uses it to describe the rule, to
/// warn, and to choose between exhaustive enumeration and sampling; it never derives
/// a hint from it.
pub type Reads = Footprint;

impl Reads {
    /// An advanced rule depends on wrong cards (RULES.md section 3).
    pub fn is_advanced(&self) -> bool {
        self.reads_side || self.reads_wrong
    }

    /// True when the verdict is a function of `(main[-2], main[-1], card)` alone, so
    /// that enumerating those triples covers every layout the game can produce.
    pub fn is_windowed(&self) -> bool {
        matches!(self.lookback, Some(k) if k <= 2) && !self.reads_position && !self.is_advanced()
    }
}

/// The knobs of a check. The defaults keep a check of a typical rule under a second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckOptions {
    /// Seed of every random choice: the same seed gives the same report.
    pub seed: u64,
    /// Shuffles of the double deck played out for the acceptance rate.
    pub trials: usize,
    /// Random walks of the dead-end search (rules that read more than two cards).
    pub walks: usize,
    /// Layouts sampled for hints (rules that read more than two cards).
    pub samples: usize,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            seed: 1,
            trials: 2000,
            walks: 200,
            samples: 2000,
        }
    }
}

/// How a result was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Every case was enumerated: the result is proven.
    Exact,
    /// A seeded random sample was examined: the result holds on that sample.
    Sampled,
}

/// The acceptance rate of a random card under random play, one rate per shuffle.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Acceptance {
    pub seed: u64,
    pub trials: usize,
    /// Cards judged over all shuffles (starters excluded).
    pub judged: usize,
    /// Mean of the per-shuffle rates, 0..=1.
    pub mean: f64,
    /// Standard deviation of the per-shuffle rates.
    pub std_dev: f64,
    /// 5th percentile of the per-shuffle rates.
    pub p5: f64,
    /// 95th percentile of the per-shuffle rates.
    pub p95: f64,
}

/// The dead-end search: main lines after which no card at all is acceptable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeadEnds {
    pub method: Method,
    /// Exact: reachable `(main[-2], main[-1])` states explored. Sampled: random walks.
    pub searched: usize,
    /// Exact: reachable dead-end states. Sampled: walks that ended in a dead end.
    pub found: usize,
    /// Up to three main lines (oldest first) after which nothing is acceptable,
    /// shortest first; an empty line means no card can even start the round.
    pub examples: Vec<Vec<Card>>,
    /// Up to three short main lines (fewer than 26 cards), found by random walks in
    /// both methods, after which every acceptable face already has both copies on the
    /// main line: the double deck cannot continue the line.
    pub deck_runs_out: Vec<Vec<Card>>,
}

/// A statement God may announce, with how it was established.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hint {
    /// Stable identifier for tools, e.g. `ignores-suits`.
    pub id: String,
    /// The sentence God may say.
    pub text: String,
    pub method: Method,
    /// Exact: cases enumerated. Sampled: layouts sampled.
    pub checked: usize,
}

/// Something God should think about before sealing the rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// Stable identifier for tools, e.g. `dead-end`.
    pub id: String,
    pub text: String,
}

/// Everything the checker found about one rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub reads: Reads,
    /// What the rule reads, in words, from its footprint.
    pub uses: Vec<String>,
    /// Exact when the rule reads at most `main[-2]` and no position or sideline.
    pub method: Method,
    pub acceptance: Acceptance,
    /// Cards acceptable on an empty main line, in index order (one of each face).
    pub starters: Vec<Card>,
    pub dead_ends: DeadEnds,
    pub hints: Vec<Hint>,
    pub warnings: Vec<Warning>,
}

/// Units of work a check performs with these options, for a progress bar's length.
pub fn work_units(reads: &Reads, options: &CheckOptions) -> u64 {
    let search = if reads.is_windowed() {
        table::CASES
    } else {
        options.samples
    };
    (options.trials + options.walks + search) as u64
}

/// Checks a rule. `progress` advances by [`work_units`] in total; pass
/// `ProgressBar::hidden()` when nobody watches.
pub fn check<J: Judge + ?Sized>(
    judge: &J,
    reads: Reads,
    options: &CheckOptions,
    progress: &ProgressBar,
) -> Report {
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let starters = simulate::starters(judge);

    progress.set_message("random play");
    rng.set_stream(1);
    let simulation = simulate::play(judge, options, &mut rng, progress);
    let acceptance = simulation.acceptance(options);

    progress.set_message("searching dead ends");
    rng.set_stream(2);
    let walks = dead_ends::sampled(judge, options.walks, &mut rng, progress);

    let (method, dead_ends, hints) = if reads.is_windowed() {
        progress.set_message("enumerating every case");
        let table = table::Table::build(judge, progress);
        let dead = DeadEnds {
            deck_runs_out: walks.deck_runs_out,
            ..dead_ends::exact(&table)
        };
        (Method::Exact, dead, hints::exact(&table))
    } else {
        let dead = walks;
        progress.set_message("checking hints");
        rng.set_stream(3);
        let hints = hints::sampled(judge, &simulation.samples, &mut rng);
        progress.inc(options.samples as u64);
        (Method::Sampled, dead, hints)
    };

    let warnings = warnings(&reads, &acceptance, &starters, &dead_ends);
    Report {
        reads,
        uses: uses(&reads),
        method,
        acceptance,
        starters,
        dead_ends,
        hints,
        warnings,
    }
}

/// What the footprint says the rule reads, in words.
fn uses(reads: &Reads) -> Vec<String> {
    let mut uses = Vec::new();
    match reads.lookback {
        Some(0) => uses.push("the card played, not the main line".to_string()),
        Some(1) => uses.push("the last card of the main line (main[-1])".to_string()),
        Some(k) => uses.push(format!("the main line back to main[-{k}]")),
        None => uses.push("the whole main line (counts, sums or indices)".to_string()),
    }
    let aspects: Vec<&str> = [
        (reads.uses_rank, "ranks"),
        (reads.uses_suit, "suits"),
        (reads.uses_colour, "colours"),
    ]
    .iter()
    .filter(|(used, _)| *used)
    .map(|(_, name)| *name)
    .collect();
    if !aspects.is_empty() {
        uses.push(aspects.join(", "));
    }
    if reads.reads_position {
        uses.push("positions in the main line (its length or indices)".to_string());
    }
    if reads.reads_side {
        uses.push("the sideline under the last card (side)".to_string());
    }
    if reads.reads_wrong {
        uses.push("every wrong card of the round (wrong)".to_string());
    }
    uses
}

/// Seed 001: "Un jeu aléatoire devrait avoir entre 25% et 40% de réussite."
const ADVISED_RATE: (f64, f64) = (0.25, 0.40);

fn warnings(
    reads: &Reads,
    acceptance: &Acceptance,
    starters: &[Card],
    dead_ends: &DeadEnds,
) -> Vec<Warning> {
    let mut warnings = Vec::new();
    let mut warn = |id: &str, text: String| {
        warnings.push(Warning {
            id: id.to_string(),
            text,
        })
    };
    if starters.is_empty() {
        warn(
            "no-starter",
            "no card is acceptable on an empty main line: the round cannot start".to_string(),
        );
    }
    if let Some(line) = dead_ends.examples.first().filter(|line| !line.is_empty()) {
        let how = match dead_ends.method {
            Method::Exact => "proven reachable",
            Method::Sampled => "found by random play",
        };
        warn(
            "dead-end",
            format!(
                "dead end ({how}): after the main line {} no card at all is acceptable; \
                 seed 001 forbids rules that can block the game",
                line_text(line)
            ),
        );
    }
    if let Some(line) = dead_ends.deck_runs_out.first() {
        warn(
            "deck-runs-out",
            format!(
                "the double deck can run out: after the main line {} ({} cards) both copies \
                 of every acceptable card are already on it",
                line_text(line),
                line.len()
            ),
        );
    }
    match reads.lookback {
        Some(k) if k >= 2 => warn(
            "reads-missing-cards",
            format!(
                "reads main[-{k}], which does not exist until the main line has {k} cards; \
                 until then the card is accepted by default"
            ),
        ),
        None if reads.reads_position => warn(
            "reads-missing-cards",
            "reads the main line by position: a card read before it is laid makes the \
             played card accepted by default"
                .to_string(),
        ),
        _ => {}
    }
    if reads.indexes_sidelines {
        warn(
            "reads-missing-side-cards",
            "reads a sideline card by index (side[…] or wrong[…]): while the sideline has \
             no such card (it is empty after every right card) the played card is accepted \
             by default"
                .to_string(),
        );
    }
    let percent = acceptance.mean * 100.0;
    if acceptance.mean > 0.9 {
        warn(
            "accepts-nearly-everything",
            format!("accepts nearly everything ({percent:.1} % of random cards)"),
        );
    } else if acceptance.mean < 0.1 {
        warn(
            "accepts-nearly-nothing",
            format!("accepts nearly nothing ({percent:.1} % of random cards)"),
        );
    } else if acceptance.mean < ADVISED_RATE.0 || acceptance.mean > ADVISED_RATE.1 {
        warn(
            "rate-outside-advice",
            format!(
                "accepts {percent:.1} % of random cards; seed 001 advises 25–40 % for random play"
            ),
        );
    }
    if reads.is_advanced() {
        warn(
            "advanced",
            "advanced rule: it reads the sidelines (wrong cards); announce it, and it is not \
             allowed in the usual form of the game"
                .to_string(),
        );
    }
    warnings
}

/// A main line as notation, oldest first; the empty line says so.
pub(crate) fn line_text(line: &[Card]) -> String {
    if line.is_empty() {
        return "(empty)".to_string();
    }
    line.iter()
        .map(Card::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::Rule;

    /// Checks a rule of the language with the default options.
    fn check_rule(source: &str) -> Report {
        let rule = Rule::parse(source).expect("the rule parses");
        check(
            &rule,
            rule.footprint(),
            &CheckOptions::default(),
            &ProgressBar::hidden(),
        )
    }

    fn hint_ids(report: &Report) -> Vec<&str> {
        report.hints.iter().map(|h| h.id.as_str()).collect()
    }

    fn warning_ids(report: &Report) -> Vec<&str> {
        report.warnings.iter().map(|w| w.id.as_str()).collect()
    }

    #[test]
    fn odd_then_black_else_red_needs_only_the_last_card_and_colours() {
        // 000, rule 1.
        let report = check_rule("if last.odd then black else red");
        assert_eq!(report.method, Method::Exact);
        let ids = hint_ids(&report);
        for id in ["last-card-only", "suit-colour-only", "rank-parity-only"] {
            assert!(ids.contains(&id), "{ids:?}");
        }
        assert!(!ids.contains(&"ignores-suits"), "{ids:?}");
        assert_eq!(report.dead_ends.found, 0);
        assert_eq!(report.starters.len(), 52);
        // About half the cards have the required colour.
        assert!(
            (report.acceptance.mean - 0.5).abs() < 0.03,
            "{:?}",
            report.acceptance
        );
        assert_eq!(warning_ids(&report), ["rate-outside-advice"]);
    }

    #[test]
    fn same_suit_or_rank_has_no_dead_end() {
        // 000, rule 3.
        let report = check_rule("card.suit == last.suit or card.rank == last.rank");
        assert_eq!(report.dead_ends.method, Method::Exact);
        assert_eq!(report.dead_ends.found, 0);
        assert!(report.dead_ends.examples.is_empty());
        assert!(report.dead_ends.searched > 52);
        assert!(hint_ids(&report).contains(&"suits-symmetric"));
        // 12 of the same suit and 3 of the same rank, twice each, among 103 cards.
        assert!(
            (report.acceptance.mean - 0.28).abs() < 0.04,
            "{:?}",
            report.acceptance
        );
        assert!(!warning_ids(&report).contains(&"dead-end"));
    }

    #[test]
    fn higher_than_the_last_blocks_after_a_king() {
        // 001's forbidden rule.
        let report = check_rule("card.rank > last.rank");
        assert!(report.dead_ends.found > 0);
        let example = &report.dead_ends.examples[0];
        assert_eq!(example.last().map(|c| c.value()), Some(13));
        let warning = report
            .warnings
            .iter()
            .find(|w| w.id == "dead-end")
            .expect("a dead-end warning");
        assert!(warning.text.contains("KS"), "{}", warning.text);
    }

    #[test]
    fn same_card_again_runs_out_of_copies() {
        // No face is ever without an acceptable successor (the same face), but the
        // double deck holds only two copies of it.
        let report = check_rule("card == last");
        assert_eq!(report.dead_ends.found, 0);
        let line = &report.dead_ends.deck_runs_out[0];
        assert_eq!(line.len(), 2);
        assert_eq!(line[0], line[1]);
        assert!(warning_ids(&report).contains(&"deck-runs-out"));
        let fine = check_rule("if last.odd then black else red");
        assert!(fine.dead_ends.deck_runs_out.is_empty());
    }

    #[test]
    fn false_accepts_nothing() {
        let report = check_rule("false");
        assert!(report.starters.is_empty());
        assert_eq!(report.acceptance.mean, 0.0);
        let ids = warning_ids(&report);
        assert!(ids.contains(&"no-starter"), "{ids:?}");
        assert!(ids.contains(&"accepts-nearly-nothing"), "{ids:?}");
        assert_eq!(report.dead_ends.examples, vec![Vec::<Card>::new()]);
    }

    #[test]
    fn red_or_odd_accepts_three_quarters() {
        // 001: "J'accepte les cartes rouges ou impaires" — 75 % random success.
        let report = check_rule("red or odd");
        // The starter is one of the 80 acceptable cards: 79 of the other 103 pass in
        // every shuffle, so the rate does not spread at all.
        let acceptance = &report.acceptance;
        assert!(
            (acceptance.mean - 79.0 / 103.0).abs() < 1e-9,
            "{acceptance:?}"
        );
        assert!(acceptance.std_dev < 1e-9 && (acceptance.p95 - acceptance.p5).abs() < 1e-9);
        assert!(warning_ids(&report).contains(&"rate-outside-advice"));
        assert!(hint_ids(&report).contains(&"card-only"));
    }

    #[test]
    fn one_higher_accepts_nearly_nothing() {
        // 004: "giocare una carta il cui punteggio supera di una unità" is not
        // acceptable: four cards out of fifty-two.
        let report = check_rule("card.rank == last.rank + 1");
        assert!(warning_ids(&report).contains(&"accepts-nearly-nothing"));
        assert!(report.dead_ends.found > 0);
    }

    #[test]
    fn reading_three_back_warns_and_samples() {
        // 000's "too hard" rule.
        let report = check_rule(
            "if (main[-1].rank * main[-2].rank * main[-3].rank) % 4 == 0 then red or card.rank > 6
             elif (main[-1].rank * main[-2].rank * main[-3].rank) % 4 == 1 then black or face
             elif (main[-1].rank * main[-2].rank * main[-3].rank) % 4 == 2 then even or card.rank < 6
             else odd or card.rank == 10",
        );
        assert_eq!(report.method, Method::Sampled);
        assert_eq!(report.dead_ends.method, Method::Sampled);
        assert!(warning_ids(&report).contains(&"reads-missing-cards"));
        assert!(report.hints.iter().all(|h| h.method == Method::Sampled));
        assert_eq!(report.reads.lookback, Some(3));
    }

    #[test]
    fn sideline_rules_are_advanced() {
        let report = check_rule("len(side) < 2 or red");
        assert!(warning_ids(&report).contains(&"advanced"));
        assert_eq!(report.method, Method::Sampled);
    }

    #[test]
    fn reading_a_sideline_card_by_index_warns_it_may_be_missing() {
        // RULE-LANGUAGE.md: a card that does not exist yet makes the card accepted,
        // and the checker warns; `side[-1]` is missing after every right card.
        let report = check_rule("side[-1].red != card.red");
        let ids = warning_ids(&report);
        assert!(ids.contains(&"reads-missing-side-cards"), "{ids:?}");
        assert!(ids.contains(&"advanced"), "{ids:?}");
        let report = check_rule("len(side) == 0 or count(wrong, it.red) > 2");
        let ids = warning_ids(&report);
        assert!(!ids.contains(&"reads-missing-side-cards"), "{ids:?}");
    }

    #[test]
    fn same_seed_same_report() {
        let rule =
            Rule::parse("if last.black then card.rank >= last.rank else card.rank <= last.rank")
                .expect("parses");
        let reads = rule.footprint();
        let run = |seed| {
            let options = CheckOptions {
                seed,
                trials: 300,
                ..CheckOptions::default()
            };
            check(&rule, reads, &options, &ProgressBar::hidden())
        };
        assert_eq!(run(5), run(5));
        assert_ne!(run(5).acceptance, run(6).acceptance);
    }
}
