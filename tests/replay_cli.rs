//! `eleusis replay` as a person or a script runs it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn eleusis(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_eleusis"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run eleusis");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes())
            .expect("write stdin");
    } else {
        drop(child.stdin.take());
    }
    child.wait_with_output().expect("wait")
}

fn fixture(name: &str) -> String {
    format!("{}/tests/data/logs/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn a_good_log_prints_the_state_in_the_table_log_shape() {
    let out = eleusis(&["replay", &fixture("002-diagram.jsonl")], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let state = json(&out);
    assert_eq!(state["variant"], "gardner");
    assert_eq!(
        state["main"],
        serde_json::json!(["3H", "5S", "9D", "5C", "KH"])
    );
    assert_eq!(
        state["sidelines"],
        serde_json::json!([
            {"after": 0, "plays": [["8H"]]},
            {"after": 2, "plays": [["JH"], ["7D"], ["8S"]]},
            {"after": 4, "plays": [["4S", "9D", "JC"]]}
        ])
    );
    assert_eq!(state["laid"], 12);
    assert_eq!(state["white_markers"], serde_json::json!([10]));
    assert_eq!(state["black_markers"], serde_json::json!([]));
    assert_eq!(state["prophet"], serde_json::Value::Null);
    assert_eq!(
        state["hands"],
        serde_json::json!({"Ana": 12, "Carlos": 14, "Mario": 19, "Rui": 14})
    );
    assert_eq!(state["eliminated"], serde_json::json!([]));
    assert_eq!(state["turn"], "Rui");
    assert_eq!(state["ended"], false);
    assert_eq!(state["scores"], serde_json::Value::Null);
    assert_eq!(state["game"]["rounds"], 1);
    assert_eq!(state["game"]["totals"], serde_json::Value::Null);
    assert_eq!(state["warnings"], serde_json::json!([]));
}

#[test]
fn a_finished_round_prints_scores_and_a_null_turn() {
    let out = eleusis(&["replay", &fixture("000-scoring.jsonl")], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let state = json(&out);
    assert_eq!(state["turn"], serde_json::Value::Null);
    assert_eq!(state["ended"], true);
    assert_eq!(
        state["scores"],
        serde_json::json!({"Alain": 0, "François": 3, "Jacques": 21, "Philippe": 42, "Pierre": 42})
    );
    assert_eq!(
        state["prophet"],
        serde_json::json!({"player": "Philippe", "marker": 25})
    );
    assert_eq!(state["black_markers"], serde_json::json!([35, 45]));
}

#[test]
fn standard_input_and_end_game_totals() {
    let mut log = std::fs::read_to_string(fixture("000-scoring.jsonl")).expect("fixture");
    log.push_str("{\"event\":\"end_game\"}\n");
    let out = eleusis(&["replay", "-"], Some(&log));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let state = json(&out);
    assert_eq!(
        state["game"]["totals"],
        serde_json::json!({"Alain": 10, "François": 13, "Jacques": 31, "Philippe": 52, "Pierre": 42})
    );
}

#[test]
fn a_bad_line_exits_non_zero_and_names_the_line() {
    let good = std::fs::read_to_string(fixture("002-diagram.jsonl")).expect("fixture");
    let mut lines: Vec<&str> = good.lines().collect();
    // Line 4 claims the wrong player.
    lines.insert(3, r#"{"event":"play","player":"Mario","cards":["2H"]}"#);
    let out = eleusis(&["replay", "-"], Some(&lines.join("\n")));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim(), "line 4: it is Ana's turn, not Mario's");
    assert!(out.stdout.is_empty(), "no state for a rejected log");

    let out = eleusis(&["replay", "-"], Some("{\"event\":\"round\"\n"));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("line 1: not a JSON object"));

    let lines = [good.lines().next().expect("round"), r#"{"event":"deal"}"#];
    let out = eleusis(&["replay", "-"], Some(&lines.join("\n")));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("line 2: unknown event \"deal\""));

    let out = eleusis(&["replay", "/nonexistent/table.jsonl"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/table.jsonl"));
}

#[test]
fn trace_prints_one_line_per_event_with_explanations() {
    let out = eleusis(&["replay", "--trace", &fixture("002-diagram.jsonl")], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 10);
    assert!(lines[1].starts_with("line 2: "), "{}", lines[1]);
    assert!(lines[1].contains("8H: wrong"), "{}", lines[1]);
    assert!(lines[1].contains("8H rejected ("), "{}", lines[1]);
    assert!(lines[1].contains("takes 2 penalty cards"), "{}", lines[1]);
    assert!(
        lines[9].contains("sequence 4S 9D JC: wrong"),
        "{}",
        lines[9]
    );
    assert!(lines[9].contains("6 penalty cards"), "{}", lines[9]);
    assert!(lines[9].contains("white marker on [10]"), "{}", lines[9]);

    let out = eleusis(
        &["replay", "--trace", &fixture("000-sudden-death.jsonl")],
        None,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("sudden death begins (30 cards laid)"),
        "{text}"
    );
    assert!(text.contains("Pierre is eliminated"), "{text}");
    assert!(
        text.contains("Paul is Prophet, marker on laid card 38"),
        "{text}"
    );
}
