//! Feeds arbitrary bytes to `Rule::parse`, and every rule that parses to the
//! evaluator on a layout drawn from the same bytes. Parsing and judging must never
//! panic, hang or overflow the stack, and the fast verdict must equal the
//! explained one.
#![no_main]

use eleusis::cards::Card;
use eleusis::rule::{Context, Rule};
use libfuzzer_sys::fuzz_target;

/// Cards from bytes (each byte modulo 52).
fn cards(bytes: &[u8]) -> Vec<Card> {
    bytes
        .iter()
        .filter_map(|&b| Card::from_index(usize::from(b) % 52))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    // Layout: [main length][side length][main…][side…][card][rule text…]
    let (header, rest) = data.split_at(data.len().min(2));
    let main_len = header.first().map_or(0, |&b| usize::from(b % 12));
    let side_len = header.get(1).map_or(0, |&b| usize::from(b % 4));
    let (main_bytes, rest) = rest.split_at(rest.len().min(main_len));
    let (side_bytes, rest) = rest.split_at(rest.len().min(side_len));
    let (card_byte, text) = rest.split_at(rest.len().min(1));
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let Ok(rule) = Rule::parse(text) else {
        return;
    };
    let main = cards(main_bytes);
    let side = cards(side_bytes);
    let Some(card) = cards(card_byte)
        .first()
        .copied()
        .or_else(|| Card::from_index(0))
    else {
        return;
    };
    let ctx = Context {
        main: &main,
        side: &side,
        wrong: &side,
    };
    let judgment = rule.judge(&ctx, card);
    assert_eq!(
        rule.accepts(&ctx, card),
        judgment.accepted,
        "{}",
        judgment.explanation
    );
    let sequence = rule.judge_sequence(&ctx, &main);
    assert_eq!(rule.accepts_sequence(&ctx, &main), sequence.accepted);
    let _ = rule.footprint();
});
