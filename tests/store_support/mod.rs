//! Helpers shared by the storage tests: running the binary, and building long legal
//! table logs by asking the referee itself which plays it accepts.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use eleusis::cards::Card;
use eleusis::referee::{Game, LogEvent};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

/// A two-round game of `basic` with small hands: round 1 ends (Ana is out), round 2
/// is cut short by `end_game`.
pub const SHORT_GAME: &str = r#"{"event":"round","variant":"basic","god":"Gil","players":["Ana","Bo"],"rule":"red","starter":"AH","hand_size":2}
{"event":"play","player":"Ana","cards":["2H"]}
{"event":"play","player":"Bo","cards":["3S"]}
{"event":"play","player":"Ana","cards":["4D"]}
{"event":"round","variant":"basic","god":"Ana","players":["Bo","Gil"],"rule":"black","starter":"AS","hand_size":2}
{"event":"play","player":"Bo","cards":["5C"]}
{"event":"end_game"}"#;

/// Runs `eleusis ARGS` with `stdin` as its standard input.
pub fn eleusis(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_eleusis"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run eleusis");
    let mut input = child.stdin.take().expect("stdin");
    let text = stdin.to_string();
    let writer = std::thread::spawn(move || {
        // The child may exit early (e.g. a locked database); ignore a closed pipe.
        let _ = input.write_all(text.as_bytes());
    });
    let output = child.wait_with_output().expect("wait");
    let _ = writer.join();
    output
}

/// `eleusis record --db DB` on `lines`; returns the parsed reply lines and the output.
pub fn record(db: &Path, lines: &[String], extra: &[&str]) -> (Vec<Value>, Output) {
    let mut args = vec!["record", "--db", db.to_str().expect("utf-8 path")];
    args.extend_from_slice(extra);
    let mut text = lines.join("\n");
    text.push('\n');
    let output = eleusis(&args, &text);
    let replies = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("reply {l:?}: {e}")))
        .collect();
    (replies, output)
}

/// `eleusis replay -` of `lines`: the state JSON, or panics with the error.
pub fn replay(lines: &[String]) -> Value {
    let mut text = lines.join("\n");
    text.push('\n');
    let output = eleusis(&["replay", "-"], &text);
    assert!(
        output.status.success(),
        "replay failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("replay JSON")
}

/// `eleusis export ID --log --god --db DB`: the exported lines.
pub fn export_log(db: &Path, id: &str) -> Vec<String> {
    let output = eleusis(
        &[
            "export",
            id,
            "--log",
            "--god",
            "--db",
            db.to_str().expect("utf-8 path"),
        ],
        "",
    );
    assert!(
        output.status.success(),
        "export {id} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect()
}

const PEOPLE: [&str; 5] = ["Ana", "Bo", "Cy", "Dee", "Eli"];

/// A legal game log with at least `plays` play events: rounds of new-eleusis under
/// "if last.odd then black else red" with random cards (about half are wrong, so
/// sudden death ends rounds), God rotating. Every line was accepted by the referee.
pub fn legal_burst(plays: usize, seed: u64) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new();
    let mut lines = Vec::new();
    let mut played = 0;
    let mut round = 0usize;
    let random_card = |rng: &mut ChaCha8Rng| Card::from_index(rng.gen_range(0..52)).expect("index");
    let apply = |game: &mut Game, line: String, lines: &mut Vec<String>| -> bool {
        let event = LogEvent::parse_line(&line).expect("generated line parses");
        if game.apply(&event).is_ok() {
            lines.push(line);
            true
        } else {
            false
        }
    };
    while played < plays {
        let state = game.state();
        if state.variant.is_none() || state.ended {
            let god = PEOPLE[round % PEOPLE.len()];
            round += 1;
            let players: Vec<&str> = PEOPLE.iter().copied().filter(|p| *p != god).collect();
            loop {
                let line = serde_json::json!({
                    "event": "round", "variant": "new-eleusis", "god": god, "players": players,
                    "rule": "if last.odd then black else red",
                    "starter": random_card(&mut rng).to_string(),
                })
                .to_string();
                if apply(&mut game, line, &mut lines) {
                    break;
                }
            }
            continue;
        }
        let turn = state.turn.clone();
        let mut done = false;
        for attempt in 0..20 {
            let len = if attempt < 10 && rng.gen_bool(0.25) {
                rng.gen_range(2..=4)
            } else {
                1
            };
            let cards: Vec<String> = (0..len)
                .map(|_| random_card(&mut rng).to_string())
                .collect();
            let mut event = serde_json::json!({"event": "play", "cards": cards});
            if rng.gen_bool(0.5) {
                if let Some(player) = &turn {
                    event["player"] = Value::String(player.clone());
                }
            }
            if apply(&mut game, event.to_string(), &mut lines) {
                done = true;
                break;
            }
        }
        assert!(done, "no legal play found after {} lines", lines.len());
        played += 1;
    }
    lines
}

/// The parsed `ok` replies.
pub fn acked(replies: &[Value]) -> Vec<&Value> {
    replies
        .iter()
        .filter(|r| r["ok"] == Value::Bool(true))
        .collect()
}
