//! Replay speed: re-refereeing a 10 000-event table log (parse every line, judge with
//! the rule language, keep the state), the job of `eleusis replay` on a long game.
//! Goal: ≤ 50 ms. Also measured: the same with every outcome explained (`--trace`),
//! and the parsing and refereeing halves apart.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use eleusis::cards::Card;
use eleusis::referee::{replay, replay_state, Game, LogEvent};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const EVENTS: usize = 10_000;
const RULE: &str = "if last.black then card.rank >= 7 else card.rank <= 6";

fn card(rng: &mut ChaCha8Rng) -> String {
    Card::from_index(rng.gen_range(0..52))
        .map(|c| c.to_string())
        .unwrap_or_default()
}

/// A game of as many rounds as it takes to reach `EVENTS` events: random single cards
/// and sequences, the occasional prophet (who calls right nine times in ten) and
/// "no play", rounds ending by a player going out or sudden death.
fn long_log() -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(1977);
    let players = ["Alain", "François", "Jacques", "Philippe", "Pierre"];
    let mut game = Game::new();
    let mut log = Vec::with_capacity(EVENTS);
    let push = |game: &mut Game, log: &mut Vec<String>, line: String| -> bool {
        match LogEvent::parse_line(&line).map(|e| game.apply(&e)) {
            Ok(Ok(_)) => {
                log.push(line);
                true
            }
            _ => false,
        }
    };
    let mut round = 0usize;
    while log.len() < EVENTS - 1 {
        let god = players[round % players.len()];
        let seated: Vec<&str> = players.iter().copied().filter(|p| *p != god).collect();
        let line = serde_json::json!({"event":"round","god":god,"players":seated,"rule":RULE,"starter":"3H"});
        assert!(push(&mut game, &mut log, line.to_string()), "round");
        round += 1;
        while log.len() < EVENTS - 1 {
            let state = game.state();
            let Some(turn) = state.turn.clone() else {
                break;
            };
            let hand = state.hands.get(&turn).unwrap_or(1) as usize;
            let prophet = state.prophet.is_some();
            let mut event = if rng.gen_bool(0.05) {
                let shown: Vec<String> = (0..hand).map(|_| card(&mut rng)).collect();
                serde_json::json!({"event":"no_play","player":turn,"hand":shown})
            } else {
                let n = if rng.gen_bool(0.8) {
                    1
                } else {
                    rng.gen_range(1..=hand.min(4))
                };
                let cards: Vec<String> = (0..n).map(|_| card(&mut rng)).collect();
                serde_json::json!({"event":"play","player":turn,"cards":cards})
            };
            if prophet {
                // Try the call that God will confirm, or (rarely) the other one.
                let first = rng.gen_bool(0.5);
                let mut placed = false;
                for says in [first, !first] {
                    event["prophet_says"] = (if says { "right" } else { "wrong" }).into();
                    let mut probe = game.clone();
                    if let Ok(Ok(out)) =
                        LogEvent::parse_line(&event.to_string()).map(|e| probe.apply(&e))
                    {
                        let confirmed = out.prophet_call.is_some_and(|c| c.confirmed);
                        if confirmed || rng.gen_bool(0.1) {
                            placed = push(&mut game, &mut log, event.to_string());
                            break;
                        }
                    }
                }
                if !placed {
                    push(&mut game, &mut log, event.to_string());
                }
            } else {
                push(&mut game, &mut log, event.to_string());
            }
            if rng.gen_bool(0.05) {
                let line = serde_json::json!({"event":"prophet","player":turn});
                push(&mut game, &mut log, line.to_string());
            }
        }
        if game.state().turn.is_some() {
            break;
        }
    }
    log.push(r#"{"event":"end_game"}"#.to_string());
    log
}

fn bench_replay(c: &mut Criterion) {
    let log = long_log();
    assert_eq!(log.len(), EVENTS, "the log has exactly {EVENTS} events");
    let (state, outcomes) = replay(&log).expect("the generated log replays");
    assert_eq!(outcomes.len(), EVENTS);
    eprintln!(
        "log: {} events, {} rounds, last round laid {} cards",
        log.len(),
        state.game.rounds,
        state.laid
    );
    // What `eleusis replay LOG` does: parse, referee, final state.
    c.bench_function("replay 10 000-event log (state)", |b| {
        b.iter(|| replay_state(black_box(&log)).expect("replay"))
    });
    // What `eleusis replay --trace` and the audit need: every outcome, explained.
    c.bench_function(
        "replay 10 000-event log (outcomes with explanations)",
        |b| b.iter(|| replay(black_box(&log)).expect("replay")),
    );
    // The two halves of a replay, to see where the time goes.
    c.bench_function("parse 10 000 log lines", |b| {
        b.iter(|| {
            black_box(&log)
                .iter()
                .map(|l| LogEvent::parse_line(l).expect("line"))
                .collect::<Vec<_>>()
        })
    });
    let events: Vec<LogEvent> = log
        .iter()
        .map(|l| LogEvent::parse_line(l).expect("line"))
        .collect();
    c.bench_function("referee 10 000 parsed events (no explanations)", |b| {
        b.iter(|| {
            let mut game = Game::new();
            game.set_explanations(false);
            for event in black_box(&events) {
                game.apply(event).expect("legal");
            }
            game.state()
        })
    });
}

/// A game of 10 000 one-card rounds with new names every round (20 000 events): each
/// round's end adds its scores to running totals, so the replay grows with the log,
/// not with its square (summed again at every round's end, it took seconds).
fn bench_many_short_rounds(c: &mut Criterion) {
    let log: Vec<String> = (0..10_000)
        .flat_map(|i| {
            [
                format!(
                    r#"{{"event":"round","variant":"basic","god":"G{i}","players":["A{i}","B{i}"],"rule":"red","starter":"AH","hand_size":1}}"#
                ),
                r#"{"event":"play","cards":["2H"]}"#.to_string(),
            ]
        })
        .collect();
    c.bench_function("replay many short rounds (10 000 rounds, new names)", |b| {
        b.iter(|| replay_state(black_box(&log)).expect("replay"))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench_replay, bench_many_short_rounds
}
criterion_main!(benches);
