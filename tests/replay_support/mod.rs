//! Helpers shared by the tests that replay variant logs through the referee: reading a
//! fixture log, replaying to the state JSON, and expecting a refusal.
#![allow(dead_code)]

use std::path::Path;

use eleusis::referee::{replay, LineError, Outcome};
use serde_json::Value;

/// The lines of `tests/data/logs/NAME`.
pub fn fixture(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/logs")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

/// Replays `lines`, which must be accepted: the state as JSON and every outcome.
pub fn run(lines: &[String]) -> (Value, Vec<Outcome>) {
    let (state, outcomes) = replay(lines).unwrap_or_else(|e| panic!("replay refused: {e}"));
    (serde_json::to_value(&state).expect("state JSON"), outcomes)
}

/// Replays `lines`, which must be refused: the error.
pub fn refused(lines: &[String]) -> LineError {
    match replay(lines) {
        Ok(_) => panic!("the log was accepted: {lines:#?}"),
        Err(e) => e,
    }
}

/// Owned log lines.
pub fn lines(text: &[&str]) -> Vec<String> {
    text.iter().map(|s| s.to_string()).collect()
}
