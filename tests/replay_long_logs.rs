//! Long table logs come out right: a game of very many rounds (with the same names,
//! or new names every round, whose running totals are kept per participant rather
//! than summed again at every round's end) and a round of very many plays (whose
//! "seen too often" warnings come from a running count of each card on the table).
//! Their speed is measured by `cargo bench --bench replay` ("many short rounds"),
//! not here.

use eleusis::referee::{replay_state, GameState};

fn replayed(lines: &[String]) -> GameState {
    replay_state(lines).unwrap_or_else(|e| panic!("replay refused: {e}"))
}

/// `rounds` one-card rounds: the first player plays his only card, right, and the
/// round ends. `name` gives the three names of round `i`.
fn short_rounds(rounds: usize, name: impl Fn(usize, &str) -> String) -> Vec<String> {
    let mut lines = Vec::with_capacity(2 * rounds);
    for i in 0..rounds {
        lines.push(format!(
            r#"{{"event":"round","variant":"basic","god":"{}","players":["{}","{}"],"rule":"red","starter":"AH","hand_size":1}}"#,
            name(i, "G"),
            name(i, "A"),
            name(i, "B"),
        ));
        lines.push(r#"{"event":"play","cards":["2H"]}"#.to_string());
    }
    lines
}

/// Each round: hands A 0, B 1, so A scores 1 + 4 = 5, B 0 and God 5.
#[test]
fn a_game_of_twenty_thousand_rounds() {
    let rounds = 20_000;
    let state = replayed(&short_rounds(rounds, |_, who| who.to_string()));
    let totals = state.game.totals.expect("totals");
    let per_round = 5 * rounds as i64;
    assert_eq!(totals.get("A"), Some(per_round));
    assert_eq!(totals.get("B"), Some(0));
    assert_eq!(totals.get("G"), Some(per_round));
    assert_eq!(state.game.finished_rounds as usize, rounds);
}

#[test]
fn a_game_of_eight_thousand_rounds_with_new_names_every_round() {
    let rounds = 8_000;
    let state = replayed(&short_rounds(rounds, |i, who| format!("{who}{i}")));
    let totals = state.game.totals.expect("totals");
    assert_eq!(totals.0.len(), 3 * rounds, "every participant has a total");
    assert_eq!(totals.0[0], ("A0".to_string(), 5));
    assert_eq!(totals.get("B7999"), Some(0));
    assert_eq!(totals.get("G7999"), Some(5));
}

/// Four shown hands of 1 000 black cards, the most a no-play may show (right "no
/// plays": new hands of 996), then 3 600 right plays.
#[test]
fn a_round_of_thousands_of_plays() {
    let plays = 3_600;
    let mut lines = vec![
        r#"{"event":"round","god":"G","players":["A","B","C","D"],"rule":"red","starter":"AH"}"#
            .to_string(),
    ];
    let hand = vec!["\"2S\""; plays / 4 + 100].join(",");
    for _ in 0..4 {
        lines.push(format!(r#"{{"event":"no_play","hand":[{hand}]}}"#));
    }
    lines.extend((0..plays).map(|_| r#"{"event":"play","cards":["2H"]}"#.to_string()));
    let state = replayed(&lines);
    assert_eq!(state.laid as usize, plays + 1);
    assert_eq!(state.hands.get("A"), Some(996 - 900));
    assert!(!state.ended);
    // Every 2♥ laid beyond the copies the decks in play hold is worth a warning.
    let seen_too_often = state
        .warnings
        .iter()
        .filter(|w| w.contains("2♥ seen"))
        .count();
    assert_eq!(seen_too_often, plays - state.decks as usize);
}
