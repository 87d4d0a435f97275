//! Delphos (`delphos`, RULES.md section 7, seed 003) replayed from table logs: the
//! score table of 003 step by step, God ending the round and the players ending it
//! unanimously, negative scores floored, God's score, hints with every player's
//! assent, the store round trip, and every refusal.

mod replay_support;
mod store_support;
mod web_support;

use eleusis::referee::Prediction;
use replay_support::{fixture, lines, refused, run};
use serde_json::{json, Value};

const ROUND: &str = r#"{"event":"round","variant":"delphos","god":"Gil","players":["Ana","Bo","Cy"],"rule":"if last.red then black else red","starter":"5H"}"#;

/// `delphos-round.jsonl` under "alternate red and black", by hand:
///
/// | line | proposal | prediction | 003's table | Ana | Bo | Cy |
/// |---|---|---|---|---|---|---|
/// | 2 | Ana 7H rejected | none | no change | 0 | 0 | 0 |
/// | 4 | Bo 8S accepted | Ana "accepted", right | Ana +1, Bo −1 | 1 | −1 | 0 |
/// | 6 | Cy 2D accepted | Bo "rejected", wrong | Cy +1, Bo −2 | 1 | −3 | 1 |
/// | 8 | Ana 3D rejected | Cy "accepted", wrong | Ana +1, Cy −2 | 2 | −3 | −1 |
/// | 9 | Bo JC accepted | none | no change | 2 | −3 | −1 |
/// | 11 | Cy QH accepted | Bo "accepted", right | Bo +1, Cy −1 | 2 | −2 | −2 |
/// | 14 | Ana KH rejected | Cy "rejected", right | Cy +1, Ana −1 | 1 | −2 | −1 |
///
/// God ends the round: negatives become 0 (Ana 1, Bo 0, Cy 0), God takes the best, 1.
#[test]
fn the_score_table_of_003_step_by_step() {
    let log = fixture("delphos-round.jsonl");
    let expected_running: [(usize, [i64; 3]); 7] = [
        (2, [0, 0, 0]),
        (4, [1, -1, 0]),
        (6, [1, -3, 1]),
        (8, [2, -3, -1]),
        (9, [2, -3, -1]),
        (11, [2, -2, -2]),
        (14, [1, -2, -1]),
    ];
    for (upto, [ana, bo, cy]) in expected_running {
        let (state, _) = run(&log[..upto]);
        let running = &state["delphos"]["running"];
        assert_eq!(
            (&running["Ana"], &running["Bo"], &running["Cy"]),
            (&json!(ana), &json!(bo), &json!(cy)),
            "after line {upto}"
        );
    }
    let (state, outcomes) = run(&log);
    assert_eq!(state["variant"], "delphos");
    assert_eq!(state["ended"], true);
    assert_eq!(state["end_reason"], "God ends the round");
    assert_eq!(state["turn"], Value::Null);
    assert_eq!(
        state["scores"],
        json!({"Ana": 1, "Bo": 0, "Cy": 0, "Gil": 1})
    );
    assert_eq!(state["main"], json!(["5H", "8S", "2D", "JC", "QH"]));
    assert_eq!(
        state["sidelines"],
        json!([
            {"after": 0, "plays": [["7H"]]},
            {"after": 2, "plays": [["3D"]]},
            {"after": 4, "plays": [["KH"]]}
        ])
    );
    assert_eq!(state["laid"], 8);
    assert_eq!(state["hands"], json!({}));
    assert_eq!(state["delphos"]["proposals"], 7);
    assert_eq!(state["delphos"]["rejected"], 3);
    assert_eq!(
        state["delphos"]["hints"],
        json!(["the rule looks only at the last accepted card"])
    );
    assert_eq!(
        state["hint"],
        "the rule looks only at the last accepted card"
    );
    // The outcome of a proposal says how the prediction fared and what it changed.
    let bo = &outcomes[5];
    let prediction = bo.prediction.as_ref().expect("a prediction");
    assert_eq!(prediction.player, "Bo");
    assert_eq!(prediction.says, Prediction::Rejected);
    assert!(!prediction.right);
    let changes = bo.score_changes.as_ref().expect("changes");
    assert_eq!(changes.get("Cy"), Some(1));
    assert_eq!(changes.get("Bo"), Some(-2));
    // A proposal without a prediction changes nothing.
    assert!(outcomes[1].prediction.is_none() && outcomes[1].score_changes.is_none());
}

#[test]
fn the_previous_player_predicts_once_before_the_proposal() {
    // Ana proposes first; the player seated before her is Cy.
    let (state, _) = run(&lines(&[ROUND]));
    assert_eq!(state["turn"], "Ana");
    assert_eq!(state["delphos"]["predictor"], "Cy");
    assert_eq!(state["delphos"]["prediction"], Value::Null);
    let (state, outcomes) = run(&lines(&[
        ROUND,
        r#"{"event":"predict","player":"Cy","says":"rejected"}"#,
    ]));
    assert_eq!(outcomes[1].next_turn.as_deref(), Some("Ana"));
    assert_eq!(state["delphos"]["predictor"], Value::Null);
    assert_eq!(
        state["delphos"]["prediction"],
        json!({"player": "Cy", "says": "rejected"})
    );
    assert_eq!(state["turn"], "Ana");

    let err = refused(&lines(&[
        ROUND,
        r#"{"event":"predict","player":"Bo","says":"accepted"}"#,
    ]));
    assert_eq!(err.line, 2);
    assert!(
        err.reason
            .contains("only the previous player, Cy, may predict before Ana's proposal, not Bo"),
        "{err}"
    );
    let err = refused(&lines(&[
        ROUND,
        r#"{"event":"predict","player":"Cy","says":"accepted"}"#,
        r#"{"event":"predict","player":"Cy","says":"rejected"}"#,
    ]));
    assert_eq!(err.line, 3);
    assert!(
        err.reason.contains("Cy has already predicted accepted"),
        "{err}"
    );
    let err = refused(&lines(&[
        ROUND,
        r#"{"event":"predict","player":"Zoe","says":"accepted"}"#,
    ]));
    assert!(err.reason.contains("unknown player \"Zoe\""), "{err}");
    // The proposer cannot predict his own proposal, even with two players.
    let two = r#"{"event":"round","variant":"delphos","god":"Gil","players":["Ana","Bo"],"rule":"red","starter":"5H"}"#;
    let err = refused(&lines(&[
        two,
        r#"{"event":"predict","player":"Ana","says":"accepted"}"#,
    ]));
    assert!(err.reason.contains("only the previous player, Bo"), "{err}");
}

#[test]
fn any_card_may_be_proposed_again_and_the_rule_sees_only_accepted_cards() {
    let (state, outcomes) = run(&lines(&[
        ROUND,
        r#"{"event":"play","cards":["7H"]}"#,
        r#"{"event":"play","cards":["7H"]}"#,
        r#"{"event":"play","cards":["8S"]}"#,
        r#"{"event":"play","cards":["8S"]}"#,
    ]));
    assert_eq!(outcomes[1].right, Some(false));
    assert_eq!(outcomes[2].right, Some(false));
    assert_eq!(outcomes[3].right, Some(true));
    // After 8S the rule wants red: a second 8S is rejected.
    assert_eq!(outcomes[4].right, Some(false));
    assert_eq!(state["main"], json!(["5H", "8S"]));
    assert_eq!(
        state["sidelines"],
        json!([{"after": 0, "plays": [["7H"], ["7H"]]}, {"after": 1, "plays": [["8S"]]}])
    );
    assert_eq!(state["turn"], "Bo");

    // 003: the rule may depend only on the accepted symbols.
    let err = refused(&lines(&[
        r#"{"event":"round","variant":"delphos","god":"Gil","players":["Ana","Bo"],"rule":"len(wrong) < 3","starter":"5H"}"#,
    ]));
    assert!(err.reason.contains("only on the accepted symbols"), "{err}");
    // The starter opens the accepted sequence, so it must fit.
    let err = refused(&lines(&[
        r#"{"event":"round","variant":"delphos","god":"Gil","players":["Ana","Bo"],"rule":"black","starter":"5H"}"#,
    ]));
    assert!(err.reason.contains("starter 5H is not acceptable"), "{err}");
    let err = refused(&lines(&[
        r#"{"event":"round","variant":"delphos","god":"Gil","players":["Ana","Bo"],"rule":"black","starter":"5S","hand_size":7}"#,
    ]));
    assert!(
        err.reason
            .contains("field \"hand_size\" has no meaning in variant delphos"),
        "{err}"
    );
    let (state, _) = run(&lines(&[
        r#"{"event":"round","variant":"delphos","god":"Gil","players":["Ana","Bo"],"rule":"black","starter":"5S","refused_starters":["5H"]}"#,
    ]));
    assert_eq!(state["main"], json!(["5S"]));
}

#[test]
fn god_or_the_unanimous_players_end_the_round() {
    let base = lines(&[
        ROUND,
        r#"{"event":"predict","player":"Cy","says":"rejected"}"#,
        r#"{"event":"play","cards":["7H"]}"#,
    ]);
    // Cy was right: Cy +1, Ana −1 (floored to 0 at the end).
    let mut unanimous = base.clone();
    unanimous.push(r#"{"event":"end_round","by":"players","assent":["Cy","Ana","Bo"]}"#.into());
    let (state, _) = run(&unanimous);
    assert_eq!(state["end_reason"], "the players end the round unanimously");
    assert_eq!(
        state["scores"],
        json!({"Ana": 0, "Bo": 0, "Cy": 1, "Gil": 1})
    );

    let mut two = base.clone();
    two.push(r#"{"event":"end_round","by":"players","assent":["Ana","Bo"]}"#.into());
    let err = refused(&two);
    assert_eq!(err.line, 4);
    assert!(
        err.reason
            .contains("ending the round needs every player's assent (003); missing: Cy"),
        "{err}"
    );
    let mut stranger = base.clone();
    stranger
        .push(r#"{"event":"end_round","by":"players","assent":["Ana","Bo","Cy","Gil"]}"#.into());
    assert!(refused(&stranger)
        .reason
        .contains("\"Gil\" is not a player"));

    // Assent goes only with the players' ending: God's ending with an assent list
    // is refused rather than read as God's (the table meant one or the other).
    let mut god_with_assent = base.clone();
    god_with_assent.push(r#"{"event":"end_round","assent":["Cy","Ana","Bo"]}"#.into());
    let err = refused(&god_with_assent);
    assert_eq!(err.line, 4);
    assert!(
        err.reason
            .contains("\"assent\" goes with \"by\":\"players\""),
        "{err}"
    );

    // A prediction still waiting when God ends the round is void.
    let mut pending = base.clone();
    pending.push(r#"{"event":"predict","player":"Ana","says":"accepted"}"#.into());
    pending.push(r#"{"event":"end_round"}"#.into());
    let (state, outcomes) = run(&pending);
    assert_eq!(
        state["delphos"]["running"],
        json!({"Ana": -1, "Bo": 0, "Cy": 1})
    );
    assert!(outcomes[4].warnings[0].contains("Ana's prediction \"accepted\" is void"));
    assert!(state["warnings"][0]
        .as_str()
        .unwrap_or("")
        .contains("is void"));

    // Nothing may follow the end of a round but a new round or end_game.
    let mut after = pending.clone();
    after.push(r#"{"event":"play","cards":["8S"]}"#.into());
    assert!(refused(&after).reason.contains("round 1 has ended"));
}

#[test]
fn hints_need_every_players_assent() {
    let err = refused(&lines(&[
        ROUND,
        r#"{"event":"hint","text":"suits do not matter","assent":["Ana","Cy"]}"#,
    ]));
    assert!(
        err.reason
            .contains("a hint needs every player's assent (003); missing: Bo"),
        "{err}"
    );
    let err = refused(&lines(&[
        r#"{"event":"round","variant":"delphos","god":"Gil","players":["Ana","Bo"],"rule":"red","starter":"5H","hint":"colours"}"#,
    ]));
    assert!(err.reason.contains("give it as a \"hint\" event"), "{err}");
    let (state, outcomes) = run(&lines(&[
        ROUND,
        r#"{"event":"play","cards":["7H"]}"#,
        r#"{"event":"hint","text":"suits do not matter","assent":["Ana","Bo","Cy"]}"#,
        r#"{"event":"hint","text":"only the last card matters","assent":["Cy","Bo","Ana"]}"#,
    ]));
    assert_eq!(outcomes[2].player.as_deref(), Some("Gil"));
    assert_eq!(
        state["delphos"]["hints"],
        json!(["suits do not matter", "only the last card matters"])
    );
    assert_eq!(state["turn"], "Bo");
}

#[test]
fn a_game_of_four_rounds_everyone_god_once() {
    let log = fixture("delphos-game.jsonl");
    let (state, outcomes) = run(&log);
    assert_eq!(state["game"]["rounds"], 4);
    assert_eq!(state["game"]["gods"], json!(["Gil", "Ana", "Bo", "Cy"]));
    assert_eq!(state["game"]["ended"], true);
    // Sums of the round scores; no not-God bonus (everyone was God, and 003 has none).
    assert_eq!(
        state["game"]["totals"],
        json!({"Gil": 9, "Ana": 5, "Bo": 6, "Cy": 11})
    );
    let ends: Vec<&str> = outcomes
        .iter()
        .filter_map(|o| o.round_end.as_ref())
        .map(|e| e.reason.as_str())
        .collect();
    assert_eq!(
        ends,
        [
            "God ends the round",
            "God ends the round",
            "the players end the round unanimously",
            "God ends the round"
        ]
    );
    // Every round: players floored at 0, God the best of them.
    for end in outcomes.iter().filter_map(|o| o.round_end.as_ref()) {
        let (god, players) = end.scores.0.split_last().expect("scores");
        assert!(players.iter().all(|(_, s)| *s >= 0));
        assert_eq!(god.1, players.iter().map(|(_, s)| *s).max().unwrap_or(0));
    }
    // A game stays in its variant.
    let mut mixed = log[..log.len() - 1].to_vec();
    mixed.push(r#"{"event":"round","variant":"eleusis-1959","god":"Gil","players":["Ana","Bo"],"rule":"red","starter":"5H"}"#.into());
    assert!(refused(&mixed).reason.contains("this game is delphos"));
}

#[test]
fn hand_variants_refuse_delphos_events_and_delphos_refuses_theirs() {
    let basic = r#"{"event":"round","variant":"new-eleusis","god":"G","players":["A","B","C"],"rule":"true","starter":"2H"}"#;
    let err = refused(&lines(&[
        basic,
        r#"{"event":"predict","player":"C","says":"accepted"}"#,
    ]));
    assert!(
        err.reason
            .contains("event \"predict\" does not exist in variant new-eleusis"),
        "{err}"
    );
    for (line, expected) in [
        (
            r#"{"event":"no_play","hand":["2C"]}"#,
            "\"no_play\" does not exist in variant delphos",
        ),
        (
            r#"{"event":"prophet","player":"Ana"}"#,
            "\"prophet\" does not exist in variant delphos",
        ),
        (
            r#"{"event":"play","cards":["2C","3C"]}"#,
            "one card per turn, got 2",
        ),
        (
            r#"{"event":"play","player":"Bo","cards":["2C"]}"#,
            "it is Ana's turn, not Bo's",
        ),
    ] {
        let err = refused(&lines(&[ROUND, line]));
        assert!(err.reason.contains(expected), "{line}: {err}");
    }
}

#[test]
fn the_cli_replays_and_a_recorded_game_exports_to_the_same_state() {
    let log = fixture("delphos-game.jsonl");
    let state = store_support::replay(&log);
    assert_eq!(state["variant"], "delphos");
    assert_eq!(state["delphos"]["hints"], json!(["the rule ignores suits"]));
    let mut text = fixture("delphos-round.jsonl")[..4].join("\n");
    text.push('\n');
    let out = store_support::eleusis(&["replay", "--trace", "-"], &text);
    assert!(out.status.success());
    let trace = String::from_utf8_lossy(&out.stdout);
    assert!(trace.contains("Ana predicted accepted: right"), "{trace}");
    assert!(trace.contains("score changes Ana 1, Bo -1"), "{trace}");

    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("t.db");
    let (replies, output) = store_support::record(&db, &log, &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(store_support::acked(&replies).len(), log.len());
    let exported = store_support::export_log(&db, "1");
    assert_eq!(store_support::replay(&exported), state);
}

/// The table's screen: the page loads the Delphos renderer, a player's prediction is
/// posted without the God token, and the view carries the running scores.
#[test]
fn the_table_screen_posts_predictions_and_shows_the_running_scores() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = web_support::Server::start(&dir.path().join("web.db"));
    let scripts = server.get("/api/variants").expect(200);
    for script in ["/static/variant-delphos.js", "/static/variant-1959.js"] {
        assert!(
            scripts["scripts"]
                .as_array()
                .is_some_and(|l| l.iter().any(|s| s == script)),
            "{scripts}"
        );
    }
    let js = server.get("/static/variant-delphos.js");
    assert_eq!(js.status, 200);
    assert!(js.text().contains("E.register(\"delphos\""));
    assert!(js.text().contains("event: \"predict\""));

    server.post("/api/rounds", ROUND).expect(200);
    server.post("/api/plays", r#"{"cards":["7H"]}"#).expect(200);
    // Only the player seated before the proposer (Bo) may predict: Ana.
    let wrong = server.post_public(
        "/api/table/events",
        r#"{"event":"predict","player":"Cy","says":"accepted"}"#,
    );
    assert_eq!(wrong.status, 422, "{}", wrong.text());
    assert!(wrong.text().contains("only the previous player, Ana"));
    server
        .post_public(
            "/api/table/events",
            r#"{"event":"predict","player":"Ana","says":"accepted"}"#,
        )
        .expect(200);
    // A proposal is God's to record, not the table's.
    let play = server.post_public("/api/table/events", r#"{"event":"play","cards":["8S"]}"#);
    assert_eq!(play.status, 401, "{}", play.text());
    server.post("/api/plays", r#"{"cards":["8S"]}"#).expect(200);
    let view = server.get("/api/state").expect(200);
    assert_eq!(
        view["state"]["delphos"]["running"],
        json!({"Ana": 1, "Bo": -1, "Cy": 0})
    );
    assert_eq!(view["state"]["delphos"]["predictor"], "Bo");
    assert_eq!(view["last"]["outcome"]["prediction"]["right"], true);
    // Delphos has no stock: no "stock low" warning on the tablet.
    assert_eq!(view["stock_warning"], Value::Null);
    server.stop();
}

mod random_rounds {
    //! Random Delphos rounds: 003 notes that "the sum of the scores is negative" —
    //! a right prediction moves one point, a wrong one costs one more than it gives —
    //! so the running scores always sum to minus the wrong predictions.

    use eleusis::cards::Card;
    use eleusis::referee::{Game, LogEvent};
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use serde_json::Value;

    fn apply(game: &mut Game, line: &str) -> eleusis::referee::Outcome {
        let event = LogEvent::parse_line(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        game.apply(&event)
            .unwrap_or_else(|e| panic!("{line} refused: {e}"))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
        #[test]
        fn running_scores_sum_to_minus_the_wrong_predictions(
            seed in any::<u64>(),
            players in 2usize..6,
            proposals in 1usize..60,
        ) {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let names: Vec<String> = (0..players).map(|i| format!("P{i}")).collect();
            let mut game = Game::new();
            apply(&mut game, &serde_json::json!({"event": "round", "variant": "delphos",
                "god": "G", "players": names, "rule": "card.suit == last.suit or card.rank == last.rank",
                "starter": "7H"}).to_string());
            let mut wrong_predictions = 0i64;
            for _ in 0..proposals {
                let state = serde_json::to_value(game.state()).expect("state");
                if rng.gen_bool(0.6) {
                    let predictor = state["delphos"]["predictor"].as_str().expect("predictor").to_string();
                    let says = if rng.gen_bool(0.5) { "accepted" } else { "rejected" };
                    apply(&mut game, &format!(r#"{{"event":"predict","player":"{predictor}","says":"{says}"}}"#));
                }
                let card = Card::from_index(rng.gen_range(0..52)).expect("card");
                let out = apply(&mut game, &format!(r#"{{"event":"play","cards":["{card}"]}}"#));
                if out.prediction.as_ref().is_some_and(|p| !p.right) {
                    wrong_predictions += 1;
                }
            }
            let state = serde_json::to_value(game.state()).expect("state");
            let sum: i64 = state["delphos"]["running"].as_object().expect("running")
                .values().filter_map(Value::as_i64).sum();
            prop_assert_eq!(sum, -wrong_predictions);
            let out = apply(&mut game, r#"{"event":"end_round"}"#);
            let scores = out.round_end.expect("ended").scores;
            prop_assert!(scores.0.iter().all(|(_, s)| *s >= 0));
            let best = scores.0.iter().filter(|(n, _)| n != "G").map(|(_, s)| *s).max();
            prop_assert_eq!(scores.get("G"), best);
        }
    }
}

/// `end_game` in the middle of a round ends the game: as in the hand variants, the
/// round is not scored and nobody is to propose or to predict any more.
#[test]
fn end_game_in_the_middle_of_a_round_leaves_nobody_to_propose_or_predict() {
    let log = lines(&[
        ROUND,
        r#"{"event":"play","cards":["7H"]}"#,
        r#"{"event":"end_game"}"#,
    ]);
    let (state, _) = run(&log);
    assert_eq!(state["ended"], false);
    assert_eq!(state["scores"], Value::Null);
    assert_eq!(state["game"]["ended"], true);
    assert_eq!(state["turn"], Value::Null, "{state:#}");
    assert_eq!(state["delphos"]["predictor"], Value::Null, "{state:#}");
}
