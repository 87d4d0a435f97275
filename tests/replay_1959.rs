//! The original Eleusis of 1959 (`eleusis-1959`, RULES.md section 6, seed 004) replayed
//! from table logs: 004's worked examples, the two stages, the deal passing left, the
//! game of two deals per person, the store round trip, and every refusal.
//!
//! The fixtures `tests/data/logs/1959-*.jsonl` are deals played under "alternate red
//! and black" (and, in the whole game, the other rules of 004 and 000); the numbers
//! asserted here are 004's own or were counted by hand from the logs.

mod replay_support;
mod store_support;

use replay_support::{fixture, lines, refused, run};
use serde_json::Value;

/// A name → number object, sorted by name (JSON values do not keep the order).
fn tally(value: &Value) -> Vec<(String, i64)> {
    let mut list: Vec<(String, i64)> = value
        .as_object()
        .expect("a tally object")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_i64().expect("number")))
        .collect();
    list.sort();
    list
}

fn pairs(list: &[(&str, i64)]) -> Vec<(String, i64)> {
    let mut list: Vec<(String, i64)> = list.iter().map(|&(n, v)| (n.to_string(), v)).collect();
    list.sort();
    list
}

const ROUND3: &str = r#"{"event":"round","variant":"eleusis-1959","god":"Dora","players":["Ugo","Lia","Max"],"rule":"if last.red then black else red","starter":"5H"}"#;

/// 004: "three players and the dealer; the wrong cards are twelve, seven and four.
/// Twice four is eight, which from nineteen gives the dealer eleven."
#[test]
fn dealer_scores_eleven_with_twelve_seven_and_four_wrong_cards() {
    let log = fixture("1959-dealer-example.jsonl");
    // The round line and 3 × 17 plays make stage 1.
    let (state, outcomes) = run(&log[..52]);
    let own = &state["eleusis_1959"];
    assert_eq!(own["stage"], 2);
    assert_eq!(own["hand_size"], 17);
    assert_eq!(own["removed"], 0);
    assert_eq!(
        tally(&own["wrong_counts"]),
        pairs(&[("Ugo", 12), ("Lia", 7), ("Max", 4)])
    );
    assert_eq!(own["dealer_score"], 11);
    assert_eq!(
        tally(&state["hands"]),
        pairs(&[("Ugo", 0), ("Lia", 0), ("Max", 0)])
    );
    // 51 cards played, 23 of them wrong: the starter and 28 right cards on the pile.
    assert_eq!(state["laid"], 29);
    assert_eq!(state["turn"], "Ugo");
    let last = outcomes.last().expect("outcomes");
    assert!(
        last.phases
            .iter()
            .any(|p| p.contains("the dealer scores 11")),
        "{:?}",
        last.phases
    );

    // Stage 2 to the end: Max plays out his 4 wrong cards first; Ugo keeps 7, Lia 1.
    let (state, _) = run(&log);
    assert_eq!(state["ended"], true);
    assert_eq!(state["turn"], Value::Null);
    assert_eq!(state["end_reason"], "Max has no wrong cards left");
    // Ugo: 8 − 7 − 2 × 7 < 0 → 0; Lia: 8 − 1 − 2 × 1 = 5; Max: 8 + 6; Dora: 11.
    assert_eq!(
        tally(&state["scores"]),
        pairs(&[("Ugo", 0), ("Lia", 5), ("Max", 14), ("Dora", 11)])
    );
}

/// 004: "if the players are four (besides the dealer) with two, three, ten and zero
/// cards, their scores are seven, three, zero and twenty-one."
#[test]
fn players_score_seven_three_zero_and_twenty_one() {
    let log = fixture("1959-player-example.jsonl");
    let (state, _) = run(&log);
    let own = &state["eleusis_1959"];
    // 004: "for five players (with the dealer) three cards are set aside".
    assert_eq!(own["removed"], 3);
    assert_eq!(own["hand_size"], 12);
    assert_eq!(
        tally(&own["wrong_counts"]),
        pairs(&[("Ugo", 2), ("Lia", 3), ("Max", 10), ("Eva", 0)])
    );
    // Stage 1 left 3, 4, 10 and 1 wrong cards: the dealer 18 − 4 × 1 = 14.
    assert_eq!(own["dealer_score"], 14);
    assert_eq!(
        tally(&state["scores"]),
        pairs(&[
            ("Ugo", 7),
            ("Lia", 3),
            ("Max", 0),
            ("Eva", 21),
            ("Dora", 14)
        ])
    );
    // The wrong cards before each player are the cards, not only their count.
    assert_eq!(own["wrong_cards"]["Ugo"], serde_json::json!(["JS", "2S"]));
}

#[test]
fn the_dealer_ends_stage_two_only_when_no_wrong_card_fits() {
    let log = fixture("1959-blocked.jsonl");
    let (state, outcomes) = run(&log);
    assert_eq!(
        state["end_reason"],
        "the dealer declares that no further card can be accepted"
    );
    assert_eq!(
        tally(&state["eleusis_1959"]["wrong_counts"]),
        pairs(&[("Ugo", 2), ("Lia", 4), ("Max", 3)])
    );
    // Nobody is out: Ugo has the fewest (2) and takes the 6. Ugo 9 − 2 − 4 + 6 = 9.
    assert_eq!(
        tally(&state["scores"]),
        pairs(&[("Ugo", 9), ("Lia", 0), ("Max", 0), ("Dora", 1)])
    );
    // The declaration shows every wrong card rejected.
    let end = outcomes.last().expect("end");
    assert_eq!(end.event, "end_round");
    assert_eq!(end.verdicts.len(), 9);
    assert!(end.verdicts.iter().all(|v| !v.accepted));

    // Declared at the start of stage 2 instead, while a wrong card still fits.
    let mut early = log[..52].to_vec();
    early.push(r#"{"event":"end_round"}"#.to_string());
    let err = refused(&early);
    assert_eq!(err.line, 53);
    assert!(
        err.reason.contains("no further card can be accepted, but"),
        "{err}"
    );
    // In stage 1 the dealer cannot end anything.
    let mut stage1 = log[..5].to_vec();
    stage1.push(r#"{"event":"end_round"}"#.to_string());
    assert!(refused(&stage1)
        .reason
        .contains("stage 1 ends when every hand is empty"));
    // Only the dealer ends a deal.
    let mut players = log[..52].to_vec();
    players
        .push(r#"{"event":"end_round","by":"players","assent":["Ugo","Lia","Max"]}"#.to_string());
    assert!(refused(&players).reason.contains("only the dealer"));
    let mut assenting = log[..52].to_vec();
    assenting.push(r#"{"event":"end_round","assent":["Ugo","Lia","Max"]}"#.to_string());
    assert!(refused(&assenting).reason.contains("only the dealer"));
}

#[test]
fn a_game_is_two_deals_per_person_with_the_deal_passing_left() {
    let log = fixture("1959-game.jsonl");
    let (state, outcomes) = run(&log);
    assert_eq!(state["game"]["rounds"], 8);
    assert_eq!(state["game"]["finished_rounds"], 8);
    assert_eq!(
        state["game"]["gods"],
        serde_json::json!(["Dora", "Ugo", "Lia", "Max", "Dora", "Ugo", "Lia", "Max"])
    );
    assert_eq!(state["eleusis_1959"]["deal"], 8);
    assert_eq!(state["eleusis_1959"]["deals"], 8);
    assert_eq!(state["eleusis_1959"]["game_complete"], true);
    let totals = state["game"]["totals"].clone();
    assert_eq!(totals["Dora"], 49);
    assert_eq!(totals["Ugo"], 40);
    assert_eq!(totals["Lia"], 26);
    assert_eq!(totals["Max"], 13);
    // The totals are the sums of the round scores.
    let mut sum = std::collections::BTreeMap::<String, i64>::new();
    for end in outcomes.iter().filter_map(|o| o.round_end.as_ref()) {
        for (name, score) in &end.scores.0 {
            *sum.entry(name.clone()).or_default() += score;
        }
    }
    for (name, total) in &sum {
        assert_eq!(totals[name.as_str()], *total, "{name}");
    }

    // A ninth deal is refused; end_game is accepted and adds no bonus (004 has none).
    let mut more = log.clone();
    more.push(
        r#"{"event":"round","variant":"eleusis-1959","god":"Dora","players":["Ugo","Lia","Max"],"rule":"red","starter":"2C"}"#
            .to_string(),
    );
    let err = refused(&more);
    assert_eq!(err.line, log.len() + 1);
    assert!(err.reason.contains("everyone has dealt twice"), "{err}");
    let mut ended = log.clone();
    ended.push(r#"{"event":"end_game"}"#.to_string());
    let (state, _) = run(&ended);
    assert_eq!(state["game"]["totals"], totals);
}

#[test]
fn the_next_dealer_is_on_the_left_and_the_table_keeps_its_seats() {
    let first = fixture("1959-dealer-example.jsonl");
    let next = |god: &str, players: &str| {
        let mut log = first.clone();
        log.push(format!(
            r#"{{"event":"round","variant":"eleusis-1959","god":"{god}","players":{players},"rule":"red","starter":"2C"}}"#
        ));
        log
    };
    let (state, _) = run(&next("Ugo", r#"["Lia","Max","Dora"]"#));
    assert_eq!(state["god"], "Ugo");
    assert_eq!(state["turn"], "Lia");
    assert_eq!(state["eleusis_1959"]["deal"], 2);
    let err = refused(&next("Lia", r#"["Max","Dora","Ugo"]"#));
    assert!(err.reason.contains("must be Ugo, not Lia"), "{err}");
    let err = refused(&next("Ugo", r#"["Max","Lia","Dora"]"#));
    assert!(
        err.reason.contains("players must be Lia, Max, Dora"),
        "{err}"
    );
    // A game stays in its variant.
    let err = refused(&{
        let mut log = first.clone();
        log.push(r#"{"event":"round","variant":"basic","god":"Ugo","players":["Lia","Max","Dora"],"rule":"red","starter":"2H"}"#.to_string());
        log
    });
    assert!(
        err.reason.contains("a game is played in one variant"),
        "{err}"
    );
}

/// 004: three participants with the dealer set one card aside, four none, five three.
#[test]
fn the_dealer_sets_aside_just_enough_cards_for_an_even_deal() {
    for (players, hand, removed) in [
        (r#"["A","B"]"#, 25, 1),
        (r#"["A","B","C"]"#, 17, 0),
        (r#"["A","B","C","D"]"#, 12, 3),
        (r#"["A","B","C","D","E"]"#, 10, 1),
    ] {
        let log = vec![format!(
            r#"{{"event":"round","variant":"eleusis-1959","god":"G","players":{players},"rule":"red","starter":"2H"}}"#
        )];
        let (state, _) = run(&log);
        assert_eq!(state["eleusis_1959"]["hand_size"], hand, "{players}");
        assert_eq!(state["eleusis_1959"]["removed"], removed, "{players}");
        assert_eq!(state["turn"], "A");
        assert_eq!(state["main"], serde_json::json!(["2H"]));
        assert_eq!(state["decks"], 1);
    }
}

/// 004: "if the rule cannot apply until two cards are on the pile, the first card
/// played is right whatever it is", with 004's own "two odd, two even" rule.
#[test]
fn the_first_card_is_right_when_the_rule_needs_two_cards() {
    let rule =
        "if main[-1].odd == main[-2].odd then card.odd != last.odd else card.odd == last.odd";
    for first in ["3S", "4D", "KH", "10C"] {
        let log = vec![
            format!(
                r#"{{"event":"round","variant":"eleusis-1959","god":"G","players":["A","B"],"rule":"{rule}","starter":"2H"}}"#
            ),
            format!(r#"{{"event":"play","cards":["{first}"]}}"#),
        ];
        let (_, outcomes) = run(&log);
        assert_eq!(outcomes[1].right, Some(true), "{first}");
    }
    // From then on the rule applies: after 2H 3S (even, odd) the next must be odd.
    let log = lines(&[
        &format!(
            r#"{{"event":"round","variant":"eleusis-1959","god":"G","players":["A","B"],"rule":"{rule}","starter":"2H"}}"#
        ),
        r#"{"event":"play","cards":["3S"]}"#,
        r#"{"event":"play","cards":["4D"]}"#,
        r#"{"event":"play","cards":["5D"]}"#,
    ]);
    let (state, outcomes) = run(&log);
    assert_eq!(outcomes[2].right, Some(false));
    assert_eq!(outcomes[2].kept_by.as_deref(), Some("B"));
    assert_eq!(outcomes[3].right, Some(true));
    assert_eq!(state["main"], serde_json::json!(["2H", "3S", "5D"]));
    assert_eq!(
        state["eleusis_1959"]["wrong_cards"]["B"],
        serde_json::json!(["4D"])
    );
    assert_eq!(tally(&state["hands"]), pairs(&[("A", 23), ("B", 24)]));
}

#[test]
fn one_deck_means_each_card_is_played_once() {
    let err = refused(&lines(&[
        ROUND3,
        r#"{"event":"play","cards":["8S"]}"#,
        r#"{"event":"play","cards":["8S"]}"#,
    ]));
    assert_eq!(err.line, 3);
    assert!(err.reason.contains("8S is already on the pile"), "{err}");
    let err = refused(&lines(&[ROUND3, r#"{"event":"play","cards":["5H"]}"#]));
    assert!(err.reason.contains("5H is already on the pile"), "{err}");
    let err = refused(&lines(&[
        ROUND3,
        r#"{"event":"play","cards":["2D"]}"#,
        r#"{"event":"play","cards":["2D"]}"#,
    ]));
    assert!(
        err.reason.contains("2D is already among Ugo's wrong cards"),
        "{err}"
    );
}

#[test]
fn stage_two_plays_come_from_the_players_own_wrong_cards() {
    let log = fixture("1959-dealer-example.jsonl");
    let (state, _) = run(&log[..52]);
    let ugo: Vec<String> =
        serde_json::from_value(state["eleusis_1959"]["wrong_cards"]["Ugo"].clone()).expect("cards");
    let lia: Vec<String> =
        serde_json::from_value(state["eleusis_1959"]["wrong_cards"]["Lia"].clone()).expect("cards");
    // Ugo may not play one of Lia's wrong cards.
    let mut bad = log[..52].to_vec();
    bad.push(format!(
        r#"{{"event":"play","player":"Ugo","cards":["{}"]}}"#,
        lia[0]
    ));
    let err = refused(&bad);
    assert!(
        err.reason.contains("is not among Ugo's wrong cards"),
        "{err}"
    );
    // A wrong card returns to its owner: the count does not change.
    let last_red = state["main"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(Value::as_str)
        .is_some_and(|c| c.ends_with('H') || c.ends_with('D'));
    let same_colour = ugo
        .iter()
        .find(|c| (c.ends_with('H') || c.ends_with('D')) == last_red)
        .expect("Ugo holds a card of the pile's colour");
    let mut wrong = log[..52].to_vec();
    wrong.push(format!(
        r#"{{"event":"play","player":"Ugo","cards":["{same_colour}"]}}"#
    ));
    let (after, outcomes) = run(&wrong);
    let last = outcomes.last().expect("outcome");
    assert_eq!(last.right, Some(false));
    assert_eq!(last.kept_by.as_deref(), Some("Ugo"));
    assert_eq!(after["eleusis_1959"]["wrong_counts"]["Ugo"], 12);
    assert_eq!(after["turn"], "Lia");
    assert_eq!(after["main"], state["main"]);
}

#[test]
fn events_of_other_variants_and_malformed_plays_are_refused() {
    let cases: [(&str, &str); 6] = [
        (
            r#"{"event":"play","cards":["8S","2D"]}"#,
            "one card per turn, got 2",
        ),
        (
            r#"{"event":"no_play","hand":["8S"]}"#,
            "event \"no_play\" does not exist in variant eleusis-1959",
        ),
        (
            r#"{"event":"prophet","player":"Ugo"}"#,
            "event \"prophet\" does not exist",
        ),
        (
            r#"{"event":"predict","player":"Max","says":"accepted"}"#,
            "event \"predict\" does not exist",
        ),
        (
            r#"{"event":"play","player":"Lia","cards":["8S"]}"#,
            "it is Ugo's turn, not Lia's",
        ),
        (
            r#"{"event":"play","cards":["8S"],"prophet_says":"right"}"#,
            "no prophet is in office",
        ),
    ];
    for (line, expected) in cases {
        let err = refused(&lines(&[ROUND3, line]));
        assert_eq!(err.line, 2, "{line}");
        assert!(err.reason.contains(expected), "{line}: {err}");
    }
    // 004: hints only before play starts.
    let (state, _) = run(&lines(&[
        ROUND3,
        r#"{"event":"hint","text":"the rule is about colours"}"#,
    ]));
    assert_eq!(state["hint"], "the rule is about colours");
    let err = refused(&lines(&[
        ROUND3,
        r#"{"event":"play","cards":["8S"]}"#,
        r#"{"event":"hint","text":"colours"}"#,
    ]));
    assert!(err.reason.contains("no more hints"), "{err}");
    // Hand variants know nothing of end_round.
    let err = refused(&lines(&[
        r#"{"event":"round","variant":"basic","god":"G","players":["A","B"],"rule":"true","starter":"2H"}"#,
        r#"{"event":"end_round"}"#,
    ]));
    assert!(
        err.reason.contains("does not exist in variant basic"),
        "{err}"
    );
}

#[test]
fn the_cli_prints_the_state_and_a_readable_trace() {
    let log = fixture("1959-player-example.jsonl");
    let state = store_support::replay(&log);
    assert_eq!(state["variant"], "eleusis-1959");
    assert_eq!(state["eleusis_1959"]["dealer"], "Dora");
    assert_eq!(state["scores"]["Eva"], 21);
    let mut text = log[..4].join("\n");
    text.push('\n');
    let out = store_support::eleusis(&["replay", "--trace", "-"], &text);
    assert!(out.status.success());
    let trace = String::from_utf8_lossy(&out.stdout);
    assert!(trace.contains("stays face up before"), "{trace}");
}

#[test]
fn a_recorded_game_exports_to_a_log_that_replays_to_the_same_state() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("t.db");
    let game = fixture("1959-game.jsonl");
    let (replies, output) = store_support::record(&db, &game, &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(store_support::acked(&replies).len(), game.len());
    let exported = store_support::export_log(&db, "1");
    assert_eq!(
        store_support::replay(&exported),
        store_support::replay(&game)
    );
}

mod random_deals {
    //! Random deals played to their end under the seed rules: whatever the players do,
    //! the one deck stays whole, every legal play is accepted, a stuck stage 2 can
    //! always be declared over, and the scores follow 004's formulas.

    use eleusis::cards::Card;
    use eleusis::referee::{Game, LogEvent};
    use proptest::prelude::*;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use serde_json::Value;

    const RULES: [&str; 4] = [
        "if last.red then black else red",
        "card.suit == last.suit or card.rank == last.rank",
        "if main[-1].odd == main[-2].odd then card.odd != last.odd else card.odd == last.odd",
        "if last.black then card.rank >= 7 else card.rank <= 6",
    ];

    fn apply(game: &mut Game, line: &str) {
        let event = LogEvent::parse_line(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        game.apply(&event)
            .unwrap_or_else(|e| panic!("{line} refused: {e}"));
    }

    fn count(v: &Value) -> i64 {
        v.as_object()
            .map(|o| o.values().filter_map(Value::as_i64).sum())
            .unwrap_or(0)
    }

    fn deal(seed: u64, players: usize, rule: &str) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let names: Vec<String> = (0..players).map(|i| format!("P{i}")).collect();
        let mut deck: Vec<Card> = (0..52).filter_map(Card::from_index).collect();
        deck.shuffle(&mut rng);
        let starter = deck[0];
        let mut game = Game::new();
        apply(
            &mut game,
            &serde_json::json!({"event": "round", "variant": "eleusis-1959", "god": "D",
                "players": names, "rule": rule, "starter": starter.to_string()})
            .to_string(),
        );
        for _ in 0..400 {
            let state = serde_json::to_value(game.state()).expect("state");
            let own = &state["eleusis_1959"];
            let main = state["main"].as_array().map_or(0, Vec::len) as i64;
            let wrong = count(&own["wrong_counts"]);
            let hands = count(&state["hands"]);
            let removed = own["removed"].as_i64().unwrap_or(-1);
            assert_eq!(hands + main + wrong + removed, 52, "{state}");
            if state["ended"] == true {
                let scores = state["scores"].as_object().expect("scores");
                assert_eq!(scores.len(), players + 1);
                assert!(scores.values().all(|s| s.as_i64().is_some_and(|s| s >= 0)));
                assert_eq!(scores["D"], own["dealer_score"]);
                return;
            }
            let turn = state["turn"].as_str().expect("a turn").to_string();
            let card = if own["stage"] == 1 {
                // Any card nobody has seen: the referee knows only counts.
                let shown: Vec<String> = state["main"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .chain(
                        own["wrong_cards"]
                            .as_object()
                            .into_iter()
                            .flat_map(|o| o.values())
                            .flat_map(|v| v.as_array().into_iter().flatten()),
                    )
                    .filter_map(|c| c.as_str().map(str::to_string))
                    .collect();
                let unseen: Vec<Card> = deck
                    .iter()
                    .copied()
                    .filter(|c| !shown.contains(&c.to_string()))
                    .collect();
                unseen[rng.gen_range(0..unseen.len())].to_string()
            } else {
                if rng.gen_bool(0.05) {
                    // The dealer may declare the end only when nothing fits.
                    let line = r#"{"event":"end_round"}"#;
                    let event = LogEvent::parse_line(line).expect("parses");
                    if game.apply(&event).is_ok() {
                        continue;
                    }
                }
                let held: Vec<String> = own["wrong_cards"][turn.as_str()]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c.as_str().map(str::to_string))
                    .collect();
                held[rng.gen_range(0..held.len())].clone()
            };
            apply(
                &mut game,
                &format!(r#"{{"event":"play","player":"{turn}","cards":["{card}"]}}"#),
            );
        }
        // Stage 2 may cycle: the dealer ends it once nothing fits, or play goes on.
        let state = game.state();
        assert_eq!(state.eleusis_1959.map(|o| o.stage), Some(2));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        #[test]
        fn a_random_deal_keeps_the_deck_whole_and_scores_by_004(
            seed in any::<u64>(),
            players in 2usize..6,
            rule in 0usize..4,
        ) {
            deal(seed, players, RULES[rule]);
        }
    }
}

#[test]
fn a_deal_larger_than_the_deck_is_refused_with_the_numbers() {
    for (hand, expected) in [
        ("26", "2 players with hands of 26 need 52 cards"),
        (
            "4294967295",
            "2 players with hands of 4294967295 need 8589934590 cards",
        ),
    ] {
        let err = refused(&[format!(
            r#"{{"event":"round","variant":"eleusis-1959","god":"G","players":["A","B"],"rule":"red","starter":"2H","hand_size":{hand}}}"#
        )]);
        assert!(err.reason.contains(expected), "{err}");
    }
    let err = refused(&[format!(
        r#"{{"event":"round","variant":"eleusis-1959","god":"G","players":[{}],"rule":"red","starter":"2H"}}"#,
        (0..60)
            .map(|i| format!("\"P{i}\""))
            .collect::<Vec<_>>()
            .join(",")
    )]);
    assert!(
        err.reason.contains(
            "60 players cannot each be dealt a card: one deck leaves 51 after the starter"
        ),
        "{err}"
    );
    let err = refused(&lines(&[
        r#"{"event":"round","variant":"eleusis-1959","god":"G","players":["A","B"],"rule":"black","starter":"2S","refused_starters":["2H"]}"#,
    ]));
    assert!(
        err.reason
            .contains("field \"refused_starters\" has no meaning"),
        "{err}"
    );
    // A smaller deal than the even one is allowed: the rest is set aside.
    let (state, _) = run(&lines(&[
        r#"{"event":"round","variant":"eleusis-1959","god":"G","players":["A","B"],"rule":"red","starter":"2H","hand_size":5}"#,
    ]));
    assert_eq!(state["eleusis_1959"]["removed"], 41);
}

/// `end_game` in the middle of a deal ends the game: as in the hand variants, the
/// deal is not scored and nobody is to play any more.
#[test]
fn end_game_in_the_middle_of_a_deal_leaves_nobody_to_play() {
    let log = lines(&[
        r#"{"event":"round","variant":"eleusis-1959","god":"Dora","players":["Ugo","Lia","Max"],"rule":"if last.red then black else red","starter":"4C"}"#,
        r#"{"event":"play","player":"Ugo","cards":["AH"]}"#,
        r#"{"event":"end_game"}"#,
    ]);
    let (state, _) = run(&log);
    assert_eq!(state["ended"], false);
    assert_eq!(state["scores"], Value::Null);
    assert_eq!(state["game"]["ended"], true);
    assert_eq!(state["turn"], Value::Null, "{state:#}");
}
