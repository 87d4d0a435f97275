//! Record → export → replay round-trips: for every legal table log of the test
//! suite (the referee's fixtures in `tests/data/logs/` and generated games), the
//! log exported from the store replays to exactly the state of the original, for
//! the whole game and for every round.

mod store_support;

use std::path::PathBuf;

use store_support::{acked, export_log, legal_burst, record, replay};

fn fixtures() -> Vec<(String, Vec<String>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/logs");
    let mut logs = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return logs;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("fixture");
        let lines: Vec<String> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect();
        logs.push((path.display().to_string(), lines));
    }
    logs.sort();
    logs
}

/// Whether `eleusis replay` accepts the whole log (fixtures of illegal logs are
/// for the referee's own tests).
fn legal(lines: &[String]) -> bool {
    let mut text = lines.join("\n");
    text.push('\n');
    store_support::eleusis(&["replay", "-"], &text)
        .status
        .success()
}

/// Whether a log line is a `round` event (however the JSON is spaced).
fn starts_round(line: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(line)
        .map(|v| v["event"] == "round")
        .unwrap_or(false)
}

fn round_trip(name: &str, lines: &[String]) {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("rt.db");
    let (replies, output) = record(&db, lines, &[]);
    assert!(
        output.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert_eq!(acked(&replies).len(), lines.len(), "{name}");
    let game = replies[0]["game"].as_str().expect("game").to_string();
    let exported = export_log(&db, &game);
    assert_eq!(replay(&exported), replay(lines), "{name}: whole game");
    // Each round: the game's log up to and including that round.
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| starts_round(l))
        .map(|(i, _)| i)
        .collect();
    for (k, _) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(lines.len());
        let id = format!("{game}.{}", k + 1);
        let exported = export_log(&db, &id);
        assert_eq!(exported.len(), end, "{name}: round {id} length");
        assert_eq!(
            replay(&exported),
            replay(&lines[..end]),
            "{name}: round {id}"
        );
    }
}

#[test]
fn every_legal_fixture_round_trips() {
    let mut tried = 0;
    for (name, lines) in fixtures() {
        if lines.is_empty() || !legal(&lines) {
            continue;
        }
        round_trip(&name, &lines);
        tried += 1;
    }
    assert!(tried > 0, "no legal fixture in tests/data/logs");
}

#[test]
fn generated_multi_round_games_round_trip() {
    for seed in [1, 2] {
        let lines = legal_burst(150, seed);
        let rounds = lines.iter().filter(|l| starts_round(l)).count();
        assert!(rounds >= 2, "seed {seed}: {rounds} rounds");
        round_trip(&format!("generated seed {seed}"), &lines);
    }
}
