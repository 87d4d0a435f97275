//! The seeds' worked examples, replayed from the table logs in `tests/data/logs/` with
//! the real rule language.

use std::sync::Arc;

use eleusis::cards::Card;
use eleusis::referee::{replay, replay_with, Game, GameState, LogEvent, Outcome, SharedJudge};
use eleusis::rule::Context;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/data/logs/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn run(name: &str) -> (GameState, Vec<Outcome>) {
    replay(fixture(name).lines()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn cards(text: &str) -> Vec<Card> {
    eleusis::cards::parse_cards(text).expect("cards")
}

/// 002's diagram: rule `if last.black then card.rank >= 7 else card.rank <= 6`,
/// starter 3♥; 8♥ wrong, 5♠ 9♦ right, J♥ 7♦ 8♠ wrong, 5♣ K♥ right, then the failed
/// sequence 4♠ 9♦ J♣ (J♣ is wrong) goes under K♥ and costs 6 cards.
#[test]
fn diagram_of_002() {
    let (state, outcomes) = run("002-diagram.jsonl");
    assert_eq!(state.main, cards("3H 5S 9D 5C KH"));
    assert_eq!(state.sidelines.len(), 3);
    assert_eq!(
        (state.sidelines[0].after, state.sidelines[0].plays.clone()),
        (0, vec![cards("8H")])
    );
    assert_eq!(
        (state.sidelines[1].after, state.sidelines[1].plays.clone()),
        (2, vec![cards("JH"), cards("7D"), cards("8S")])
    );
    assert_eq!(
        (state.sidelines[2].after, state.sidelines[2].plays.clone()),
        (4, vec![cards("4S 9D JC")])
    );
    let rights: Vec<Option<bool>> = outcomes[1..].iter().map(|o| o.right).collect();
    let expected = [false, true, true, false, false, false, true, true, false];
    assert_eq!(
        rights,
        expected.iter().map(|&b| Some(b)).collect::<Vec<_>>()
    );
    let sequence = outcomes.last().expect("outcomes");
    assert_eq!(
        sequence
            .verdicts
            .iter()
            .map(|v| v.accepted)
            .collect::<Vec<_>>(),
        vec![true, true, false],
        "4♠ and 9♦ fit, J♣ does not"
    );
    assert!(
        sequence.verdicts[2].explanation.contains("<= 6")
            || sequence.verdicts[2].explanation.contains("≤ 6"),
        "{}",
        sequence.verdicts[2].explanation
    );
    assert_eq!(sequence.penalties.len(), 1);
    assert_eq!(sequence.penalties[0].cards, 6);
    assert_eq!(state.laid, 12);
    assert_eq!(state.white_markers, vec![10]);
    // 4 players, starter 3: Mario (third from God's left) starts and plays 8♥ 7♦ and
    // the sequence: 14 + 1 + 1 + 3 = 19.
    assert_eq!(state.hands.get("Mario"), Some(19));
    assert_eq!(state.hands.get("Rui"), Some(14));
    assert_eq!(state.hands.get("Ana"), Some(12));
    assert_eq!(state.hands.get("Carlos"), Some(14));
    assert_eq!(state.turn.as_deref(), Some("Rui"));
}

/// 000: "with 36 cards on the table and no Sage, Pierre is eliminated when he plays
/// wrong. Then Paul plays right and declares himself Sage. If Vincent now errs, he is
/// not eliminated, since 20 cards have not yet been laid after the Sage's marker."
#[test]
fn alternating_sudden_death_of_000() {
    let (state, outcomes) = run("000-sudden-death.jsonl");
    let pierre = &outcomes[36];
    assert_eq!(pierre.player.as_deref(), Some("Pierre"));
    assert_eq!(pierre.right, Some(false));
    assert_eq!(pierre.eliminated, vec!["Pierre".to_string()]);
    let paul = &outcomes[38];
    assert_eq!(paul.prophet_declared, Some(("Paul".to_string(), 38)));
    assert!(
        paul.phases.iter().any(|p| p.contains("sudden death ends")),
        "{paul:?}"
    );
    let vincent = &outcomes[39];
    assert_eq!(vincent.player.as_deref(), Some("Vincent"));
    assert_eq!(vincent.right, Some(false));
    assert!(vincent.eliminated.is_empty());
    assert_eq!(vincent.penalties[0].cards, 2);
    assert_eq!(state.eliminated, vec!["Pierre".to_string()]);
    assert_eq!(state.prophet.as_ref().map(|p| p.marker), Some(38));
    assert!(!state.sudden_death);

    // Twenty cards after the marker, sudden death is back; once the prophet falls the
    // count is of all laid cards again (already past 30): still sudden death.
    let mut game = Game::new();
    for line in fixture("000-sudden-death.jsonl").lines() {
        game.apply(&LogEvent::parse_line(line).expect("line"))
            .expect("legal");
    }
    let play = |cards: &str, says: &str| {
        LogEvent::parse_line(&format!(
            r#"{{"event":"play","cards":["{cards}"],"prophet_says":"{says}"}}"#
        ))
        .expect("line")
    };
    // Alternate wrong and right plays so that nobody runs out of cards.
    for i in 0..18 {
        let event = if i % 2 == 0 {
            play("4S", "wrong")
        } else {
            play("4D", "right")
        };
        let out = game.apply(&event).expect("legal");
        assert!(
            out.eliminated.is_empty(),
            "before 20 after the marker: {out:?}"
        );
    }
    assert_eq!(game.state().laid, 38 + 19);
    let out = game.apply(&play("4D", "right")).expect("legal");
    assert!(
        out.phases.iter().any(|p| p.contains("sudden death begins")),
        "{out:?}"
    );
    let out = game.apply(&play("4S", "wrong")).expect("legal");
    assert_eq!(out.eliminated.len(), 1, "20 after the marker: {out:?}");
    // The prophet misjudges: overthrown; the covered wrong play eliminates no one,
    // and with no prophet the count is of all laid cards (≥ 30): sudden death.
    let out = game.apply(&play("4S", "right")).expect("legal");
    assert_eq!(out.overthrown.as_deref(), Some("Paul"));
    assert!(out.eliminated.is_empty());
    assert!(game.state().sudden_death);
    assert!(game.state().black_markers.is_empty());
}

/// 000 and 002's scoring example, reached through real events: Pierre is God; Jacques
/// goes out; Philippe is prophet with 9 cards, 12 main-line and 11 sideline cards after
/// his marker, 25 before it; François (eliminated) has 14, Alain 17.
#[test]
fn scoring_example_of_000_and_002() {
    let (state, _) = run("000-scoring.jsonl");
    assert!(state.ended);
    assert_eq!(
        state
            .prophet
            .as_ref()
            .map(|p| (p.player.as_str(), p.marker)),
        Some(("Philippe", 25))
    );
    assert_eq!(state.eliminated, vec!["François".to_string()]);
    assert_eq!(state.laid, 25 + 12 + 11);
    let scores = state.scores.expect("scores");
    let json = serde_json::to_string(&scores).expect("json");
    assert_eq!(
        json,
        r#"{"Alain":0,"François":3,"Jacques":21,"Philippe":42,"Pierre":42}"#
    );
    assert_eq!(state.hands.get("Philippe"), Some(9));
    assert_eq!(state.hands.get("Alain"), Some(17));
}

/// The same logs judged by a closure that means what the rule text says give the
/// same verdicts: the referee only depends on the `Judge` trait.
#[test]
fn a_closure_judge_and_the_rule_language_agree() {
    let diagram: SharedJudge = Arc::new(|ctx: &Context<'_>, card: Card| match ctx.main.last() {
        Some(last) if last.is_black() => card.value() >= 7,
        Some(_) => card.value() <= 6,
        None => true,
    });
    let red: SharedJudge = Arc::new(|_: &Context<'_>, card: Card| card.is_red());
    for (name, judge) in [("002-diagram.jsonl", diagram), ("000-scoring.jsonl", red)] {
        let (with_rule, a) = run(name);
        let (with_closure, b) =
            replay_with(Game::with_judge(judge), fixture(name).lines()).expect("replay");
        assert_eq!(with_rule, with_closure, "{name}");
        let verdicts = |o: &[Outcome]| {
            o.iter()
                .map(|o| o.verdicts.iter().map(|v| v.accepted).collect::<Vec<_>>())
                .collect::<Vec<_>>()
        };
        assert_eq!(verdicts(&a), verdicts(&b), "{name}");
    }
}

/// Exported logs replay to the same state.
#[test]
fn exported_logs_round_trip() {
    for name in [
        "002-diagram.jsonl",
        "000-sudden-death.jsonl",
        "000-scoring.jsonl",
    ] {
        let text = fixture(name);
        let (state, _) = run(name);
        let exported: Vec<String> = text
            .lines()
            .map(|l| LogEvent::parse_line(l).expect("line").to_line())
            .collect();
        let (again, _) = replay(&exported).expect("replay of the export");
        assert_eq!(state, again, "{name}");
    }
}
