//! The referee's rules one situation at a time (RULES.md sections 2–5), with a closure
//! as the secret rule: red cards are right, black cards wrong.

use std::sync::Arc;

use eleusis::cards::Card;
use eleusis::referee::{
    Game, LogEvent, Outcome, Placement, ProphetCondition, RefereeError, SharedJudge,
};
use eleusis::rule::Context;

fn red_rule() -> SharedJudge {
    Arc::new(|_: &Context<'_>, card: Card| card.is_red())
}

fn ev(line: &str) -> LogEvent {
    LogEvent::parse_line(line).unwrap_or_else(|e| panic!("{line}: {e}"))
}

fn apply(game: &mut Game, line: &str) -> Outcome {
    game.apply(&ev(line))
        .unwrap_or_else(|e| panic!("{line}: {e}"))
}

/// Applies a line that must be refused, and checks the state did not move.
fn refuse(game: &mut Game, line: &str) -> RefereeError {
    let before = game.state();
    let err = game.apply(&ev(line)).expect_err(line);
    assert_eq!(
        game.state(),
        before,
        "a refused event changed the state: {line}"
    );
    err
}

/// Four players A B C D, God G, gardner (30 / 20), starter AH so A starts.
fn game(variant: &str) -> Game {
    let mut game = Game::with_judge(red_rule());
    apply(
        &mut game,
        &format!(
            r#"{{"event":"round","variant":"{variant}","god":"G","players":["A","B","C","D"],"rule":"red","starter":"AH"}}"#
        ),
    );
    game
}

fn right(game: &mut Game) -> Outcome {
    apply(game, r#"{"event":"play","cards":["5H"]}"#)
}

fn wrong(game: &mut Game) -> Outcome {
    apply(game, r#"{"event":"play","cards":["5S"]}"#)
}

/// Three players A B C with hands of 6, God G, gardner, starter AH so A starts.
fn three_hands_of_six() -> Game {
    let mut g = Game::with_judge(red_rule());
    apply(
        &mut g,
        r#"{"event":"round","variant":"gardner","god":"G","players":["A","B","C"],"rule":"red","starter":"AH","hand_size":6}"#,
    );
    g
}

fn hand(game: &Game, name: &str) -> i64 {
    game.state().hands.get(name).expect("seated player")
}

#[test]
fn first_player_is_counted_from_gods_left_by_the_starters_value() {
    for (starter, first) in [
        ("AH", "A"),
        ("4D", "D"),
        ("5H", "A"),
        ("KD", "A"),
        ("QH", "D"),
        ("7D", "C"),
    ] {
        let mut game = Game::with_judge(red_rule());
        apply(
            &mut game,
            &format!(
                r#"{{"event":"round","god":"G","players":["A","B","C","D"],"rule":"red","starter":"{starter}"}}"#
            ),
        );
        let state = game.state();
        assert_eq!(state.turn.as_deref(), Some(first), "starter {starter}");
        assert_eq!(state.laid, 1);
        assert_eq!(state.stock, 104 - 4 * 14 - 1);
        assert_eq!(state.hands.0.iter().map(|(_, h)| *h).sum::<i64>(), 56);
    }
}

#[test]
fn an_unacceptable_starter_is_refused_where_the_variant_says_so() {
    let mut game = Game::with_judge(red_rule());
    let err = refuse(
        &mut game,
        r#"{"event":"round","variant":"gardner","god":"G","players":["A","B","C"],"rule":"red","starter":"AS"}"#,
    );
    assert!(
        matches!(err, RefereeError::StarterNotAcceptable { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("must turn up another"), "{err}");
    // The cards God turned up and refused are recorded and checked.
    let out = apply(
        &mut game,
        r#"{"event":"round","variant":"gardner","god":"G","players":["A","B","C"],"rule":"red","starter":"AH","refused_starters":["AS","2C"]}"#,
    );
    assert_eq!(out.verdicts.len(), 3);
    let mut game = Game::with_judge(red_rule());
    let err = refuse(
        &mut game,
        r#"{"event":"round","variant":"gardner","god":"G","players":["A","B","C"],"rule":"red","starter":"AH","refused_starters":["2H"]}"#,
    );
    assert!(
        matches!(err, RefereeError::RefusedStarterAcceptable { .. }),
        "{err}"
    );
    // new-eleusis: God *may* choose another; keeping it is recorded.
    let mut game = Game::with_judge(red_rule());
    let out = apply(
        &mut game,
        r#"{"event":"round","god":"G","players":["A","B","C"],"rule":"red","starter":"AS"}"#,
    );
    assert_eq!(out.warnings.len(), 1, "{out:?}");
    assert_eq!(game.state().warnings.len(), 1);
}

#[test]
fn a_name_sent_decomposed_names_the_player_seated_composed() {
    // "François" typed on a phone may arrive as c + combining cedilla.
    let mut game = Game::with_judge(red_rule());
    apply(
        &mut game,
        r#"{"event":"round","god":"G","players":["Fran\u00e7ois","Bo"],"rule":"red","starter":"AH","hand_size":3}"#,
    );
    let out = apply(
        &mut game,
        r#"{"event":"play","player":"Franc\u0327ois","cards":["2H"]}"#,
    );
    assert_eq!(out.verdicts.len(), 1, "{out:?}");
    let err = refuse(
        &mut game,
        r#"{"event":"play","player":"Franc\u0327ois","cards":["3H"]}"#,
    );
    assert!(
        matches!(err, RefereeError::NotYourTurn { .. }),
        "still the same person, now out of turn: {err}"
    );
}

#[test]
fn one_person_named_two_ways_in_two_rounds_is_one_participant() {
    // François plays round 1 (composed) and is God of round 2 (decomposed): one
    // column, no not-God bonus for him.
    let mut game = Game::with_judge(red_rule());
    apply(
        &mut game,
        r#"{"event":"round","variant":"basic","god":"Gil","players":["Fran\u00e7ois","Bo","Cy"],"rule":"red","starter":"AH","hand_size":1}"#,
    );
    apply(&mut game, r#"{"event":"play","cards":["2H"]}"#);
    apply(
        &mut game,
        r#"{"event":"round","variant":"basic","god":"Franc\u0327ois ","players":["Bo","Cy","Gil"],"rule":"red","starter":"AH","hand_size":1}"#,
    );
    apply(&mut game, r#"{"event":"play","cards":["2H"]}"#);
    let standings = game.state().game.standings.expect("standings");
    let out = apply(&mut game, r#"{"event":"end_game"}"#);
    let totals = out.totals.expect("totals");
    assert_eq!(totals.0.len(), 4, "one column each: {totals:?}");
    assert_eq!(game.state().game.gods, ["Gil", "Fran\u{e7}ois"]);
    let francois = "Fran\u{e7}ois";
    assert_eq!(
        totals.get(francois),
        standings.get(francois),
        "God once: no bonus; {totals:?}"
    );
    assert_eq!(
        totals.get("Bo"),
        standings.get("Bo").map(|s| s + 10),
        "never God: the bonus; {totals:?}"
    );
}

#[test]
fn set_up_errors_name_the_problem() {
    let cases = [
        (
            r#"{"event":"round","god":"G","players":["A"],"rule":"red","starter":"AH"}"#,
            "at least 2 players",
        ),
        (
            r#"{"event":"round","god":"G","players":["A","A"],"rule":"red","starter":"AH"}"#,
            "listed twice",
        ),
        (
            r#"{"event":"round","god":"A","players":["A","B"],"rule":"red","starter":"AH"}"#,
            "cannot also be",
        ),
        (
            r#"{"event":"round","god":"G","players":["A","B"],"rule":"red","starter":"AH","hand_size":0}"#,
            "field \"hand_size\": hand_size must be 1 to 52 (cards dealt to each player), got 0",
        ),
        (
            r#"{"event":"round","god":"G","players":["A","Smith\nround 2: Mallory wins"],"rule":"red","starter":"AH"}"#,
            "no line breaks",
        ),
        (
            r#"{"event":"round","god":"G\t","players":["A","B"],"rule":"red","starter":"AH"}"#,
            "control characters",
        ),
        // Unicode-aware viewers show a line separator as a line break, and a
        // right-to-left override shows a name other than the one stored.
        (
            r#"{"event":"round","god":"G","players":["A\u2028line 9: forged","B"],"rule":"red","starter":"AH"}"#,
            "line or paragraph separators",
        ),
        (
            r#"{"event":"round","god":"G","players":["A","B\u2029"],"rule":"red","starter":"AH"}"#,
            "line or paragraph separators",
        ),
        (
            r#"{"event":"round","god":"G\u202Eevil","players":["A","B"],"rule":"red","starter":"AH"}"#,
            "bidirectional marks",
        ),
        (
            r#"{"event":"round","god":"G","players":["A","B"],"rule":"red","starter":"AH","hand_size":4000000000}"#,
            "hand_size must be 1 to 52 (cards dealt to each player), got 4000000000",
        ),
        // Invisible characters make one name print as another.
        (
            r#"{"event":"round","god":"G","players":["A","\u200bG"],"rule":"red","starter":"AH"}"#,
            "invisible characters",
        ),
        (
            r#"{"event":"round","god":"G","players":["A","B\u2060"],"rule":"red","starter":"AH"}"#,
            "invisible characters",
        ),
        // Names that differ only in how an accent is encoded, or a trailing space,
        // print alike: two "François" columns would not say who is who.
        (
            r#"{"event":"round","god":"G","players":["Fran\u00e7ois","Franc\u0327ois"],"rule":"red","starter":"AH"}"#,
            "listed twice",
        ),
        // Names are read composed and without spaces at either end.
        (
            r#"{"event":"round","god":"G","players":["A","A "],"rule":"red","starter":"AH"}"#,
            "listed twice",
        ),
        (
            r#"{"event":"round","god":"G ","players":["A","G"],"rule":"red","starter":"AH"}"#,
            "cannot also be",
        ),
        (
            r#"{"event":"round","god":"G","players":["A","B\u200d","B\ufe0f"],"rule":"red","starter":"AH"}"#,
            "are alike",
        ),
        // "Ana" and "ana" at one table are a slip of the keyboard, not two people.
        (
            r#"{"event":"round","god":"G","players":["Ana","B","ana"],"rule":"red","starter":"AH"}"#,
            "differ only in capitals",
        ),
        (
            r#"{"event":"round","god":"Zoë","players":["A","ZOË"],"rule":"red","starter":"AH"}"#,
            "are alike",
        ),
        // A name of joiners alone prints as nothing.
        (
            r#"{"event":"round","god":"G","players":["A","\u200d"],"rule":"red","starter":"AH"}"#,
            "must not be empty",
        ),
        (
            r#"{"event":"round","god":"G","players":["A","B\u206f"],"rule":"red","starter":"AH"}"#,
            "invisible characters",
        ),
    ];
    for (line, expected) in cases {
        let mut game = Game::with_judge(red_rule());
        let err = refuse(&mut game, line);
        assert!(err.to_string().contains(expected), "{line}: {err}");
    }
    // A name too long to show, and more players than two decks can serve.
    let long = "x".repeat(61);
    let crowd: Vec<String> = (0..101).map(|i| format!("P{i}")).collect();
    for (players, expected) in [
        (vec!["A".to_string(), long], "at most 60 characters"),
        (crowd, "at most 100 players"),
    ] {
        let line = serde_json::json!({"event": "round", "god": "G", "players": players,
                                      "rule": "red", "starter": "AH", "hand_size": 1});
        let mut game = Game::with_judge(red_rule());
        let err = refuse(&mut game, &line.to_string());
        assert!(err.to_string().contains(expected), "{err}");
    }
    let hundred: Vec<String> = (0..100).map(|i| format!("P{i}")).collect();
    let line = serde_json::json!({"event": "round", "god": "G", "players": hundred,
                                  "rule": "red", "starter": "AH", "hand_size": 1});
    apply(&mut Game::with_judge(red_rule()), &line.to_string());
    let mut game = Game::new();
    let err = refuse(
        &mut game,
        r#"{"event":"round","god":"G","players":["A","B"],"rule":"if last.red then","starter":"AH"}"#,
    );
    assert!(matches!(err, RefereeError::BadRule(_)), "{err}");
    let err = refuse(&mut game, r#"{"event":"play","cards":["5H"]}"#);
    assert_eq!(err, RefereeError::NoRound);
}

#[test]
fn plays_are_judged_placed_and_penalised() {
    let mut g = game("gardner");
    let out = wrong(&mut g);
    assert_eq!(out.player.as_deref(), Some("A"));
    assert_eq!(
        out.placed,
        Some(Placement::Sideline {
            after: 0,
            cards: vec!["5S".parse().unwrap()]
        })
    );
    assert_eq!(out.penalties[0].cards, 2);
    assert_eq!(hand(&g, "A"), 15);
    // A wrong sequence of 3: one sideline entry, penalty 6; God does not say which failed.
    let out = apply(&mut g, r#"{"event":"play","cards":["2H","3S","4H"]}"#);
    assert_eq!(out.right, Some(false));
    assert_eq!(out.penalties[0].cards, 6);
    assert_eq!(hand(&g, "B"), 14 - 3 + 6);
    let state = g.state();
    assert_eq!(state.sidelines.len(), 1);
    assert_eq!(state.sidelines[0].plays.len(), 2);
    assert_eq!(state.sidelines[0].plays[1].len(), 3);
    // A right sequence goes on the main line.
    apply(&mut g, r#"{"event":"play","cards":["2H","3D","4H","5D"]}"#);
    assert_eq!(hand(&g, "C"), 10);
    let state = g.state();
    assert_eq!(state.main.len(), 5);
    assert_eq!(state.laid, 1 + 1 + 3 + 4);
    // A new wrong play hangs under the new last main-line card.
    wrong(&mut g);
    assert_eq!(g.state().sidelines[1].after, 4);
    assert_eq!(g.state().white_markers, vec![10]);
    // Five cards is not a sequence; a player cannot play more cards than he holds.
    let err = refuse(
        &mut g,
        r#"{"event":"play","cards":["2H","3D","4H","5D","6H"]}"#,
    );
    assert!(
        matches!(err, RefereeError::SequenceLength { got: 5, .. }),
        "{err}"
    );
}

#[test]
fn the_player_field_must_name_the_player_whose_turn_it_is() {
    let mut g = game("gardner");
    let err = refuse(&mut g, r#"{"event":"play","player":"B","cards":["5H"]}"#);
    assert_eq!(err.to_string(), "it is A's turn, not B's");
    let err = refuse(&mut g, r#"{"event":"play","player":"Zed","cards":["5H"]}"#);
    assert!(matches!(err, RefereeError::UnknownPlayer { .. }));
    apply(&mut g, r#"{"event":"play","player":"A","cards":["5H"]}"#);
    assert_eq!(g.state().turn.as_deref(), Some("B"));
}

#[test]
fn no_play_right_deals_a_hand_four_smaller_and_small_hands_end_the_round() {
    let mut g = three_hands_of_six();
    let out = apply(
        &mut g,
        r#"{"event":"no_play","hand":["2S","3S","4S","5S","6S","7S"]}"#,
    );
    assert_eq!(out.right, Some(true));
    assert_eq!(out.new_hand, Some(2));
    assert!(out.penalties.is_empty());
    assert_eq!(hand(&g, "A"), 2);
    assert_eq!(g.state().laid, 1, "a right no play lays nothing");
    right(&mut g);
    right(&mut g);
    // A holds 2 cards: a right no play ends the round, A counts as out (+4).
    let out = apply(&mut g, r#"{"event":"no_play","hand":["2S","3C"]}"#);
    let end = out.round_end.expect("round ends");
    assert!(end.reason.contains("counts as out"), "{}", end.reason);
    let state = g.state();
    assert!(state.ended);
    assert_eq!(state.turn, None);
    assert_eq!(state.hands.get("A"), Some(0));
    // high = 5 (B and C): A 5 + 4, B 0, C 0, God = best = 9.
    let scores = state.scores.expect("scores");
    assert_eq!(scores.get("A"), Some(9));
    assert_eq!(scores.get("B"), Some(0));
    assert_eq!(scores.get("G"), Some(9));
    let err = refuse(&mut g, r#"{"event":"play","cards":["5H"]}"#);
    assert!(matches!(err, RefereeError::RoundOver { .. }), "{err}");
}

#[test]
fn no_play_wrong_god_takes_the_first_acceptable_card_or_the_pick() {
    let mut g = game("gardner");
    let hand14 = r#"["2S","3S","4S","5S","6S","7S","8S","9S","10S","JS","QS","KH","AC","2H"]"#;
    let out = apply(&mut g, &format!(r#"{{"event":"no_play","hand":{hand14}}}"#));
    assert_eq!(out.right, Some(false));
    assert_eq!(
        out.pick.as_ref().map(|p| p.card.to_string()),
        Some("KH".to_string())
    );
    assert_eq!(out.penalties[0].cards, 5);
    assert_eq!(hand(&g, "A"), 14 - 1 + 5);
    assert_eq!(g.state().main.len(), 2);
    let out = apply(
        &mut g,
        &format!(r#"{{"event":"no_play","hand":{hand14},"pick":"2H"}}"#),
    );
    assert_eq!(out.pick.map(|p| p.card.to_string()), Some("2H".to_string()));
    let err = refuse(
        &mut g,
        &format!(r#"{{"event":"no_play","hand":{hand14},"pick":"2S"}}"#),
    );
    assert!(
        matches!(err, RefereeError::PickNotAcceptable { .. }),
        "{err}"
    );
    let err = refuse(
        &mut g,
        &format!(r#"{{"event":"no_play","hand":{hand14},"pick":"9H"}}"#),
    );
    assert!(matches!(err, RefereeError::PickNotInHand(_)), "{err}");
}

/// What the recorder asks before a round is recorded live: a name written like a
/// participant's but for case or accents; nothing once the game has ended.
#[test]
fn a_newcomer_alike_to_a_participant_is_named_until_the_game_ends() {
    let mut g = Game::with_judge(red_rule());
    apply(
        &mut g,
        r#"{"event":"round","variant":"basic","god":"Ana","players":["Bo","Cy"],"rule":"red","starter":"AH","hand_size":1}"#,
    );
    let round = |line: &str| match ev(line) {
        LogEvent::Round(round) => round,
        other => panic!("{other:?}"),
    };
    let alike = round(
        r#"{"event":"round","variant":"basic","god":"Bo","players":["ANA","Cy"],"rule":"red","starter":"AH"}"#,
    );
    let same = round(
        r#"{"event":"round","variant":"basic","god":"Bo","players":["Ana","Dee"],"rule":"red","starter":"AH"}"#,
    );
    assert!(g
        .alike_newcomer(&alike)
        .is_some_and(|w| w.contains("\"ANA\" is new to this game, but \"Ana\" is in it already")));
    assert_eq!(g.alike_newcomer(&same), None);
    apply(&mut g, r#"{"event":"end_game"}"#);
    assert_eq!(
        g.alike_newcomer(&alike),
        None,
        "a new game seats whom it likes"
    );
}

/// One card is "1 card" in what the referee says.
#[test]
fn a_hand_of_one_is_one_card_in_words() {
    let mut g = three_hands_of_six();
    let out = apply(&mut g, r#"{"event":"no_play","hand":["2S"]}"#);
    assert!(
        out.warnings
            .iter()
            .any(|w| w.contains("A showed 1 card but the referee counted 6")),
        "{:?}",
        out.warnings
    );
    let end = out
        .round_end
        .expect("a right no play of one card ends the round");
    assert!(
        end.reason
            .contains("rightly declared no play with 1 card and counts as out"),
        "{}",
        end.reason
    );
}

/// A pick from the shown hand on a right declaration is ignored with a warning; a
/// card that was not shown is a slip in the log whatever the verdict.
#[test]
fn a_pick_on_a_right_declaration_is_ignored_only_from_the_shown_hand() {
    let mut g = three_hands_of_six();
    let err = refuse(
        &mut g,
        r#"{"event":"no_play","hand":["2S","3S","4S","5S","6S","7S"],"pick":"3H"}"#,
    );
    assert!(matches!(err, RefereeError::PickNotInHand(_)), "{err}");
    let out = apply(
        &mut g,
        r#"{"event":"no_play","hand":["2S","3S","4S","5S","6S","7S"],"pick":"2S"}"#,
    );
    assert_eq!(out.right, Some(true));
    assert!(
        out.warnings.iter().any(|w| w.contains("pick ignored")),
        "{:?}",
        out.warnings
    );
}

#[test]
fn a_shown_hand_that_differs_from_the_count_is_trusted_with_a_warning() {
    let mut g = game("gardner");
    let out = apply(&mut g, r#"{"event":"no_play","hand":["2S","3S","4H"]}"#);
    assert_eq!(out.warnings.len(), 1, "{out:?}");
    assert!(
        out.warnings[0].contains("showed 3 cards"),
        "{}",
        out.warnings[0]
    );
    assert_eq!(hand(&g, "A"), 3 - 1 + 5);
    let state = g.state();
    assert_eq!(state.warnings.len(), 1);
    let (have, decks) = g.card_balance().expect("round");
    assert_eq!(have, decks);
}

#[test]
fn the_stock_running_out_adds_a_deck_and_says_so() {
    let mut g = Game::with_judge(red_rule());
    apply(
        &mut g,
        r#"{"event":"round","variant":"basic","god":"G","players":["A","B","C","D","E","F","H"],"rule":"red","starter":"AH"}"#,
    );
    // 104 - 7 × 14 - 1 = 5 cards left: the third wrong card needs a new deck.
    assert_eq!(g.state().stock, 5);
    wrong(&mut g);
    wrong(&mut g);
    // Not a third 5♠: two decks hold two, and that would be warned of too.
    let out = apply(&mut g, r#"{"event":"play","cards":["7S"]}"#);
    assert_eq!(out.warnings.len(), 1, "{out:?}");
    assert!(out.warnings[0].contains("stock ran out"));
    let state = g.state();
    assert_eq!(state.decks, 3);
    assert_eq!(state.stock, 5 - 4 + 52 - 2);
    let (have, decks) = g.card_balance().expect("round");
    assert_eq!((have, decks), (156, 156));
}

#[test]
fn prophet_declarations_name_the_broken_condition() {
    let mut g = game("gardner");
    right(&mut g); // A
    let err = refuse(&mut g, r#"{"event":"prophet","player":"B"}"#);
    assert!(
        matches!(
            err,
            RefereeError::ProphetRefused {
                condition: ProphetCondition::JustPlayed,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("condition 1"), "{err}");
    let out = apply(&mut g, r#"{"event":"prophet","player":"A"}"#);
    assert_eq!(out.prophet_declared, Some(("A".to_string(), 2)));
    // prophet_says is required now.
    let err = refuse(&mut g, r#"{"event":"play","cards":["5H"]}"#);
    assert!(
        matches!(err, RefereeError::ProphetCallMissing { .. }),
        "{err}"
    );
    apply(
        &mut g,
        r#"{"event":"play","cards":["5H"],"prophet_says":"right"}"#,
    ); // B
    let err = refuse(&mut g, r#"{"event":"prophet","player":"B"}"#);
    assert!(err.to_string().contains("condition 2"), "{err}");
    // The prophet in office declaring again hears that he is in office, not that he
    // has not just played (he no longer plays).
    let err = refuse(&mut g, r#"{"event":"prophet","player":"A"}"#);
    assert!(
        err.to_string().contains("condition 2") && err.to_string().contains("A is in office"),
        "{err}"
    );
    // The prophet does not play: after D comes B.
    apply(
        &mut g,
        r#"{"event":"play","cards":["5H"],"prophet_says":"right"}"#,
    ); // C
    let out = apply(
        &mut g,
        r#"{"event":"play","cards":["5H"],"prophet_says":"right"}"#,
    ); // D
    assert_eq!(out.next_turn.as_deref(), Some("B"));
    // False prophet: he said right on a wrong card.
    let out = apply(
        &mut g,
        r#"{"event":"play","cards":["5S"],"prophet_says":"right"}"#,
    ); // B
    assert_eq!(out.overthrown.as_deref(), Some("A"));
    assert!(out.covered);
    assert_eq!(
        out.penalties.len(),
        1,
        "only the prophet is penalised: {out:?}"
    );
    assert_eq!(out.penalties[0].player, "A");
    assert_eq!(hand(&g, "A"), 13 + 5);
    assert_eq!(hand(&g, "B"), 12, "covered: no penalty");
    assert_eq!(out.next_turn.as_deref(), Some("C"));
    let err = refuse(
        &mut g,
        r#"{"event":"play","cards":["5H"],"prophet_says":"right"}"#,
    );
    assert!(
        matches!(err, RefereeError::ProphetCallWithoutProphet { .. }),
        "{err}"
    );
    apply(&mut g, r#"{"event":"play","cards":["5H"]}"#); // C
    apply(&mut g, r#"{"event":"play","cards":["5H"]}"#); // D
                                                         // The false prophet plays again from his next turn, and may not be prophet again.
    apply(&mut g, r#"{"event":"play","player":"A","cards":["5H"]}"#);
    let err = refuse(&mut g, r#"{"event":"prophet","player":"A"}"#);
    assert!(err.to_string().contains("condition 4"), "{err}");
    assert_eq!(g.state().former_prophets, vec!["A".to_string()]);
}

#[test]
fn a_prophet_needs_two_other_players_in_the_round_and_a_variant_with_prophets() {
    let mut g = Game::with_judge(red_rule());
    apply(
        &mut g,
        r#"{"event":"round","variant":"gardner","god":"G","players":["A","B"],"rule":"red","starter":"AH"}"#,
    );
    right(&mut g);
    let err = refuse(&mut g, r#"{"event":"prophet","player":"A"}"#);
    assert!(err.to_string().contains("condition 3"), "{err}");
    let mut g = game("basic");
    right(&mut g);
    let err = refuse(&mut g, r#"{"event":"prophet","player":"A"}"#);
    assert!(
        matches!(
            err,
            RefereeError::ProphetRefused {
                condition: ProphetCondition::VariantHasNone,
                ..
            }
        ),
        "{err}"
    );
}

/// Puts B in office as prophet: A plays, B plays and declares; turn is C's.
fn with_prophet_b() -> Game {
    let mut g = game("gardner");
    right(&mut g);
    right(&mut g);
    apply(&mut g, r#"{"event":"prophet","player":"B"}"#);
    assert_eq!(g.state().turn.as_deref(), Some("C"));
    g
}

const SMALL_WRONG: &str =
    r#""hand":["2S","3H","4S","5H","6S","7S","8S","9S","10S","JS","QS","KS"]"#;
const SMALL_RIGHT: &str =
    r#""hand":["2S","3S","4S","5S","6S","7S","8S","9S","10S","JS","QS","KS","AS"]"#;

#[test]
fn no_play_with_a_prophet_case_1_both_agree_it_is_right() {
    let mut g = with_prophet_b();
    let out = apply(
        &mut g,
        &format!(r#"{{"event":"no_play",{SMALL_RIGHT},"prophet_says":"right"}}"#),
    );
    assert_eq!(out.overthrown, None);
    assert_eq!(out.new_hand, Some(9));
    assert_eq!(g.state().prophet.map(|p| p.player), Some("B".to_string()));
}

#[test]
fn no_play_with_a_prophet_case_2_prophet_says_right_god_disagrees() {
    let mut g = with_prophet_b();
    let out = apply(
        &mut g,
        &format!(r#"{{"event":"no_play",{SMALL_WRONG},"prophet_says":"right"}}"#),
    );
    assert_eq!(out.overthrown.as_deref(), Some("B"));
    assert_eq!(
        out.pick.as_ref().map(|p| (p.card.to_string(), p.by)),
        Some(("3H".to_string(), "God"))
    );
    assert_eq!(hand(&g, "C"), 11, "not penalised: 12 shown, one taken");
    assert_eq!(hand(&g, "B"), 13 + 5);
    assert_eq!(g.state().prophet, None);
}

#[test]
fn no_play_with_a_prophet_case_3_prophet_says_wrong_but_the_player_was_right() {
    let mut g = with_prophet_b();
    let out = apply(
        &mut g,
        &format!(r#"{{"event":"no_play",{SMALL_RIGHT},"prophet_says":"wrong"}}"#),
    );
    assert_eq!(out.overthrown.as_deref(), Some("B"));
    assert_eq!(out.new_hand, Some(9));
    assert_eq!(hand(&g, "B"), 18);
}

#[test]
fn no_play_with_a_prophet_case_4_prophet_picks() {
    // The prophet picks an acceptable card: 5 penalty cards.
    let mut g = with_prophet_b();
    let out = apply(
        &mut g,
        &format!(r#"{{"event":"no_play",{SMALL_WRONG},"prophet_says":"wrong","pick":"5H"}}"#),
    );
    assert_eq!(out.overthrown, None);
    assert_eq!(
        out.pick
            .as_ref()
            .map(|p| (p.card.to_string(), p.by, p.accepted)),
        Some(("5H".to_string(), "prophet", true))
    );
    assert_eq!(hand(&g, "C"), 12 - 1 + 5);
    assert_eq!(
        g.state().main.last().map(Card::to_string),
        Some("5H".to_string())
    );
    // The prophet picks a card that is not acceptable: overthrown, nothing placed,
    // no penalty.
    let mut g = with_prophet_b();
    let laid = g.state().laid;
    let out = apply(
        &mut g,
        &format!(r#"{{"event":"no_play",{SMALL_WRONG},"prophet_says":"wrong","pick":"2S"}}"#),
    );
    assert_eq!(out.overthrown.as_deref(), Some("B"));
    assert_eq!(out.placed, None);
    assert!(out.penalties.iter().all(|p| p.player == "B"));
    assert_eq!(hand(&g, "C"), 12);
    assert_eq!(g.state().laid, laid);
}

#[test]
fn markers_white_without_prophet_black_after_the_marker_removed_on_overthrow() {
    let mut g = game("new-eleusis");
    for _ in 0..11 {
        right(&mut g);
    }
    // Laid 12; the 11th play was C's; C declares.
    apply(&mut g, r#"{"event":"prophet","player":"C"}"#);
    assert_eq!(g.state().white_markers, vec![10]);
    for _ in 0..10 {
        apply(
            &mut g,
            r#"{"event":"play","cards":["5H"],"prophet_says":"right"}"#,
        );
    }
    let state = g.state();
    assert_eq!(state.laid, 22);
    assert_eq!(
        state.black_markers,
        vec![22],
        "10th card after the marker at 12"
    );
    assert_eq!(
        state.white_markers,
        vec![10],
        "no white marker on 20 with a prophet"
    );
    let out = apply(
        &mut g,
        r#"{"event":"play","cards":["5H"],"prophet_says":"wrong"}"#,
    );
    assert_eq!(out.overthrown.as_deref(), Some("C"));
    let state = g.state();
    assert!(state.black_markers.is_empty());
    assert_eq!(state.prophet, None);
    for _ in 0..7 {
        right(&mut g);
    }
    assert_eq!(g.state().white_markers, vec![10, 30]);
}

#[test]
fn sudden_death_eliminates_and_the_round_ends_when_all_are_out() {
    let mut g = game("basic");
    for _ in 0..29 {
        right(&mut g);
    }
    // 30 laid: the threshold is reached before the next play is placed.
    assert!(g.state().sudden_death);
    let out = wrong(&mut g);
    assert_eq!(out.eliminated, vec!["B".to_string()]);
    assert_eq!(out.penalties[0].cards, 2, "he takes that play's penalty");
    let out = apply(&mut g, r#"{"event":"no_play","hand":["2S","3H"]}"#);
    assert_eq!(out.eliminated, vec!["C".to_string()]);
    wrong(&mut g);
    let out = wrong(&mut g);
    let end = out.round_end.expect("everyone eliminated");
    assert_eq!(end.reason, "every player is eliminated");
    let state = g.state();
    assert_eq!(state.eliminated.len(), 4);
    assert!(state.scores.is_some());
}

#[test]
fn games_total_rounds_and_give_ten_to_those_who_were_never_god() {
    let mut g = Game::with_judge(red_rule());
    let round = |god: &str, players: &str| {
        format!(
            r#"{{"event":"round","variant":"basic","god":"{god}","players":{players},"rule":"red","starter":"AH","hand_size":2}}"#
        )
    };
    apply(&mut g, &round("G", r#"["A","B"]"#));
    let err = refuse(&mut g, &round("A", r#"["B","G"]"#));
    assert!(
        matches!(err, RefereeError::RoundInProgress { round: 1 }),
        "{err}"
    );
    wrong(&mut g); // A 3
    apply(&mut g, r#"{"event":"play","cards":["5H","6H"]}"#); // B out
    let state = g.state();
    assert_eq!(state.scores.as_ref().and_then(|s| s.get("B")), Some(7));
    assert_eq!(state.scores.as_ref().and_then(|s| s.get("G")), Some(7));
    assert_eq!(state.game.totals, None, "one finished round: no totals yet");
    let standings = state.game.standings.expect("standings after one round");
    for name in ["A", "B", "G"] {
        assert_eq!(
            standings.get(name),
            state.scores.as_ref().and_then(|s| s.get(name)),
            "{name}: one round, the standings are its scores"
        );
    }
    apply(&mut g, &round("A", r#"["B","G"]"#));
    let state = g.state();
    assert_eq!(
        state.game.standings.as_ref().and_then(|s| s.get("B")),
        Some(7),
        "the standings stay up while the next round is played"
    );
    apply(&mut g, r#"{"event":"play","cards":["5H","6H"]}"#); // B out
    let state = g.state();
    assert_eq!(state.game.rounds, 2);
    assert_eq!(state.game.standings, state.game.totals);
    let totals = state.game.totals.expect("two finished rounds");
    assert_eq!(totals.get("B"), Some(7 + 6));
    assert_eq!(totals.get("G"), Some(7));
    assert_eq!(totals.get("A"), Some(6));
    let out = apply(&mut g, r#"{"event":"end_game"}"#);
    let totals = out.totals.expect("totals at end_game");
    assert_eq!(totals.get("B"), Some(7 + 6 + 10), "B was never God");
    assert_eq!(totals.get("G"), Some(7));
    assert_eq!(g.state().game.totals, Some(totals.clone()));
    assert_eq!(g.state().game.standings, Some(totals));
    assert_eq!(
        refuse(&mut g, &round("B", r#"["A","G"]"#)),
        RefereeError::GameOver
    );
}

#[test]
fn end_game_after_one_round_already_shows_totals() {
    let mut g = game("basic");
    apply(&mut g, r#"{"event":"end_game"}"#);
    let state = g.state();
    let totals = state.game.totals.expect("end_game");
    assert_eq!(totals.get("A"), Some(10));
    assert_eq!(totals.get("G"), Some(0));
    assert_eq!(
        state.warnings,
        vec!["round 1: the round had not ended and is not scored".to_string()]
    );
}

#[test]
fn a_large_table_is_dealt_from_as_many_decks_as_it_needs() {
    let mut g = Game::with_judge(red_rule());
    let players: Vec<String> = (0..10).map(|i| format!("\"P{i}\"")).collect();
    let out = apply(
        &mut g,
        &format!(
            r#"{{"event":"round","god":"G","players":[{}],"rule":"red","starter":"AH"}}"#,
            players.join(",")
        ),
    );
    assert_eq!(out.warnings.len(), 1, "{out:?}");
    let state = g.state();
    assert_eq!(state.decks, 3);
    assert_eq!(state.stock, 156 - 141);
    assert_eq!(g.card_balance(), Some((156, 156)));
}

#[test]
fn a_huge_shown_hand_adds_its_decks_with_one_warning() {
    let mut g = Game::with_judge(red_rule());
    apply(
        &mut g,
        r#"{"event":"round","god":"G","players":["A","B"],"rule":"red","starter":"AH","hand_size":1}"#,
    );
    // 300 black cards: the declaration is right, and the hand is trusted.
    let hand = vec!["\"5S\""; 300].join(",");
    let out = apply(&mut g, &format!(r#"{{"event":"no_play","hand":[{hand}]}}"#));
    let stock_warnings: Vec<&String> = out
        .warnings
        .iter()
        .filter(|w| w.contains("the stock ran out"))
        .collect();
    // 104 - 2 dealt - 1 starter = 101 in the stock; 299 more cards need 4 decks.
    assert_eq!(stock_warnings.len(), 1, "{:?}", out.warnings);
    assert!(
        stock_warnings[0].contains("decks 3 to 6 are added"),
        "{stock_warnings:?}"
    );
    assert_eq!(g.state().decks, 6);
    let (held, made) = g.card_balance().expect("a round in play");
    assert_eq!(held, made);
}

#[test]
fn a_wrong_sequence_is_not_judged_past_its_first_rejected_card() {
    let mut g = game("basic");
    // 5D is red and would be accepted, but 5S has already made the sequence wrong.
    let out = apply(&mut g, r#"{"event":"play","cards":["5H","5S","5D"]}"#);
    assert_eq!(out.right, Some(false));
    let accepted: Vec<bool> = out.verdicts.iter().map(|v| v.accepted).collect();
    assert_eq!(accepted, vec![true, false, false]);
    assert_eq!(
        out.verdicts[2].explanation,
        "not judged: the sequence is already wrong at 5♠"
    );
    assert_ne!(out.verdicts[1].explanation, out.verdicts[2].explanation);
}

#[test]
fn a_card_seen_more_often_than_the_decks_hold_it_is_flagged() {
    let mut g = game("basic");
    // The starter AH and two more: three aces of hearts from two decks.
    let out = apply(&mut g, r#"{"event":"play","cards":["AH"]}"#);
    assert!(
        !out.warnings.iter().any(|w| w.contains("misread")),
        "{:?}",
        out.warnings
    );
    let out = apply(&mut g, r#"{"event":"play","cards":["AH"]}"#);
    assert!(
        out.warnings
            .iter()
            .any(|w| w.starts_with("A♥ seen 3 times") && w.contains("2 decks")),
        "{:?}",
        out.warnings
    );
    // A shown hand counts too, each card once however often it is shown.
    let out = apply(
        &mut g,
        r#"{"event":"no_play","hand":["AH","5S","5S","5S"]}"#,
    );
    let flagged: Vec<&String> = out
        .warnings
        .iter()
        .filter(|w| w.contains("misread"))
        .collect();
    assert_eq!(flagged.len(), 2, "{flagged:?}");
    assert!(flagged[0].starts_with("A♥ seen 4 times"), "{flagged:?}");
    assert!(flagged[1].starts_with("5♠ seen 3 times"), "{flagged:?}");
}
