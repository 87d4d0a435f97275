//! Random play: the double deck is shuffled and dealt card by card onto the layout,
//! as if every player played at random. The starter is the first card acceptable on
//! an empty main line (God redraws until one fits, seed 002); every later card is
//! judged and goes to the main line or to the sideline under the last main-line card,
//! so that `side` and `wrong` are right for advanced rules.

use indicatif::ProgressBar;
use rand::seq::SliceRandom;
use rand::Rng;

use super::{Acceptance, CheckOptions};
use crate::cards::Card;
use crate::rule::{Context, Judge};

/// A layout seen during random play, before one more card is judged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Layout {
    pub main: Vec<Card>,
    pub side: Vec<Card>,
    pub wrong: Vec<Card>,
}

impl Layout {
    pub fn context(&self) -> Context<'_> {
        Context {
            main: &self.main,
            side: &self.side,
            wrong: &self.wrong,
        }
    }

    /// Every card of the layout, for transformations that touch them all.
    pub fn cards_mut(&mut self) -> impl Iterator<Item = &mut Card> {
        self.main
            .iter_mut()
            .chain(self.side.iter_mut())
            .chain(self.wrong.iter_mut())
    }
}

/// What random play produced: one acceptance rate per shuffle, and layouts sampled
/// along the way for the hint checks.
pub(super) struct Simulation {
    pub rates: Vec<f64>,
    pub judged: usize,
    pub samples: Vec<Layout>,
}

/// The faces acceptable on an empty main line, in index order.
pub(super) fn starters<J: Judge + ?Sized>(judge: &J) -> Vec<Card> {
    let empty = Context::default();
    Card::deck()
        .into_iter()
        .filter(|&card| judge.accepts(&empty, card))
        .collect()
}

/// Plays `options.trials` shuffles and samples `options.samples` layouts from them.
pub(super) fn play<J: Judge + ?Sized>(
    judge: &J,
    options: &CheckOptions,
    rng: &mut impl Rng,
    progress: &ProgressBar,
) -> Simulation {
    let trials = options.trials.max(1);
    let mut rates = Vec::with_capacity(trials);
    let mut judged_total = 0;
    let mut samples = Vec::with_capacity(options.samples);
    for trial in 0..trials {
        // Spread the samples evenly over the shuffles.
        let wanted = options.samples * (trial + 1) / trials - options.samples * trial / trials;
        let mut deck = Card::double_deck();
        deck.shuffle(rng);
        let empty = Context::default();
        let Some(start) = deck.iter().position(|&c| judge.accepts(&empty, c)) else {
            rates.push(0.0);
            samples.extend(std::iter::repeat_with(Layout::default).take(wanted));
            progress.inc(1);
            continue;
        };
        // The cards turned up before the starter go back into the deck (seed 002:
        // God reshuffles and draws again), so the other 103 cards are played in a
        // fresh random order.
        let starter = deck.swap_remove(start);
        deck.shuffle(rng);
        let rest = &deck[..];
        // Sample each layout before judging the card at these steps.
        let mut sample_at: Vec<usize> =
            (0..wanted).map(|_| rng.gen_range(0..=rest.len())).collect();
        sample_at.sort_unstable();
        let mut next_sample = sample_at.iter().peekable();
        let mut layout = Layout {
            main: vec![starter],
            ..Layout::default()
        };
        let mut accepted = 0usize;
        for (step, &card) in rest.iter().enumerate() {
            while next_sample.next_if(|&&at| at == step).is_some() {
                samples.push(layout.clone());
            }
            if judge.accepts(&layout.context(), card) {
                accepted += 1;
                layout.main.push(card);
                layout.side.clear();
            } else {
                layout.side.push(card);
                layout.wrong.push(card);
            }
        }
        while next_sample.next().is_some() {
            samples.push(layout.clone());
        }
        judged_total += rest.len();
        rates.push(if rest.is_empty() {
            0.0
        } else {
            accepted as f64 / rest.len() as f64
        });
        progress.inc(1);
    }
    Simulation {
        rates,
        judged: judged_total,
        samples,
    }
}

impl Simulation {
    /// Mean, spread and 5–95 % interval of the per-shuffle rates.
    pub fn acceptance(&self, options: &CheckOptions) -> Acceptance {
        let n = self.rates.len().max(1) as f64;
        let mean = self.rates.iter().sum::<f64>() / n;
        let variance = self.rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / n;
        let mut sorted = self.rates.clone();
        sorted.sort_by(f64::total_cmp);
        Acceptance {
            seed: options.seed,
            trials: self.rates.len(),
            judged: self.judged,
            mean,
            std_dev: variance.sqrt(),
            p5: percentile(&sorted, 0.05),
            p95: percentile(&sorted, 0.95),
        }
    }
}

/// Nearest-rank percentile of sorted values; 0 for no values.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * (sorted.len() - 1) as f64).round() as usize;
    sorted
        .get(rank.min(sorted.len() - 1))
        .copied()
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn options(trials: usize, samples: usize) -> CheckOptions {
        CheckOptions {
            seed: 3,
            trials,
            walks: 0,
            samples,
        }
    }

    fn run(judge: &dyn Judge, trials: usize, samples: usize, seed: u64) -> Simulation {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        play(
            judge,
            &options(trials, samples),
            &mut rng,
            &ProgressBar::hidden(),
        )
    }

    #[test]
    fn red_only_accepts_about_half_and_keeps_sidelines_right() {
        let red = |_: &Context<'_>, card: Card| card.is_red();
        let sim = run(&red, 200, 400, 1);
        let acc = sim.acceptance(&options(200, 400));
        // 51 red cards among 103 after a red starter in every shuffle.
        assert!((acc.mean - 51.0 / 103.0).abs() < 1e-9, "{acc:?}");
        assert!(acc.std_dev < 1e-9);
        assert_eq!(acc.judged, 200 * 103);
        assert_eq!(sim.samples.len(), 400);
        for layout in &sim.samples {
            assert!(layout.main.iter().all(|c| c.is_red()));
            assert!(layout.wrong.iter().all(|c| c.is_black()));
            assert!(layout.wrong.ends_with(&layout.side));
            assert!(!layout.main.is_empty());
        }
    }

    #[test]
    fn side_is_only_the_wrong_cards_since_the_last_main_card() {
        // Alternate colours: any card after which the side must be reset.
        let alternate = |ctx: &Context<'_>, card: Card| {
            ctx.main.last().is_none_or(|l| l.colour() != card.colour())
        };
        let sim = run(&alternate, 50, 300, 2);
        for layout in &sim.samples {
            if let Some(last) = layout.main.last() {
                assert!(layout.side.iter().all(|c| c.colour() == last.colour()));
            }
        }
        // Not all sampled layouts may have an empty side.
        assert!(sim.samples.iter().any(|l| !l.side.is_empty()));
    }

    #[test]
    fn no_starter_means_nothing_is_accepted() {
        let never = |_: &Context<'_>, _: Card| false;
        let sim = run(&never, 10, 5, 4);
        let acc = sim.acceptance(&options(10, 5));
        assert_eq!((acc.mean, acc.p5, acc.p95), (0.0, 0.0, 0.0));
        assert_eq!(sim.samples.len(), 5);
        assert!(starters(&never).is_empty());
    }

    #[test]
    fn same_seed_same_play_other_seed_other_play() {
        let judge = |ctx: &Context<'_>, card: Card| {
            ctx.main
                .last()
                .is_none_or(|l| card.value() >= l.value() || card.is_red())
        };
        let a = run(&judge, 30, 0, 9).rates;
        let b = run(&judge, 30, 0, 9).rates;
        let c = run(&judge, 30, 0, 10).rates;
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn percentiles_pick_the_nearest_rank() {
        let values: Vec<f64> = (0..=100).map(f64::from).collect();
        assert_eq!(percentile(&values, 0.05), 5.0);
        assert_eq!(percentile(&values, 0.95), 95.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }
}
