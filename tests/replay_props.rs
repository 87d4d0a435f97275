//! Property tests over random legal games: a seeded generator plays whole rounds
//! against a simple rule, choosing plays, sequences, "no play" declarations, prophet
//! declarations and prophet calls at random, and checks after every event that the
//! referee's counts stay whole and its verdicts are the rule's.

use eleusis::cards::Card;
use eleusis::referee::{replay, replay_state, Game, GameState, LogEvent, Outcome, RefereeError};
use eleusis::rule::{Context, Rule};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const RULES: [&str; 4] = [
    "red",
    "if last.odd then black else red",
    "card.suit == last.suit or card.rank == last.rank",
    "if last.black then card.rank >= 7 else card.rank <= 6",
];
const VARIANTS: [&str; 3] = ["new-eleusis", "gardner", "basic"];

fn random_card(rng: &mut ChaCha8Rng) -> Card {
    Card::from_index(rng.gen_range(0..52)).unwrap_or_else(|| unreachable!("index < 52"))
}

/// The rule's verdicts on `cards` played as a sequence, from the state's layout alone;
/// in a sequence, the cards after the first rejected one are not judged (false).
fn reference(rule: &Rule, state: &GameState, cards: &[Card], sequence: bool) -> Vec<bool> {
    let mut main = state.main.clone();
    let wrong: Vec<Card> = state
        .sidelines
        .iter()
        .flat_map(|s| s.plays.iter().flatten().copied())
        .collect();
    let side: Vec<Card> = state
        .sidelines
        .last()
        .filter(|s| s.after + 1 == state.main.len())
        .map(|s| s.plays.iter().flatten().copied().collect())
        .unwrap_or_default();
    let mut verdicts = Vec::new();
    for (i, &card) in cards.iter().enumerate() {
        if sequence && verdicts.contains(&false) {
            verdicts.push(false);
            continue;
        }
        let ctx = Context {
            main: &main,
            side: if i == 0 || !sequence { &side } else { &[] },
            wrong: &wrong,
        };
        verdicts.push(rule.accepts(&ctx, card));
        if sequence {
            main.push(card);
        }
    }
    verdicts
}

fn check_invariants(game: &Game, state: &GameState) {
    let (have, decks) = game.card_balance().expect("a round");
    assert_eq!(
        have, decks,
        "hands + laid + stock = cards of the decks in play"
    );
    assert!(state.hands.0.iter().all(|&(_, h)| h >= 0));
    assert_eq!(
        state.laid as usize,
        state.main.len()
            + state
                .sidelines
                .iter()
                .map(|s| s.plays.iter().map(Vec::len).sum::<usize>())
                .sum::<usize>()
    );
    if let Some(turn) = &state.turn {
        assert!(
            state.hands.get(turn).is_some_and(|h| h > 0),
            "{turn} has no cards"
        );
        assert!(!state.eliminated.contains(turn));
        assert_ne!(state.prophet.as_ref().map(|p| &p.player), Some(turn));
    }
    if let Some(scores) = &state.scores {
        let god = state.god.as_deref().expect("god");
        let best = scores
            .0
            .iter()
            .filter(|(n, _)| n != god)
            .map(|&(_, s)| s)
            .max()
            .expect("players");
        assert!(scores.get(god).is_some_and(|g| g <= best));
    }
}

/// Plays one random legal round (then `end_game`), checking every event. Returns the
/// log and the outcomes.
fn random_game(
    seed: u64,
    rule_index: usize,
    variant: &str,
    players: usize,
) -> (Vec<String>, Vec<Outcome>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let rule_text = RULES[rule_index];
    let rule = Rule::parse(rule_text).expect("rule");
    let names: Vec<String> = (0..players).map(|i| format!("P{i}")).collect();
    let starter = loop {
        let card = random_card(&mut rng);
        if rule.accepts(&Context::default(), card) {
            break card;
        }
    };
    let mut game = Game::new();
    let mut log = Vec::new();
    let mut outcomes = Vec::new();
    let round = serde_json::json!({
        "event": "round", "variant": variant, "god": "God", "players": names,
        "rule": rule_text, "starter": starter.to_string(),
        "hand_size": rng.gen_range(3..=14),
    })
    .to_string();
    outcomes.push(
        game.apply(&LogEvent::parse_line(&round).expect("round"))
            .expect("round"),
    );
    log.push(round);
    let mut last_player: Option<String> = None;
    for _ in 0..rng.gen_range(10..200) {
        let state = game.state();
        check_invariants(&game, &state);
        if state.ended {
            break;
        }
        // Sometimes the player who just played declares himself prophet.
        if let Some(player) = last_player.take().filter(|_| rng.gen_bool(0.15)) {
            let line = serde_json::json!({"event": "prophet", "player": player}).to_string();
            match game.apply(&LogEvent::parse_line(&line).expect("prophet")) {
                Ok(out) => {
                    outcomes.push(out);
                    log.push(line);
                }
                Err(RefereeError::ProphetRefused { .. }) => {}
                Err(e) => panic!("{line}: {e}"),
            }
            continue;
        }
        let state = game.state();
        let turn = state.turn.clone().expect("a player to play");
        let hand = state.hands.get(&turn).expect("hand") as usize;
        let prophet = state.prophet.is_some();
        let mut line = serde_json::Map::new();
        let no_play = rng.gen_bool(0.1);
        let (cards, sequence) = if no_play {
            // Usually the counted size; sometimes not (the referee trusts the hand).
            let shown = if rng.gen_bool(0.1) {
                (hand + 1).max(1)
            } else {
                hand
            };
            (
                (0..shown)
                    .map(|_| random_card(&mut rng))
                    .collect::<Vec<_>>(),
                false,
            )
        } else {
            let n = if rng.gen_bool(0.7) {
                1
            } else {
                rng.gen_range(1..=hand.min(4))
            };
            (
                (0..n).map(|_| random_card(&mut rng)).collect::<Vec<_>>(),
                true,
            )
        };
        let verdicts = reference(&rule, &state, &cards, sequence);
        let truth = if no_play {
            verdicts.iter().all(|v| !v)
        } else {
            verdicts.iter().all(|&v| v)
        };
        let texts: Vec<String> = cards.iter().map(Card::to_string).collect();
        line.insert(
            "event".into(),
            (if no_play { "no_play" } else { "play" }).into(),
        );
        line.insert("player".into(), turn.clone().into());
        line.insert(
            (if no_play { "hand" } else { "cards" }).into(),
            texts.into(),
        );
        let mut says_wrong = false;
        if prophet {
            let call = if rng.gen_bool(0.8) { truth } else { !truth };
            says_wrong = !call;
            line.insert(
                "prophet_says".into(),
                (if call { "right" } else { "wrong" }).into(),
            );
        }
        if no_play && !truth && rng.gen_bool(0.3) {
            // God must take an acceptable card; the prophet (case 4) may take any.
            let acceptable: Vec<Card> = cards
                .iter()
                .zip(&verdicts)
                .filter(|(_, &v)| v)
                .map(|(&c, _)| c)
                .collect();
            let pick = if prophet && says_wrong && rng.gen_bool(0.5) {
                cards[rng.gen_range(0..cards.len())]
            } else {
                acceptable[rng.gen_range(0..acceptable.len())]
            };
            line.insert("pick".into(), pick.to_string().into());
        }
        let text = serde_json::Value::Object(line).to_string();
        let out = game
            .apply(&LogEvent::parse_line(&text).expect("generated line"))
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        // Every verdict is the rule's judgment.
        assert_eq!(
            out.verdicts.iter().map(|v| v.accepted).collect::<Vec<_>>(),
            verdicts,
            "{text}"
        );
        assert_eq!(out.right, Some(truth), "{text}");
        if let Some(call) = &out.prophet_call {
            assert_eq!(
                call.confirmed,
                (call.said == eleusis::referee::Call::Right) == truth
            );
        }
        last_player = (!no_play).then_some(turn);
        outcomes.push(out);
        log.push(text);
    }
    check_invariants(&game, &game.state());
    let end = r#"{"event":"end_game"}"#.to_string();
    outcomes.push(
        game.apply(&LogEvent::parse_line(&end).expect("end"))
            .expect("end_game"),
    );
    log.push(end);
    (log, outcomes)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_legal_games_keep_counts_whole_and_replay_identically(
        seed in any::<u64>(),
        rule_index in 0..RULES.len(),
        variant_index in 0..VARIANTS.len(),
        players in 3usize..=6,
    ) {
        let (log, outcomes) = random_game(seed, rule_index, VARIANTS[variant_index], players);
        // Replaying the log twice gives the same state and the same decisions.
        let (first, first_outcomes) = replay(&log).expect("replay");
        let (second, second_outcomes) = replay(&log).expect("replay again");
        prop_assert_eq!(&first, &second);
        prop_assert_eq!(&first_outcomes, &second_outcomes);
        prop_assert_eq!(&first_outcomes, &outcomes);
        // The export (parse, write back) replays to the same state.
        let exported: Vec<String> = log
            .iter()
            .map(|l| LogEvent::parse_line(l).expect("line").to_line())
            .collect();
        let (again, _) = replay(&exported).expect("replay of the export");
        prop_assert_eq!(&first, &again);
        // Without explanations the referee decides the same.
        prop_assert_eq!(&first, &replay_state(&log).expect("state-only replay"));
        prop_assert!(first.game.ended);
        prop_assert!(first.game.totals.is_some());
    }
}

/// The generator reaches the situations the properties are about; without this the
/// property test could pass by never leaving the first few plays.
#[test]
fn the_generator_reaches_every_kind_of_situation() {
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for seed in 0..120u64 {
        let (_, outcomes) = random_game(
            seed,
            (seed % 4) as usize,
            VARIANTS[(seed % 3) as usize],
            3 + (seed % 4) as usize,
        );
        for out in &outcomes {
            let mut note = |what| *seen.entry(what).or_default() += 1;
            if out.prophet_declared.is_some() {
                note("prophet declared");
            }
            if out.overthrown.is_some() {
                note("prophet overthrown");
            }
            if out.covered {
                note("covered");
            }
            if !out.eliminated.is_empty() {
                note("eliminated");
            }
            if out.round_end.is_some() {
                note("round end");
            }
            if out.new_hand.is_some() {
                note("new hand");
            }
            if out.pick.is_some() {
                note("pick");
            }
            if !out.black_markers.is_empty() {
                note("black marker");
            }
            if out.warnings.iter().any(|w| w.contains("stock ran out")) {
                note("new deck");
            }
            if out.verdicts.len() > 1 && out.event == "play" {
                note("sequence");
            }
        }
    }
    for what in [
        "prophet declared",
        "prophet overthrown",
        "covered",
        "eliminated",
        "round end",
        "new hand",
        "pick",
        "black marker",
        "new deck",
        "sequence",
    ] {
        assert!(
            seen.get(what).copied().unwrap_or(0) > 0,
            "never saw {what}: {seen:?}"
        );
    }
}
