//! `eleusis rule check` with its default settings on the rules of the seed texts:
//! the goal is at most one second per rule, so God can iterate on a rule at the
//! console. Run with `cargo bench --bench rule_check`.

use criterion::{criterion_group, criterion_main, Criterion};
use indicatif::ProgressBar;

use eleusis::rule::analyse::{check, CheckOptions};
use eleusis::rule::Rule;

/// The rules of RULE-LANGUAGE.md's examples (seeds 000, 002, 004 and counting).
const RULES: &[(&str, &str)] = &[
    ("000-1-odd-black", "if last.odd then black else red"),
    (
        "000-2-black-higher",
        "if last.black then card.rank >= last.rank else card.rank <= last.rank",
    ),
    (
        "000-3-suit-or-rank",
        "card.suit == last.suit or card.rank == last.rank",
    ),
    (
        "002-suit-cycle",
        "if last.spades then diamonds elif last.diamonds then clubs elif last.clubs then hearts else spades",
    ),
    (
        "002-black-odd",
        "if last.black and last.odd then red and even else true",
    ),
    (
        "002-diagram",
        "if last.black then card.rank >= 7 else card.rank <= 6",
    ),
    ("000-prime", "card.prime != last.prime"),
    (
        "004-two-odd-two-even",
        "if main[-1].odd == main[-2].odd then card.odd != last.odd else card.odd == last.odd",
    ),
    (
        "000-too-hard",
        "if (main[-1].rank * main[-2].rank * main[-3].rank) % 4 == 0 then red or card.rank > 6
         elif (main[-1].rank * main[-2].rank * main[-3].rank) % 4 == 1 then black or face
         elif (main[-1].rank * main[-2].rank * main[-3].rank) % 4 == 2 then even or card.rank < 6
         else odd or card.rank == 10",
    ),
    (
        "counting",
        "if count(main, it.red) % 2 == 0 then black else red",
    ),
    (
        "ranges-and-sets",
        "card.rank in 2..9 and card.suit not in {hearts, spades}",
    ),
];

fn rule_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("rule_check");
    group.sample_size(10);
    for &(name, source) in RULES {
        let Ok(rule) = Rule::parse(source) else {
            panic!("seed rule {name} does not parse");
        };
        let reads = rule.footprint();
        let options = CheckOptions::default();
        group.bench_function(name, |b| {
            b.iter(|| check(&rule, reads, &options, &ProgressBar::hidden()))
        });
    }
    group.finish();
}

criterion_group!(benches, rule_check);
criterion_main!(benches);
