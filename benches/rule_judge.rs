//! Judgment time per card for the rules of RULE-LANGUAGE.md and the seed texts.
//! Each iteration judges all 52 faces after a 30-card main line; the throughput
//! line gives cards per second, the time divided by 52 is the time per card.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use eleusis::cards::Card;
use eleusis::rule::{Context, Rule};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const RULES: &[(&str, &str)] = &[
    ("000-1 odd-then-black", "if last.odd then black else red"),
    (
        "000-2 higher-after-black",
        "if last.black then card.rank >= last.rank else card.rank <= last.rank",
    ),
    (
        "000-3 same-suit-or-rank",
        "card.suit == last.suit or card.rank == last.rank",
    ),
    ("000 prime-alternate", "card.prime != last.prime"),
    (
        "000 too-hard",
        "if (main[-1].rank * main[-2].rank * main[-3].rank) % 4 == 0 then red or card.rank > 6
         elif (main[-1].rank * main[-2].rank * main[-3].rank) % 4 == 1 then black or face
         elif (main[-1].rank * main[-2].rank * main[-3].rank) % 4 == 2 then even or card.rank < 6
         else odd or card.rank == 10",
    ),
    (
        "002 suit-cycle",
        "if last.spades then diamonds elif last.diamonds then clubs elif last.clubs then hearts else spades",
    ),
    (
        "002 black-odd-then-red-even",
        "if last.black and last.odd then red and even else true",
    ),
    (
        "002 diagram",
        "if last.black then card.rank >= 7 else card.rank <= 6",
    ),
    (
        "004 two-odd-two-even",
        "if main[-1].odd == main[-2].odd then card.odd != last.odd else card.odd == last.odd",
    ),
    (
        "spec count-red (30 cards)",
        "if count(main, it.red) % 2 == 0 then black else red",
    ),
    (
        "spec range-and-set",
        "card.rank in 2..9 and card.suit not in {hearts, spades}",
    ),
];

fn layout() -> Vec<Card> {
    let mut deck = Card::double_deck();
    deck.shuffle(&mut ChaCha8Rng::seed_from_u64(7));
    deck.truncate(30);
    deck
}

fn accepts(c: &mut Criterion) {
    let main = layout();
    let ctx = Context {
        main: &main,
        side: &[],
        wrong: &[],
    };
    let deck = Card::deck();
    let mut group = c.benchmark_group("rule_accepts_52_cards");
    group.throughput(Throughput::Elements(deck.len() as u64));
    for (name, source) in RULES {
        let rule = Rule::parse(source).expect("bench rules parse");
        group.bench_function(*name, |b| {
            b.iter(|| {
                let mut accepted = 0u32;
                for &card in &deck {
                    accepted += u32::from(rule.accepts(black_box(&ctx), black_box(card)));
                }
                accepted
            })
        });
    }
    group.finish();
}

fn judge(c: &mut Criterion) {
    let main = layout();
    let ctx = Context {
        main: &main,
        side: &[],
        wrong: &[],
    };
    let deck = Card::deck();
    let mut group = c.benchmark_group("rule_judge_explained_52_cards");
    group.throughput(Throughput::Elements(deck.len() as u64));
    for (name, source) in RULES.iter().take(3) {
        let rule = Rule::parse(source).expect("bench rules parse");
        group.bench_function(*name, |b| {
            b.iter(|| {
                for &card in &deck {
                    black_box(rule.judge(black_box(&ctx), black_box(card)));
                }
            })
        });
    }
    group.finish();
}

fn parse(c: &mut Criterion) {
    c.bench_function("rule_parse_too_hard", |b| {
        b.iter(|| Rule::parse(black_box(RULES[4].1)).map(|r| r.footprint()))
    });
}

criterion_group!(benches, accepts, judge, parse);
criterion_main!(benches);
