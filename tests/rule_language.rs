//! The rule language end to end: every example of `RULE-LANGUAGE.md` and rules from
//! the seed texts, with concrete verdicts on concrete layouts.

use eleusis::cards::{parse_cards, Card};
use eleusis::rule::{Context, Rule};

fn cards(text: &str) -> Vec<Card> {
    parse_cards(text).expect("valid cards")
}

fn card(text: &str) -> Card {
    text.parse().expect("valid card")
}

fn rule(source: &str) -> Rule {
    Rule::parse(source).unwrap_or_else(|e| panic!("{source:?} should parse: {e}"))
}

/// The verdict of `source` on `play` after the main line `main`.
fn verdict(source: &str, main: &str, play: &str) -> bool {
    let r = rule(source);
    let main = cards(main);
    let ctx = Context {
        main: &main,
        side: &[],
        wrong: &[],
    };
    let accepted = r.accepts(&ctx, card(play));
    let judgment = r.judge(&ctx, card(play));
    assert_eq!(
        accepted, judgment.accepted,
        "{source} / {play}: {}",
        judgment.explanation
    );
    accepted
}

#[test]
fn spec_example_after_odd_play_black() {
    let r = "if last.odd then black else red";
    assert!(verdict(r, "9D", "5S"));
    assert!(!verdict(r, "9D", "5H"));
    assert!(verdict(r, "8D", "5H"));
    assert!(!verdict(r, "8D", "5C"));
}
